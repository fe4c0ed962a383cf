/** The public API. Environments in actors/ import from here only. */

/** Plain JSON values: what a task, a tool's arguments and the journal hold. */
export type { Json } from "effect/Schema";
export * as Schema from "effect/Schema";
export type { Durability, EpisodeWriter, Journal } from "./journal/journal.ts";
export {
  JsonlJournal,
  journalFilesAt,
  type RepairReport,
  readJournalFile,
  repairJournalFile,
  streamJournalFile,
} from "./journal/jsonl.ts";
export { MemoryJournal } from "./journal/memory.ts";
export { episodeIdOf } from "./journal/stamp.ts";
export { canonicalJson, hashEvent, hashValue } from "./kernel/canonical.ts";
export {
  type AgentR1Error,
  EnvMismatchError,
  EnvProtocolError,
  EpisodesAbortedError,
  isAgentR1Error,
  JournalConflictError,
  JournalError,
  JournalExistsError,
  type JournalPlace,
  type JournalProblem,
  NonDeterminismError,
  UsageError,
} from "./kernel/errors.ts";
export * from "./kernel/events.ts";
export { Rng, splitSeed } from "./kernel/prng.ts";
export { SPECIAL_TOKENS, type Tokenizer, WordTokenizer, type WordTokenizerOptions } from "./kernel/tokenizer.ts";
export { ActionTrie, actionTokens, allowedForAction, constrainTo, legalTrie } from "./policy/legal.ts";
export { type ReplayOptions, type ReplayResult, replayEpisode } from "./replay/replay.ts";
export {
  answerOf,
  callOf,
  formatAnswer,
  formatCall,
  type ParsedAction,
  parseAction,
} from "./runtime/action-format.ts";
export {
  type AgentActEvent,
  assign,
  type Dynamic,
  defineEnv,
  type EnvAction,
  type EnvActionArgs,
  type EnvDefinition,
  type EnvInput,
  end,
  type LegalView,
  observe,
  reward,
  type ToolDoneEvent,
  type TypedAssign,
  toolActors,
} from "./runtime/env.ts";
export { type EpisodeOptions, type EpisodeRecord, runEpisode } from "./runtime/episode.ts";
export type { Policy, PolicyAction, PolicyCallOptions, PolicyRequest, Turn } from "./runtime/policy.ts";
export { PolicyActor } from "./runtime/policy-actor.ts";
export { type Rollout, type RolloutOptions, rollout } from "./runtime/rollout.ts";
export { codeTool, runJavaScript, type SandboxOptions, type SandboxResult } from "./runtime/sandbox.ts";
export { type ScriptedChoice, type ScriptedRequest, scriptedPolicy } from "./runtime/scripted-policy.ts";
export { defineTool, type Tool, type ToolContext, type ToolOutput, type ToolSpec } from "./runtime/tool.ts";

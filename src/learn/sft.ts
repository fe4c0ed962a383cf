/**
 * Behaviour cloning: cross-entropy on the action tokens of recorded episodes (e.g. of the `expert`
 * policy), never on prompt or observation tokens. Writes a checkpoint that `train --init` starts from.
 */

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { seedProblem } from "../cli/args.ts";
import { EpisodeCopies, sameEpisode } from "../journal/copies.ts";
import { readJournalFile } from "../journal/jsonl.ts";
import { canonicalJson } from "../kernel/canonical.ts";
import {
  allKeys,
  checkBooleans,
  checkKnownKeys,
  EnvProtocolError,
  messageOf,
  NonDeterminismError,
  shownValue,
  thrownFrom,
  UsageError,
} from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { Rng, splitSeed } from "../kernel/prng.ts";
import type { WordTokenizer } from "../kernel/tokenizer.ts";
import { enclosingRun, findJournals, isRunFolder, shownPath } from "../observe/journals.ts";
import { initBackend } from "../policy/backend.ts";
import {
  type CheckpointContents,
  CheckpointError,
  checkpointTarget,
  constrainedByDefault,
  loadCheckpoint,
  type OptimizerState,
  removeUnfinishedSaves,
  SFT_PROGRESS,
  SFT_PROGRESS_FILE,
  saveCheckpoint,
  writeFileAtomically,
} from "../policy/checkpoint.ts";
import { Gpt, type GptConfig, gptConfig } from "../policy/gpt.ts";
import { allowedForAction, legalActionsOf, legalTrie, requireLegalActions } from "../policy/legal.ts";
import { replayEpisode } from "../replay/replay.ts";
import { ABORTED } from "../runtime/derive.ts";
import { checkEnvArgument, type EnvDefinition, sameEnvSpec, unconfiguredOf } from "../runtime/env.ts";
import type { Turn } from "../runtime/policy.ts";
import { sameVariantSpec } from "../runtime/variants.ts";
import { AdamW, ZERO_GRADIENT } from "./adamw.ts";
import { actionBudgetNote, actionBudgetOf, checkedModelShape, eosNote, LR_RULE, modelConfigFor } from "./config.ts";
import { checkSignalOption } from "./evaluate.ts";
import { drawPositionOffset, POSITION_OFFSETS, type PositionOffsets } from "./position-offsets.ts";
import { supervisedStep } from "./train-step.ts";
import { loadCheckpointFor } from "./trainer.ts";
import { EpisodeTooLongError, episodeToSequence, type Sequence } from "./trajectory.ts";

/**
 * Options of sft: the environment, the recorded journals (`data`), where the checkpoint goes (`out`), and the
 * training schedule.
 */
export interface SftOptions {
  readonly env: EnvDefinition;
  /** Folder of recorded journals (searched recursively one level: DIR/*.jsonl and DIR/*\/*.jsonl). */
  readonly data: string;
  /** Folder the clone's checkpoint is written to (a checkpoint there is replaced). */
  readonly out: string;
  /** Passes over the data (default 40, as `agent-r1 sft`). */
  readonly epochs?: number;
  /** Episodes per step (default 16). */
  readonly batchSize?: number;
  /** Learning rate (default 0.003). */
  readonly lr?: number;
  /** Seed of the initialisation and shuffling (default "0"); one `sft --seed` refuses ("", a space) is refused. */
  readonly seed?: string;
  /** The tfjs backend (default "auto": the fastest available). */
  readonly backend?: "auto" | "tensorflow" | "webgpu" | "wasm" | "cpu";
  /** The fresh model's shape (default: the environment's, as `train` builds it: modelConfigFor(env)). */
  readonly model?: Partial<GptConfig>;
  /** Continue cloning from this checkpoint (its model replaces `model`); the optimizer starts afresh. */
  readonly init?: string;
  /**
   * Before the epochs, a curriculum by length: for each stage, `steps` batches of episodes cut after their
   * first `actions` actions. A model that must copy names from its context learns it far sooner on short
   * sequences, where those tokens are a large share of the loss (hopqa: 300 steps on first actions
   * only, against no progress in 600 steps on whole episodes). Stages run from short to long: each cuts after
   * more actions than the one before (a repeated or shorter stage is refused, as `sft --curriculum` refuses it).
   */
  readonly curriculum?: readonly { readonly actions: number; readonly steps: number }[];
  /**
   * Clone under the masks of the environment's legal actions (`EnvDefinition.legalActions`): each action's
   * tokens are scored against the ids the constrained sampler would allow, so the clone is the policy that
   * `train --constrained` samples from. A demonstrated action that is not legal stays unconstrained.
   */
  readonly constrained?: boolean;
  /**
   * Randomized position offsets (Ruoss et al. 2023): "random" starts each training row at a position drawn
   * uniformly from [0, contextLength - its length], from its own stream of the seed (the shuffling is
   * unchanged), so that every learned position embedding meets every kind of content. Default "none".
   * Evaluation and sampling are unchanged (offset 0). "mixed": each row at offset 0 with probability 1/2,
   * else as "random" (so the positions evaluation uses keep their full share of training).
   */
  readonly positionOffsets?: PositionOffsets;
  /**
   * The `--env` spec `env` was loaded from (a module's path absolute, with its ?options), written with `data`
   * to the clone's sft.json (and each epoch's saved checkpoint), so that `agent-r1 eval` and `train --init` of
   * the clone know its environment without --env. Without it, no sft.json is written.
   */
  readonly envSpec?: string;
  /**
   * Continue the sft stopped in `out` from its last saved point (`out/sft-progress`), to the clone an unbroken run
   * writes, byte for byte: refused (UsageError) when an argument that shapes the clone differs from the saved
   * ones, when `out` holds a finished clone, or nothing saved. Without it, a stopped sft in `out` is started over.
   */
  readonly resume?: boolean;
  /** Also save a point every this many steps (default: only at each epoch's end, and when stopped). */
  readonly checkpointEvery?: number;
  /** Asked after each step: true saves a point and returns, `stopped: true` (Ctrl-C, from the command line). */
  readonly shouldStop?: () => boolean;
  /** Stops as `shouldStop` does once aborted (after the current step, its progress saved), as train's `signal`. */
  readonly signal?: AbortSignal;
  /** The command that resumes this sft, said by `eval` or `train --init` given its unfinished `out`. */
  readonly command?: string;
  /** Only episodes that ended with metrics.success = 1 (default true when the environment reports success). */
  readonly successfulOnly?: boolean;
  /**
   * After each curriculum step: its stage's index, the steps of that stage taken so far and the step's loss
   * (NaN when it was skipped). A stage takes hundreds of steps (hopqa's 1:300,2:200: minutes), so `sft` shows
   * its progress from here.
   */
  readonly onCurriculumStep?: (stage: number, step: number, loss: number) => void;
  /** After each curriculum stage (its index and last batch loss). */
  readonly onStage?: (stage: number, loss: number) => void;
  /**
   * After each step of an epoch: the epoch's index, the steps of it taken so far, its steps in all and the mean
   * loss of its steps so far (NaN while every one was skipped). An epoch of hopqa's 800 demonstrations takes
   * minutes, so `sft` shows its progress from here.
   */
  readonly onEpochStep?: (epoch: number, step: number, steps: number, loss: number) => void;
  /** Once, before this call's first step of an epoch: where the epochs stand (a resumed clone's), as onEpochStep. */
  readonly onEpochsStart?: (epoch: number, step: number, steps: number) => void;
  /** After each epoch; `save(dir)` writes a checkpoint of the model as it is now (e.g. to compare epochs). */
  readonly onEpoch?: (epoch: number, loss: number, save: (dir: string) => Promise<void>) => void | Promise<void>;
  readonly log?: (line: string) => void;
}

/** What sft trained on, and its mean loss per epoch. */
export interface SftResult {
  /** Episodes cloned. */
  readonly episodes: number;
  /** The action tokens of the episodes cloned, each counted once: what one epoch trains on. */
  readonly actionTokens: number;
  /** The action tokens trained on over all steps (curriculum and epochs): each epoch counts them again. */
  readonly tokens: number;
  /** Mean loss of each epoch, in order. */
  readonly losses: readonly number[];
  /** The most tokens one demonstrated action takes: sampling needs at least this budget (`maxNewTokens`). */
  readonly longestAction: number;
  /** Stopped by `shouldStop` before its end: no clone yet, its progress saved in `out` for `resume`. */
  readonly stopped?: boolean;
}

/**
 * The episode's events with each action's allowed ids filled in, as constrained decoding would have
 * recorded them: the legal actions the environment declares for the history before that action. Returns
 * how many actions were not legal (left unconstrained).
 */
export const withLegalMasks = (env: EnvDefinition, events: readonly EpisodeEvent[]) => {
  const started = events.find((e) => e.type === "episode.started");
  const history: Turn[] = [];
  let illegal = 0;
  /** The first action that is not legal, with what legalActions listed then: what a user needs to find the bug. */
  let firstIllegal: { turn: number; text: string; legal: readonly string[] } | undefined;
  const annotated = events.map((event): EpisodeEvent => {
    if (event.type === "env.observed") history.push({ role: "observation", text: event.text, tokens: event.tokens });
    if (event.type !== "agent.acted" || started?.type !== "episode.started") return event;
    const view = { task: started.task, history: [...history] };
    const trie = legalTrie(env, view);
    history.push({ role: "action", text: event.text, tokens: event.tokens });
    const allowed = allowedForAction(trie, event.tokens);
    if (allowed === undefined) {
      if (trie !== null) {
        illegal++;
        firstIllegal ??= { turn: event.turn, text: event.text, legal: legalActionsOf(env, view) ?? [] };
      }
      return event;
    }
    return { ...event, allowed };
  });
  return { events: annotated, illegal, ...(firstIllegal ? { firstIllegal } : {}) };
};

const quoted = (text: string) => JSON.stringify(text);

/**
 * withLegalMasks for a demonstration file: a legalActions that throws, returns [] or a malformed call on one of its
 * histories is the environment's bug, said in one line naming the file (and the line that threw), not a stack.
 */
const legalMasksOf = (env: EnvDefinition, events: readonly EpisodeEvent[], file: string) => {
  try {
    return withLegalMasks(env, events);
  } catch (cause) {
    // legal.ts says each of these as an EnvProtocolError; only a throw of legalActions' own has a line to name.
    const said = cause instanceof EnvProtocolError ? cause.detail : messageOf(cause);
    const at = cause instanceof EnvProtocolError && cause.cause !== undefined ? thrownFrom(cause.cause) : undefined;
    throw new EnvProtocolError({
      env: env.id,
      detail: `${said}${at ? ` (thrown at ${at})` : ""}, on the history of ${file} (sft --constrained asks legalActions for every demonstrated turn)`,
    });
  }
};

/** The journal files of --data, checked before anything slow starts (loading a backend takes a while). */
const demonstrationFiles = async (data: string, flag = "--data"): Promise<string[]> => {
  if (!existsSync(data)) throw new UsageError({ detail: `${flag} ${data}: no such file or folder` });
  // A folder of `record`, or a run folder of `train` (its episodes/uNNNNN/ journals; metrics.jsonl is no journal).
  const files = await findJournals(data).catch((error: unknown) => {
    throw error instanceof UsageError ? new UsageError({ detail: `${flag}: ${error.detail}` }) : error;
  });
  if (files.length === 0) {
    // A folder inside a run (its checkpoints/) or a checkpoint: record cannot write there, so the hint was wrong.
    const run = enclosingRun(data);
    throw new UsageError({
      detail:
        run && run !== resolve(data)
          ? `no .jsonl journals in ${data}: it is inside the train run folder ${shownPath(run)}, whose journals are its episodes/ (and warm-start/demos/): give ${flag} ${shownPath(run)}, or ${join(shownPath(run), "episodes")} for the policy's alone`
          : existsSync(join(data, "manifest.json"))
            ? `${flag} ${data} is a checkpoint folder (weights), not journals: give a folder of recorded journals (\`npx agent-r1 record --policy expert --out DIR\`)`
            : `no .jsonl journals in ${data} or its subfolders (record some with \`npx agent-r1 record --policy expert --out ${data}\`)`,
    });
  }
  return files;
};

export const loadSequences = async (
  env: EnvDefinition,
  files: readonly string[],
  contextLength: number,
  successfulOnly = true,
  constrained = false,
  log: (line: string) => void = () => {},
) => {
  if (constrained) requireLegalActions(env);
  let illegal = 0;
  let firstIllegal: (NonNullable<ReturnType<typeof withLegalMasks>["firstIllegal"]> & { file: string }) | undefined;
  let unsuccessful = 0;
  /** Episodes that ended in an error (the environment's or the policy's): no demonstration to clone. */
  const aborted: { file: string; reason: string }[] = [];
  const cutShort: string[] = [];
  const sequences: Sequence[] = [];
  const copies = new EpisodeCopies();
  /** Demonstrations longer than the context, and the longest of them. */
  const tooLong: { count: number; longest?: { file: string; what: string; tokens: number } } = { count: 0 };
  for (const file of files) {
    const events = await readJournalFile(file);
    const earlier = copies.earlier(file, events.at(-1)?.digest);
    if (earlier !== undefined)
      throw new UsageError({
        detail: `${sameEpisode(earlier, file, events[0]?.episode)}: it would be cloned twice; remove one of them (a file manager's "(copy)", a folder copied in twice, or the same --seed recorded twice)`,
      });
    if (events[0]?.type === "episode.started" && events[0].env.id !== env.id)
      throw new UsageError({
        detail: `${file} is an episode of ${events[0].env.id}, not ${env.id}: clone it under the environment it was recorded in (agent-r1 sft --env ${events[0].env.id} where that is built in, else --env with the path of the module that defines ${events[0].env.id})`,
      });
    // Token ids are what is cloned: ids of another vocabulary would teach the model other words (replay, which
    // re-judges the texts, passes them: it checks tokens only under the tokenizer they were recorded with).
    if (events[0]?.type === "episode.started" && events[0].tokenizer !== env.tokenizer.id)
      throw new UsageError({
        detail: `${file} was recorded with tokenizer ${events[0].tokenizer}, not environment ${env.id}'s (${env.tokenizer.id}): its token ids spell other words under this tokenizer, so cloning it would teach the model noise; record the demonstrations again with this environment (its tokenizer changed: another vocabulary, or spaces "implicit")`,
      });
    // A record stopped mid-episode (Ctrl-C, a kill) leaves journals without an end: nothing to clone.
    if (events.length > 0 && events.at(-1)?.type !== "episode.ended") {
      cutShort.push(file);
      continue;
    }
    try {
      replayEpisode(events, env, { file });
    } catch (error) {
      if (!(error instanceof NonDeterminismError)) throw error;
      throw new UsageError({
        detail: `${error.message}\n${file} does not replay under this environment (recorded with another version of it?); record the demonstrations again`,
      });
    }
    const ended = events.at(-1);
    if (ended?.type === "episode.ended" && ended.reason.startsWith(ABORTED)) {
      aborted.push({ file, reason: ended.reason.slice(ABORTED.length) });
      continue;
    }
    if (
      successfulOnly &&
      ended?.type === "episode.ended" &&
      "success" in ended.metrics &&
      ended.metrics.success !== 1
    ) {
      unsuccessful++;
      continue;
    }
    try {
      if (constrained) {
        const masked = legalMasksOf(env, events, file);
        illegal += masked.illegal;
        if (masked.firstIllegal) firstIllegal ??= { ...masked.firstIllegal, file };
        sequences.push(episodeToSequence(masked.events, { maxTokens: contextLength }));
      } else sequences.push(episodeToSequence(events, { maxTokens: contextLength }));
    } catch (error) {
      if (!(error instanceof EpisodeTooLongError)) throw error;
      // Every one is read first: the first found named a context that the next, longer one refused again.
      tooLong.count += 1;
      if (tooLong.longest === undefined || error.tokens > tooLong.longest.tokens)
        tooLong.longest = { file, what: error.what, tokens: error.tokens };
    }
  }
  if (tooLong.longest !== undefined) {
    const { file, what, tokens } = tooLong.longest;
    throw new UsageError({
      detail:
        `${file}: ${what} has ${tokens} tokens, more than the model's context of ${contextLength}` +
        (tooLong.count > 1 ? ` (the longest of ${tooLong.count} demonstrations that do not fit)` : "") +
        `; clone into a new model with --context-length ${tokens} or more (not with --init, whose context is ` +
        "fixed), or record shorter episodes",
    });
  }
  if (illegal > 0 && firstIllegal !== undefined) {
    const { file, turn, text, legal } = firstIllegal;
    const listed =
      legal.length > 6
        ? `${legal.slice(0, 6).map(quoted).join(", ")}, ... (${legal.length})`
        : legal.map(quoted).join(", ");
    log(
      `sft: ${illegal} demonstrated actions are not among the legal ones, so they are cloned without masks (a constrained sampler can never write them); the first, ${file} turn ${turn}: ${quoted(text)}, where legalActions listed ${listed}: fix legalActions (or the demonstrator) so that it lists every action worth taking`,
    );
  }
  if (cutShort.length > 0)
    log(
      `sft: ${cutShort.length} of ${files.length} journals were cut short (no episode.ended: their record was stopped mid-episode) and are not cloned; the first, ${cutShort[0]}`,
    );
  if (aborted.length > 0)
    log(
      `sft: ${aborted.length} of ${files.length} episodes aborted and are not cloned; the first, ${aborted[0].file}: ${aborted[0].reason}`,
    );
  if (unsuccessful > 0 && sequences.length > 0)
    log(
      `sft: ${unsuccessful} of ${files.length} episodes did not succeed and are not cloned (sft --all-episodes, or successfulOnly: false from code, clones them too; train's warm start clones the successful ones only)`,
    );
  if (sequences.length === 0 && files.length > 0) {
    const why = [
      unsuccessful > 0 ? `${unsuccessful} did not succeed` : "",
      aborted.length > 0 ? `${aborted.length} aborted` : "",
      cutShort.length > 0 ? `${cutShort.length} were cut short` : "",
    ].filter((part) => part !== "");
    throw new UsageError({
      detail:
        `no episode to clone: of the ${files.length} journal${files.length === 1 ? "" : "s"}, ${why.join(", ")}` +
        (unsuccessful > 0
          ? "; only successful episodes are cloned unless told: --all-episodes (successfulOnly: false from code) clones the unsuccessful ones too"
          : "; record episodes that end (with another policy, or after fixing what aborted them)"),
    });
  }
  return sequences;
};

/** The sequence up to the end of its n-th action (all of it when it has fewer). */
export const firstActions = (sequence: Sequence, n: number): Sequence => {
  let seen = 0;
  for (let i = 0; i < sequence.tokens.length; i++) {
    const endsAction = sequence.actionMask[i] === 1 && sequence.actionMask[i + 1] !== 1;
    if (endsAction && ++seen === n) {
      // Every per-token array is cut at the same place.
      const length = sequence.tokens.length;
      const cut = Object.entries(sequence).map(([key, value]) => [
        key,
        Array.isArray(value) && value.length === length ? value.slice(0, i + 1) : value,
      ]);
      return Object.fromEntries(cut) as unknown as Sequence;
    }
  }
  return sequence;
};

/** Every option sft reads (any other is a misspelling, refused by name). */
const SFT_OPTIONS = allKeys<SftOptions>()([
  "env",
  "data",
  "out",
  "epochs",
  "batchSize",
  "lr",
  "seed",
  "backend",
  "model",
  "init",
  "curriculum",
  "constrained",
  "positionOffsets",
  "envSpec",
  "successfulOnly",
  "resume",
  "checkpointEvery",
  "shouldStop",
  "signal",
  "command",
  "onCurriculumStep",
  "onStage",
  "onEpochStep",
  "onEpochsStart",
  "onEpoch",
  "log",
]);

/**
 * Why a curriculum's stages are out of order, or undefined: it runs from short to long, each stage cutting the
 * episodes after more actions than the one before (a stage repeated, or a shorter one after a longer, is most
 * likely a slip: 2:10,1:10 for 1:10,2:10). What `sft --curriculum` and sft's `curriculum` both refuse.
 */
export const curriculumOrderProblem = (
  stages: readonly { readonly actions: number; readonly steps: number }[],
): string | undefined => {
  for (let i = 1; i < stages.length; i++) {
    const [before, stage] = [stages[i - 1], stages[i]];
    if (stage.actions > before.actions) continue;
    const same = stage.actions === before.actions;
    return `stage ${i + 1} (${stage.actions}:${stage.steps}) cuts after ${same ? "as many actions as" : "fewer actions than"} stage ${i} (${before.actions}:${before.steps}): a curriculum runs from short to long, each stage on more first actions than the one before${same ? ` (one stage of ${stage.actions}: ${stage.actions}:${before.steps + stage.steps})` : ""}`;
  }
  return undefined;
};

/** The options with their defaults, each checked: a wrong one is a UsageError naming it, before any work. */
const sftOptions = (options: SftOptions, userSeed: boolean) => {
  try {
    checkKnownKeys("sft", options, SFT_OPTIONS);
  } catch (error) {
    throw new UsageError({ detail: (error as Error).message });
  }
  const wrong = (what: string, value: unknown) =>
    new UsageError({
      detail: `sft: ${what}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`,
    });
  checkEnvArgument("sft", options.env, "env");
  const { env } = options;
  // From plain JavaScript, `constrained: "no"` is truthy: it would clone under the masks, not refuse.
  checkBooleans(options, ["constrained", "successfulOnly", "resume"], wrong);
  if (options.envSpec !== undefined && (typeof options.envSpec !== "string" || options.envSpec.trim() === ""))
    throw wrong("envSpec must be the --env spec the environment was loaded from", options.envSpec);
  for (const key of ["data", "out"] as const)
    if (typeof options[key] !== "string" || options[key] === "")
      throw wrong(
        `${key} must be a folder path (${key === "data" ? "of recorded journals" : "for the checkpoint"})`,
        options[key],
      );
  const whole = (key: "epochs" | "batchSize" | "checkpointEvery", fallback: number) => {
    const value = options[key] ?? fallback;
    if (!Number.isInteger(value) || value < 1) throw wrong(`${key} must be a whole number >= 1`, options[key]);
    return value;
  };
  if (options.checkpointEvery !== undefined) whole("checkpointEvery", 1);
  const lr = options.lr ?? 3e-3;
  if (typeof lr !== "number" || !Number.isFinite(lr) || lr <= 0) throw wrong(LR_RULE, options.lr);
  const seed = options.seed ?? "0";
  if (typeof seed !== "string") throw wrong("seed must be a string", options.seed);
  // The rule of `sft --seed` (and of train's and evaluate's seeds), in its words: sft from code takes what the CLI takes.
  const seedRefused = userSeed ? seedProblem(seed, "sft: seed") : undefined;
  if (seedRefused !== undefined) throw new UsageError({ detail: seedRefused });
  const positionOffsets = options.positionOffsets ?? "none";
  if (!POSITION_OFFSETS.includes(positionOffsets))
    throw wrong('positionOffsets must be "none", "random" or "mixed"', options.positionOffsets);
  if (options.model !== undefined && (typeof options.model !== "object" || options.model === null))
    throw wrong("model must be an object of GPT fields (layers, heads, width, contextLength, ...)", options.model);
  // A fresh model's shape (heads dividing width, whole layers, ...) is checked here, before anything is read,
  // removed or written: not when the model is built, after a stopped sft's progress was cleared. Its turn
  // starts are the environment's, found later.
  const model: Partial<GptConfig> = options.model ?? modelConfigFor(env);
  if (!options.init) checkedModelShape(model, env.tokenizer.size, "sft");
  // The curriculum too, before a stopped sft's progress is cleared.
  const stages: unknown = options.curriculum ?? [];
  if (!Array.isArray(stages))
    throw wrong("curriculum must be a list of stages { actions, steps }, like [{ actions: 1, steps: 300 }]", stages);
  for (const [index, stage] of stages.entries())
    if (
      typeof stage !== "object" ||
      stage === null ||
      !(Number.isInteger(stage.actions) && stage.actions >= 1 && Number.isInteger(stage.steps) && stage.steps >= 0)
    )
      throw new UsageError({
        detail: `sft: curriculum stage ${index + 1} must be { actions: an integer >= 1, steps: an integer >= 0 }, got ${JSON.stringify(stage) ?? String(stage)}`,
      });
  const disorder = curriculumOrderProblem(stages);
  if (disorder !== undefined) throw new UsageError({ detail: `sft: curriculum ${disorder}` });
  // With init and no constrained, cloned as `sft --init` clones: under the masks when the checkpoint was trained so.
  const constrained =
    options.constrained ?? (typeof options.init === "string" && constrainedByDefault(env, options.init));
  return {
    ...options,
    constrained,
    env,
    epochs: whole("epochs", 40),
    batchSize: whole("batchSize", 16),
    lr,
    seed,
    positionOffsets,
    backend: options.backend ?? "auto",
    model,
  };
};

/** What must be the same for `resume` to continue an sft where it stopped: its arguments, as the flags name them. */
interface SftArguments {
  readonly env: string;
  readonly data: string;
  /** SHA-256 of the episodes cloned (their tokens, masks and allowed ids): journals changed under --data. */
  readonly episodes: { readonly count: number; readonly sha256: string };
  readonly epochs: number;
  readonly batchSize: number;
  readonly lr: number;
  readonly seed: string;
  readonly init: string | null;
  readonly curriculum: string;
  readonly constrained: boolean;
  readonly positionOffsets: string;
  readonly successfulOnly: boolean;
  readonly model: Readonly<Record<string, unknown>>;
}

/** The flag of each argument and of each model field, for the refusal of a --resume whose arguments differ. */
const ARGUMENT_FLAGS: Readonly<Record<string, string>> = {
  env: "--env",
  data: "--data",
  epochs: "--epochs",
  batchSize: "--batch-size",
  lr: "--lr",
  seed: "--seed",
  init: "--init",
  curriculum: "--curriculum",
  constrained: "--constrained",
  positionOffsets: "--position-offsets",
  successfulOnly: "--all-episodes",
  "model.layers": "--layers",
  "model.heads": "--heads",
  "model.width": "--width",
  "model.contextLength": "--context-length",
  "model.copy": "--copy-head",
  "model.positions": "--positions",
  "model.attention": "--attention",
  "model.turnStarts": "--attention",
};

const Finite = Schema.Finite;
const Whole = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const RngState = Schema.Array(Schema.Int);
const SftProgressFile = Schema.Struct({
  format: Schema.Literal("agent-r1/sft-progress"),
  formatVersion: Schema.Literal(1),
  /** The saved point's checkpoint folder (weights and optimizer state) in SFT_PROGRESS. */
  dir: Schema.String.check(Schema.isPattern(/^s\d+$/)),
  /** Steps taken, curriculum and epochs together. */
  steps: Whole,
  /** The curriculum stage it is in (the number of stages once in the epochs), the steps of it taken and its last loss. */
  stage: Whole,
  stageStep: Whole,
  stageLoss: Schema.NullOr(Finite),
  /** The epoch it is in (the epochs done), the next batch's start in that epoch's order, and the order when begun. */
  epoch: Whole,
  batch: Whole,
  order: Schema.NullOr(Schema.Array(Whole)),
  /** The epoch's loss so far: the sum of loss x tokens and the tokens. */
  total: Finite,
  count: Whole,
  tokens: Whole,
  /** The mean loss of each epoch done (null: every step of it was skipped). */
  losses: Schema.Array(Schema.NullOr(Finite)),
  rng: RngState,
  offsetRng: RngState,
  arguments: Schema.Unknown,
  /** The command that resumes it (`agent-r1 sft ... --resume`), when started from the command line. */
  command: Schema.optionalKey(Schema.String),
});
type SftProgress = typeof SftProgressFile.Type;

const progressFolder = (out: string) => join(out, SFT_PROGRESS);

/**
 * The progress an sft stopped before its end left in `out` (its last saved point, where it was, its
 * arguments), or undefined when there is none. A damaged progress.json is a UsageError naming it.
 */
export const sftProgressIn = (out: string): SftProgress | undefined => {
  const file = join(progressFolder(out), SFT_PROGRESS_FILE);
  if (!existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError({
      detail: `${file} is damaged (${(error as Error).message}): the sft in ${out} cannot be resumed; --replace starts it over`,
    });
  }
  const decoded = Schema.decodeUnknownResult(SftProgressFile as unknown as Schema.Codec<unknown, unknown>)(json);
  if (Result.isFailure(decoded))
    throw new UsageError({
      detail: `${file} is damaged (${String(decoded.failure.message).replace(/\s*\n\s*/g, " ")}): the sft in ${out} cannot be resumed; --replace starts it over`,
    });
  return decoded.success as SftProgress;
};

/** `2 of 5 epochs done` (and the curriculum or the epoch's steps begun). */
export const describeSftProgress = (progress: SftProgress): string => {
  const args = progress.arguments as SftArguments;
  const stages = args.curriculum === "" ? 0 : args.curriculum.split(",").length;
  if (progress.stage < stages)
    return `in curriculum stage ${progress.stage + 1} of ${stages}, ${progress.stageStep} steps into it; 0 of ${args.epochs} epochs done`;
  return `${progress.epoch} of ${args.epochs} epoch${args.epochs === 1 ? "" : "s"} done${progress.batch > 0 ? `, ${Math.ceil(progress.batch / args.batchSize)} steps into the next` : ""}`;
};

const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value ?? null));

/**
 * The words of sft's refusals: its flags on the command line (where `command` is given), its options from code,
 * which has no --replace (an sft without resume starts a stopped one over) and no --epochs.
 */
const wordsFor = (fromCode: boolean) => ({
  resume: fromCode ? "resume" : "--resume",
  data: fromCode ? "data" : "--data",
  without: fromCode ? "without resume: true" : "without --resume",
  over: fromCode ? "an sft without resume: true starts it over" : "--replace starts it over",
  name: (key: string) => (fromCode ? (key === "env" ? "envSpec" : key) : (ARGUMENT_FLAGS[key] ?? key)),
});

/** The first argument that differs from the saved ones, as a UsageError naming its flag (option) and both values. */
const checkSameArguments = (
  out: string,
  saved: SftArguments,
  now: SftArguments,
  keys: readonly string[],
  words: ReturnType<typeof wordsFor>,
) => {
  const flat = (args: SftArguments): Record<string, unknown> => {
    const { model, ...rest } = args;
    return { ...rest, ...Object.fromEntries(Object.entries(model ?? {}).map(([k, v]) => [`model.${k}`, v])) };
  };
  const before = flat(saved);
  const after = flat(now);
  for (const key of keys.flatMap((k) =>
    k === "model"
      ? [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((m) => m.startsWith("model."))
      : [k],
  )) {
    if (canonicalJson(before[key] ?? null) === canonicalJson(after[key] ?? null)) continue;
    // The same options in another order are the same environment.
    if (key === "env" && sameEnvSpec(String(before[key]), String(after[key]))) continue;
    const flag = words.name(key);
    const detail =
      key === "episodes"
        ? `${words.data} ${now.data}: its journals are not those the stopped sft was cloning (${saved.episodes.count} episodes then, ${now.episodes.count} now${saved.episodes.count === now.episodes.count ? ", not the same ones" : ""})`
        : `${flag} differs from the stopped sft's: ${shown(before[key])} then, ${shown(after[key])} now`;
    throw new UsageError({
      detail: `${words.resume}: ${detail}; the sft in ${out} continues only with the arguments it was started with (give them again), or ${words.over}`,
    });
  }
};

/**
 * The ids that start a turn under turn-local attention: the opening tag of each of the environment's actions
 * (`<answer>` and `<tool>` for each tool), each of which must be one token of its tokenizer.
 */
export const turnStartsOf = (env: Pick<EnvDefinition, "id" | "tools">, tokenizer: WordTokenizer): number[] =>
  [...Object.values(env.tools).map((tool) => tool.name), "answer"].map((name) => {
    const ids = tokenizer.encode(`<${name}>`);
    if (ids.length !== 1)
      throw new UsageError({
        detail: `turn-local attention finds turns by the token that opens each action, but ${env.id}'s tokenizer writes <${name}> as ${ids.length} tokens (add "<${name}>" to its vocabulary)`,
      });
    return ids[0];
  });

/** Every field of a fresh model, defaults included: a flag given now that gives the default is no change. */
const normalModel = (model: Partial<GptConfig>) => {
  const config = gptConfig(model);
  return { ...config, copy: !!config.copy, positions: config.positions ?? "learned" };
};

/** SHA-256 of what is cloned: a --resume over other journals would not give the clone an unbroken run gives. */
const episodesDigest = (sequences: readonly Sequence[]) => {
  const hash = createHash("sha256");
  for (const s of sequences)
    hash.update(JSON.stringify([s.tokens, s.actionMask, (s as { allowed?: unknown }).allowed ?? null]));
  return { count: sequences.length, sha256: hash.digest("hex") };
};

/** NaN (an epoch whose every step was skipped) as null in JSON, and back. */
const toJson = (x: number) => (Number.isFinite(x) ? x : null);
const fromJson = (x: number | null) => x ?? Number.NaN;

/**
 * Behaviour cloning from recorded journals into a checkpoint at `out` (what `agent-r1 sft` runs). Throws a UsageError
 * when `data` holds no usable episodes. It saves its progress in `out/sft-progress` at each epoch's end (and
 * every `checkpointEvery` steps), and when `shouldStop` says so after a step; `resume: true` continues from
 * the last one, to the clone an unbroken run writes, byte for byte.
 */
export const sft = (given: SftOptions): Promise<SftResult> => sftSeeded(given, true);

/**
 * sft on a seed made from one checked already (a warm start's `SEED:warm-start`): any string, since the suffix may
 * take it past the 100 characters a seed given by a user may have.
 */
export const sftDerived = (given: SftOptions): Promise<SftResult> => sftSeeded(given, false);

const sftSeeded = async (given: SftOptions, userSeed: boolean): Promise<SftResult> => {
  // From plain JavaScript: sft() without options failed as "Cannot destructure property 'shouldStop'".
  if (typeof given !== "object" || given === null)
    throw new UsageError({
      detail: `sft: the options must be an object, e.g. sft({ env, data: "runs/demos", out: "runs/clone" }), got ${shownValue(given)}`,
    });
  try {
    checkSignalOption("sft", given.signal);
  } catch (error) {
    throw new UsageError({ detail: (error as Error).message });
  }
  const { shouldStop: asked, signal, ...rest } = given;
  const options = sftOptions(
    {
      ...rest,
      ...(asked || signal ? { shouldStop: () => asked?.() === true || signal?.aborted === true } : {}),
    },
    userSeed,
  );
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const out = options.out;
  const progressDir = progressFolder(out);
  // From code (no command to resume with), refusals name sft's options, not the CLI's flags.
  const words = wordsFor(options.command === undefined);
  // Refused before the epochs, not after them.
  const target = checkpointTarget(out);
  const saved = options.resume ? sftProgressIn(out) : undefined;
  if (options.resume && !saved)
    throw new UsageError({
      detail: existsSync(progressDir)
        ? `${words.resume}: ${out} holds no saved point of its sft (it was stopped before its first: an sft saves one at each epoch's end${options.checkpointEvery ? ` and every ${options.checkpointEvery} steps` : ""}, and when stopped by a signal), so nothing can be resumed: start it again ${options.command === undefined ? words.without : "without --resume (with --replace)"}`
        : target === "checkpoint"
          ? `${words.resume}: ${out} holds a finished clone (its sft ran to its end): nothing to resume; eval it or train --init from it, or clone again ${options.command === undefined ? `${words.without} (the clone replaces it)` : "with --replace (without --resume)"}`
          : `${words.resume}: ${out} holds no stopped sft to resume (no ${join(out, SFT_PROGRESS)}): start it ${words.without}`,
    });
  if (!options.resume && existsSync(progressDir)) {
    const earlier = sftProgressIn(out);
    log(
      `sft: ${out} holds an sft stopped before its end${earlier ? ` (${describeSftProgress(earlier)})` : ""}; starting it over (resume continues it)`,
    );
    await rm(progressDir, { recursive: true, force: true });
  } else if (target === "checkpoint" && !saved) log(`sft: ${out} holds a checkpoint; the clone replaces it`);
  const files = await demonstrationFiles(options.data, words.data);
  // A run folder also holds its warm start's demonstrations (warm-start/demos): cloned too, and said so.
  const fromWarmStart = isRunFolder(options.data)
    ? files.filter((file) => relative(options.data, file).split(sep)[0] === "warm-start").length
    : 0;
  if (fromWarmStart > 0)
    log(
      `sft: ${options.data} is a run folder: ${files.length - fromWarmStart} of its journals are the policy's episodes and ${fromWarmStart} its warm start's demonstrations (warm-start/); all are cloned (give --data ${join(options.data, "episodes")} for the policy's alone)`,
    );
  const stages = options.curriculum ?? [];
  const tokenizer = options.env.tokenizer as WordTokenizer;
  const shape: Partial<GptConfig> = options.model;
  const fresh: Partial<GptConfig> = {
    vocabSize: tokenizer.size,
    ...shape,
    ...(shape.attention === "turn-local" && shape.turnStarts === undefined && !options.init
      ? { turnStarts: turnStartsOf(options.env, tokenizer) }
      : {}),
  };
  const savedArguments = saved?.arguments as SftArguments | undefined;
  // A resume's env spec: the same options in another order are the same environment, and so are a built-in
  // environment's options spelt another way (hopqa's `?world-seed=5` is `?worlds=5-5`), as `sft --resume --env`
  // takes them; those keep the stopped sft's spelling, as the CLI does (the order alone keeps the one given).
  const specGiven = options.envSpec ?? options.env.id;
  const envSpec =
    savedArguments !== undefined &&
    typeof savedArguments.env === "string" &&
    !sameEnvSpec(savedArguments.env, specGiven) &&
    sameVariantSpec(unconfiguredOf(options.env), savedArguments.env, specGiven)
      ? savedArguments.env
      : options.envSpec;
  const argumentsNow = (
    episodes: SftArguments["episodes"],
    model: GptConfig | Record<string, unknown>,
  ): SftArguments => ({
    env: envSpec ?? options.env.id,
    data: resolve(options.data),
    episodes,
    epochs: options.epochs,
    batchSize: options.batchSize,
    lr: options.lr,
    seed: options.seed,
    init: options.init ? resolve(options.init) : null,
    curriculum: stages.map((stage) => `${stage.actions}:${stage.steps}`).join(","),
    constrained: !!options.constrained,
    positionOffsets: options.positionOffsets,
    successfulOnly: options.successfulOnly ?? true,
    // Every field of a fresh model, defaults included (a flag given now that gives the default is no change).
    model: options.init ? {} : normalModel(model as GptConfig),
  });
  // What needs no journal read is checked before the backend loads (seconds), the journals after.
  const CHEAP = [
    "env",
    "data",
    "epochs",
    "batchSize",
    "lr",
    "seed",
    "init",
    "curriculum",
    "constrained",
    "positionOffsets",
    "successfulOnly",
    "model",
  ];
  if (savedArguments)
    checkSameArguments(out, savedArguments, argumentsNow({ count: 0, sha256: "" }, fresh), CHEAP, words);
  await initBackend(options.backend, { log });
  let model: Gpt;
  let optimizerState: OptimizerState | undefined;
  if (saved) {
    await removeUnfinishedSaves(progressDir);
    const point = await loadCheckpoint(join(progressDir, saved.dir)).catch((error: unknown) => {
      // Its only saved point (each save replaces the one before): the damage alone named no way on.
      if (!(error instanceof CheckpointError)) throw error;
      throw new UsageError({
        detail: `${words.resume}: the saved point of the sft stopped in ${out} is damaged (${error.message}), so it cannot be resumed; ${words.over}`,
      });
    });
    model = point.model;
    optimizerState = point.optimizer;
  } else
    model = options.init
      ? (await loadCheckpointFor(options.env, options.init, { optimizer: false })).model
      : new Gpt(fresh, splitSeed(options.seed, "init"));
  const sequences = await loadSequences(
    options.env,
    files,
    model.config.contextLength,
    options.successfulOnly,
    options.constrained,
    log,
  );
  if (sequences.length === 0) throw new UsageError({ detail: `no episode to clone in ${options.data}` });
  const args = argumentsNow(episodesDigest(sequences), fresh);
  if (savedArguments) checkSameArguments(out, savedArguments, args, ["episodes"], words);
  // Said before cloning starts, so a run can be stopped and the budget fixed at once.
  const { longest, actions, withoutEos } = actionRuns(sequences, options.env);
  const note = actionBudgetNote(options.env, longest, "demonstrated");
  if (note) log(note);
  const eosSaid = eosNote(withoutEos, actions, "demonstrated");
  if (eosSaid) log(eosSaid);
  const optimizer = new AdamW(model.parameters, { lr: options.lr, weightDecay: 0 });
  if (optimizerState) optimizer.restore(optimizerState);
  // Its own stream, so that the shuffling (and the curriculum's draws) are those of a run without offsets.
  const offsetRng = saved ? Rng.fromState(saved.offsetRng) : Rng.fromSeed(splitSeed(options.seed, "position-offsets"));
  const offsetKind: PositionOffsets = model.config.positions === "alibi" ? "none" : options.positionOffsets;
  const randomOffsets = offsetKind !== "none";
  if (options.positionOffsets !== "none" && !randomOffsets)
    log(`sft: --position-offsets ${options.positionOffsets} does nothing with ALiBi (it has no absolute positions)`);
  const drawOffset = (length: number): number =>
    drawPositionOffset(offsetRng, offsetKind, model.config.contextLength, length);
  /** One cross-entropy step on these rows' action tokens (under their legal-action masks when constrained). */
  const cloneStep = async (rows: readonly Sequence[]) => {
    // A turn of the event loop per step: the steps compute synchronously, so without it a Ctrl-C (SIGINT)
    // waited for the whole cloning to end.
    await new Promise((resolve) => setImmediate(resolve));
    const result = await supervisedStep(
      model,
      {
        tokens: rows.map((s) => s.tokens),
        lossMask: rows.map((s) => s.actionMask),
        ...(randomOffsets
          ? {
              positionOffsets: rows.map((s) => drawOffset(s.tokens.length)),
            }
          : {}),
        ...(options.constrained ? { allowed: rows.map((s) => s.allowed) } : {}),
      },
      { optimizer },
    );
    // A gradient 0 everywhere is a loss of 0 (under --constrained, every token of the batch the only legal one):
    // a step with nothing to change, counted with its loss, not a failed one.
    return result.skipped && result.reason === ZERO_GRADIENT ? { ...result, skipped: false } : result;
  };
  // A clone under the masks is decoded under them (train --init and eval follow the manifest); a free clone
  // records nothing, since it may be decoded either way.
  const clone: CheckpointContents = {
    model,
    tokenizer,
    version: 0,
    ...(options.constrained ? { constrained: true } : {}),
    ...(envSpec === undefined ? {} : { origin: { by: "sft", env: envSpec, data: resolve(options.data) } as const }),
  };
  const rng = saved ? Rng.fromState(saved.rng) : Rng.fromSeed(splitSeed(options.seed, "sft"));
  const losses: number[] = saved ? saved.losses.map(fromJson) : [];
  let tokens = saved?.tokens ?? 0;
  let steps = saved?.steps ?? 0;
  /** Where it is: the curriculum stage (stages.length once in the epochs) and steps into it, or the epoch and batch. */
  const at = {
    stage: saved?.stage ?? 0,
    stageStep: saved?.stageStep ?? 0,
    stageLoss: saved ? fromJson(saved.stageLoss) : Number.NaN,
    epoch: saved?.epoch ?? 0,
    batch: saved?.batch ?? 0,
    order: (saved?.order ?? null) as number[] | null,
    total: saved?.total ?? 0,
    count: saved?.count ?? 0,
  };
  /**
   * Saves where it is: the point's checkpoint (weights, optimizer state) in a folder of its own, then
   * progress.json naming it (atomically), then the previous point is removed. A kill at any moment leaves a
   * progress.json naming a whole point.
   */
  const savePoint = async () => {
    const dir = `s${String(steps).padStart(6, "0")}`;
    const previous = existsSync(join(progressDir, SFT_PROGRESS_FILE)) ? sftProgressIn(out)?.dir : undefined;
    if (previous === dir) return;
    try {
      await saveCheckpoint(join(progressDir, dir), {
        model,
        tokenizer,
        version: steps,
        optimizer: await optimizer.state(),
        ...(options.constrained ? { constrained: true } : {}),
      });
    } catch (error) {
      // The first point not written (a full disk): no progress folder without a point in it, which would make
      // `out` an unfinished clone with nothing to resume. The save took its half-written folder with it.
      if (previous === undefined) await rm(progressDir, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
    const progress: SftProgress = {
      format: "agent-r1/sft-progress",
      formatVersion: 1,
      dir,
      steps,
      stage: at.stage,
      stageStep: at.stageStep,
      stageLoss: toJson(at.stageLoss),
      epoch: at.epoch,
      batch: at.batch,
      order: at.order,
      total: at.total,
      count: at.count,
      tokens,
      losses: losses.map(toJson),
      rng: rng.state(),
      offsetRng: offsetRng.state(),
      arguments: args,
      ...(options.command ? { command: options.command } : {}),
    };
    await writeFileAtomically(join(progressDir, SFT_PROGRESS_FILE), `${JSON.stringify(progress)}\n`);
    if (previous !== undefined) await rm(join(progressDir, previous), { recursive: true, force: true });
  };
  const every = options.checkpointEvery ?? 0;
  /** True when told to stop; `where` has been moved past the step. */
  const afterStep = async (): Promise<boolean> => {
    steps++;
    const stop = options.shouldStop?.() ?? false;
    const done = at.stage >= stages.length && at.epoch >= options.epochs;
    // A point every `checkpointEvery` steps, at each epoch's end (the last's is the clone), and when stopped.
    if (!done && (stop || (every > 0 && steps % every === 0) || (at.batch === 0 && at.order === null && at.epoch > 0)))
      await savePoint();
    return stop && !done;
  };
  const stopped = (): SftResult => {
    optimizer.dispose();
    model.dispose();
    const progress = sftProgressIn(out);
    log(
      progress
        ? `sft stopped (${describeSftProgress(progress)}): its progress is saved in ${progressDir}; ${options.command ? `resume with: ${options.command}` : "continue it with the same options and resume: true"}`
        : "sft stopped before its first step: nothing was saved",
    );
    return { episodes: sequences.length, actionTokens, tokens, losses, longestAction: longest, stopped: true };
  };
  const actionTokens = sequences.reduce((sum, s) => sum + s.actionMask.reduce((n: number, m) => n + m, 0), 0);
  // Told to stop while loading (the backend, the journals): nothing new to save.
  if (options.shouldStop?.()) return stopped();
  while (at.stage < stages.length) {
    const stage = stages[at.stage];
    const cut = sequences.map((s) => firstActions(s, stage.actions));
    if (at.stageStep < stage.steps) {
      const result = await cloneStep(Array.from({ length: options.batchSize }, () => cut[rng.int(0, cut.length - 1)]));
      if (result.skipped) log(`sft curriculum stage ${at.stage + 1}: a step was skipped (${result.reason})`);
      else {
        at.stageLoss = result.loss;
        tokens += result.tokens;
      }
      at.stageStep++;
      options.onCurriculumStep?.(at.stage, at.stageStep, result.skipped ? Number.NaN : result.loss);
    }
    if (at.stageStep >= stage.steps) {
      options.onStage?.(at.stage, at.stageLoss);
      Object.assign(at, { stage: at.stage + 1, stageStep: 0, stageLoss: Number.NaN });
    }
    // A stage of 0 steps takes none.
    if (stage.steps > 0 && (await afterStep())) return stopped();
  }
  let started = false;
  while (at.epoch < options.epochs) {
    if (at.order === null) at.order = rng.shuffle(sequences.map((_, i) => i));
    const order = at.order;
    if (!started) {
      started = true;
      options.onEpochsStart?.(
        at.epoch,
        Math.ceil(at.batch / options.batchSize),
        Math.ceil(order.length / options.batchSize),
      );
    }
    const result = await cloneStep(order.slice(at.batch, at.batch + options.batchSize).map((i) => sequences[i]));
    if (result.skipped) log(`sft epoch ${at.epoch}: a step was skipped (${result.reason})`);
    else {
      at.total += result.loss * result.tokens;
      at.count += result.tokens;
    }
    at.batch += options.batchSize;
    options.onEpochStep?.(
      at.epoch,
      Math.ceil(Math.min(at.batch, order.length) / options.batchSize),
      Math.ceil(order.length / options.batchSize),
      at.count > 0 ? at.total / at.count : Number.NaN,
    );
    if (at.batch >= order.length) {
      tokens += at.count;
      // An epoch whose every step was skipped (a NaN loss) has no loss: NaN, not a 0 that reads as a perfect fit.
      losses.push(at.count > 0 ? at.total / at.count : Number.NaN);
      Object.assign(at, { epoch: at.epoch + 1, batch: 0, order: null, total: 0, count: 0 });
      await options.onEpoch?.(at.epoch - 1, losses.at(-1)!, (dir) => saveCheckpoint(dir, clone));
    }
    if (await afterStep()) return stopped();
  }
  // The clone replaces `out` in one swap, its saved progress with it.
  await saveCheckpoint(out, clone);
  optimizer.dispose();
  model.dispose();
  return { episodes: sequences.length, actionTokens, tokens, losses, longestAction: longest };
};

/**
 * The demonstrations' actions (runs of action tokens), read in one pass: the most tokens one takes (its <eos>
 * included), how many there are, and how many end without the tokenizer's `<eos>` though shorter than the
 * environment's action budget (one cut at the budget has none by right).
 */
const actionRuns = (
  sequences: readonly Sequence[],
  env: Pick<EnvDefinition, "tokenizer" | "maxActionTokens">,
): { longest: number; actions: number; withoutEos: number } => {
  const eos = env.tokenizer.idOf("<eos>");
  const budget = actionBudgetOf(env);
  let longest = 0;
  let actions = 0;
  let withoutEos = 0;
  for (const { actionMask, tokens } of sequences) {
    let run = 0;
    for (let i = 0; i < actionMask.length; i++) {
      if (actionMask[i] !== 1) continue;
      run += 1;
      // A run of action tokens ends here: the last of the sequence, or one followed by another kind.
      if (i + 1 < actionMask.length && actionMask[i + 1] === 1) continue;
      actions += 1;
      longest = Math.max(longest, run);
      if (eos !== undefined && tokens[i] !== eos && run < budget) withoutEos += 1;
      run = 0;
    }
  }
  return { longest, actions, withoutEos };
};

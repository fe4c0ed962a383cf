/**
 * Evaluation: run episodes on seeds training never used and report the success rate, the mean return
 * and the mean of every metric the environment reports (exact match, F1, ...).
 */
import type { Json } from "effect/Schema";
import { seedProblem } from "../cli/args.ts";
import { heldBesidesLock } from "../journal/lock.ts";
import { isAbortSignalShaped } from "../kernel/abort.ts";
import { checkKnownKeys, messageOf, shownValue, UsageError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { TransformerPolicy } from "../policy/transformer-policy.ts";
import { checkEnvArgument, type EnvDefinition } from "../runtime/env.ts";
import {
  countSuccessOutOfRange,
  type EpisodeRecord,
  type SuccessOutOfRange,
  successOfSome,
  successOutOfRangeNote,
} from "../runtime/episode.ts";
import { describeCounts, tallyOutcomes } from "../runtime/outcome-tally.ts";
import type { Policy } from "../runtime/policy.ts";
import { notAPolicy } from "../runtime/policy-actor.ts";
import { ToolTally, type ToolTallySummary } from "../runtime/tool-tally.ts";
import { collect } from "./collect.ts";
import { episodeToSequence, type Sequence } from "./trajectory.ts";

/**
 * The scores of an evaluation: success rate, mean return and turns, the environment's metrics, and what went wrong.
 */
export interface EvalSummary {
  readonly episodes: number;
  /** Mean `success` over the episodes whose end reported one (null when none did). */
  readonly successRate: number | null;
  /** How many episodes' ends reported `success` (absent in summaries written before it was counted). */
  readonly successReported?: number;
  /** The episodes whose `success` was outside [0, 1], when any did: successRate is then no rate (describeEval says so). */
  readonly successOutOfRange?: SuccessOutOfRange;
  readonly meanReturn: number;
  readonly meanTurns: number;
  /** Mean of each metric the environment reported. */
  readonly metrics: Readonly<Record<string, number>>;
  /** Episodes aborted (an environment, tool or policy error, or a stop). */
  readonly aborted: number;
  /** Why the first aborted episode was aborted (absent when none was). */
  readonly abortReason?: string;
  /** Actions a learned policy's sampler cut at its token budget before they ended (absent for a scripted policy). */
  readonly cutActions?: number;
  /**
   * Episodes that outgrew a learned policy's context (its model's contextLength): their later actions were sampled
   * from a context cut at the front, without the episode's start (hopqa's question). Absent for a scripted policy.
   */
  readonly cutContext?: number;
  /** Episodes by the reason they ended, every aborted one as "aborted" (absent in summaries written before). */
  readonly endReasons?: Readonly<Record<string, number>>;
  /** Rewards given, by their reason ("malformed", ...): how often each was given (absent in older summaries). */
  readonly rewardCounts?: Readonly<Record<string, number>>;
  /**
   * What the tool calls did, as `record --json` says it: calls, how many failed, the most frequent failures
   * (`failures[]`: tool, kind, message, tag, count, thrownAt), results cut to size, tools that returned
   * nothing (older summaries: calls and failed only; absent in older still).
   */
  readonly tools?: ToolTallySummary | { readonly calls: number; readonly failed: number };
  /**
   * The scores of each kind of task, by the name the environment's `taskGroup` gives it (hopqa: "2 hops"), in
   * the order first met; absent when the environment names no kinds.
   */
  readonly groups?: Readonly<Record<string, GroupSummary>>;
  /** Why there are no `groups` although the environment names kinds: its taskGroup threw or named none. */
  readonly groupsProblem?: string;
}

/** One kind of task's scores: as the summary's own, over its episodes only. */
export interface GroupSummary {
  readonly episodes: number;
  readonly successRate: number | null;
  readonly meanReturn: number;
  readonly metrics: Readonly<Record<string, number>>;
  readonly aborted: number;
}

const meanMetrics = (records: readonly EpisodeRecord[]): Record<string, number> => {
  const sums: Record<string, { total: number; count: number }> = {};
  for (const r of records)
    for (const [k, v] of Object.entries(r.metrics)) {
      sums[k] ??= { total: 0, count: 0 };
      sums[k].total += v;
      sums[k].count += 1;
    }
  return Object.fromEntries(Object.entries(sums).map(([k, { total, count }]) => [k, total / count]));
};

/**
 * The records by the kind `taskGroup` names for each task. A taskGroup that throws, or names a kind with no
 * string, gives no groups but the problem: the episodes' scores are kept whatever it does.
 */
const groupRecords = (
  records: readonly EpisodeRecord[],
  env: Pick<EnvDefinition, "id" | "taskGroup">,
): Pick<EvalSummary, "groups" | "groupsProblem"> => {
  const taskGroup = env.taskGroup;
  if (taskGroup === undefined) return {};
  const byName = new Map<string, EpisodeRecord[]>();
  for (const r of records) {
    let name: unknown;
    try {
      name = taskGroup(r.task);
    } catch (cause) {
      return {
        groupsProblem: `environment ${env.id}: taskGroup threw for the task of ${r.episode}: ${messageOf(cause)}`,
      };
    }
    if (typeof name !== "string" || name === "")
      return {
        groupsProblem: `environment ${env.id}: taskGroup gave ${name === "" ? "an empty name" : shownValue(name)} for the task of ${r.episode}; it must give the name of the task's kind, a non-empty string`,
      };
    const members = byName.get(name);
    if (members) members.push(r);
    else byName.set(name, [r]);
  }
  // Entries, not assignments: a kind named "__proto__" is a kind like any other.
  return { groups: Object.fromEntries([...byName].map(([name, members]) => [name, scoresOf(members)])) };
};

/** The scores the summary and each of its groups give: over these records alone. */
const scoresOf = (records: readonly EpisodeRecord[]): GroupSummary => {
  const metrics = meanMetrics(records);
  return {
    episodes: records.length,
    successRate: "success" in metrics ? metrics.success : null,
    meanReturn: records.reduce((s, r) => s + r.return, 0) / Math.max(1, records.length),
    metrics,
    aborted: records.filter((r) => r.reason.startsWith("aborted")).length,
  };
};

/**
 * Actions of these episodes that the sampler cut at its budget of `budget` tokens before they ended (no
 * stop token last): they come out malformed, and mean the budget is too small for the environment's actions.
 */
export const countCutActions = (events: readonly EpisodeEvent[], budget: number, stop: readonly number[]) =>
  stop.length === 0
    ? 0
    : events.filter((e) => e.type === "agent.acted" && e.tokens.length >= budget && !stop.includes(e.tokens.at(-1)!))
        .length;

/**
 * Whether an episode had an action sampled from a context cut at the front: one that did not start within the
 * model's `contextLength` with room for its budget (the test `fitToContext` applies before training on it).
 */
export const outgrewContext = (events: readonly EpisodeEvent[], contextLength: number, maxNewTokens: number) => {
  let sequence: Sequence;
  try {
    sequence = episodeToSequence(events);
  } catch {
    return false; // an episode that makes no sequence (aborted before its first action): nothing was sampled
  }
  return sequence.turns.some((span) => span.start + Math.max(maxNewTokens, span.end - span.start) > contextLength);
};

/**
 * The summary of `records`; `tools`: a tally begun before they ran (it counts the tools that returned nothing
 * since, which their events do not say), a new one otherwise.
 */
export const summarizeEpisodes = (
  records: readonly EpisodeRecord[],
  tools = new ToolTally(),
  env?: Pick<EnvDefinition, "id" | "taskGroup">,
): EvalSummary => {
  const { episodes, successRate, meanReturn, metrics, aborted } = scoresOf(records);
  for (const r of records) tools.add(r.events);
  // The fields in the order eval's JSON has always had them.
  return {
    episodes,
    successRate,
    successReported: records.filter((r) => "success" in r.metrics).length,
    ...((out) => (out ? { successOutOfRange: out } : {}))(
      records.reduce<SuccessOutOfRange | undefined>(countSuccessOutOfRange, undefined),
    ),
    meanReturn,
    meanTurns: records.reduce((s, r) => s + r.turns, 0) / Math.max(1, records.length),
    metrics,
    aborted,
    ...((reason) => (reason ? { abortReason: reason } : {}))(
      records.find((r) => r.reason.startsWith("aborted"))?.reason,
    ),
    ...tallyOutcomes(records),
    tools: tools.summary(),
    ...(env ? groupRecords(records, env) : {}),
  };
};

/**
 * One line for a log: success (when the environment reports it), exact match and F1 (when it reports
 * them, as hopqa does), mean return, and anything that went wrong. Over `episodes` greedy episodes.
 */
export const describeEval = (summary: EvalSummary): string =>
  [
    summary.successRate === null
      ? `mean return ${summary.meanReturn.toFixed(3)} (${summary.aborted === summary.episodes && summary.episodes > 0 ? "no episode ended, so no success to count" : "the environment reports no success metric"})`
      : `success ${summary.successRate.toFixed(3)}, ${"em" in summary.metrics ? `exact match ${summary.metrics.em.toFixed(3)}, F1 ${(summary.metrics.f1 ?? 0).toFixed(3)}, ` : ""}mean return ${summary.meanReturn.toFixed(3)}`,
    (summary.successRate !== null &&
      summary.successReported !== undefined &&
      successOfSome(summary.successReported, summary.episodes - summary.aborted)) ||
      "",
    summary.successRate !== null && summary.successOutOfRange
      ? successOutOfRangeNote(summary.successOutOfRange, summary.episodes)
      : "",
    summary.aborted > 0 ? `${summary.aborted} of ${summary.episodes} episodes ${summary.abortReason}` : "",
    summary.cutActions
      ? `${summary.cutActions} action${summary.cutActions === 1 ? "" : "s"} cut at the sampler's token budget (--max-new-tokens)`
      : "",
    summary.cutContext
      ? `${summary.cutContext} episode${summary.cutContext === 1 ? "" : "s"} outgrew the model's context: later actions were sampled without the episode's start (shorter observations or fewer turns fit)`
      : "",
    summary.endReasons && summary.episodes > 0 ? `ended: ${describeCounts(summary.endReasons)}` : "",
    summary.groupsProblem ? `no scores by kind of task: ${summary.groupsProblem}` : "",
  ]
    .filter(Boolean)
    .join("; ");

/** Options of evaluate: `Task` is the environment's task type (the records `onEpisode` gets have it). */
export interface EvaluateOptions<Task extends Json = Json> {
  readonly episodes: number;
  /**
   * Episode i plays seed `SEED:i`. 1 to 100 ASCII letters, digits, '.', '_', '-' or ':', as `agent-r1 eval --seed`
   * takes (it names the episodes' journals).
   */
  readonly seed: string;
  /**
   * Folder for the journals, new or empty (as `eval --out`: one that holds other journals or files is refused with
   * a UsageError naming it and what it holds); in memory when absent.
   */
  readonly dir?: string;
  readonly onEpisode?: (record: EpisodeRecord<Task>) => void;
  /** Every event of every episode as it is journaled (a progress display: an `agent.acted` per action), as collect's. */
  readonly onEvent?: (event: EpisodeEvent) => void;
  /**
   * Stops the evaluation (your program's Ctrl-C, a deadline): no further episode starts, the running ones end at
   * once (journaled as `aborted: stopped: REASON` in `dir`), and evaluate rejects with the signal's reason (an
   * AbortError unless you gave one), not with a summary of the episodes it cut short.
   */
  readonly signal?: AbortSignal;
}

/**
 * A `signal` option that is no AbortSignal, refused naming `fn` (from plain JavaScript, a string or an
 * AbortController was taken as never aborting). Any object shaped as one (another realm's, a polyfill's) is taken.
 */
export const checkSignalOption = (fn: string, signal: unknown): void => {
  if (signal !== undefined && !isAbortSignalShaped(signal))
    throw new TypeError(
      `${fn}: signal must be an AbortSignal (new AbortController().signal, or an object with a boolean 'aborted', 'reason' and addEventListener/removeEventListener methods), got ${describeSignal(signal)}`,
    );
};

/** What a refused signal was: its type, or which of an AbortSignal's parts an object lacks. */
const describeSignal = (signal: unknown): string => {
  if (signal === null) return "null";
  if (typeof signal !== "object") return typeof signal;
  const parts = signal as Record<string, unknown>;
  const lacks = [
    typeof parts.aborted !== "boolean" && "a boolean 'aborted'",
    typeof parts.addEventListener !== "function" && "addEventListener",
    typeof parts.removeEventListener !== "function" && "removeEventListener",
  ].filter((part): part is string => part !== false);
  return `an object without ${lacks.join(", ")}${"signal" in parts ? " (an AbortController? give its .signal)" : ""}`;
};

/** Rejects with an aborted signal's reason (an AbortError when it has none), as Node's throwIfAborted does. */
const throwIfAborted = (signal: AbortSignal | undefined): void => {
  if (!signal?.aborted) return;
  throw signal.reason ?? new DOMException("This operation was aborted", "AbortError");
};

/**
 * Runs `episodes` episodes of `policy` on seeds `SEED:i` and summarizes them; journals go to `dir` when given (in
 * memory otherwise). Throws a TypeError or RangeError on bad options (a seed the CLI's `--seed` refuses, such as "",
 * with its message), and when a learned policy's tokenizer is not the environment's; rejects with `signal`'s reason
 * once it aborts.
 */
export const evaluate: {
  /** `onEpisode` gets records whose `task` has the environment's task type. */
  <Task extends Json>(env: EnvDefinition<Task>, policy: Policy, options: EvaluateOptions<Task>): Promise<EvalSummary>;
  /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
  (env: EnvDefinition, policy: Policy, options: EvaluateOptions): Promise<EvalSummary>;
} = <Task extends Json>(env: EnvDefinition<Task>, policy: Policy, options: EvaluateOptions<Task>) =>
  evaluateSeeds(env, policy, options, true);

/**
 * evaluate on a seed made from one checked already (train's `eval:SEED`, the hopqa suite's `SEED:COLUMN`): any
 * string, since the prefix or suffix may take it past the 100 characters a seed given by a user may have.
 */
export const evaluateDerived = <Task extends Json>(
  env: EnvDefinition<Task>,
  policy: Policy,
  options: EvaluateOptions<Task>,
): Promise<EvalSummary> => evaluateSeeds(env, policy, options, false);

const evaluateSeeds = async <Task extends Json>(
  env: EnvDefinition<Task>,
  policy: Policy,
  options: EvaluateOptions<Task>,
  userSeed: boolean,
): Promise<EvalSummary> => {
  checkEnvArgument("evaluate", env);
  if (typeof options !== "object" || options === null)
    throw new TypeError('evaluate: give the options, e.g. evaluate(env, policy, { episodes: 100, seed: "heldout" })');
  checkKnownKeys("evaluate", options, ["episodes", "seed", "dir", "onEpisode", "onEvent", "signal"]);
  const notPolicy = notAPolicy(policy);
  if (notPolicy)
    throw new TypeError(`evaluate: policy must be a Policy ({ id, version, tokenizer, act }): ${notPolicy}`);
  checkSignalOption("evaluate", options.signal);
  // Left out, each is said as missing, with what to give: "got undefined" named no fix (the CLI's eval has defaults,
  // evaluate none).
  const example = 'evaluate(env, policy, { episodes: 100, seed: "eval" })';
  if (options.episodes === undefined)
    throw new TypeError(`evaluate: episodes is missing: give how many episodes to run (0 or more), e.g. ${example}`);
  if (!Number.isInteger(options.episodes) || options.episodes < 0)
    throw new RangeError(
      `evaluate: episodes must be a whole number (0 or more), got ${typeof options.episodes === "string" ? JSON.stringify(options.episodes) : options.episodes}`,
    );
  if (options.seed === undefined)
    throw new TypeError(
      `evaluate: seed is missing: give the evaluation's seed, a string (episode i plays seed SEED:i; as agent-r1 eval --seed, whose default is "eval": keep it apart from training seeds), e.g. ${example}`,
    );
  if (typeof options.seed !== "string")
    throw new TypeError(
      `evaluate: seed must be a string (episode i plays seed SEED:i), got ${shownValue(options.seed)}`,
    );
  // The CLI's rule, with its message: `eval --seed ""` is refused, and so is evaluate's.
  const seedRefused = userSeed ? seedProblem(options.seed, "evaluate: seed") : undefined;
  if (seedRefused !== undefined) throw new RangeError(seedRefused);
  // Another environment's checkpoint would read its observations as other words: numbers that mean nothing.
  if (policy instanceof TransformerPolicy && policy.tokenizer.id !== env.tokenizer.id)
    throw new UsageError({
      detail: `evaluate: the policy was made for another tokenizer (${policy.tokenizer.id}) than environment ${env.id}'s (${env.tokenizer.id}); load it with loadPolicy(${env.id}'s environment, ...) from a checkpoint trained on it`,
    });
  // As `eval --out` refuses it: journals of other episodes there would be read with these as one set.
  const held = typeof options.dir === "string" && options.dir !== "" ? heldBesidesLock(options.dir) : undefined;
  if (held !== undefined)
    throw new UsageError({
      detail: `evaluate: dir ${options.dir} is not a new or empty folder: ${held}; evaluate keeps its episodes' journals in one, as eval --out does (inspect and replay read a folder as one set): give a new folder, or empty this one`,
    });
  throwIfAborted(options.signal);
  if (options.episodes === 0) return summarizeEpisodes([]);
  const tools = new ToolTally();
  const collected = await collect({
    env,
    policy,
    seed: options.seed,
    episodes: options.episodes,
    dir: options.dir,
    onEpisode: options.onEpisode,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // Stopped: the episodes it cut short would read as the policy's failures.
  throwIfAborted(options.signal);
  const summary = summarizeEpisodes(
    collected.map((c) => c.record),
    tools,
    env,
  );
  if (!(policy instanceof TransformerPolicy)) return summary;
  const { maxNewTokens, stopTokens } = policy.sampling;
  const cut = collected.reduce((n, c) => n + countCutActions(c.events, maxNewTokens, stopTokens), 0);
  const contextLength = policy.model.config.contextLength;
  const cutContext = collected.filter((c) => outgrewContext(c.events, contextLength, maxNewTokens)).length;
  // Always there for a learned policy (0 when none was cut): `jq .cutActions` gives a number, not null.
  return { ...summary, cutActions: cut, cutContext };
};

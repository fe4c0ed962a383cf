/**
 * Evaluation: run episodes on seeds training never used and report the success rate, the mean return
 * and the mean of every metric the environment reports (exact match, F1, ...).
 */
import type { Json } from "effect/Schema";
import type { EpisodeEvent } from "../kernel/events.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type EpisodeRecord, type SuccessOutOfRange } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { ToolTally, type ToolTallySummary } from "../runtime/tool-tally.ts";
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
    readonly tools?: ToolTallySummary | {
        readonly calls: number;
        readonly failed: number;
    };
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
/**
 * Actions of these episodes that the sampler cut at its budget of `budget` tokens before they ended (no
 * stop token last): they come out malformed, and mean the budget is too small for the environment's actions.
 */
export declare const countCutActions: (events: readonly EpisodeEvent[], budget: number, stop: readonly number[]) => number;
/**
 * Whether an episode had an action sampled from a context cut at the front: one that did not start within the
 * model's `contextLength` with room for its budget (the test `fitToContext` applies before training on it).
 */
export declare const outgrewContext: (events: readonly EpisodeEvent[], contextLength: number, maxNewTokens: number) => boolean;
/**
 * The summary of `records`; `tools`: a tally begun before they ran (it counts the tools that returned nothing
 * since, which their events do not say), a new one otherwise.
 */
export declare const summarizeEpisodes: (records: readonly EpisodeRecord[], tools?: ToolTally, env?: Pick<EnvDefinition, "id" | "taskGroup">) => EvalSummary;
/**
 * One line for a log: success (when the environment reports it), exact match and F1 (when it reports
 * them, as hopqa does), mean return, and anything that went wrong. Over `episodes` greedy episodes.
 */
export declare const describeEval: (summary: EvalSummary) => string;
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
export declare const checkSignalOption: (fn: string, signal: unknown) => void;
/**
 * Runs `episodes` episodes of `policy` on seeds `SEED:i` and summarizes them; journals go to `dir` when given (in
 * memory otherwise). Throws a TypeError or RangeError on bad options (a seed the CLI's `--seed` refuses, such as "",
 * with its message), and when a learned policy's tokenizer is not the environment's; rejects with `signal`'s reason
 * once it aborts.
 */
export declare const evaluate: {
    /** `onEpisode` gets records whose `task` has the environment's task type. */
    <Task extends Json>(env: EnvDefinition<Task>, policy: Policy, options: EvaluateOptions<Task>): Promise<EvalSummary>;
    /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
    (env: EnvDefinition, policy: Policy, options: EvaluateOptions): Promise<EvalSummary>;
};
/**
 * evaluate on a seed made from one checked already (train's `eval:SEED`, the hopqa suite's `SEED:COLUMN`): any
 * string, since the prefix or suffix may take it past the 100 characters a seed given by a user may have.
 */
export declare const evaluateDerived: <Task extends Json>(env: EnvDefinition<Task>, policy: Policy, options: EvaluateOptions<Task>) => Promise<EvalSummary>;

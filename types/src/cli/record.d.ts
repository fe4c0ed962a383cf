/* `agent-r1 record`: run episodes of an environment with a policy and journal them. */
import type { Durability } from "../journal/journal.ts";
import { UsageError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type SuccessOutOfRange } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { type ToolTallySummary } from "../runtime/tool-tally.ts";
/**
 * `record --resume`'s refusal of a journal it cannot go on with: its message says it for the command line (`--resume:
 * ...`, naming --env and the flags to change); `reason` says only what is wrong with the journal, in words that name no
 * flag, for a caller that records through `record` from code (train's warm start).
 */
export declare class ResumeRefusal extends UsageError {
    readonly reason: string;
    constructor(detail: string, reason: string);
}
export interface RecordOptions {
    readonly env: EnvDefinition;
    readonly policy: Policy;
    readonly episodes: number;
    readonly seed: string;
    readonly out: string;
    readonly concurrency: number;
    readonly durability: Durability;
    readonly groupSize?: number;
    readonly quiet?: boolean;
    /** Where the note on demonstrations longer than the action budget goes (default: stderr). */
    readonly log?: (line: string) => void;
    /** Go on with a stopped recording: keep the episodes journaled whole, record the others (`record --resume`). */
    readonly resume?: boolean;
    /** Ctrl-C, SIGTERM or SIGHUP: say what is journaled and how to go on, then exit 130, 143 or 129 (the CLI's `record`). */
    readonly exitOnInterrupt?: boolean;
    /**
     * Stops the recording from code (train's warm start, when train is stopped): no further episode starts and the
     * running ones end at once, journaled as `aborted: stopped: REASON`; record then returns what ended.
     */
    readonly signal?: AbortSignal;
}
export interface RecordSummary {
    readonly env: string;
    /** The environment's options in effect, when it has options (plain hopqa's too: split train, ...), as the summary line names them. */
    readonly options?: Readonly<Record<string, string | number>>;
    readonly policy: string;
    readonly out: string;
    readonly episodes: number;
    readonly events: number;
    readonly meanReturn: number;
    /** Mean `success` over the episodes whose end reported one (null when none did). */
    readonly successRate: number | null;
    /** How many episodes' ends reported `success` (those that ended without it are not in successRate). */
    readonly successReported: number;
    /** The episodes whose `success` was outside [0, 1], when any did (the rate is then no rate: the CLI warns). */
    readonly successOutOfRange?: SuccessOutOfRange;
    readonly aborted: number;
    /** The aborted episode with the lowest index (the same one at any concurrency), and why it aborted. */
    readonly firstAbort?: {
        readonly episode: string;
        readonly reason: string;
        readonly thrownAt?: string;
        /** A throw in an episode `record --resume` kept: the journal keeps the reason, not where it was thrown. */
        readonly thrownBeforeResume?: true;
    };
    /** What the tool calls did: how many failed (and with what), how many results were cut to size. */
    readonly tools: ToolTallySummary;
    /** Episodes by the reason they ended ("answered", "turn-limit"; every aborted one as "aborted"). */
    readonly endReasons: Readonly<Record<string, number>>;
    /** Rewards given, by their reason ("malformed", ...): how often each was given. */
    readonly rewardCounts: Readonly<Record<string, number>>;
    readonly seconds: number;
}
export declare const policyFor: (env: EnvDefinition, name: string) => Policy;
/**
 * `record --out` (the CLI's): a run's journals are its policy's episodes and a checkpoint holds weights, so
 * recording into either, or into a folder inside a run (episodes/, checkpoints/), mixes data up. (Training's
 * own warm start records into its run's warm-start/demos through `record` from code, which this does not check.)
 */
export declare const refuseRecordOut: (out: string) => void;
export declare const record: (options: RecordOptions) => Promise<RecordSummary>;
/**
 * Words of the recorded actions and observations that the environment's word tokenizer spells a token per byte
 * (a word its corpus missed: `answer`, so that `<answer>unavailable</answer>` took 19 tokens): a model must learn
 * them letter by letter, and the action budget note alone sent the user to raise the budget.
 */
export declare class SpelledTally {
    private readonly env;
    private readonly words;
    private readonly tokenizer;
    constructor(env: Pick<EnvDefinition, "id" | "tokenizer">);
    add(events: readonly EpisodeEvent[]): void;
    /** The note, or undefined when every word recorded is in the vocabulary. */
    note(): string | undefined;
}

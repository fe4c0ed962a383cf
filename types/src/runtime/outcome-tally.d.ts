/**
 * How a set of episodes ended and what their rewards were given for, counted: the numbers an operator asks
 * first ("how many hit the turn limit? how many actions were malformed?") and otherwise has to dig out of
 * the journals. `record --json`, `eval` and every line of a train run's metrics.jsonl carry them.
 */
import type { EpisodeEvent } from "../kernel/events.ts";
/** At most this many keys per count: the most frequent; the rest are summed under OTHER (a reason built per episode). */
export declare const MAX_TALLY_KEYS = 24;
export declare const OTHER_KEY = "(other)";
export interface OutcomeCounts {
    /** Episodes by the reason they ended ("answered", "turn-limit", ...); every aborted one under "aborted". */
    readonly endReasons: Readonly<Record<string, number>>;
    /**
     * Rewards given, by their reason ("malformed", "exact match", ...): how often each was given. A reward of 0
     * (a process reward function that pays nothing this time, say for a repeat) is journaled but not counted here.
     */
    readonly rewardCounts: Readonly<Record<string, number>>;
}
export declare class OutcomeTally {
    private readonly reasons;
    private readonly rewards;
    /** Counts one episode: the reason it ended with, and its nonzero rewards' reasons (from its events). */
    add(reason: string, events: readonly EpisodeEvent[]): void;
    summary(): OutcomeCounts;
}
/** The counts of some episodes at once. */
export declare const tallyOutcomes: (episodes: readonly {
    readonly reason: string;
    readonly events: readonly EpisodeEvent[];
}[]) => OutcomeCounts;
/** "answered 6, turn-limit 3, aborted 1": a count for a line of text, most frequent first (integer-like keys too). */
export declare const describeCounts: (counts: Readonly<Record<string, number>>) => string;

/**
 * How a set of episodes ended and what their rewards were given for, counted: the numbers an operator asks
 * first ("how many hit the turn limit? how many actions were malformed?") and otherwise has to dig out of
 * the journals. `record --json`, `eval` and every line of a train run's metrics.jsonl carry them.
 */
import type { EpisodeEvent } from "../kernel/events.ts";
import { ABORTED } from "./derive.ts";

/** At most this many keys per count: the most frequent; the rest are summed under OTHER (a reason built per episode). */
export const MAX_TALLY_KEYS = 24;
export const OTHER_KEY = "(other)";

export interface OutcomeCounts {
  /** Episodes by the reason they ended ("answered", "turn-limit", ...); every aborted one under "aborted". */
  readonly endReasons: Readonly<Record<string, number>>;
  /**
   * Rewards given, by their reason ("malformed", "exact match", ...): how often each was given. A reward of 0
   * (a process reward function that pays nothing this time, say for a repeat) is journaled but not counted here.
   */
  readonly rewardCounts: Readonly<Record<string, number>>;
}

const bump = (counts: Map<string, number>, key: string): void => {
  counts.set(key, (counts.get(key) ?? 0) + 1);
};

/** Most frequent first, then by name (first-seen order would differ with concurrency); OTHER last. */
const byCount = ([a, x]: [string, number], [b, y]: [string, number]): number =>
  Number(a === OTHER_KEY) - Number(b === OTHER_KEY) || y - x || (a < b ? -1 : a > b ? 1 : 0);

/**
 * Sorted byCount and cut after all are counted: the MAX_TALLY_KEYS - 1 most frequent, and the rest under OTHER
 * (which keys a cap at counting time kept would depend on the order episodes ended in). An object lists
 * integer-like keys ("404") first whatever their counts: the JSON keeps the object (README documents it, plot
 * reads it), and describeCounts sorts again for the text.
 */
const sorted = (counts: Map<string, number>): Record<string, number> => {
  const all = [...counts].sort(byCount);
  if (all.length <= MAX_TALLY_KEYS) return Object.fromEntries(all);
  const kept = all.slice(0, MAX_TALLY_KEYS - 1);
  return Object.fromEntries([...kept, [OTHER_KEY, all.slice(MAX_TALLY_KEYS - 1).reduce((n, [, c]) => n + c, 0)]]);
};

export class OutcomeTally {
  private readonly reasons = new Map<string, number>();
  private readonly rewards = new Map<string, number>();

  /** Counts one episode: the reason it ended with, and its nonzero rewards' reasons (from its events). */
  add(reason: string, events: readonly EpisodeEvent[]): void {
    bump(this.reasons, reason.startsWith(ABORTED) ? "aborted" : reason);
    for (const event of events)
      if (event.type === "reward.assigned" && event.value !== 0) bump(this.rewards, event.reason);
  }

  summary(): OutcomeCounts {
    return { endReasons: sorted(this.reasons), rewardCounts: sorted(this.rewards) };
  }
}

/** The counts of some episodes at once. */
export const tallyOutcomes = (
  episodes: readonly { readonly reason: string; readonly events: readonly EpisodeEvent[] }[],
) => {
  const tally = new OutcomeTally();
  for (const e of episodes) tally.add(e.reason, e.events);
  return tally.summary();
};

/** "answered 6, turn-limit 3, aborted 1": a count for a line of text, most frequent first (integer-like keys too). */
export const describeCounts = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .sort(byCount)
    .map(([key, n]) => `${key} ${n}`)
    .join(", ");

/**
 * How a set of episodes ended and what their rewards were given for, counted: the numbers an operator asks
 * first ("how many hit the turn limit? how many actions were malformed?") and otherwise has to dig out of
 * the journals. `record --json`, `eval` and every line of a train run's metrics.jsonl carry them.
 */
import type { EpisodeEvent } from "../kernel/events.ts";
import { ABORTED } from "./derive.ts";

/** At most this many distinct keys per count; the rest are counted under OTHER (a reason built per episode). */
export const MAX_TALLY_KEYS = 24;
export const OTHER_KEY = "(other)";

export interface OutcomeCounts {
  /** Episodes by the reason they ended ("answered", "turn-limit", ...); every aborted one under "aborted". */
  readonly endReasons: Readonly<Record<string, number>>;
  /** Rewards assigned, by their reason ("malformed", "exact match", ...): how often each was given. */
  readonly rewardCounts: Readonly<Record<string, number>>;
}

const bump = (counts: Map<string, number>, key: string): void => {
  const known = counts.has(key) || counts.size < MAX_TALLY_KEYS;
  const at = known ? key : OTHER_KEY;
  counts.set(at, (counts.get(at) ?? 0) + 1);
};

/** Keys in their first-seen order would differ with concurrency: sorted by count, then by name. */
const sorted = (counts: Map<string, number>): Record<string, number> =>
  Object.fromEntries([...counts].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)));

export class OutcomeTally {
  private readonly reasons = new Map<string, number>();
  private readonly rewards = new Map<string, number>();

  /** Counts one episode: the reason it ended with, and its rewards' reasons (from its events). */
  add(reason: string, events: readonly EpisodeEvent[]): void {
    bump(this.reasons, reason.startsWith(ABORTED) ? "aborted" : reason);
    for (const event of events) if (event.type === "reward.assigned") bump(this.rewards, event.reason);
  }

  /** Counts an episode from its events alone (a journal read back): its reason is on episode.ended. */
  addEvents(events: readonly EpisodeEvent[]): void {
    const ended = events.at(-1);
    if (ended?.type === "episode.ended") this.add(ended.reason, events);
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

/** "answered 6, turn-limit 3, aborted 1": a count for a line of text. */
export const describeCounts = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .map(([key, n]) => `${key} ${n}`)
    .join(", ");

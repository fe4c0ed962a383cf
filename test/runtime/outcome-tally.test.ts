/** The counts of how episodes ended: the same whatever order the episodes ended in, and cut to a size. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EpisodeEvent } from "../../src/index.ts";
import { describeCounts, MAX_TALLY_KEYS, OTHER_KEY, tallyOutcomes } from "../../src/runtime/outcome-tally.ts";

const rewardFor = (reason: string, value = 1) =>
  ({ type: "reward.assigned", reason, value }) as unknown as EpisodeEvent;

// Words, not integers: an object lists integer-like keys first whatever their counts (display order only).
const word = (maxLength: number) => fc.string({ unit: fc.constantFrom(..."abcde :-"), maxLength });
const episode = fc.record({
  reason: fc.oneof(fc.constantFrom("answered", "turn-limit", "aborted: boom"), word(3)),
  rewards: fc.array(word(2), { maxLength: 4 }),
});

describe("tallyOutcomes", () => {
  it("counts every episode and reward once, in any order, with at most MAX_TALLY_KEYS keys", () => {
    fc.assert(
      fc.property(fc.array(episode, { maxLength: 80 }), fc.nat(), (episodes, shift) => {
        const records = episodes.map((e) => ({ reason: e.reason, events: e.rewards.map((r) => rewardFor(r)) }));
        const counts = tallyOutcomes(records);
        // Another completion order (concurrency) gives the same counts, keys in the same order.
        const rotated = records.map((_, i) => records[(i + shift) % records.length]);
        expect(JSON.stringify(tallyOutcomes(rotated))).toBe(JSON.stringify(counts));
        const sum = (c: Readonly<Record<string, number>>) => Object.values(c).reduce((a, b) => a + b, 0);
        expect(sum(counts.endReasons)).toBe(records.length);
        expect(sum(counts.rewardCounts)).toBe(episodes.reduce((n, e) => n + e.rewards.length, 0));
        for (const c of [counts.endReasons, counts.rewardCounts]) {
          expect(Object.keys(c).length).toBeLessThanOrEqual(MAX_TALLY_KEYS);
          // The most frequent are kept by name: none cut is more frequent than one kept.
          const named = Object.entries(c).filter(([k]) => k !== OTHER_KEY);
          expect(named.map(([, n]) => n)).toEqual([...named.map(([, n]) => n)].sort((a, b) => b - a));
        }
        for (const key of Object.keys(counts.endReasons)) expect(key.startsWith("aborted: ")).toBe(false);
      }),
    );
  });

  it("counts the rewards given, not a reward of 0 (a repeat a process reward pays nothing for)", () => {
    // A greedy policy that repeats one stock check 7 times earned 0.05 once: "checked stock 7" read as farming.
    const events = [
      rewardFor("checked stock", 0.05),
      ...Array.from({ length: 6 }, () => rewardFor("checked stock", 0)),
    ];
    const { rewardCounts } = tallyOutcomes([
      { reason: "turn-limit", events: [...events, rewardFor("malformed", -0.1)] },
    ]);
    expect(rewardCounts).toEqual({ "checked stock": 1, malformed: 1 });
  });

  it("keeps the most frequent reasons by name and sums the rest under (other)", () => {
    const records = Array.from({ length: 40 }, (_, i) => ({ reason: `r${String(i).padStart(2, "0")}`, events: [] }));
    records.push({ reason: "r39", events: [] }, { reason: "r39", events: [] });
    const { endReasons } = tallyOutcomes(records);
    expect(Object.keys(endReasons)).toHaveLength(MAX_TALLY_KEYS);
    expect(endReasons.r39).toBe(3);
    expect(endReasons[OTHER_KEY]).toBe(42 - 3 - (MAX_TALLY_KEYS - 2));
  });

  it("describes the counts most frequent first, integer-like reasons too (an object lists those first)", () => {
    const records = [
      ...Array.from({ length: 3 }, () => ({ reason: "answered", events: [rewardFor("exact match")] })),
      { reason: "404", events: [rewardFor("2"), rewardFor("2")] },
    ];
    const { endReasons, rewardCounts } = tallyOutcomes(records);
    expect(describeCounts(endReasons)).toBe("answered 3, 404 1");
    expect(describeCounts(rewardCounts)).toBe("exact match 3, 2 2");
    // The JSON keeps the object README documents (counts by reason; its key order is not asserted).
    expect(endReasons).toEqual({ answered: 3, "404": 1 });
  });
});

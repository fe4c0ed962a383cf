import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AdvantageExtras,
  ALGORITHMS,
  type Algorithm,
  computeAdvantages,
  isAlgorithm,
  type ScoredSequence,
} from "../../../src/learn/advantages/index.ts";
import { scored } from "./layout.ts";

const layoutArb = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 })), {
      minLength: 1,
      maxLength: 3,
    }),
  )
  .map(([prompt, turns]) => "p".repeat(prompt) + turns.map(([a, o]) => "a".repeat(a) + "o".repeat(o)).join(""));

const quarter = fc.integer({ min: -8, max: 8 }).map((x) => x / 4);

/** A batch of groups of 1..4 episodes; rewards on random action tokens. */
const batchArb = fc
  .array(fc.array(fc.tuple(layoutArb, fc.array(quarter, { maxLength: 3 })), { minLength: 1, maxLength: 4 }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((groups) =>
    groups.flatMap((members, g) =>
      members.map(([layout, rewardList], e) => {
        const actions = [...layout].flatMap((k, i) => (k === "a" ? [i] : []));
        const rewards: Record<number, number> = {};
        rewardList.forEach((r, k) => {
          if (actions.length > 0) rewards[actions[k % actions.length]] = r;
        });
        return scored(layout, { episode: `g${g}e${e}`, group: `g${g}`, rewards });
      }),
    ),
  );

const extrasFor = (batch: readonly ScoredSequence[]): AdvantageExtras => ({
  values: batch.map((s) => s.actionMask.map((_, i) => ((i * 7) % 5) / 5 - 0.3)),
  refLogprobs: batch.map((s) => s.actionMask.map((_, i) => -((i % 3) + 1) / 2)),
  klCoef: 0.05,
  greedyReward: Object.fromEntries(batch.map((s) => [s.group, 0.25])),
});

describe("computeAdvantages, every estimator", () => {
  it("knows exactly the six algorithm names", () => {
    expect(ALGORITHMS).toEqual(["ppo", "grpo", "reinforce++", "reinforce++-baseline", "rloo", "remax"]);
    expect(isAlgorithm("grpo")).toBe(true);
    expect(isAlgorithm("dpo")).toBe(false);
    expect(() => computeAdvantages("dpo" as Algorithm, [])).toThrow(/unknown advantage estimator "dpo"/);
  });

  it("returns finite advantages, one per token, exactly 0 outside the advantage mask", () => {
    fc.assert(
      fc.property(batchArb, fc.boolean(), (batch, maskAdvantages) => {
        for (const algorithm of ALGORITHMS) {
          const { advantages, returns } = computeAdvantages(algorithm, batch, extrasFor(batch), {
            maskAdvantages,
            gamma: 0.9,
            lambda: 0.95,
          });
          expect(advantages).toHaveLength(batch.length);
          batch.forEach((s, i) => {
            const mask = maskAdvantages ? s.actionMask : s.responseMask;
            expect(advantages[i]).toHaveLength(mask.length);
            mask.forEach((m, t) => {
              expect(Number.isFinite(advantages[i][t])).toBe(true);
              if (m === 0) expect(advantages[i][t], `${algorithm} sequence ${i} token ${t}`).toBe(0);
            });
          });
          if (algorithm === "ppo") expect(returns).toHaveLength(batch.length);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("gives zeros and counts every group when each group has one episode or equal rewards", () => {
    fc.assert(
      fc.property(batchArb, quarter, (batch, reward) => {
        // Every episode's only reward is `reward` on its last action token, so each group is degenerate.
        const flat = batch.map((s) => {
          const last = s.actionMask.lastIndexOf(1);
          return { ...s, rewards: s.rewards.map((_, i) => (i === last ? reward : 0)), totalReturn: reward };
        });
        const groups = new Set(flat.map((s) => s.group)).size;
        for (const algorithm of ["grpo", "rloo", "reinforce++-baseline", "remax"] as const) {
          const extras = { greedyReward: Object.fromEntries(flat.map((s) => [s.group, reward])) };
          const { advantages, degenerateGroups } = computeAdvantages(algorithm, flat, extras);
          expect(degenerateGroups, algorithm).toBe(groups);
          for (const a of advantages) expect(a.every((x) => x === 0)).toBe(true);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("gives each group of one episode zero advantage under grpo and rloo whatever its reward", () => {
    const batch = [scored("pa", { episode: "a", group: "x", rewards: { 1: 3 } })];
    for (const algorithm of ["grpo", "rloo", "reinforce++-baseline"] as const) {
      const { advantages, degenerateGroups } = computeAdvantages(algorithm, batch);
      expect(Array.from(advantages[0])).toEqual([0, 0]);
      expect(degenerateGroups).toBe(1);
    }
  });

  it("refuses an episode that appears twice, or with two returns", () => {
    const a = scored("pa", { episode: "a", rewards: { 1: 1 } });
    expect(() =>
      computeAdvantages("ppo", [a, a], {
        values: [
          [0, 0],
          [0, 0],
        ],
      }),
    ).toThrow(/episode a appears 2 times/);
    expect(() =>
      computeAdvantages("grpo", [
        { ...a, turn: 0 },
        { ...a, turn: 1, totalReturn: 2 },
      ]),
    ).toThrow(/two different returns/);
  });
});

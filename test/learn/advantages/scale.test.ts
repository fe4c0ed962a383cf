/**
 * The normalising estimators are scale-free: returns c * u whiten as u do, for any c that keeps them finite.
 * Past a spread of 1e154 the squared deviations overflowed, the std was Infinity and every advantage 0,
 * silently (not even counted as a degenerate group).
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { mean, std } from "../../../src/learn/advantages/stats.ts";
import { scored } from "./layout.ts";

const batchOf = (returns: readonly number[]) =>
  returns.map((r, i) => scored("paoa", { episode: `e${i}`, group: "g", rewards: { 3: r } }));

describe("normalising estimators at any scale", () => {
  test.prop(
    [
      fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 2, maxLength: 8 }),
      fc.constantFrom(1e-100, 1, 1e100, 1e160, 1e200, 1e300),
      fc.constantFrom("grpo", "reinforce++-baseline", "reinforce++"),
    ],
    { numRuns: 200 },
  )("give returns c * u the advantages of u", (units, c, algo) => {
    const u = units.map((x) => x / 100);
    // A spread the eps of (R - mean) / (std + eps) is small beside, at either scale.
    if (std(u) < 0.01) return;
    const scaled = computeAdvantages(algo, batchOf(u.map((x) => x * c)), {}, { eps: 0 });
    const plain = computeAdvantages(algo, batchOf(u), {}, { eps: 0 });
    scaled.advantages.forEach((a, i) => {
      expect(a[1], `${algo} x ${c}: episode ${i}`).toBeCloseTo(plain.advantages[i][1], 4);
    });
  });

  test.prop([fc.array(fc.double({ min: -1e308, max: 1e308, noNaN: true }), { minLength: 1, maxLength: 8 })])(
    "mean and std of finite values are finite, and the mean lies within them",
    (values) => {
      const m = mean(values);
      expect(Number.isFinite(m)).toBe(true);
      const [low, high] = [Math.min(...values), Math.max(...values)];
      expect(m).toBeGreaterThanOrEqual(low - Math.abs(low) * 1e-12);
      expect(m).toBeLessThanOrEqual(high + Math.abs(high) * 1e-12);
      // The deviations themselves can pass the largest number (1e308 - -1e308); their std is checked below that.
      if (values.every((x) => Math.abs(x - m) < 8e307)) expect(Number.isFinite(std(values))).toBe(true);
    },
  );
});

import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

describe("reinforce++-baseline: group mean removed, then normalised over the batch's action tokens", () => {
  it("centres within the group and whitens over tokens; a degenerate group gets exactly 0", () => {
    const batch = [
      scored("paoa", { episode: "a", group: "x", totalReturn: 1 }),
      scored("pao", { episode: "b", group: "x", totalReturn: 0 }),
      scored("paa", { episode: "c", group: "alone", totalReturn: 5 }),
    ];
    // A' = .5 (a, 2 tokens), -.5 (b, 1 token): token mean 1/6, sample std sqrt(1/3)
    const { advantages, degenerateGroups } = computeAdvantages("reinforce++-baseline", batch);
    const up = 1 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    const down = -2 / 3 / (Math.sqrt(1 / 3) + 1e-6);
    expect(advantages[0][1]).toBeCloseTo(up, 5);
    expect(advantages[0][3]).toBeCloseTo(up, 5);
    expect(advantages[0][2]).toBe(0);
    expect(advantages[1][1]).toBeCloseTo(down, 5);
    expect(list(advantages[2])).toEqual([0, 0, 0]);
    expect(degenerateGroups).toBe(1);
  });

  it("counts observation tokens when maskAdvantages is false", () => {
    const batch = [scored("paoa", { episode: "a", totalReturn: 1 }), scored("pao", { episode: "b", totalReturn: 0 })];
    // tokens: a has 3 response tokens at .5, b has 2 at -.5: mean .1, sample std sqrt(.3)
    const { advantages } = computeAdvantages("reinforce++-baseline", batch, {}, { maskAdvantages: false });
    const s = Math.sqrt(0.3) + 1e-6;
    expect(advantages[0][2]).toBeCloseTo(0.4 / s, 5);
    expect(advantages[1][2]).toBeCloseTo(-0.6 / s, 5);
  });
});

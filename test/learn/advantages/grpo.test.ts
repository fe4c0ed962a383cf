import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

const episode = (id: string, reward: number, group = "g") =>
  scored("paoa", { episode: id, group, rewards: { 3: reward } });

describe("grpo: group-normalised episode return", () => {
  it("gives (R - mean) / std with the sample std, on action tokens only", () => {
    const batch = [episode("a", 4), episode("b", 0), episode("c", 2)];
    // mean 2, sample std sqrt((4 + 4 + 0) / 2) = 2
    const { advantages, degenerateGroups } = computeAdvantages("grpo", batch, {}, { eps: 0 });
    expect(advantages.map(list)).toEqual([
      [0, 1, 0, 1],
      [0, -1, 0, -1],
      [0, 0, 0, 0],
    ]);
    expect(degenerateGroups).toBe(0);
  });

  it("adds eps to the std", () => {
    const batch = [episode("a", 1), episode("b", 0), episode("c", 0), episode("d", 1)];
    // mean .5, sample std sqrt(1/3)
    const { advantages } = computeAdvantages("grpo", batch);
    expect(advantages[0][1]).toBeCloseTo(0.5 / (Math.sqrt(1 / 3) + 1e-6), 6);
    expect(advantages[1][3]).toBeCloseTo(-0.5 / (Math.sqrt(1 / 3) + 1e-6), 6);
  });

  it("only centres when normalizeByStd is false (Dr. GRPO)", () => {
    const batch = [episode("a", 4), episode("b", 0), episode("c", 2)];
    const { advantages } = computeAdvantages("grpo", batch, {}, { normalizeByStd: false });
    expect(advantages.map((a) => a[1])).toEqual([2, -2, 0]);
  });

  it("normalises each group on its own", () => {
    const batch = [episode("a", 1, "x"), episode("b", 0, "x"), episode("c", 10, "y"), episode("d", 30, "y")];
    const { advantages } = computeAdvantages("grpo", batch, {}, { eps: 0 });
    const s = Math.SQRT1_2;
    expect(advantages.map((a) => a[1])).toEqual([s, -s, -s, s].map(Math.fround));
  });

  it("broadcasts over observations too when maskAdvantages is false", () => {
    const batch = [episode("a", 4), episode("b", 0), episode("c", 2)];
    const { advantages } = computeAdvantages("grpo", batch, {}, { eps: 0, maskAdvantages: false });
    expect(list(advantages[0])).toEqual([0, 1, 1, 1]);
  });

  it("counts the steps of one episode once and gives them all its advantage", () => {
    const steps = [
      scored("pa", { episode: "a", turn: 0, totalReturn: 1 }),
      scored("pppa", { episode: "a", turn: 1, totalReturn: 1 }),
      scored("pa", { episode: "b", turn: 0, totalReturn: 0 }),
    ];
    const { advantages } = computeAdvantages("grpo", steps, {}, { eps: 0 });
    // R = [1, 0]: mean .5, sample std sqrt(.5); counted per step it would be [1, 1, 0].
    const a = Math.fround(Math.SQRT1_2);
    expect(advantages.map(list)).toEqual([
      [0, a],
      [0, 0, 0, a],
      [0, -a],
    ]);
  });

  it("gives zeros, not NaN, for a group of one and for a group whose rewards are all equal", () => {
    const batch = [episode("a", 3, "alone"), episode("b", 1, "same"), episode("c", 1, "same")];
    const { advantages, degenerateGroups } = computeAdvantages("grpo", batch);
    expect(advantages.map(list)).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ]);
    expect(degenerateGroups).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

const episode = (id: string, reward: number, group = "g") =>
  scored("paao", { episode: id, group, rewards: { 2: reward } });

describe("rloo: leave-one-out baseline", () => {
  it("subtracts the mean of the other G - 1 returns", () => {
    const batch = [episode("a", 1), episode("b", 2), episode("c", 6)];
    const { advantages, degenerateGroups } = computeAdvantages("rloo", batch);
    // 1 - (2+6)/2 = -3;  2 - (1+6)/2 = -1.5;  6 - (1+2)/2 = 4.5
    expect(advantages.map(list)).toEqual([
      [0, -3, -3, 0],
      [0, -1.5, -1.5, 0],
      [0, 4.5, 4.5, 0],
    ]);
    expect(degenerateGroups).toBe(0);
  });

  it("writes the observation tokens too when maskAdvantages is false", () => {
    const { advantages } = computeAdvantages("rloo", [episode("a", 1), episode("b", 3)], {}, { maskAdvantages: false });
    expect(list(advantages[0])).toEqual([0, -2, -2, -2]);
  });

  it("gives zeros for a group of one and for equal rewards", () => {
    const batch = [episode("a", 5, "alone"), episode("b", 0.1, "same"), episode("c", 0.1, "same")];
    const { advantages, degenerateGroups } = computeAdvantages("rloo", batch);
    for (const a of advantages) expect(list(a)).toEqual([0, 0, 0, 0]);
    expect(degenerateGroups).toBe(2);
  });
});

import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

const episode = (id: string, reward: number, group = "g") =>
  scored("poa", { episode: id, group, rewards: { 2: reward } });

describe("remax: greedy rollout as baseline", () => {
  it("subtracts the group's greedy reward", () => {
    const batch = [episode("a", 1, "x"), episode("b", 0.5, "x"), episode("c", 0, "y")];
    const { advantages, degenerateGroups } = computeAdvantages("remax", batch, {
      greedyReward: { x: 0.5, y: 1 },
    });
    expect(advantages.map(list)).toEqual([
      [0, 0, 0.5],
      [0, 0, 0],
      [0, 0, -1],
    ]);
    expect(degenerateGroups).toBe(0);
  });

  it("uses a group of one normally, and counts a group equal to its greedy reward as degenerate", () => {
    const { advantages, degenerateGroups } = computeAdvantages("remax", [episode("a", 1, "x"), episode("b", 1, "y")], {
      greedyReward: { x: 0, y: 1 },
    });
    expect(advantages.map(list)).toEqual([
      [0, 0, 1],
      [0, 0, 0],
    ]);
    expect(degenerateGroups).toBe(1);
  });

  it("broadcasts over observations when maskAdvantages is false", () => {
    const { advantages } = computeAdvantages(
      "remax",
      [episode("a", 1)],
      { greedyReward: { g: 0 } },
      { maskAdvantages: false },
    );
    expect(list(advantages[0])).toEqual([0, 1, 1]);
  });

  it("refuses a group without a greedy reward, naming it", () => {
    expect(() => computeAdvantages("remax", [episode("a", 1, "lost")], { greedyReward: {} })).toThrow(
      /greedyReward\["lost"\]/,
    );
  });
});

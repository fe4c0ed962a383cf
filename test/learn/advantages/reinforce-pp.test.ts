import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

// Prompt, a_0 (1, 2), observation (3), a_1 (4). Process .5 on a_0's last token, outcome 1 on a_1.
const twoTurns = scored("paaoa", {
  episode: "e",
  rewards: { 2: 0.5, 4: 1 },
  logprobs: [0, -1, -2, 0, -0.5],
});
const refLogprobs = [[0, -1.5, -2, 7, -1]]; // KL = .5, 0, (not an action), .5

describe("reinforce++: discounted token return with KL penalty, batch-normalised", () => {
  it("discounts over action tokens only and subtracts beta * KL per token", () => {
    const { advantages, degenerateGroups, rewardKl } = computeAdvantages(
      "reinforce++",
      [twoTurns],
      { refLogprobs, klCoef: 0.1 },
      { gamma: 0.5 },
    );
    // The KL it put in the reward, averaged over the three action tokens: (.5 + 0 + .5) / 3.
    expect(rewardKl).toBeCloseTo(1 / 3, 6);
    // r' = [-.05, .5, .95]; G_4 = .95, G_2 = .5 + .5*.95 = .975, G_1 = -.05 + .5*.975 = .4375
    // mean .7875, sample std .30336653
    const expected = [0, -1.1537161, 0.6180622, 0, 0.5356539];
    expected.forEach((x, i) => {
      expect(advantages[0][i]).toBeCloseTo(x, 5);
    });
    expect(advantages[0][3]).toBe(0);
    expect(degenerateGroups).toBe(0);
  });

  it("normalises over every action token of the batch, across episodes", () => {
    const other = scored("pa", { episode: "f" }); // G = 0, no reference: KL = 0
    const { advantages } = computeAdvantages(
      "reinforce++",
      [twoTurns, other],
      { refLogprobs: [refLogprobs[0], undefined], klCoef: 0.1 },
      { gamma: 0.5 },
    );
    [-0.3291723, 0.8262898, 0.7725473].forEach((x, k) => {
      expect(advantages[0][[1, 2, 4][k]]).toBeCloseTo(x, 5);
    });
    expect(advantages[1][1]).toBeCloseTo(-1.2696647, 5);
  });

  it("uses given policy logprobs for the KL instead of the recorded ones", () => {
    const withRecorded = computeAdvantages("reinforce++", [twoTurns], { refLogprobs, klCoef: 0.1 }, { gamma: 0.5 });
    const withGiven = computeAdvantages(
      "reinforce++",
      [twoTurns],
      { refLogprobs, klCoef: 0.1, policyLogprobs: [[0, -1, -2, 0, -0.5]] },
      { gamma: 0.5 },
    );
    expect(list(withGiven.advantages[0])).toEqual(list(withRecorded.advantages[0]));
  });

  it("keeps observation tokens in the return when maskAdvantages is false", () => {
    // gamma .5 over [1, 2, 3, 4] with rewards [0, .5, 0, 1]: G = [.375, .75, .5, 1]
    const { advantages } = computeAdvantages("reinforce++", [twoTurns], {}, { gamma: 0.5, maskAdvantages: false });
    const g = [0.375, 0.75, 0.5, 1];
    const m = g.reduce((a, b) => a + b) / 4;
    const s = Math.sqrt(g.reduce((a, x) => a + (x - m) ** 2, 0) / 3);
    g.forEach((x, k) => {
      expect(advantages[0][k + 1]).toBeCloseTo((x - m) / (s + 1e-6), 5);
    });
    expect(advantages[0][0]).toBe(0);
  });

  it("gives zeros when every return is the same", () => {
    const { advantages } = computeAdvantages("reinforce++", [
      scored("paa", { episode: "a" }),
      scored("pa", { episode: "b" }),
    ]);
    expect(advantages.map(list)).toEqual([
      [0, 0, 0],
      [0, 0],
    ]);
  });
});

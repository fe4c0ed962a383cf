import { describe, expect, it } from "vitest";
import { computeAdvantages } from "../../../src/learn/advantages/index.ts";
import { list, scored } from "./layout.ts";

// Two turns: prompt (0, 1), a_0 (2, 3), observation (4, 5), a_1 (6, 7).
// Process reward 0.5 on a_0's last token, outcome 1 on a_1's last token.
const twoTurns = scored("ppaaooaa", { episode: "e", rewards: { 3: 0.5, 7: 1 } });
// The observation values (9) must never enter GAE when advantages are masked.
const values = [[9, 9, 0.1, 0.2, 9, 9, 0.3, 0.4]];

const expectClose = (actual: Float32Array, expected: number[]): void => {
  expect(actual).toHaveLength(expected.length);
  expected.forEach((x, i) => {
    expect(actual[i], `position ${i}`).toBeCloseTo(x, 5);
  });
};

describe("ppo: GAE over action tokens", () => {
  it("matches the hand-computed recursion, bootstrapping across the observation gap", () => {
    const { advantages, returns } = computeAdvantages("ppo", [twoTurns], { values }, { gamma: 0.9, lambda: 0.8 });
    // k=7: d = 1 - .4 = .6                        A = .6
    // k=6: d = 0 + .9*.4 - .3 = .06                A = .06 + .72*.6 = .492
    // k=3: d = .5 + .9*.3 - .2 = .57 (V of pos 6)  A = .57 + .72*.492 = .92424
    // k=2: d = 0 + .9*.2 - .1 = .08                A = .08 + .72*.92424 = .7454528
    expectClose(advantages[0], [0, 0, 0.7454528, 0.92424, 0, 0, 0.492, 0.6]);
    expectClose(returns![0], [0, 0, 0.8454528, 1.12424, 0, 0, 0.792, 1.0]);
  });

  it("gives observation and prompt positions exactly 0", () => {
    const { advantages, returns } = computeAdvantages("ppo", [twoTurns], { values }, { gamma: 0.9, lambda: 0.8 });
    for (const position of [0, 1, 4, 5]) {
      expect(advantages[0][position]).toBe(0);
      expect(returns![0][position]).toBe(0);
    }
  });

  it("with lambda = 0 is the one-step TD error, whose next state skips the observation", () => {
    const masked = computeAdvantages("ppo", [twoTurns], { values }, { gamma: 1, lambda: 0 });
    expectClose(masked.advantages[0], [0, 0, 0.1, 0.6, 0, 0, 0.1, 0.6]);
    // Ablation: GAE over every response token, so a_0's last token bootstraps from the observation's value.
    const unmasked = computeAdvantages("ppo", [twoTurns], { values }, { gamma: 1, lambda: 0, maskAdvantages: false });
    expectClose(unmasked.advantages[0], [0, 0, 0.1, 9.3, 0, -8.7, 0.1, 0.6]);
  });

  it("treats each episode as its own chain ending at 0", () => {
    const other = scored("paa", { episode: "f", rewards: { 2: 2 } });
    const { advantages } = computeAdvantages(
      "ppo",
      [twoTurns, other],
      { values: [...values, [5, 1, 1]] },
      { gamma: 1, lambda: 1 },
    );
    expectClose(advantages[0], [0, 0, 1.4, 1.3, 0, 0, 0.7, 0.6]);
    expectClose(advantages[1], [0, 1, 1]);
  });

  it("links the steps of an episode in turn order (step-level GAE equals the append layout's)", () => {
    // The same episode as twoTurns, as two steps given out of order.
    const step0 = scored("ppaa", { episode: "e", turn: 0, rewards: { 3: 0.5 }, totalReturn: 1.5 });
    const step1 = scored("ppppppaa", { episode: "e", turn: 1, rewards: { 7: 1 }, totalReturn: 1.5 });
    const { advantages } = computeAdvantages(
      "ppo",
      [step1, step0],
      { values: [values[0], values[0].slice(0, 4)] },
      { gamma: 0.9, lambda: 0.8 },
    );
    expectClose(advantages[1], [0, 0, 0.7454528, 0.92424]);
    expectClose(advantages[0], [0, 0, 0, 0, 0, 0, 0.492, 0.6]);
  });

  it("refuses missing or misaligned values", () => {
    expect(() => computeAdvantages("ppo", [twoTurns])).toThrow(/extras.values/);
    expect(() => computeAdvantages("ppo", [twoTurns], { values: [[1, 2]] })).toThrow(/8 tokens but 2 values/);
    expect(() => computeAdvantages("ppo", [twoTurns], { values: [[0, 0, Number.NaN, 0, 0, 0, 0, 0]] })).toThrow(
      /not finite|NaN/,
    );
  });

  it("returns float arrays as long as the tokens", () => {
    const { advantages } = computeAdvantages("ppo", [twoTurns], { values });
    expect(advantages[0]).toBeInstanceOf(Float32Array);
    expect(list(advantages[0])).toHaveLength(8);
  });
});

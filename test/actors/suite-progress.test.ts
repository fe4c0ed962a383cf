/**
 * The suite's progress (`npm start`, `eval --suite`) moves while a column's episodes run in their lockstep batch:
 * off a terminal, a line per turn with the running episodes, not only when episodes end.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { hopqa } from "../../actors/hopqa/index.ts";
import { evaluateSuiteShown } from "../../actors/hopqa/suite.ts";
import type { Policy } from "../../src/index.ts";
import { captureOutput } from "../support/index.ts";

/** The expert, each policy call (a turn of every running episode) taking 3 s of a faked clock. */
const slowExpert = (): Policy => {
  const expert = hopqa.policies.expert();
  return {
    ...expert,
    act: (requests, options) => {
      vi.setSystemTime(Date.now() + 3000);
      return expert.act(requests, options);
    },
  };
};

describe("the suite's progress", () => {
  const output = captureOutput();
  afterEach(() => {
    vi.useRealTimers();
  });

  it("says how many episodes run and at which turn, in every column, before they end", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    await evaluateSuiteShown("suite", slowExpert, 2, "progress");
    const lines = output.stderr.split("\n").filter((l) => l.startsWith("suite: "));
    expect(lines).toEqual([
      // The first column's first turn, before any episode ended: up to hopqa's turn limit (8) actions each, at most
      // 2 x 7 more in this column and 4 x 8 in the others, at 2 actions in 3 s (the suite took 36 s more).
      "suite: 0/6, 2 running at turn 1 (2 actions, 1.5 s each, ETA at most 69s)",
      "suite: 0/6, 2 running at turn 2 (4 actions, 1.5 s each, ETA at most 66s)",
      "suite: 0/6, 2 running at turn 3 (6 actions, 1.5 s each, ETA at most 63s)",
      // One ended after 3 actions: the other, at 4, is expected to take one more, the 4 to come 3 each (as the
      // ended one took): 13 at 7 actions in 12 s.
      "suite: 1/6, 1 running at turn 4 (7 actions, 1.7 s each, ETA 22s) column test-seen em 1.000",
      // The next columns' episodes, while they run (the info is the last ended episode's column).
      "suite: 2/6, 2 running at turn 1 (9 actions, 1.7 s each, ETA 20s) column test-seen em 1.000",
      "suite: 2/6, 2 running at turn 2 (11 actions, 1.6 s each, ETA 16s) column test-seen em 1.000",
      "suite: 2/6, 2 running at turn 3 (13 actions, 1.6 s each, ETA 15s) column test-seen em 1.000",
      "suite: 2/6, 2 running at turn 4 (15 actions, 1.6 s each, ETA 14s) column test-seen em 1.000",
      "suite: 4/6, 2 running at turn 1 (17 actions, 1.6 s each, ETA 9s) column test-new em 1.000",
      "suite: 4/6, 2 running at turn 2 (19 actions, 1.6 s each, ETA 6s) column test-new em 1.000",
      "suite: 4/6, 2 running at turn 3 (21 actions, 1.6 s each, ETA 3s) column test-new em 1.000",
      "suite: 4/6, 2 running at turn 4 (23 actions, 1.6 s each, ETA 3s) column test-new em 1.000",
      "suite: 4/6, 2 running at turn 5 (25 actions, 1.6 s each, ETA 3s) column test-new em 1.000",
      "suite: 6/6 (25 actions, 1.6 s each, ETA 0s) column ood-new em 1.000",
    ]);
  });
});

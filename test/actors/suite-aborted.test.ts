import { describe, expect, it } from "vitest";
import { type HopqaTask, hopqa } from "../../actors/hopqa/index.ts";
import { abortedColumns, evaluateSuiteShown } from "../../actors/hopqa/suite.ts";
import type { Policy } from "../../src/index.ts";
import { captureOutput } from "../support/index.ts";

/** The expert, failing on every 4-hop question (as a model that runs out of memory on the longest contexts did). */
const failingOnFourHops = (): Policy => {
  const expert = hopqa.policies.expert();
  return {
    ...expert,
    act: async (requests, options) => {
      if (requests.some((r) => (r.task as unknown as HopqaTask).chain.length === 4))
        throw new Error("memory access out of bounds");
      return expert.act(requests, options);
    },
  };
};

describe("the suite's aborted episodes", () => {
  const output = captureOutput();

  it("a column whose episodes aborted says how many and why, in its score and on stderr, not a silent 0", async () => {
    const result = await evaluateSuiteShown("suite", failingOnFourHops, 3, "aborted");
    expect(result["ood-new"]).toMatchObject({ em: 0, episodes: 3, aborted: 3 });
    expect(result["ood-new"].abortReason).toContain("memory access out of bounds");
    // The columns that ran keep the shape they always had.
    expect(result["test-seen"]).toEqual({ em: 1, f1: 1, grounded: 1, episodes: 3 });
    expect(abortedColumns(result).map((c) => c.column)).toEqual(["ood-new"]);
    expect(output.stderr).toMatch(
      /warning: suite: ood-new: 3 of 3 episodes aborted \(scored 0\): .*memory access out of bounds/,
    );
    expect(output.stderr).not.toMatch(/warning: suite: test-/);
  });
});

/**
 * Crash safety, quick version (the full one, 60 trials, is crash.slow.test.ts): `agent-r1 record` killed
 * with SIGKILL at a random moment, once per durability policy; see crash-harness.ts for what is checked.
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { planTrials, runTrial, summarize, type TrialOutcome } from "./crash-harness.ts";

describe("crash safety: record killed with SIGKILL", () => {
  it("leaves only complete journals, valid prefixes, torn tails or empty files; repair and verify agree", async () => {
    const root = tempDir("agent-r1-crash-");
    const trials = planTrials(3, "quick", { seeds: 1, episodes: 200, maxDelayMs: 800, powerLossEvery: 3 });
    const outcomes: TrialOutcome[] = await Promise.all(trials.map((trial) => runTrial(trial, root)));
    const summary = summarize(outcomes);
    console.log(`crash trials (quick): ${JSON.stringify(summary)}`);
    expect(summary.trials).toBe(3);
    expect(Object.values(summary.byDurability)).toEqual([1, 1, 1]);
  });
});

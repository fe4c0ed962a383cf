/**
 * Crash safety of the learner, quick version (the full one, 50 trials, is train-crash.slow.test.ts):
 * `agent-r1 train` killed with SIGKILL at a random moment, then resumed;
 * see train-crash-harness.ts for what is checked.
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { planTrainTrials, runTrainTrial, summarizeTrain } from "./train-crash-harness.ts";

describe("crash safety: train killed with SIGKILL, then resumed", () => {
  it("keeps ended episodes and whole checkpoints; --resume finishes the run exactly as an uninterrupted one", async () => {
    const root = tempDir("agent-r1-train-crash-");
    // One flag set (one reference run) keeps this under half a minute; the slow version varies them.
    const trials = planTrainTrials(2, "quick", {
      steps: 3,
      cliRepairEvery: 2,
      algos: ["ppo"],
      checkpointEvery: [1],
      kills: [
        { from: "update", updates: 1, ms: 150 },
        { from: "update", updates: 2, ms: 0 },
      ],
    });
    const outcomes = await Promise.all(trials.map((trial) => runTrainTrial(trial, root)));
    const summary = summarizeTrain(outcomes);
    console.log(`train crash trials (quick): ${JSON.stringify(summary)}`);
    expect(summary.trials).toBe(2);
    expect(summary.kills).toBe(2);
  });
});

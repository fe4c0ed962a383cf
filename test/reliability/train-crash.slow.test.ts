/**
 * Crash safety of the learner, full version (`npm run test:slow`): 50 runs of `agent-r1 train` (GRPO and
 * PPO in turn, checkpoints every 1, 2 or 4 updates, some with evaluations) killed with SIGKILL at random
 * moments, every third one killed again during its first `--resume`, each then resumed to the end and
 * compared with an uninterrupted run; see train-crash-harness.ts for the checks. TRAIN_CRASH_TRIALS and
 * TRAIN_CRASH_SEED change the run.
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { planTrainTrials, runTrainTrial, summarizeTrain, type TrainTrialOutcome } from "./train-crash-harness.ts";

const TRIALS = Number(process.env.TRAIN_CRASH_TRIALS ?? 50);
const AT_ONCE = 2;

describe("crash safety: train killed with SIGKILL at random moments, then resumed", () => {
  it(`${TRIALS} trials: nothing ended is lost, checkpoints whole, resumed runs equal uninterrupted ones`, {
    timeout: 3_600_000,
  }, async () => {
    const root = tempDir("agent-r1-train-crash-slow-");
    const trials = planTrainTrials(TRIALS, process.env.TRAIN_CRASH_SEED ?? "slow", {
      secondKillEvery: 3,
      cliRepairEvery: 4,
      evalEvery: 5,
    });
    const started = performance.now();
    const outcomes: TrainTrialOutcome[] = [];
    for (let i = 0; i < trials.length; i += AT_ONCE)
      outcomes.push(...(await Promise.all(trials.slice(i, i + AT_ONCE).map((trial) => runTrainTrial(trial, root)))));
    const summary = { ...summarizeTrain(outcomes), seconds: Math.round((performance.now() - started) / 1000) };
    console.log(`train crash trials: ${JSON.stringify(summary)}`);
    expect(summary.trials).toBe(TRIALS);
    // The kills must mostly land mid-run, or the trials prove little.
    expect(summary.killsMidRun).toBeGreaterThanOrEqual(Math.floor(summary.kills * 0.75));
  });
});

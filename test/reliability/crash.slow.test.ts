/**
 * Crash safety, full version (`npm run test:slow`): 60 runs of `agent-r1 record` killed with SIGKILL at
 * random moments, 20 per durability policy, some with megabyte-sized lines (more writes cut mid-way),
 * some repaired by the `agent-r1 replay --repair` command itself; see crash-harness.ts for the checks.
 * Set CRASH_TRIALS to run more (or fewer).
 */
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { planTrials, runTrial, summarize, type TrialOutcome } from "./crash-harness.ts";

const TRIALS = Number(process.env.CRASH_TRIALS ?? 60);
const AT_ONCE = 2;

describe("crash safety: record killed with SIGKILL at random moments", () => {
  it(`${TRIALS} trials: nothing ended is lost, in-flight journals repair, verify agrees`, {
    timeout: 1_800_000,
  }, async () => {
    const root = tempDir("agent-r1-crash-slow-");
    const trials = planTrials(TRIALS, process.env.CRASH_SEED ?? "slow", {
      bulkyEvery: 5,
      cliRepairEvery: 4,
      powerLossEvery: 2,
      // Long enough that most kills land mid-run: at 300, 39 of 60 did (recording got faster than the delays).
      episodes: 1000,
    });
    const outcomes: TrialOutcome[] = [];
    for (let i = 0; i < trials.length; i += AT_ONCE)
      outcomes.push(...(await Promise.all(trials.slice(i, i + AT_ONCE).map((trial) => runTrial(trial, root)))));
    const summary = summarize(outcomes);
    console.log(`crash trials: ${JSON.stringify(summary)}`);
    expect(summary.trials).toBe(TRIALS);
    // The kills must mostly land mid-run, or the trials prove little.
    expect(summary.killedMidRun).toBeGreaterThanOrEqual(Math.floor(TRIALS * 0.8));
  });
});

/**
 * Checkpoint saves killed with SIGKILL, full version (`npm run test:slow`): 100 kills at random moments of
 * a loop of saves; see checkpoint-kill.ts for what is checked. SAVE_KILLS and SAVE_KILL_SEED change the run.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { killSave, planSaveKills, type SaveKillOutcome, summarizeSaveKills } from "./checkpoint-kill.ts";

const KILLS = Number(process.env.SAVE_KILLS ?? 100);
const AT_ONCE = 2;

describe("crash safety: checkpoint saves killed at random moments", () => {
  it(`${KILLS} kills: every checkpoint under its name is whole, latest.json is sound`, {
    timeout: 1_800_000,
  }, async () => {
    const root = tempDir("agent-r1-save-kill-slow-");
    const delays = planSaveKills(KILLS, process.env.SAVE_KILL_SEED ?? "slow");
    const outcomes: SaveKillOutcome[] = [];
    for (let i = 0; i < delays.length; i += AT_ONCE)
      outcomes.push(
        ...(await Promise.all(delays.slice(i, i + AT_ONCE).map((ms, j) => killSave(join(root, `k${i + j}`), ms)))),
      );
    const summary = summarizeSaveKills(outcomes);
    console.log(`checkpoint save kills: ${JSON.stringify(summary)}`);
    expect(summary.kills).toBe(KILLS);
    // Many kills must land inside a save (about half do), or the run proves little.
    expect(summary.cutBeforeRename + summary.cutBetweenRenames).toBeGreaterThanOrEqual(KILLS * 0.3);
  });
});

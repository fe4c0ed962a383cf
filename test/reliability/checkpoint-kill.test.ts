/**
 * Checkpoint saves killed with SIGKILL, quick version (100 kills in checkpoint-kill.slow.test.ts); see
 * checkpoint-kill.ts for what is checked.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { killSave, planSaveKills, summarizeSaveKills } from "./checkpoint-kill.ts";

describe("crash safety: a checkpoint save killed mid-way", () => {
  it("never leaves a half-written checkpoint under its name; latest.json always names a whole one", async () => {
    const root = tempDir("agent-r1-save-kill-");
    const delays = planSaveKills(2, "quick");
    const outcomes = await Promise.all(delays.map((ms, i) => killSave(join(root, `k${i}`), ms)));
    const summary = summarizeSaveKills(outcomes);
    console.log(`checkpoint save kills (quick): ${JSON.stringify(summary)}`);
    expect(summary.kills).toBe(2);
  });
});

/**
 * record takes its --out's lock before its episodes start, and a --resume then checks every journal it goes
 * on with (seconds, for a large folder). Its stop-signal handler used to be installed only when the episodes
 * started: SIGTERM or Ctrl-C in between ended it without the exit that releases the lock, which the next
 * record had to take over. The handler is now installed before the lock is taken. The check reads the
 * journals synchronously, so a signal during it was handled only once the episodes had started, and with
 * none left to record (a --resume of a recording that had ended) it was dropped: record exited 0. The check
 * now lets the event loop turn at each journal, so the signal ends record during it.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/journal/lock.ts";
import { tempDir } from "../support/index.ts";

describe("record --resume, stopped while it checks the journals to go on with", () => {
  // lookup, whose task(seed) takes 40 ms when AGENT_R1_TEST_SLOW_TASK is set (an environment that builds a
  // large task): --resume calls it for each of the 60 journals it checks, with the lock held. (One long
  // busy task instead delayed the signal's handling past the check, here.) The 60 journals are recorded once;
  // each case goes on with a copy of them.
  let env: string;
  let recorded: string;
  beforeAll(() => {
    const folder = tempDir("agent-r1-record-slow-check-");
    env = join(folder, "slow-task-env.mts");
    writeFileSync(
      env,
      `import { lookup } from ${JSON.stringify(join(process.cwd(), "actors/lookup/index.ts"))};
const slow = process.env.AGENT_R1_TEST_SLOW_TASK === "1";
export default {
  ...lookup,
  task: (seed) => {
    const until = Date.now() + (slow ? 40 : 0);
    while (Date.now() < until) {}
    return lookup.task(seed);
  },
};
`,
    );
    recorded = join(folder, "demos");
    const first = spawnSync(process.execPath, [...record(recorded), "--episodes", "60"], { encoding: "utf8" });
    expect(first.status, first.stderr).toBe(0);
    expect(readdirSync(recorded)).toHaveLength(60);
  }, 60_000);
  const record = (out: string) => ["bin/agent-r1.js", "record", "--env", env, "--policy", "expert", "--out", out];

  it.each([
    ["SIGTERM", 143, "interrupted by SIGTERM", 80],
    ["SIGINT", 130, "interrupted", 80],
    // Nothing left to record: the signal was dropped, and record exited 0.
    ["SIGTERM", 143, "interrupted by SIGTERM", 60],
    ["SIGINT", 130, "interrupted", 60],
  ] as const)(
    "%s: exits %i (%s), keeps the journals and removes its lock (--resume --episodes %i, 60 journaled)",
    async (signal, code, said, episodes) => {
      const out = join(tempDir("agent-r1-record-slow-check-"), "demos");
      cpSync(recorded, out, { recursive: true });
      const journals = readdirSync(out).sort();
      expect(journals).toHaveLength(60);
      // 20 more to record, or none: a signal that comes during the check ends record (before, it ended the
      // process at once, leaving the lock; then it waited for the episodes, and was dropped when none were left).
      const resume = [...record(out), "--episodes", String(episodes), "--resume"];
      const child = spawn(process.execPath, resume, {
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, AGENT_R1_TEST_SLOW_TASK: "1" },
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const exited = new Promise<number | null>((done) => child.on("exit", (exit) => done(exit)));
      while (!existsSync(join(out, LOCK_FILE))) await new Promise((r) => setTimeout(r, 20));
      child.kill(signal);
      expect(await exited, stderr).toBe(code);
      expect(stderr).toMatch(
        episodes === 60
          ? `${said}: record stopped before its episodes started (while it checked the journals to go on with), so nothing was recorded (the journals are kept as they were)`
          : new RegExp(
              `${said}: (record stopped before its episodes started \\(while it checked the journals to go on with\\), so nothing was recorded|\\d+ of 80 episodes ended and are journaled in)`,
            ),
      );
      // The lock is gone with it (it was left behind), and the journals checked are kept.
      const left = readdirSync(out);
      expect(left).not.toContain(LOCK_FILE);
      for (const journal of journals) expect(left).toContain(journal);
    },
    60_000,
  );
});

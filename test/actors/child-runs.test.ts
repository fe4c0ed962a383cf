import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runLogged } from "../../actors/hopqa/child-runs.ts";

describe("runLogged (the experiment's and recipe:left's children)", () => {
  it("writes the child's output to its log while it runs, so tail -f follows a long step", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "agent-r1-child-")), "step.log");
    const ran = runLogged(
      [
        "-e",
        "process.stdout.write('update 1\\n'); process.stderr.write('progress\\n'); setTimeout(() => process.stdout.write('{\"done\":true}\\n'), 1500)",
      ],
      log,
      "$ step\n",
    );
    let finished = false;
    void ran.then(() => {
      finished = true;
    });
    const seen = async () => {
      for (let i = 0; i < 100; i++) {
        const text = readFileSync(log, "utf8");
        if (text.includes("progress")) return text;
        await new Promise((r) => setTimeout(r, 20));
      }
      return readFileSync(log, "utf8");
    };
    const early = await seen();
    expect(finished).toBe(false);
    expect(early.startsWith("$ step\n")).toBe(true);
    expect(early).toContain("update 1\n");
    expect(early).not.toContain("done");
    const { code, stdout } = await ran;
    expect(code).toBe(0);
    // Its stdout alone comes back (a JSON summary), the log keeps both streams.
    expect(stdout.toString()).toBe('update 1\n{"done":true}\n');
    expect(readFileSync(log, "utf8")).toContain('{"done":true}\n');
  });

  it("says 128 + the signal's number for a child a signal ended, as a shell does", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "agent-r1-child-")), "killed.log");
    const { code } = await runLogged(["-e", "process.kill(process.pid, 'SIGKILL')"], log);
    expect(code).toBe(137);
  });
});

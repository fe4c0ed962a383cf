/**
 * eval --out holds the folder's lock (as record, train, sft and average hold theirs) from its check to its exit:
 * two evals into one new or empty --out both passed the check made at their start and wrote their journals
 * into one folder (of two seeds, say), which inspect and replay then read as one set.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { LOCK_FILE } from "../../src/journal/lock.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-eval-lock-");
const WARM = "docs/checkpoints/hopqa-copy-warm-start";
const evalArgs = (out: string, seed = "eval") => [
  "eval",
  "--checkpoint",
  WARM,
  "--episodes",
  "2",
  "--seed",
  seed,
  "--out",
  out,
];
const sleeper = spawn("sleep", ["60"]);

/** Runs the CLI in a process of its own: its exit code and stderr. */
const cli = (...args: string[]) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/agent-r1.js", ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stderr }));
  });

describe("eval locks its --out", () => {
  afterAll(() => {
    sleeper.kill("SIGKILL");
  });

  it("refuses an --out another process is writing, naming it, and leaves the folder and its lock as they were", async () => {
    const out = join(dir, "busy");
    mkdirSync(out);
    writeFileSync(join(out, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, command: "eval", since: "then" }));
    output.clear();
    expect(await main(evalArgs(out))).toBe(2);
    expect(output.stderr).toContain(`${out} is being written by another agent-r1 process (pid ${sleeper.pid}, eval`);
    expect(readdirSync(out)).toEqual([LOCK_FILE]);
    expect(JSON.parse(readFileSync(join(out, LOCK_FILE), "utf8")).pid).toBe(sleeper.pid);
  });

  it("takes over a lock left by an eval that is gone (the folder is still empty), and releases it at the end", async () => {
    const out = join(dir, "stale");
    mkdirSync(out);
    writeFileSync(join(out, LOCK_FILE), "{");
    output.clear();
    expect(await main(evalArgs(out)), output.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["ep-eval-0.jsonl", "ep-eval-1.jsonl"]);
  }, 60_000);

  it("a failed eval leaves no --out folder behind", async () => {
    const out = join(dir, "failed");
    expect(await main(["eval", "--env", "hopqa", "--checkpoint", join(dir, "nothing"), "--out", out])).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it("of two evals started at once into one new --out, one writes it and the other is refused", async () => {
    const out = join(dir, "race");
    const runs = await Promise.all([cli(...evalArgs(out, "a")), cli(...evalArgs(out, "b"))]);
    expect(runs.map((run) => run.code).sort(), runs.map((run) => run.stderr).join("\n")).toEqual([0, 2]);
    const refused = runs.find((run) => run.code === 2)!.stderr;
    expect(refused).toMatch(/is being written by another agent-r1 process \(pid \d+, eval|is not an empty folder/);
    // The episodes of one seed only, and no lock left.
    const seed = runs[0].code === 0 ? "a" : "b";
    expect(readdirSync(out).sort()).toEqual([`ep-${seed}-0.jsonl`, `ep-${seed}-1.jsonl`]);
  }, 60_000);
});

/**
 * `npm run experiment`'s handling of its runs' processes when it stops, with stand-in runs
 * (test/fixtures/experiment-run.mjs through AGENT_R1_EXPERIMENT_RUN_SCRIPT): a third stop signal kills runs
 * that do not stop; an experiment that ends otherwise (it throws) tells its runs to stop; a run that fails
 * after a stop signal is reported as failed, not as stopped at its checkpoint.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";

/**
 * Whether process `pid` still runs. A run that outlived the experiment is reparented, and once it exits it may
 * stay a zombie until its new parent reaps it (kill(pid, 0) still succeeds then): a zombie has stopped.
 */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/PID/stat: "pid (comm) STATE ...", comm in parentheses (it may hold spaces).
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true; // no /proc (not Linux): kill(pid, 0) said it is there
  }
};
/** Waits for `ready`; on a timeout, the error says what was awaited and what the experiment said. */
const until = async (ready: () => boolean, what = "the condition", said: () => string = () => "") => {
  // Generous: a loaded machine has taken over 45 s to start the experiment's first run (once, in a full suite).
  const deadline = Date.now() + 90_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out after 90 s waiting for ${what}${said()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** The experiment (--quick, grpo, `seeds` seeds at once) with stand-in runs that behave as `mode` says. */
const start = (mode: string, seeds: number) => {
  const root = tempDir("agent-r1-experiment-runs-");
  const out = join(root, "runs");
  mkdirSync(out, { recursive: true });
  // The warm start counts as built: the runs start at once.
  const scores = { "test-seen": { em: 0 }, "test-new": { em: 0 }, "ood-new": { em: 0 }, average: 0 };
  writeFileSync(join(out, "baselines.json"), JSON.stringify({ base: scores, rag: scores }));
  const args = ["--quick", "--only", "grpo", "--seeds", String(seeds), "--jobs", String(seeds), "--out", out];
  const child = spawn(
    process.execPath,
    ["bin/run-ts.js", "actors/hopqa/experiment.ts", ...args, "--docs", join(root, "docs")],
    {
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        AGENT_R1_EXPERIMENT_RUN_SCRIPT: join(process.cwd(), "test/fixtures/experiment-run.mjs"),
        FAKE_RUN: mode,
      },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((done) =>
    child.on("exit", (code) => {
      exitCode = code;
      done(code);
    }),
  );
  const pidOf = (run: string) => Number(readFileSync(join(out, run, "pid"), "utf8"));
  const said = () =>
    `; the experiment ${exitCode === undefined ? "is still running" : `exited ${exitCode}`}; its stdout: ${JSON.stringify(stdout.slice(-2000))}; its stderr: ${JSON.stringify(stderr.slice(-2000))}`;
  const running = (run: string) => until(() => existsSync(join(out, run, "pid")), `${run}'s pid file`, said);
  return { child, out, exited, pidOf, running, said, output: () => ({ stdout, stderr }) };
};

describe("npm run experiment, its runs' processes", () => {
  it("a third stop signal kills runs that do not stop, and exits", async () => {
    const experiment = start("stuck", 1);
    await experiment.running("grpo-s0");
    const run = experiment.pidOf("grpo-s0");
    // Each Ctrl-C once the one before is answered. Sent at fixed intervals (300 ms), two could reach the
    // experiment as one: signals sent while a process waits for a core (niced, on busy cores) merge, and the
    // test waited for a kill that never came (99 s, under load).
    const answered = (what: RegExp) =>
      until(() => what.test(experiment.output().stderr), `stderr to match ${what}`, experiment.said);
    experiment.child.kill("SIGINT");
    await answered(/interrupted: the run in progress finishes its update and writes a checkpoint/);
    experiment.child.kill("SIGINT");
    await answered(/interrupted again: the run quits now/);
    experiment.child.kill("SIGINT");
    expect(await experiment.exited, experiment.output().stderr).toBe(130);
    expect(experiment.output().stderr).toContain("interrupted a third time: the runs in progress are killed");
    await until(() => !alive(run));
  }, 200_000);

  it("ended by an error, it tells its runs in progress to stop (they are detached: they would train on)", async () => {
    const experiment = start("crash", 2);
    await experiment.running("grpo-s1");
    const second = experiment.pidOf("grpo-s1");
    expect(await experiment.exited).not.toBe(0);
    expect(experiment.output().stderr).toMatch(/SyntaxError|JSON/);
    await until(() => existsSync(join(experiment.out, "grpo-s1", "got-SIGTERM")));
    await until(() => !alive(second));
  }, 200_000);

  it("a run that fails after a stop signal is reported FAILED, one that exits with the stop's code stopped", async () => {
    const experiment = start("stop-exits", 2);
    await experiment.running("grpo-s0");
    await experiment.running("grpo-s1");
    experiment.child.kill("SIGINT");
    expect(await experiment.exited, experiment.output().stderr).toBe(130);
    const { stdout } = experiment.output();
    expect(stdout).toContain("grpo-s0: stopped at its last checkpoint (it resumes from there)");
    expect(stdout).toContain("grpo-s1: FAILED (exit 1)");
    expect(stdout).not.toContain("grpo-s1: stopped");
  }, 200_000);
});

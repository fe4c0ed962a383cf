/**
 * The setup file removes a test file's counterexample folder, except when a test of the file failed: the
 * failure prints `npx agent-r1 replay <journal in it> --verify`, which found no file when it was removed.
 */
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * The fixture's own vitest run, in a process of its own: its exit status, its folders and what it said. The
 * three runs below start together, before the tests (one after another, about 2 s each left a core idle).
 */
const runFixture = async (fail: boolean, ...more: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  delete env.AGENT_R1_COUNTEREXAMPLES;
  delete env.AGENT_R1_KEEP_TEMP;
  if (fail) env.FIXTURE_FAIL = "1";
  else delete env.FIXTURE_FAIL;
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) =>
    execFile(
      process.execPath,
      [
        "node_modules/vitest/vitest.mjs",
        "run",
        "--config",
        "test/fixtures/kept-counterexample/vitest.config.ts",
        ...more,
      ],
      { encoding: "utf8", env },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        done({ status: error ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
      },
    ),
  );
  const dir = /COUNTEREXAMPLES=(\S+)/.exec(run.stdout + run.stderr)?.[1];
  const topLevel = /TOP_LEVEL=(\S+)/.exec(run.stdout + run.stderr)?.[1];
  return { status: run.status, dir, topLevel, output: run.stdout + run.stderr };
};

describe("test/support/cleanup.ts", () => {
  let runs: {
    failed: ReturnType<typeof runFixture>;
    passed: ReturnType<typeof runFixture>;
    skipped: ReturnType<typeof runFixture>;
  };
  beforeAll(() => {
    runs = {
      failed: runFixture(true),
      passed: runFixture(false),
      skipped: runFixture(false, "-t", "no test has this name"),
    };
  });

  it("keeps the counterexample folder of a file whose test failed, and says so", async () => {
    const { status, dir, output } = await runs.failed;
    expect(status, output).toBe(1);
    expect(dir, output).toBeDefined();
    try {
      expect(existsSync(`${dir}/cx.jsonl`), output).toBe(true);
      expect(output).toContain(`counterexample journals are kept in ${dir}`);
    } finally {
      rmSync(dir!, { recursive: true, force: true });
    }
  }, 60_000);

  it("removes it when every test passed", async () => {
    const { status, dir, topLevel, output } = await runs.passed;
    expect(status, output).toBe(0);
    expect(dir, output).toBeDefined();
    expect(existsSync(dir!), output).toBe(false);
    expect(topLevel, output).toBeDefined();
    expect(existsSync(topLevel!), output).toBe(false);
  }, 60_000);

  it("removes a folder made at a file's top level when the file's tests were all skipped (vitest run -t NAME)", async () => {
    // The file's hooks never run then; the run's teardown (global-setup.ts) removes it. Such runs had left
    // agent-r1-budget-*, agent-r1-cli-input-* and the like in /tmp.
    const { status, topLevel, output } = await runs.skipped;
    expect(status, output).toBe(0);
    expect(topLevel, output).toBeDefined();
    expect(existsSync(topLevel!), output).toBe(false);
  }, 60_000);
});

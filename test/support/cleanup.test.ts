/**
 * The setup file removes a test file's counterexample folder, except when a test of the file failed: the
 * failure prints `npx agent-r1 replay <journal in it> --verify`, which found no file when it was removed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";

const runFixture = (fail: boolean, ...more: string[]) => {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  delete env.AGENT_R1_COUNTEREXAMPLES;
  delete env.AGENT_R1_KEEP_TEMP;
  if (fail) env.FIXTURE_FAIL = "1";
  else delete env.FIXTURE_FAIL;
  const run = spawnSync(
    process.execPath,
    [
      "node_modules/vitest/vitest.mjs",
      "run",
      "--config",
      "test/fixtures/kept-counterexample/vitest.config.ts",
      ...more,
    ],
    { encoding: "utf8", env },
  );
  const dir = /COUNTEREXAMPLES=(\S+)/.exec(run.stdout + run.stderr)?.[1];
  const topLevel = /TOP_LEVEL=(\S+)/.exec(run.stdout + run.stderr)?.[1];
  return { status: run.status, dir, topLevel, output: run.stdout + run.stderr };
};

describe("test/support/cleanup.ts", () => {
  it("keeps the counterexample folder of a file whose test failed, and says so", () => {
    const { status, dir, output } = runFixture(true);
    expect(status, output).toBe(1);
    expect(dir, output).toBeDefined();
    try {
      expect(existsSync(`${dir}/cx.jsonl`), output).toBe(true);
      expect(output).toContain(`counterexample journals are kept in ${dir}`);
    } finally {
      rmSync(dir!, { recursive: true, force: true });
    }
  }, 60_000);

  it("removes it when every test passed", () => {
    const { status, dir, topLevel, output } = runFixture(false);
    expect(status, output).toBe(0);
    expect(dir, output).toBeDefined();
    expect(existsSync(dir!), output).toBe(false);
    expect(topLevel, output).toBeDefined();
    expect(existsSync(topLevel!), output).toBe(false);
  }, 60_000);

  it("removes a folder made at a file's top level when the file's tests were all skipped (vitest run -t NAME)", () => {
    // The file's hooks never run then; the run's teardown (global-setup.ts) removes it. Such runs had left
    // agent-r1-budget-*, agent-r1-cli-input-* and the like in /tmp.
    const { status, topLevel, output } = runFixture(false, "-t", "no test has this name");
    expect(status, output).toBe(0);
    expect(topLevel, output).toBeDefined();
    expect(existsSync(topLevel!), output).toBe(false);
  }, 60_000);
});

/**
 * The setup file removes a test file's counterexample folder, except when a test of the file failed: the
 * failure prints `npx agent-r1 replay <journal in it> --verify`, which found no file when it was removed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";

const runFixture = (fail: boolean) => {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0" };
  delete env.AGENT_R1_COUNTEREXAMPLES;
  delete env.AGENT_R1_KEEP_TEMP;
  if (fail) env.FIXTURE_FAIL = "1";
  else delete env.FIXTURE_FAIL;
  const run = spawnSync(
    process.execPath,
    ["node_modules/vitest/vitest.mjs", "run", "--config", "test/fixtures/kept-counterexample/vitest.config.ts"],
    { encoding: "utf8", env },
  );
  const dir = /COUNTEREXAMPLES=(\S+)/.exec(run.stdout + run.stderr)?.[1];
  return { status: run.status, dir, output: run.stdout + run.stderr };
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
    const { status, dir, output } = runFixture(false);
    expect(status, output).toBe(0);
    expect(dir, output).toBeDefined();
    expect(existsSync(dir!), output).toBe(false);
  }, 60_000);
});

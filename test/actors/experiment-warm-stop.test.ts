/**
 * `npm run experiment`'s stop during its warm start, with a stand-in build (no recording, no cloning): a
 * stop asked during the cloning's last step, held until that step ends, exits at once (not after the
 * baselines' evaluation, minutes); a warm start that throws leaves no stop-signal handler behind.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { BuildOptions } from "../../actors/hopqa/warm-start.ts";
import { runCaptured, tempDir } from "../support/index.ts";

const build = vi.hoisted(() => ({
  run: async (_options: BuildOptions): Promise<{ stopped: boolean }> => ({ stopped: false }),
}));
vi.mock("../../actors/hopqa/warm-start.ts", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../actors/hopqa/warm-start.ts")>()),
  buildWarmStart: (_root: string, _out: string, _w: unknown, options: BuildOptions = {}) => build.run(options),
}));
const suite = vi.hoisted(() => ({ scored: 0 }));
vi.mock("../../actors/hopqa/suite.ts", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../../actors/hopqa/suite.ts")>()),
  evaluateSuiteShown: async () => {
    suite.scored += 1;
    throw new Error("the baselines were evaluated");
  },
}));

const STOP = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

const experiment = async () => {
  const root = tempDir("agent-r1-experiment-warm-stop-");
  const out = join(root, "runs");
  const { runExperiment } = await import("../../actors/hopqa/experiment.ts");
  const run = await runCaptured(() => runExperiment(["--quick", "--out", out, "--docs", join(root, "docs")]));
  return { ...run, out };
};

describe("npm run experiment, stopped during its warm start", () => {
  it("a Ctrl-C during the cloning's last step exits 130 once it ends, without evaluating the baselines", async () => {
    build.run = async (options) => {
      options.onCloning?.(true);
      // Ctrl-C during the last step: held (the cloning saves its progress) ...
      process.emit("SIGINT");
      // ... and the step, the last, ends: the cloning is finished, not stopped.
      options.onCloning?.(false);
      return { stopped: false };
    };
    const before = process.listenerCount("SIGINT");
    const run = await experiment();
    expect(suite.scored).toBe(0);
    expect(run.code).toBe(130);
    expect(run.stderr).toContain("the baselines were not evaluated and no run started");
    expect(run.stderr).toContain(`its demonstrations are kept in ${run.out}`);
    expect(run.stderr).toContain("again to go on");
    expect(existsSync(join(run.out, "baselines.json"))).toBe(false);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("a warm start that throws removes the experiment's stop-signal handlers", async () => {
    build.run = async () => {
      throw new Error("no space left on device");
    };
    const before = STOP.map((signal) => process.listenerCount(signal));
    await expect(experiment()).rejects.toThrow("no space left on device");
    expect(STOP.map((signal) => process.listenerCount(signal))).toEqual(before);
  });
});

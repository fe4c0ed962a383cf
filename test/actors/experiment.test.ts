/** `npm run experiment`'s guards: mistakes that would cost hours are refused at once, with what to do. */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";

const experiment = (...args: string[]) => {
  const run = spawnSync(process.execPath, ["bin/run-ts.js", "actors/hopqa/experiment.ts", ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stderr: run.stderr };
};

describe("npm run experiment", () => {
  it("refuses a folder whose runs were trained with another plan, before building anything", () => {
    // A run of the 15-update table, as its config.json records it; --long would skip it and report it.
    const out = join(tempDir(), "experiment-plan");
    mkdirSync(join(out, "grpo-s0"), { recursive: true });
    writeFileSync(
      join(out, "grpo-s0", "config.json"),
      JSON.stringify({ steps: 15, tasksPerStep: 8, groupSize: 8, temperature: 1, minibatches: 1, epochs: 1 }),
    );
    const run = experiment("--long", "--out", out);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(out, "grpo-s0")} was trained with another plan (steps 15, not 45;`);
    expect(run.stderr).toContain("give this experiment its own --out");
    expect(run.stderr).not.toMatch(/\n\s+at /); // one line, no stack
    expect(existsSync(join(out, "warm-start"))).toBe(false);
  }, 60_000);

  it("names the known groups when --only has an unknown one, before the warm start", () => {
    const out = join(tempDir(), "experiment-only");
    const run = experiment("--only", "grpo,gpro", "--out", out);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown group(s) gpro; known: ppo, grpo,");
    expect(existsSync(join(out, "warm-start"))).toBe(false);
  }, 60_000);

  it("a resumed run's train time counts the updates it made before it was killed (from metrics.jsonl)", async () => {
    const { updateSeconds } = await import("../../actors/hopqa/experiment.ts");
    const dir = tempDir();
    expect(updateSeconds(dir)).toBe(0);
    const line = (sample: number, train: number) =>
      JSON.stringify({ step: 0, sampleSeconds: sample, trainSeconds: train });
    writeFileSync(join(dir, "metrics.jsonl"), `${line(20, 5)}\n${line(18.5, 4)}\n{"step":2,"sampleSec`);
    expect(updateSeconds(dir)).toBeCloseTo(47.5, 9);
  });

  it("--report with no finished run leaves the committed results page alone", () => {
    const docs = join(tempDir(), "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "results.md"), "the committed table\n");
    const run = experiment("--report", "--out", join(tempDir(), "no-runs"), "--docs", docs);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--report: no finished run in \S+no-runs, so nothing to report; .*results\.md is left/);
    expect(readFileSync(join(docs, "results.md"), "utf8")).toBe("the committed table\n");
  }, 60_000);
});

/**
 * `train` on an environment whose reward code fails on some episodes (test/reliability/fixtures/half-nan-env.ts: a
 * NaN reward on odd tasks): each update's line counts the episodes left out beside its success (which is of the
 * episodes that report one), and the summary sums them, so a run that trained on half its samples does not read as
 * a healthy one.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--backend", "wasm"];

describe("train with episodes that abort", () => {
  it("each update's line says how many aborted, and the summary how many of all were left out", async () => {
    const out = join(tempDir("agent-r1-train-left-out-"), "run");
    const args = ["train", "--env", "./test/reliability/fixtures/half-nan-env.ts", "--no-warm-start", "--steps", "2"];
    const sampling = ["--tasks", "4", "--group-size", "2", "--eval-episodes", "0", "--out", out];
    expect(await main([...args, ...sampling, ...shape]), output.stderr).toBe(0);
    const updates = output.stderr.split("\n").filter((line) => line.startsWith("train grpo: "));
    expect(updates).toHaveLength(2);
    const left = updates.map((line) => {
      // Success is 1 on every episode that ends, and shown as such, with the aborted ones counted beside it.
      expect(line).toMatch(/ success 1\.000 aborted \d\/8 /);
      return Number(/ aborted (\d)\/8 /.exec(line)?.[1]);
    });
    // Said once per update with its first journal, and summed in the summary.
    expect(
      output.stderr.match(/episodes aborted: environment error: half-nan: reward "answered" has value NaN/g),
    ).toHaveLength(2);
    expect(output.stdout).toContain(
      `warning: ${left[0] + left[1]} of the 16 episodes sampled aborted and were left out of training (each update's first is said above, with its journal)`,
    );
    output.clear();
    // A run where none aborts says nothing of it.
    const clean = join(tempDir("agent-r1-train-left-out-"), "run");
    const lookup = ["train", "--env", "lookup", "--no-warm-start", "--steps", "1", "--tasks", "2", "--group-size", "2"];
    expect(await main([...lookup, "--eval-episodes", "0", "--out", clean, ...shape]), output.stderr).toBe(0);
    expect(`${output.stdout}${output.stderr}`.split("\n").filter((line) => /aborted/.test(line))).toEqual([]);
  }, 60_000);
});

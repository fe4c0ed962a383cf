/**
 * An sft epoch whose every step was skipped (a non-finite loss) reported a loss of 0.000, the mean over no step:
 * with --lr 1e30 the first step threw the weights to 1e30, every later one was skipped, and sft said
 * "final loss 0.000", exit 0, of a clone whose every episode then aborted. Now that loss is NaN, and said.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

it("sft says that the last epoch trained nothing, not a final loss of 0.000", async () => {
  const out = join(tempDir("agent-r1-sft-skipped-"), "clone");
  const code = await main([
    "sft",
    "--env",
    "lookup",
    "--data",
    "replays/lookup/expert",
    "--out",
    out,
    "--epochs",
    "3",
    "--lr",
    "1e30",
    "--layers",
    "1",
    "--heads",
    "2",
    "--width",
    "16",
  ]);
  expect(code).toBe(0);
  expect(output.stderr).toContain("a step was skipped (loss is NaN)");
  expect(output.stdout).not.toContain("final loss 0.000");
  expect(output.stdout).toContain("final loss NaN");
  expect(output.stderr).toContain(
    `warning: every step of the last epoch was skipped (its loss was not finite), so the clone in ${out} is not a trained one`,
  );
}, 120_000);

/**
 * train --init and sft --init start their optimizer afresh, and average writes none, so they take a checkpoint whose manifest lists an
 * optimizer.bin that is not there: docs/checkpoints/hopqa-sloppy-grpo-60, shipped without it, failed both with
 * "optimizer.bin: missing" (and a hint about docs/checkpoints/latest.json, as if it were a run).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";
import { withoutItsOptimizer } from "../support/no-optimizer.ts";

const SHIPPED_FROM = "docs/checkpoints/hopqa-sloppy-grpo-60";
const ENV = "hopqa?wording=possessive&legal=relations";

it("train --init, sft --init and average take a shipped checkpoint without its optimizer state", async () => {
  // The case itself: the manifest lists optimizer state, and the file is not there.
  const SHIPPED = withoutItsOptimizer(SHIPPED_FROM);
  expect(JSON.parse(readFileSync(join(SHIPPED, "manifest.json"), "utf8")).optimizer).not.toBeNull();
  expect(existsSync(join(SHIPPED, "optimizer.bin"))).toBe(false);
  const dir = tempDir();
  const trained = await runCli(
    "train",
    "--env",
    ENV,
    "--algo",
    "grpo",
    "--init",
    SHIPPED,
    "--constrained",
    "--steps",
    "1",
    "--tasks",
    "1",
    "--group-size",
    "2",
    "--eval-episodes",
    "0",
    "--out",
    join(dir, "grpo"),
  );
  expect(trained.code, trained.stderr).toBe(0);
  expect(trained.stdout).toContain("for 1 update");
  const demos = join(dir, "demos");
  const recorded = await runCli("record", "--env", ENV, "--policy", "expert", "--episodes", "2", "--out", demos);
  expect(recorded.code, recorded.stderr).toBe(0);
  const cloned = await runCli(
    "sft",
    "--env",
    ENV,
    "--init",
    SHIPPED,
    "--data",
    demos,
    "--epochs",
    "1",
    "--out",
    join(dir, "sft"),
  );
  expect(cloned.code, cloned.stderr).toBe(0);
  expect(existsSync(join(dir, "sft", "weights.bin"))).toBe(true);
  // average writes no optimizer state either: it reads none.
  const soup = join(dir, "soup");
  const averaged = await runCli("average", SHIPPED, "docs/checkpoints/hopqa-sloppy-warm-start", "--out", soup);
  expect(averaged.code, averaged.stderr).toBe(0);
  expect(existsSync(join(soup, "weights.bin"))).toBe(true);
}, 60_000);

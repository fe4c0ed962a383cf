/**
 * A damaged checkpoint in a folder of checkpoints that is no run's (as docs/checkpoints is) names the others there,
 * and no resume: the error said "the run's other checkpoints" and "train --resume goes on from
 * docs/checkpoints/latest.json: set its dir and version", a file no run there has.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

it("a damaged checkpoint beside others, in no run, names them without a resume", async () => {
  const folder = join(tempDir(), "checkpoints");
  for (const name of ["a", "b"]) cpSync("docs/checkpoints/hopqa-best", join(folder, name), { recursive: true });
  const weights = join(folder, "a", "weights.bin");
  writeFileSync(weights, readFileSync(weights).subarray(0, 1000));
  const damaged = await runCli("eval", "--env", "hopqa", "--checkpoint", join(folder, "a"), "--episodes", "1");
  expect(damaged.code).toBe(2);
  expect(damaged.stderr).toContain(
    `; other checkpoints in ${folder}: b (give one, e.g. ${join(folder, "b")}, as --checkpoint or --init)`,
  );
  expect(damaged.stderr).not.toContain("resume");
  expect(damaged.stderr).not.toContain("the run's");
});

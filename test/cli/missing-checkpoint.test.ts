/** eval, train --init and average of a checkpoint that is not there name what its folder holds that they take. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

it("names the checkpoints and the run folders beside a missing --checkpoint, --init or average input", async () => {
  const runs = tempDir();
  mkdirSync(join(runs, "warm"));
  writeFileSync(join(runs, "warm", "manifest.json"), "{}");
  for (const run of ["grpo", "rloo"]) {
    mkdirSync(join(runs, run, "checkpoints"), { recursive: true });
    writeFileSync(join(runs, run, "checkpoints", "latest.json"), "{}");
  }
  const missing = await runCli("eval", "--env", "lookup", "--checkpoint", join(runs, "grpoo"));
  expect(missing.code).toBe(2);
  // Before: "checkpoints in RUNS: warm", as if the two runs, which --checkpoint takes as well, were not there.
  expect(missing.stderr).toContain(
    `error: --checkpoint: no checkpoint at ${join(runs, "grpoo")}; checkpoints in ${runs}: warm; runs in ${runs} (each gives its latest checkpoint): grpo, rloo`,
  );
  // train --init and average name them alike (before: "no such checkpoint folder", and nothing of what is there).
  const beside = `; checkpoints in ${runs}: warm; runs in ${runs} (each gives its latest checkpoint): grpo, rloo`;
  const init = await runCli("train", "--env", "lookup", "--init", join(runs, "grpoo"), "--out", join(runs, "new"));
  expect(init.code).toBe(2);
  expect(init.stderr).toContain(`error: --init ${join(runs, "grpoo")}: no such checkpoint folder${beside}`);
  const average = await runCli("average", join(runs, "grpoo"), "--out", join(runs, "soup"));
  expect(average.code).toBe(2);
  expect(average.stderr).toContain(`error: average: ${join(runs, "grpoo")}: no such checkpoint folder${beside}`);
});

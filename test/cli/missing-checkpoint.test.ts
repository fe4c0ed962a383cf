/** eval of a --checkpoint that is not there names what its folder holds that --checkpoint takes. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli, tempDir } from "../support/index.ts";

it("names the checkpoints and the run folders beside a missing --checkpoint", async () => {
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
    `error: no checkpoint at ${join(runs, "grpoo")}; checkpoints in ${runs}: warm; runs in ${runs} (each gives its latest checkpoint): grpo, rloo`,
  );
});

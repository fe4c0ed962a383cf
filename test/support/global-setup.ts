/**
 * vitest globalSetup: gives this test run a tag that `tempDir` puts in each folder's name, and after the run
 * removes the tagged folders still there. The setup file removes a test file's folders after its tests, but
 * its hook never runs for a file whose tests were all skipped (`vitest run -t NAME` skips most files): a
 * folder made at a test file's top level was left in the temp dir by every such run.
 */
import { readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keptFolder, RUN_TAG_VARIABLE, tagged } from "./temp.ts";

export default function setup() {
  // Each project of vitest.config.ts runs this: the first one's tag is the run's (a tag made by this process).
  const mine = `r${process.pid}x`;
  const given = process.env[RUN_TAG_VARIABLE];
  const tag = given?.startsWith(mine) ? given : `${mine}${Date.now().toString(36)}`;
  process.env[RUN_TAG_VARIABLE] = tag;
  return () => {
    if (process.env.AGENT_R1_KEEP_TEMP) return;
    for (const name of readdirSync(tmpdir())) {
      const dir = join(tmpdir(), name);
      if (tagged(name, tag) && !keptFolder(dir)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    }
  };
}

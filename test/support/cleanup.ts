/**
 * vitest setupFiles: after each test file, remove the temp folders its tests made with `tempDir`. Property
 * tests that fail on purpose save counterexamples; unless AGENT_R1_COUNTEREXAMPLES says where, they go to a
 * temp folder of the file's own instead of the kit's shared default.
 */
import { afterAll, beforeAll } from "vitest";
import { removeTempDirs, tempDir } from "./index.ts";

const given = process.env.AGENT_R1_COUNTEREXAMPLES;
// Made in a hook, not at import: a file whose tests are all skipped runs neither hook, and made at import
// its folder was never removed.
beforeAll(() => {
  if (!given) process.env.AGENT_R1_COUNTEREXAMPLES = tempDir("agent-r1-cx-");
});

afterAll(() => {
  // A worker may run the next file in this process: it gets a folder of its own again.
  if (!given) delete process.env.AGENT_R1_COUNTEREXAMPLES;
  removeTempDirs();
});

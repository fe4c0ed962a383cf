/**
 * vitest setupFiles: after each test file, remove the temp folders its tests made with `tempDir`. Property
 * tests that fail on purpose save counterexamples; unless AGENT_R1_COUNTEREXAMPLES says where, they go to a
 * temp folder of the file's own instead of the kit's shared default. When a test of the file failed, that
 * folder is kept (and said on stderr): the failure names a journal in it to inspect and replay-verify.
 */
import { readdirSync } from "node:fs";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { keepTempDir, removeTempDirs, tempDir } from "./temp.ts";

const given = process.env.AGENT_R1_COUNTEREXAMPLES;
let counterexamples: string | undefined;
let failed = false;
// Made in a hook, not at import: a file whose tests are all skipped runs neither hook, and made at import
// its folder was never removed.
beforeAll(() => {
  failed = false;
  if (!given) process.env.AGENT_R1_COUNTEREXAMPLES = counterexamples = tempDir("agent-r1-cx-");
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    failed = true;
  });
});

afterAll(() => {
  // A worker may run the next file in this process: it gets a folder of its own again.
  if (!given) delete process.env.AGENT_R1_COUNTEREXAMPLES;
  if (failed && counterexamples && readdirSync(counterexamples).length > 0) {
    keepTempDir(counterexamples);
    process.stderr.write(`a test failed: its counterexample journals are kept in ${counterexamples}\n`);
  }
  counterexamples = undefined;
  removeTempDirs();
});

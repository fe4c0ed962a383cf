/** Temp folders for tests: made with `tempDir`, named with the run's tag, removed after each file (cleanup.ts) and after the run (global-setup.ts). Light on purpose: the setup file imports it for every test file. */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/** The environment variable that carries this test run's tag to its workers and their children. */
export const RUN_TAG_VARIABLE = "AGENT_R1_TEST_RUN";

/** The prefix of a temp folder `tempDir(prefix)` makes: the run's tag after the caller's prefix, when there is one. */
export const taggedPrefix = (prefix: string): string => {
  const tag = process.env[RUN_TAG_VARIABLE];
  return tag ? `${prefix}${tag}-` : prefix;
};

/** Whether a temp dir entry's name is that of a folder this run's `tempDir` made. */
export const tagged = (name: string, tag: string): boolean => name.startsWith("agent-r1-") && name.includes(`-${tag}-`);

/** The counterexample folder of a test file that failed, which the setup file keeps (and names) for a post-mortem. */
export const keptFolder = (dir: string): boolean => {
  if (!basename(dir).startsWith("agent-r1-cx-")) return false;
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
};

const madeDirs: string[] = [];

/**
 * A fresh folder under the OS temp dir, removed after the test file's last test (test/support/cleanup.ts,
 * vitest's setupFiles), and else after the run (global-setup.ts: a file whose tests were all skipped runs no
 * hook): a test run leaves nothing behind in /tmp. Set AGENT_R1_KEEP_TEMP=1 to keep them for a post-mortem.
 */
export const tempDir = (prefix = "agent-r1-test-") => {
  const dir = mkdtempSync(join(tmpdir(), taggedPrefix(prefix)));
  madeDirs.push(dir);
  return dir;
};

/** Leaves a folder `tempDir` made out of the removal after this test file (a failed test's counterexamples). */
export const keepTempDir = (dir: string) => {
  const at = madeDirs.indexOf(dir);
  if (at >= 0) madeDirs.splice(at, 1);
};

/** Removes every folder `tempDir` made in this test file (unless AGENT_R1_KEEP_TEMP is set). */
export const removeTempDirs = () => {
  if (process.env.AGENT_R1_KEEP_TEMP) return;
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
};

/** How a test run's temp folders are named (test/support/index.ts's tempDir) and found after the run (global-setup.ts). */
import { readdirSync } from "node:fs";
import { basename } from "node:path";

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

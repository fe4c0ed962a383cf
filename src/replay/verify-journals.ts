/**
 * `agent-r1 replay --verify` from code: the verdict on each journal at a path, replayed with the environment
 * given (or the built-in one it names), as the CLI replays it, without its printing.
 */
import { envResolver, runConfigEnv, runModuleEnv } from "../cli/registry.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { checkPath, type FileVerdict } from "./verify-files.ts";

export type { FileVerdict } from "./verify-files.ts";

/**
 * Each journal at `path` (a journal, a folder of them, a run folder, or a list of paths) checked as `replay
 * --verify` checks it: read whole (schema, `seq`, digests, hash chain), then replayed through `env`'s machine
 * (a journal of a built-in environment through that one), every re-derived event compared. One verdict per
 * journal, in the order found: `ok`, or `problem` naming the file and line (a divergence, a damaged line);
 * `unverified` when its environment is neither `env` nor built in. A path that does not exist or holds no
 * journal is a UsageError, as the CLI's.
 */
export const verifyJournals = async (
  path: string | readonly string[],
  env?: EnvDefinition,
): Promise<readonly FileVerdict[]> => {
  // An environment neither given nor built in is said in this function's words, not the CLI's (--env).
  const envOf = envResolver(env ?? (await runModule(path)), undefined, {
    given: "the environment given is",
    give: 'give verifyJournals the environment that defines it, verifyJournals(path, await loadEnv("./path/to/env.ts"))',
  });
  const verdicts: FileVerdict[] = [];
  for await (const verdict of checkPath(path, { verify: true, repair: false, envOf })) verdicts.push(verdict);
  return verdicts;
};

/** The environment module of the train run `path` is or lies in (the first path in one), loaded (runModuleEnv). */
const runModule = async (path: string | readonly string[]): Promise<EnvDefinition | undefined> => {
  const paths = typeof path === "string" ? [path] : path;
  const run = paths.find((each) => runConfigEnv(each) !== undefined);
  if (run === undefined) return undefined;
  const found = await runModuleEnv(
    run,
    'give verifyJournals the environment, verifyJournals(path, await loadEnv("./path/to/env.ts"))',
  );
  if (found !== undefined && "problem" in found) throw found.problem;
  return found?.env;
};

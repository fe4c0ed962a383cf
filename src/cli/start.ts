/**
 * The main job (until the learner takes over): record lookup episodes with the expert and the random
 * policy, replay-verify every journal, and print what was recorded.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { checkPath } from "../replay/verify-files.ts";
import { policyFor, record } from "./record.ts";
import { envById } from "./registry.ts";

export const runStart = async (options: { out: string; episodes: number; seed: string }): Promise<number> => {
  const env = envById("lookup");
  rmSync(options.out, { recursive: true, force: true });
  let failures = 0;
  for (const name of ["expert", "random"]) {
    const dir = join(options.out, name);
    const summary = await record({
      env,
      policy: policyFor(env, name),
      episodes: options.episodes,
      seed: options.seed,
      out: dir,
      concurrency: 32,
      durability: "episode",
    });
    let verified = 0;
    for await (const verdict of checkPath(dir, { verify: true, repair: false, envOf: envById })) {
      if (verdict.ok) verified += 1;
      else {
        failures += 1;
        process.stderr.write(`FAIL ${verdict.problem}\n`);
      }
    }
    process.stdout.write(
      `${name.padEnd(7)} ${summary.episodes} episodes, ${summary.events} events in ${summary.seconds.toFixed(1)} s | ` +
        `mean return ${summary.meanReturn.toFixed(3)} | success ${summary.successRate?.toFixed(3)} | ` +
        `replay-verified ${verified}/${summary.episodes} -> ${dir}\n`,
    );
  }
  process.stdout.write(failures === 0 ? "all journals replay-verified\n" : `${failures} journal(s) failed to verify\n`);
  return failures === 0 ? 0 : 1;
};

/**
 * `npm run bench [-- --quick] [-- --no-write] [-- --repeats N] [-- --figure 1]`: the kernel figures
 * (bench/index.ts) then the learner's (bench/learner.ts), each given the same options (npm passes them to
 * the last command of a script only, so `a && b` ran the first without them). `--figure 1` runs figure 1
 * alone and only prints it (no learner figures).
 */
import { spawnSync } from "node:child_process";
import { Command, InvalidArgumentError, Option } from "commander";
import { parseOrExit } from "./cli.ts";

const program = new Command("bench")
  .option("--quick", "smaller workloads, for a smoke run")
  .option("--no-write", "print only; leave docs/bench.md and docs/bench-learner.md alone")
  .option("--repeats <n>", "side-by-side repeats of each kernel figure (1 to 1000)", (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 1000)
      throw new InvalidArgumentError(`--repeats must be a whole number from 1 to 1000, got ${JSON.stringify(value)}`);
    return value;
  })
  .addOption(
    new Option("--figure <n>", "only this kernel figure (1: runtime vs bare actor), printed, nothing written").choices([
      "1",
    ]),
  );
// A bad flag exits 2 (commander's own code is 1), as bench/index.ts's does.
parseOrExit(program);
const options = program.opts();
const args = process.argv.slice(2);
const scripts = options.figure ? ["bench/index.ts"] : ["bench/index.ts", "bench/learner.ts"];
for (const script of scripts) {
  const run = spawnSync(process.execPath, ["bin/run-ts.js", script, ...args], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

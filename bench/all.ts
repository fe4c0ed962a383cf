/**
 * `npm run bench [-- --quick] [-- --no-write] [-- --repeats N]`: the kernel figures (bench/index.ts) then the
 * learner's (bench/learner.ts), each given the same options (npm passes them to the last command of a
 * script only, so `a && b` ran the first without them).
 */
import { spawnSync } from "node:child_process";
import { Command } from "commander";

new Command("bench")
  .option("--quick", "smaller workloads, for a smoke run")
  .option("--no-write", "print only; leave docs/bench.md and docs/bench-learner.md alone")
  .option("--repeats <n>", "side-by-side repeats of each kernel figure")
  .parse();
const args = process.argv.slice(2);
for (const script of ["bench/index.ts", "bench/learner.ts"]) {
  const run = spawnSync(process.execPath, ["bin/run-ts.js", script, ...args], { stdio: "inherit" });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

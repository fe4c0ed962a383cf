/**
 * One benchmark workload alone, CPU-profiled (through node:inspector, only the timed region, not the
 * recording that prepares it):
 *
 *   node bin/run-ts.js bench/profile.ts <workload> [episodes] [out.cpuprofile]
 *   node bin/run-ts.js bench/cpuprofile-summary.ts out.cpuprofile
 *
 * Workloads: runtime (figure 1, framework side), bare (figure 1, baseline), journal (figure 2),
 * replay (figure 3, in memory), fold (figure 3 baseline), read (figure 3b: readJournalFile only).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Argument, Command } from "commander";
import { intArg } from "../src/cli/args.ts";
import { JsonlJournal } from "../src/index.ts";
import { parseOrExit } from "./cli.ts";
import { appendAll, journalWriter } from "./journal.ts";
import { recordLookup, restamp, scriptsOf } from "./record.ts";
import { bareFold, readAndReplay, replayVerify } from "./replay.ts";
import { rate } from "./stats.ts";
import { bareSteps, runtimeSteps } from "./steps.ts";

const WORKLOADS = ["runtime", "bare", "journal", "replay", "fold", "read"] as const;
const program = new Command("bench/profile.ts")
  .description("one benchmark workload alone, CPU-profiled")
  .addArgument(new Argument("[workload]", "what to time").choices(WORKLOADS).default("runtime"))
  .argument("[episodes]", "lookup episodes to record and run", intArg("episodes", 1), 2000)
  .argument("[out]", "where the .cpuprofile goes (default: <tmpdir>/bench-<workload>.cpuprofile)");
// commander prints the problem (a workload it does not know, say) or the help.
parseOrExit(program);
const [workload, episodes, out = `${tmpdir()}/bench-${workload}.cpuprofile`] = program.processedArgs as [
  (typeof WORKLOADS)[number],
  number,
  string | undefined,
];
const root = mkdtempSync(join(tmpdir(), "agent-r1-profile-"));
try {
  const records = await recordLookup(episodes, 32);
  const stamped = () => records.map((r, i) => restamp(r.events, `p-${i}`));
  let sample: { units: number; ms: number };
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  const dir = join(root, "j");
  const read = workload === "read";
  if (read) await appendAll(journalWriter(dir), stamped());
  const replayInput = workload === "replay" || workload === "fold" ? stamped() : [];
  const journalInput = workload === "journal" ? stamped() : [];
  const scripts = scriptsOf(records);
  await session.post("Profiler.start");
  switch (workload) {
    case "runtime":
      sample = await runtimeSteps(new JsonlJournal(join(root, "steps"), "none"), 0, episodes, 32);
      break;
    case "bare":
      sample = await bareSteps(scripts, 32);
      break;
    case "journal":
      sample = await appendAll(journalWriter(join(root, "j2")), journalInput);
      break;
    case "replay":
      sample = await replayVerify(replayInput);
      break;
    case "fold":
      sample = await bareFold(replayInput);
      break;
    case "read":
      sample = await readAndReplay(
        readdirSync(dir).map((f) => join(dir, f)),
        false,
      );
      break;
    default:
      throw new Error(`unknown workload ${workload}`);
  }
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(out, JSON.stringify(profile));
  session.disconnect();
  console.log(`profile: ${out}`);
  console.log(`${workload}: ${sample.units} units in ${sample.ms.toFixed(0)} ms = ${rate(sample).toFixed(0)}/s`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

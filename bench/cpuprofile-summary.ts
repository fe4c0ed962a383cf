/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions with the most self time, and the
 * inclusive (total) time of the functions that most often show up on the stack.
 *
 *   node bin/run-ts.js bench/cpuprofile-summary.ts <file.cpuprofile> [top=25] [filter]
 *
 * With a filter (a substring of "function file"), only the inclusive time of matching frames is listed,
 * e.g. `hashEvent`, `canonical`, `xstate`. Always printed first: self time grouped by where the code
 * lives (a package under node_modules, a file of this repository, node's internals, the GC).
 * The profiler's own frames (inspector `dispatch`/`post`) are left out of every figure.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { intArg } from "../src/cli/args.ts";
import { parseOrExit } from "./cli.ts";

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const program = new Command("bench/cpuprofile-summary.ts")
  .description("the functions with the most self and inclusive time in a V8 .cpuprofile")
  .argument("<file>", "a .cpuprofile (from bench/profile.ts or node --cpu-prof)")
  .argument("[top]", "rows per table", intArg("top", 1), 25)
  .argument("[filter]", "only the inclusive time of frames whose 'function file' contains this");
parseOrExit(program);
const [file, top, filter] = program.processedArgs as [string, number, string | undefined];
const profile = ((): Profile => {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(
      `error: cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a .cpuprofile" : (error as Error).message}\n`,
    );
    process.exit(2);
  }
  try {
    const parsed = JSON.parse(text) as Profile;
    if (Array.isArray(parsed.nodes) && Array.isArray(parsed.samples) && Array.isArray(parsed.timeDeltas)) return parsed;
  } catch {}
  process.stderr.write(`error: ${file} is not a V8 .cpuprofile (JSON with nodes, samples and timeDeltas)\n`);
  process.exit(2);
})();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const short = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*node_modules\//, "~/")
    .replace(/.*\/work\/main\//, "");
const nameOf = (f: Frame) =>
  `${f.functionName || "(anonymous)"} ${f.url ? `${short(f.url)}:${f.lineNumber + 1}` : ""}`.trim();

/** Samples taken inside the inspector itself (Profiler.stop serialising), not the workload. */
const isProfiler = (id: number): boolean => {
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const f = byId.get(at)!.callFrame;
    if (f.url === "node:inspector" || (f.functionName === "dispatch" && !f.url)) return true;
  }
  return false;
};
const sampleMs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (isProfiler(id)) return;
  sampleMs.set(id, (sampleMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
});
const totalMs = [...sampleMs.values()].reduce((a, b) => a + b, 0);

const placeOf = (f: Frame): string => {
  if (!f.url) return f.functionName.startsWith("(") ? f.functionName : "(native)";
  if (f.url.startsWith("node:")) return "node: internals";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (pkg) return pkg[1];
  return short(f.url);
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, ms] of sampleMs) {
  const node = byId.get(id)!;
  const key = nameOf(node.callFrame);
  self.set(key, (self.get(key) ?? 0) + ms);
  // Inclusive: every distinct frame name on the stack gets the sample once.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const k = nameOf(byId.get(at)!.callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
  }
}

const pct = (ms: number) => `${((ms / totalMs) * 100).toFixed(1).padStart(5)}%`;
const list = (title: string, m: Map<string, number>, keep: (k: string) => boolean) => {
  console.log(`\n${title}`);
  [...m]
    .filter(([k]) => keep(k))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, ms]) => {
      console.log(`${pct(ms)} ${ms.toFixed(0).padStart(7)} ms  ${k}`);
    });
};

const places = new Map<string, number>();
for (const [id, ms] of sampleMs) {
  const k = placeOf(byId.get(id)!.callFrame);
  places.set(k, (places.get(k) ?? 0) + ms);
}

console.log(`${file}: ${totalMs.toFixed(0)} ms profiled (profiler frames excluded)`);
list("self time by place", places, () => true);
if (filter) list(`inclusive time, frames matching "${filter}"`, inclusive, (k) => k.includes(filter));
else {
  list("self time", self, () => true);
  list("inclusive time (excluding the root and program frames)", inclusive, (k) => !k.startsWith("("));
}

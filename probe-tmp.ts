import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { checkMutated, mutations, newTally, recordSources } from "./test/reliability/journal-mutations.ts";
const dir = mkdtempSync("/tmp/pr-");
let t = performance.now();
const sources = await recordSources(join(dir, "s"));
console.log("sources", performance.now() - t, sources.map((s) => s.bytes.length));
mkdirSync(join(dir, "m"));
const tally = newTally();
const samples = fc.sample(fc.tuple(fc.nat(), fc.nat(), mutations()), { numRuns: 400, seed: 1 });
t = performance.now();
for (const [s, o, applied] of samples) {
  const source = sources[s % sources.length];
  const other = sources[(s + 1 + (o % (sources.length - 1))) % sources.length].bytes;
  await checkMutated(join(dir, "m"), source, other, applied, tally);
}
console.log("400 mutations", performance.now() - t);

/**
 * Corrupted journals, quick version (journal-fuzz.slow.test.ts runs 20,000 mutations): random
 * combinations of raw and resealed mutations of five journals; each one is refused with a typed error
 * naming file and line, or is provably harmless (same content, or a prefix that verify reports as cut
 * short). See journal-mutations.ts for the mutations and the oracle.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { checkMutated, mutations, newTally, recordSources, type Source } from "./journal-mutations.ts";

const dir = tempDir("agent-r1-fuzz-");
let sources: Source[] = [];
const tally = newTally();

beforeAll(async () => {
  sources = await recordSources(join(dir, "sources"));
  mkdirSync(join(dir, "mutated"));
});

describe("fuzzed journals: refused with a typed error naming the place, never accepted, never a crash", () => {
  fcTest.prop([fc.nat(), fc.nat(), mutations()], { numRuns: 400 })(
    "random mutations of five journals",
    async (s, o, applied) => {
      const source = sources[s % sources.length];
      const other = sources[(s + 1 + (o % (sources.length - 1))) % sources.length].bytes;
      await checkMutated(join(dir, "mutated"), source, other, applied, tally);
    },
  );

  it("tried every kind of mutation", () => {
    console.log(`journal fuzz (quick): ${JSON.stringify(tally)}`);
    expect(tally.mutations).toBeGreaterThanOrEqual(400);
    expect(tally.byOutcome.refused).toBeGreaterThan(tally.mutations / 2);
  });
});

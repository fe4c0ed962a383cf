/**
 * Corrupted journals, full version (`npm run test:slow`): 20,000 random combinations of raw and resealed
 * mutations of five journals (see journal-mutations.ts for the mutations and the oracle). Set
 * FUZZ_MUTATIONS to run more or fewer.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import { checkMutated, mutations, newTally, recordSources } from "./journal-mutations.ts";

const MUTATIONS = Number(process.env.FUZZ_MUTATIONS ?? 20_000);

describe("fuzzed journals, at length", () => {
  it(`${MUTATIONS} mutations: every one refused with a typed error naming the place, or provably harmless`, async () => {
    const dir = tempDir("agent-r1-fuzz-slow-");
    const sources = await recordSources(join(dir, "sources"));
    mkdirSync(join(dir, "mutated"));
    const tally = newTally();
    await fc.assert(
      fc.asyncProperty(fc.nat(), fc.nat(), mutations(), async (s, o, applied) => {
        const source = sources[s % sources.length];
        const other = sources[(s + 1 + (o % (sources.length - 1))) % sources.length].bytes;
        await checkMutated(join(dir, "mutated"), source, other, applied, tally);
      }),
      { numRuns: MUTATIONS, seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined },
    );
    console.log(`journal fuzz: ${JSON.stringify(tally)}`);
    expect(tally.mutations).toBe(MUTATIONS);
    expect(tally.byOutcome.refused).toBeGreaterThan(MUTATIONS * 0.9);
  });
});

/**
 * Corrupted learner files, full version (`npm run test:slow`): 12,000 random combinations of one to three
 * mutations (6,000 of checkpoint folders, 4,000 of a run's config.json, 2,000 of latest.json; see
 * learner-mutations.ts for the mutations and the oracle), then 12 refused ones through the CLI (`train
 * --resume` and `eval`): exit 2, one `error:` line naming the file, no stack trace; except that `eval`, which
 * reads no optimizer state, evaluates a checkpoint whose only damage is there. LEARNER_FUZZ_SCALE
 * multiplies the counts; LEARNER_FUZZ_SEED fixes fast-check's seed.
 */
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadCheckpoint } from "../../src/policy/checkpoint.ts";
import { tempDir } from "../support/index.ts";
import {
  checkCheckpointMutation,
  checkConfigMutation,
  checkLatestMutation,
  type FileMutation,
  type Files,
  fileMutations,
  newTally,
  type Tally,
} from "./learner-mutations.ts";
import { CHECKPOINT_FILES, cliStderr, JSON_CHECKPOINT_FILES, makeSources } from "./learner-sources.ts";

const SCALE = Number(process.env.LEARNER_FUZZ_SCALE ?? 1);
const SEED = process.env.LEARNER_FUZZ_SEED ? Number(process.env.LEARNER_FUZZ_SEED) : undefined;
const CLI_CASES = 6;

const cli = cliStderr;

describe("fuzzed learner files, at length", () => {
  it(`${12_000 * SCALE} mutations: a typed error naming file and place, or exactly what the files say`, async () => {
    const dir = tempDir("agent-r1-learner-fuzz-slow-");
    const sources = await makeSources(join(dir, "sources"));
    const tallies = { checkpoint: newTally(), config: newTally(), latest: newTally() };
    // Refused mutations kept for the CLI round.
    const refusedConfigs: Files[] = [];
    const refusedCheckpoints: Files[] = [];
    const keep = (into: Files[], source: Files, other: Files, applied: readonly FileMutation[]) => {
      if (into.length >= CLI_CASES) return;
      const files: Files = new Map(source);
      for (const m of applied) m.apply(files, other);
      into.push(files);
    };
    const run = async <T>(arb: fc.Arbitrary<T>, runs: number, check: (value: T) => Promise<void>) =>
      fc.assert(fc.asyncProperty(arb, check), { numRuns: runs * SCALE, seed: SEED });
    const started = performance.now();
    await run(fileMutations(CHECKPOINT_FILES, JSON_CHECKPOINT_FILES, true), 6_000, async (applied) => {
      const outcome = await checkCheckpointMutation(
        join(dir, "ckpt"),
        sources.checkpoint,
        sources.other,
        applied,
        tallies.checkpoint,
      );
      if (outcome === "refused") keep(refusedCheckpoints, sources.checkpoint, sources.other, applied);
    });
    await run(fileMutations(["config.json"], ["config.json"], false), 4_000, async (applied) => {
      const outcome = await checkConfigMutation(
        join(dir, "run"),
        sources.config,
        applied,
        sources.vocabSize,
        tallies.config,
      );
      if (outcome === "refused") keep(refusedConfigs, sources.config, new Map(), applied);
    });
    await run(fileMutations(["latest.json"], ["latest.json"], false), 2_000, async (applied) => {
      await checkLatestMutation(join(dir, "latest"), sources.latest, applied, tallies.latest);
    });
    const seconds = (performance.now() - started) / 1000;

    // The CLI: refused configs through train --resume; refused checkpoints through train --resume and eval.
    // `eval` reads no optimizer state, so a checkpoint refused only for its optimizer.bin evaluates: each eval
    // case expects what loadCheckpoint without the optimizer says of the same files.
    const cases: { args: string[]; file: RegExp; evaluates?: boolean }[] = [];
    const folderOf = (name: string, files: Files, under: string) => {
      const out = join(dir, name);
      cpSync(sources.run, out, { recursive: true });
      for (const [file, bytes] of files) writeFileSync(join(out, under, file), bytes);
      return out;
    };
    refusedConfigs.forEach((files, i) => {
      if (!files.has("config.json")) return;
      cases.push({
        args: ["train", "--resume", "--out", folderOf(`cli-config-${i}`, files, "")],
        file: /config\.json: /,
      });
    });
    for (const [i, files] of refusedCheckpoints.entries()) {
      const out = folderOf(`cli-ckpt-${i}`, new Map(), "");
      const checkpoint = join(out, "checkpoints", "v00002");
      for (const name of CHECKPOINT_FILES) if (!files.has(name)) rmSync(join(checkpoint, name));
      for (const [file, bytes] of files) writeFileSync(join(checkpoint, file), bytes);
      const file = /checkpoint .*v00002\/[a-z]+\.(json|bin): /;
      if (i % 2 === 0) cases.push({ args: ["train", "--resume", "--out", out], file });
      else {
        const evaluates = await loadCheckpoint(checkpoint, { optimizer: false }).then(
          (loaded) => {
            loaded.model.dispose();
            return true;
          },
          () => false,
        );
        cases.push({
          args: ["eval", "--checkpoint", checkpoint, "--episodes", "1", "--backend", "cpu"],
          file,
          evaluates,
        });
      }
    }
    let cliRefused = 0;
    let evaluated = 0;
    for (let i = 0; i < cases.length; i += 2) {
      const results = await Promise.all(cases.slice(i, i + 2).map((c) => cli(c.args)));
      results.forEach((result, k) => {
        const { args, file, evaluates } = cases[i + k];
        const where = `${args.join(" ")}: ${result.stderr}`;
        if (evaluates) {
          expect(result.status, where).toBe(0);
          expect(result.stderr, where).not.toMatch(/^error:/m);
          evaluated += 1;
          return;
        }
        expect(result.status, where).toBe(2);
        const errors = result.stderr.split("\n").filter((l) => l.startsWith("error:"));
        expect(errors, where).toHaveLength(1);
        expect(errors[0], where).toMatch(file);
        expect(result.stderr, where).not.toMatch(/^\s+at /m);
        cliRefused += 1;
      });
    }
    const summary = { seconds: Math.round(seconds), cliRefused, evaluated, ...tallies };
    console.log(`learner fuzz: ${JSON.stringify(summary)}`);
    const total = (t: Tally) => t.mutations;
    expect(total(tallies.checkpoint)).toBe(6_000 * SCALE);
    expect(total(tallies.config)).toBe(4_000 * SCALE);
    expect(total(tallies.latest)).toBe(2_000 * SCALE);
    expect(cliRefused + evaluated).toBeGreaterThanOrEqual(CLI_CASES * 2 - 2);
  });
});

/**
 * Corrupted learner files, quick version (learner-fuzz.slow.test.ts runs 12,000 mutations): a run's
 * config.json, a checkpoint folder and checkpoints/latest.json, mutated one to three ways at a time (see
 * learner-mutations.ts for the mutations and the oracle): each refused with a typed error naming the file
 * and the field or place, never half-loaded, or provably what the files say. Then two through the CLI
 * (`train --resume`; the slow version adds `eval`): exit 2, one `error:` line naming the file, no stack trace.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test as fcTest } from "@fast-check/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";
import {
  checkCheckpointMutation,
  checkConfigMutation,
  checkLatestMutation,
  fileMutations,
  newTally,
} from "./learner-mutations.ts";
import { CHECKPOINT_FILES, cliStderr, JSON_CHECKPOINT_FILES, makeSources, type Sources } from "./learner-sources.ts";

const dir = tempDir("agent-r1-learner-fuzz-");
let sources: Sources;
const tallies = { checkpoint: newTally(), config: newTally(), latest: newTally() };

beforeAll(async () => {
  sources = await makeSources(join(dir, "sources"));
});

describe("fuzzed learner files: a typed error naming file and place, or exactly what the files say", () => {
  fcTest.prop([fileMutations(CHECKPOINT_FILES, JSON_CHECKPOINT_FILES, true)], { numRuns: 300 })(
    "checkpoint folders",
    async (applied) => {
      await checkCheckpointMutation(join(dir, "ckpt"), sources.checkpoint, sources.other, applied, tallies.checkpoint);
    },
  );

  fcTest.prop([fileMutations(["config.json"], ["config.json"], false)], { numRuns: 300 })(
    "a run's config.json",
    async (applied) => {
      await checkConfigMutation(join(dir, "run"), sources.config, applied, sources.vocabSize, tallies.config);
    },
  );

  fcTest.prop([fileMutations(["latest.json"], ["latest.json"], false)], { numRuns: 100 })(
    "checkpoints/latest.json",
    async (applied) => {
      await checkLatestMutation(join(dir, "latest"), sources.latest, applied, tallies.latest);
    },
  );

  it("tried every kind of mutation", () => {
    console.log(`learner fuzz (quick): ${JSON.stringify(tallies)}`);
    expect(tallies.checkpoint.mutations).toBe(300);
    expect(tallies.config.mutations).toBe(300);
    expect(tallies.checkpoint.byOutcome.refused).toBeGreaterThan(240);
    expect(tallies.config.byOutcome.refused).toBeGreaterThan(150);
  });
});

describe("damaged learner files through the CLI", () => {
  const cli = cliStderr;
  const refusedBy = (run: { status: number | null; stderr: string }, file: RegExp) => {
    expect(run.status, run.stderr).toBe(2);
    const errors = run.stderr.split("\n").filter((l) => l.startsWith("error:"));
    expect(errors, run.stderr).toHaveLength(1);
    expect(errors[0]).toMatch(file);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  };

  it("train --resume refuses a damaged config.json and a damaged checkpoint", async () => {
    const damaged = (name: string, file: string, mutate: (bytes: Buffer) => Buffer) => {
      const run = join(dir, name);
      cpSync(sources.run, run, { recursive: true });
      writeFileSync(join(run, file), mutate(readFileSync(join(run, file))));
      return run;
    };
    const layersAsText = (bytes: Buffer) => {
      const config = JSON.parse(bytes.toString("utf8"));
      config.model.layers = "two";
      return Buffer.from(JSON.stringify(config, null, 2));
    };
    const flipped = (bytes: Buffer) => {
      const out = Buffer.from(bytes);
      out[1234] ^= 0x40;
      return out;
    };
    const config = damaged("cli-config", "config.json", layersAsText);
    const checkpoint = damaged("cli-weights", "checkpoints/v00002/weights.bin", flipped);
    const [a, b] = await Promise.all([
      cli(["train", "--resume", "--out", config]),
      cli(["train", "--resume", "--out", checkpoint]),
    ]);
    refusedBy(a, /config\.json: .*layers/);
    refusedBy(b, /weights\.bin: checksum: .*tensor/);
  });

  it("a damaged optimizer.bin stops train --resume, not eval (which reads no optimizer state)", async () => {
    const run = join(dir, "cli-optimizer");
    cpSync(sources.run, run, { recursive: true });
    const checkpoint = join(run, "checkpoints", "v00002");
    const file = join(checkpoint, "optimizer.bin");
    const bytes = readFileSync(file);
    bytes[100] ^= 0x40;
    writeFileSync(file, bytes);
    const [resume, evaluate] = await Promise.all([
      cli(["train", "--resume", "--out", run]),
      cli(["eval", "--checkpoint", checkpoint, "--episodes", "1", "--backend", "cpu"]),
    ]);
    refusedBy(resume, /optimizer\.bin: checksum/);
    expect(evaluate.status, evaluate.stderr).toBe(0);
    expect(evaluate.stderr).not.toMatch(/^error:/m);
  });
});

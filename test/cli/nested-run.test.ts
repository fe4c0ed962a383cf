/**
 * A resume removes the journal folders it redoes (episodes/uNNNNN) whole. A run started inside one
 * (`train --out RUN/episodes/u00009`) was accepted, and the outer run's `--resume --steps 10` then deleted it,
 * checkpoints and all, saying only that it dropped journals to record again. Now a fresh run there is refused,
 * and a resume refuses to remove a journal folder holding anything the run did not write, before any change.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const run = join(tempDir("agent-r1-nested-"), "run");
const tiny = ["--no-warm-start", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];

describe("a run inside another run's episodes/", () => {
  beforeAll(async () => {
    expect(await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", run])).toBe(0);
  }, 60_000);

  it("is refused when started there", async () => {
    const inner = join(run, "episodes", "u00009");
    expect(await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", inner])).toBe(2);
    expect(output.stderr).toContain(`error: ${inner} is in the episodes/ folder of the train run ${run}:`);
    expect(existsSync(inner)).toBe(false);
  });

  it("is not removed by the outer run's resume, which refuses before changing anything", async () => {
    const outer = join(tempDir("agent-r1-nested-outer-"), "run");
    cpSync(run, outer, { recursive: true });
    // What an earlier version let `train --out OUTER/episodes/u00003` leave there: a run of its own.
    const inner = join(outer, "episodes", "u00003");
    mkdirSync(join(inner, "checkpoints"), { recursive: true });
    writeFileSync(join(inner, "config.json"), "{}\n");
    writeFileSync(join(inner, "metrics.jsonl"), '{"step":0}\n');
    const metrics = readFileSync(join(outer, "metrics.jsonl"), "utf8");
    expect(await main(["train", "--out", outer, "--resume", "--steps", "4"])).toBe(2);
    expect(output.stderr).toContain(
      `error: ${inner} holds checkpoints/, config.json, which the run did not write there`,
    );
    expect(existsSync(join(inner, "metrics.jsonl"))).toBe(true);
    expect(readFileSync(join(outer, "metrics.jsonl"), "utf8")).toBe(metrics);
  }, 60_000);
});

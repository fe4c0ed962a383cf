/**
 * Optimizer state in checkpoints: a run stopped after k updates and resumed gives the same metrics.jsonl
 * (timing fields aside) and the same final checkpoint, byte for byte, as a run of N updates never stopped.
 * Without the saved AdamW moments it does not: the control below strips them and sees the run diverge.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv } from "../../src/cli/registry.ts";
import { DEFAULT_TRAIN_CONFIG, type TrainConfig } from "../../src/learn/config.ts";
import { TIMING_FIELDS, train } from "../../src/learn/trainer.ts";
import { manifestDigest } from "../../src/policy/checkpoint.ts";
import { tempDir } from "../support/index.ts";

const base: TrainConfig = {
  ...DEFAULT_TRAIN_CONFIG,
  env: "lookup",
  backend: "wasm",
  steps: 4,
  tasksPerStep: 2,
  groupSize: 2,
  entropyCoef: 0.01,
  evalEpisodes: 0,
  checkpointEvery: 100,
  model: { layers: 1, heads: 2, width: 32, contextLength: 192 },
};

/** PPO with two epochs of two minibatches (four AdamW steps per update); GRPO with a KL penalty. */
const CONFIGS: Record<string, TrainConfig> = {
  ppo: { ...base, algo: "ppo", seed: "resume-ppo", epochs: 2, minibatches: 2 },
  grpo: { ...base, algo: "grpo", seed: "resume-grpo", klCoef: 0.05, checkpointEvery: 1 },
};

const metricsOf = (out: string) =>
  readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const metrics = JSON.parse(line) as Record<string, number>;
      for (const field of TIMING_FIELDS) delete metrics[field];
      return metrics;
    });

const final = (out: string, file: string) => readFileSync(join(out, "checkpoints", "v00004", file));

/** Trains `config`, stopping cleanly (checkpoint written) after `k` updates. */
const trainStoppedAfter = async (config: TrainConfig, out: string, k: number) => {
  const env = await loadEnv("lookup");
  let done = 0;
  const result = await train({
    env,
    config,
    out,
    log: () => {},
    onUpdate: () => {
      done += 1;
    },
    shouldStop: () => done >= k,
  });
  expect(result.stopped).toBe(true);
  expect(result.version).toBe(k);
};

describe("resume: optimizer state in checkpoints", () => {
  for (const [name, config] of Object.entries(CONFIGS)) {
    it(`${name}: stopped after 2 updates and resumed = 4 updates uninterrupted, exactly`, async () => {
      const env = await loadEnv("lookup");
      const root = tempDir("agent-r1-resume-");
      const [whole, resumed] = [join(root, "whole"), join(root, "resumed")];
      await train({ env, config, out: whole, log: () => {} });
      await trainStoppedAfter(config, resumed, 2);
      const lines: string[] = [];
      const result = await train({ env, config, out: resumed, resume: true, log: (l) => lines.push(l) });
      expect(lines.join("\n")).toMatch(/resuming .* from policy version 2/);
      expect(result.steps).toBe(2);

      const expected = metricsOf(whole);
      expect(expected.map((m) => m.step)).toEqual([0, 1, 2, 3]);
      expect(expected.some((m) => m.gradNorm > 0)).toBe(true);
      expect(metricsOf(resumed)).toEqual(expected);
      for (const file of ["weights.bin", "optimizer.bin", "manifest.json"])
        expect(final(resumed, file).equals(final(whole, file)), file).toBe(true);
      const manifest = JSON.parse(final(whole, "manifest.json").toString("utf8"));
      const perUpdate = config.epochs * config.minibatches;
      const skipped = expected.reduce((s, m) => s + m.skippedUpdates, 0);
      expect(manifest.optimizer.step).toBe(4 * perUpdate - skipped);
      rmSync(root, { recursive: true, force: true });
    });
  }

  it("control: resumed without the saved moments, the same run diverges", async () => {
    const env = await loadEnv("lookup");
    const config = CONFIGS.ppo;
    const root = tempDir("agent-r1-resume-control-");
    const [whole, stripped] = [join(root, "whole"), join(root, "stripped")];
    await train({ env, config, out: whole, log: () => {} });
    await trainStoppedAfter(config, stripped, 2);
    // Turn v00002 into a checkpoint saved without optimizer state (valid: sft writes such checkpoints).
    const dir = join(stripped, "checkpoints", "v00002");
    const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    manifest.optimizer = null;
    manifest.digest = manifestDigest(manifest);
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    rmSync(join(dir, "optimizer.bin"));
    const lines: string[] = [];
    await train({ env, config, out: stripped, resume: true, log: (l) => lines.push(l) });
    expect(lines.join("\n")).toMatch(/holds no optimizer state/);
    const [a, b] = [metricsOf(whole), metricsOf(stripped)];
    expect(b.slice(0, 2)).toEqual(a.slice(0, 2));
    expect(b.slice(2)).not.toEqual(a.slice(2));
    rmSync(root, { recursive: true, force: true });
  });

  /** A 2-update GRPO run on lookup, stopped after its first update: the run, and its metrics.jsonl. */
  const twoUpdateRunStoppedAfterOne = async (prefix: string) => {
    const env = await loadEnv("lookup");
    const config = { ...CONFIGS.grpo, steps: 2 };
    const out = join(tempDir(prefix), "run");
    await trainStoppedAfter(config, out, 1);
    return { env, config, out, file: join(out, "metrics.jsonl") };
  };

  it("resumes a run whose metrics.jsonl gained a byte order mark (an editor's), keeping its first update", async () => {
    const { env, config, out, file } = await twoUpdateRunStoppedAfterOne("agent-r1-resume-bom-");
    writeFileSync(file, `\uFEFF${readFileSync(file, "utf8")}`);
    await train({ env, config, out, resume: true, log: () => {} });
    expect(metricsOf(out).map((m) => m.step)).toEqual([0, 1]);
    expect(readFileSync(file, "utf8").startsWith("{")).toBe(true);
  });

  it("says so when it drops a last metrics line cut by a crash (no newline), and redoes its update", async () => {
    const { env, config, out, file } = await twoUpdateRunStoppedAfterOne("agent-r1-resume-torn-");
    writeFileSync(file, `${readFileSync(file, "utf8")}{"step":1,"vers`);
    const lines: string[] = [];
    await train({ env, config, out, resume: true, log: (line) => lines.push(line) });
    expect(lines).toContain(
      `${file}: its last line was cut by a crash (no newline at its end, 15 characters): dropped`,
    );
    expect(metricsOf(out).map((m) => m.step)).toEqual([0, 1]);
  });

  it("refuses a run whose metrics.jsonl is a folder, naming it (Node's EISDIR names no path)", async () => {
    const { env, config, out, file } = await twoUpdateRunStoppedAfterOne("agent-r1-resume-folder-");
    rmSync(file);
    mkdirSync(file);
    await expect(train({ env, config, out, resume: true, log: () => {} })).rejects.toThrow(
      `${file} is a folder; a run's metrics.jsonl is a file`,
    );
  });

  it("says what a resume drops (work after the last checkpoint), and refuses a metrics.jsonl edited out of order or a run without its config.json", async () => {
    const env = await loadEnv("lookup");
    const config = CONFIGS.grpo;
    const root = tempDir("agent-r1-resume-drop-");
    const [whole, crashed] = [join(root, "whole"), join(root, "crashed")];
    await train({ env, config, out: whole, log: () => {} });
    await trainStoppedAfter(config, crashed, 2);
    // As a crash after update 3 was appended but before its checkpoint: its metrics line and journals remain.
    const wholeLines = readFileSync(join(whole, "metrics.jsonl"), "utf8").trim().split("\n");
    const stopped = readFileSync(join(crashed, "metrics.jsonl"), "utf8");
    writeFileSync(join(crashed, "metrics.jsonl"), `${stopped}${wholeLines[2]}\n`);
    cpSync(join(whole, "episodes", "u00002"), join(crashed, "episodes", "u00002"), { recursive: true });
    const edited = join(root, "edited");
    cpSync(crashed, edited, { recursive: true });
    const foreign = join(root, "foreign");
    cpSync(crashed, foreign, { recursive: true });
    const lines: string[] = [];
    await train({ env, config, out: crashed, resume: true, log: (l) => lines.push(l) });
    expect(lines).toContain("dropped the metrics of 1 update after version 2: they are redone");
    expect(lines).toContain(
      "dropped the journals of episodes/u00002, written after version 2: they are recorded again",
    );
    expect(metricsOf(crashed)).toEqual(metricsOf(whole));
    // A line repeated by hand: refused with its line, not resumed into a plot that goes back in time.
    writeFileSync(join(edited, "metrics.jsonl"), `${stopped}${stopped.split("\n")[0]}\n`);
    await expect(train({ env, config, out: edited, resume: true, log: () => {} })).rejects.toThrow(
      `${join(edited, "metrics.jsonl")}:3: update 0 after update 1; updates are written once each, in order`,
    );
    // Another run's metrics.jsonl (here: update 1's mean return not this run's): refused by its last kept
    // line against that update's journals, and left as it was (it was resumed, its gap blamed on a crash).
    const [first, second, ...rest] = readFileSync(join(foreign, "metrics.jsonl"), "utf8").split("\n");
    const other = { ...JSON.parse(second), meanReturn: JSON.parse(second).meanReturn + 0.5 };
    const swapped = [first, JSON.stringify(other), ...rest].join("\n");
    writeFileSync(join(foreign, "metrics.jsonl"), swapped);
    const resumeForeign = () => train({ env, config, out: foreign, resume: true, log: () => {} });
    await expect(resumeForeign()).rejects.toThrow(
      `${join(foreign, "metrics.jsonl")}:2: update 1's mean return is ${other.meanReturn}, but its 4 journals in ${join(foreign, "episodes", "u00001")} returned `,
    );
    await expect(resumeForeign()).rejects.toThrow("the file is another run's, or was edited");
    expect(readFileSync(join(foreign, "metrics.jsonl"), "utf8")).toBe(swapped);
    rmSync(join(edited, "config.json"));
    await expect(train({ env, config, out: edited, resume: true, log: () => {} })).rejects.toThrow(
      `resume: ${edited} holds a run but no config.json, which a resume continues from`,
    );
    rmSync(root, { recursive: true, force: true });
  });
});

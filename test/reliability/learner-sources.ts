/**
 * What the learner fuzz mutates: a real run folder (`train` in process, two updates, a checkpoint after
 * each), its config.json, its last checkpoint (with optimizer state) and latest.json; and a checkpoint of
 * another model shape and tokenizer, whose files replace ours in the `foreign` mutations.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadEnv } from "../../src/cli/registry.ts";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { AdamW } from "../../src/learn/adamw.ts";
import { DEFAULT_TRAIN_CONFIG } from "../../src/learn/config.ts";
import { train } from "../../src/learn/trainer.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { saveCheckpoint } from "../../src/policy/checkpoint.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { ROOT } from "./crash-harness.ts";
import type { Files } from "./learner-mutations.ts";

export const CHECKPOINT_FILES = ["manifest.json", "weights.bin", "optimizer.bin", "config.json", "tokenizer.json"];
export const JSON_CHECKPOINT_FILES = ["manifest.json", "config.json", "tokenizer.json"];

export interface Sources {
  /** The run folder. */
  readonly run: string;
  readonly config: Files;
  readonly checkpoint: Files;
  readonly other: Files;
  readonly latest: Files;
  readonly vocabSize: number;
}

const filesOf = (dir: string): Files => new Map(readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))]));

export const makeSources = async (dir: string): Promise<Sources> => {
  await initBackend("cpu", { log: () => {} });
  const env = await loadEnv("lookup");
  const run = join(dir, "run");
  await train({
    env,
    config: {
      ...DEFAULT_TRAIN_CONFIG,
      algo: "ppo",
      backend: "cpu",
      seed: "fuzz",
      steps: 2,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      checkpointEvery: 1,
      model: { layers: 1, heads: 2, width: 16, contextLength: 192 },
    },
    out: run,
    log: () => {},
  });
  const tokenizer = new WordTokenizer(["other", "words"]);
  const model = new Gpt({ vocabSize: tokenizer.size, contextLength: 32, layers: 1, heads: 2, width: 32 }, "other");
  const optimizer = new AdamW(model.parameters);
  await saveCheckpoint(join(dir, "other"), { model, tokenizer, version: 7, optimizer: await optimizer.state() });
  optimizer.dispose();
  model.dispose();
  return {
    run,
    config: new Map([["config.json", readFileSync(join(run, "config.json"))]]),
    checkpoint: filesOf(join(run, "checkpoints", "v00002")),
    other: filesOf(join(dir, "other")),
    latest: new Map([["latest.json", readFileSync(join(run, "checkpoints", "latest.json"))]]),
    vocabSize: (env.tokenizer as WordTokenizer).size,
  };
};

/** Runs the CLI from the repository root; resolves with its exit status and stderr. */
export const cliStderr = (args: readonly string[]) =>
  new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["bin/agent-r1.js", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("exit", (status) => resolve({ status, stderr }));
  });

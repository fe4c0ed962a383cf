/**
 * A real `train --env lookup` run folder of a tiny model, whose checkpoints are then replaced by `count` models
 * initialised apart (v00001..), so that they surely differ: what average's and select's tests work on.
 */
import { join } from "node:path";
import { expect } from "vitest";
import { main } from "../../src/cli/main.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { loadCheckpoint, saveCheckpoint } from "../../src/policy/checkpoint.ts";
import { Gpt } from "../../src/policy/gpt.ts";

export const runOfApartCheckpoints = async (run: string, count: number, name: string) => {
  const train = ["train", "--env", "lookup", "--steps", "1", "--no-warm-start", "--tasks", "2", "--group-size", "2"];
  const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--eval-episodes", "0"];
  expect(await main([...train, ...shape, "--out", run])).toBe(0);
  await initBackend("wasm", { log: () => {} });
  const checkpoint = (v: number) => join(run, "checkpoints", `v0000${v}`);
  const { model, tokenizer } = await loadCheckpoint(checkpoint(1));
  for (let v = 1; v <= count; v++) {
    const fresh = new Gpt(model.config, `${name}-${v}`);
    await saveCheckpoint(checkpoint(v), { model: fresh, tokenizer, version: v });
    fresh.dispose();
  }
  model.dispose();
};

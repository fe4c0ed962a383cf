/**
 * A train config's model may state its attention (`model.attention`): a fresh model takes it; a run from a
 * checkpoint (`init`, or a resumed run's) keeps the checkpoint's, and one stated otherwise is refused naming
 * both, before any work, rather than trained as another architecture (the experiment's possessive runs state
 * the warm start's turn-local attention).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expertPolicy, hopqa } from "../../actors/hopqa/index.ts";
import { record } from "../../src/cli/record.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import type { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { type TrainConfig, trainConfigFor } from "../../src/learn/config.ts";
import { sft, turnStartsOf } from "../../src/learn/sft.ts";
import { train } from "../../src/learn/trainer.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-train-attention-");
const clone = join(dir, "clone");
const FULL_CHECKPOINT = "docs/checkpoints/hopqa-copy-warm-start";
const shape = { layers: 1, heads: 2, width: 16, contextLength: 384, copy: true } as const;
const log = () => {};
const configOf = (model: Partial<TrainConfig["model"]>, init: string | null, steps = 1): TrainConfig => ({
  ...trainConfigFor(hopqa, {
    backend: "wasm",
    steps,
    tasksPerStep: 1,
    groupSize: 2,
    evalEpisodes: 0,
    warmStart: null,
    model: { ...shape, ...model },
  }),
  init,
});
const savedModel = (checkpoint: string) => JSON.parse(readFileSync(join(checkpoint, "config.json"), "utf8"));

beforeAll(async () => {
  await initBackend("wasm", { log });
  const data = join(dir, "demos");
  await record({
    env: hopqa,
    policy: expertPolicy(),
    episodes: 2,
    seed: "attention",
    out: data,
    concurrency: 2,
    durability: "none",
    quiet: true,
  });
  await sft({
    env: hopqa,
    data,
    out: clone,
    lr: 3e-3,
    seed: "s",
    epochs: 1,
    batchSize: 2,
    backend: "wasm",
    model: { ...shape, attention: "turn-local" },
    log,
  });
}, 120_000);

describe("model.attention in a train config", () => {
  it("a fresh model takes the attention stated: turn-local, its turns at the environment's action tags", async () => {
    const out = join(dir, "fresh");
    await train({ env: hopqa, config: configOf({ attention: "turn-local" }, null), out, log });
    const model = savedModel(join(out, "checkpoints", "v00001"));
    expect(model.attention).toBe("turn-local");
    expect(model.turnStarts).toEqual(turnStartsOf(hopqa, hopqa.tokenizer as WordTokenizer));
  }, 120_000);

  it("from init, another attention than the checkpoint's is refused naming both, before any work", async () => {
    const out = join(dir, "refused");
    const refused = (stated: "full" | "turn-local", init: string, has: string) =>
      expect(train({ env: hopqa, config: configOf({ attention: stated }, init), out, log })).rejects.toThrow(
        new UsageError({
          detail: `train config: model.attention "${stated}" cannot apply: init ${init} has ${has} attention, and a checkpoint keeps its own; state "${has}" or leave attention out (a fresh model, without init, takes the one stated)`,
        }),
      );
    await refused("full", clone, "turn-local");
    await refused("turn-local", FULL_CHECKPOINT, "full");
    expect(existsSync(out)).toBe(false);
  });

  it("from init, the checkpoint's attention stated trains; a resume of a config.json that states none checks it against the run's checkpoint", async () => {
    const out = join(dir, "from-clone");
    await train({ env: hopqa, config: configOf({ attention: "turn-local" }, clone), out, log });
    expect(savedModel(join(out, "checkpoints", "v00001")).attention).toBe("turn-local");
    // A run folder written before train configs stated attention (the experiment's, say): its config.json has none.
    const file = join(out, "config.json");
    const written = JSON.parse(readFileSync(file, "utf8"));
    delete written.model.attention;
    writeFileSync(file, JSON.stringify(written));
    await expect(
      train({ env: hopqa, config: configOf({ attention: "full" }, clone), out, resume: true, log }),
    ).rejects.toThrow(
      `train config: model.attention "full" cannot apply: the run's latest checkpoint ${join(out, "checkpoints", "v00001")} has turn-local attention`,
    );
    const resumed = await train({
      env: hopqa,
      config: configOf({ attention: "turn-local" }, clone),
      out,
      resume: true,
      log,
    });
    expect(resumed.version).toBe(1);
  }, 120_000);
});

/**
 * Randomized position offsets in cloning (`sft --position-offsets random|mixed`): a training row may start at
 * a position other than 0, so that learned position embeddings past the demonstrations' lengths are trained.
 * Sampling and evaluation never use them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { expertPolicy, lookupEnv } from "../../actors/lookup/index.ts";
import { record } from "../../src/cli/record.ts";
import { sft } from "../../src/learn/sft.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { tempDir } from "../support/index.ts";

const TINY = { vocabSize: 30, contextLength: 16, width: 16, heads: 2, layers: 2 } as const;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const logprobsOf = (model: Gpt, rows: number[][], positionOffsets?: number[]) => {
  const inputs = tf.tensor2d(
    rows.map((r) => r.slice(0, -1)),
    undefined,
    "int32",
  );
  const targets = tf.tensor2d(
    rows.map((r) => r.slice(1)),
    undefined,
    "int32",
  );
  const stats = model.tokenStats(inputs, targets, positionOffsets ? { positionOffsets } : {});
  const values = stats.logprobs.arraySync() as number[][];
  for (const t of [inputs, targets, stats.logprobs, stats.entropy, stats.values]) t.dispose();
  return values;
};

describe("Gpt.tokenStats with positionOffsets", () => {
  it("reads a row at offset k as a model whose position table starts k rows later reads it at 0", () => {
    const rows = [
      [1, 5, 7, 2, 9, 4, 3],
      [2, 8, 8, 6, 1, 1, 5],
    ];
    const model = new Gpt(TINY, "offsets");
    const shifted = new Gpt(TINY, "offsets");
    const k = 6;
    const table = model.positionEmbedding!;
    const moved = tf.concat([tf.slice(table, [k, 0], [-1, -1]), tf.slice(table, [0, 0], [k, -1])]);
    shifted.positionEmbedding!.assign(moved);
    moved.dispose();
    const atK = logprobsOf(model, rows, [k, k]);
    const viaTable = logprobsOf(shifted, rows);
    for (let b = 0; b < rows.length; b++)
      for (let t = 0; t < atK[b].length; t++) expect(atK[b][t]).toBeCloseTo(viaTable[b][t], 5);
    // Offsets of 0 are the plain forward pass; another offset reads the same tokens differently.
    expect(logprobsOf(model, rows, [0, 0])).toEqual(logprobsOf(model, rows));
    expect(logprobsOf(model, rows, [k, 0])[0][0]).not.toBeCloseTo(logprobsOf(model, rows)[0][0], 5);
    expect(logprobsOf(model, rows, [k, 0])[1]).toEqual(logprobsOf(model, rows)[1]);
    model.dispose();
    shifted.dispose();
  });

  it("refuses offsets for another number of rows, or with left padding", () => {
    const model = new Gpt(TINY, "offsets");
    expect(() => logprobsOf(model, [[1, 2, 3]], [2, 2])).toThrow(/positionOffsets has 2 rows, tokens has 1/);
    const inputs = tf.tensor2d([[1, 2]], undefined, "int32");
    expect(() => model.tokenStats(inputs, inputs, { leftPad: [1], positionOffsets: [3] })).toThrow(
      /unpadded \(training\) rows only/,
    );
    inputs.dispose();
    model.dispose();
  });
});

describe("sft --position-offsets", () => {
  it("is deterministic from the seed, changes what is learnt, and leaves a run without it as it was", async () => {
    const dir = tempDir();
    const data = join(dir, "demos");
    await record({
      env: lookupEnv,
      policy: expertPolicy(),
      episodes: 12,
      seed: "offsets",
      out: data,
      concurrency: 8,
      durability: "none",
      quiet: true,
    });
    const base = {
      env: lookupEnv,
      data,
      lr: 3e-3,
      seed: "s",
      epochs: 1,
      batchSize: 4,
      backend: "wasm" as const,
      model: { layers: 1, heads: 2, width: 16, contextLength: 96 },
      log: () => {},
    };
    const weights = (out: string) => readFileSync(join(out, "weights.bin"));
    const none = await sft({ ...base, out: join(dir, "none") });
    const plain = await sft({ ...base, out: join(dir, "plain"), positionOffsets: "none" });
    const mixed = await sft({ ...base, out: join(dir, "mixed"), positionOffsets: "mixed" });
    const again = await sft({ ...base, out: join(dir, "again"), positionOffsets: "mixed" });
    expect(weights(join(dir, "plain"))).toEqual(weights(join(dir, "none")));
    expect(plain.losses).toEqual(none.losses);
    expect(weights(join(dir, "again"))).toEqual(weights(join(dir, "mixed")));
    expect(again.losses).toEqual(mixed.losses);
    expect(weights(join(dir, "mixed"))).not.toEqual(weights(join(dir, "none")));
    await expect(sft({ ...base, out: join(dir, "bad"), positionOffsets: "sometimes" as never })).rejects.toThrow(
      /positionOffsets must be "none", "random" or "mixed"/,
    );
  }, 120_000);
});

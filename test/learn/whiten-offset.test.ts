/**
 * trainStep's normalizeAdvantages (CleanRL's norm_adv) whitens over the masked tokens: advantages that share
 * a large offset whiten as those without it. Its variance was mean(A^2) - mean^2, which cancels to 0 at
 * 1e9 +- 1 (the whitened advantages came out near 1e8, the gradient norm 1e8 times too large).
 */
import { fc, test } from "@fast-check/vitest";
import { beforeAll, describe, expect } from "vitest";
import { AdamW } from "../../src/learn/adamw.ts";
import { trainStep } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const tokens = [
  [1, 2, 3, 4, 5],
  [1, 3, 2, 6, 7],
];
const mask = [
  [0, 1, 1, 1, 1],
  [0, 1, 1, 1, 1],
];

/** The gradient norm of one normalised step with these per-row advantages, from the same fresh model. */
const gradNormWith = async (rowAdvantages: readonly [number, number]) => {
  const model = new Gpt({ vocabSize: 12, contextLength: 16, layers: 1, heads: 2, width: 16 }, "whiten");
  const optimizer = new AdamW(model.parameters, { lr: 1e-3 });
  try {
    const result = await trainStep(
      model,
      {
        tokens,
        lossMask: mask,
        advantages: mask.map((row, b) => row.map((m) => m * rowAdvantages[b])),
        // Ratio 1 is not needed: the surrogate's gradient at any recorded logprob scales with the advantages.
        logprobs: mask.map((row) => row.map(() => -2)),
      },
      { optimizer, normalizeAdvantages: true },
    );
    return result.gradNorm;
  } finally {
    optimizer.dispose();
    model.dispose();
  }
};

describe("trainStep's normalizeAdvantages", () => {
  test.prop(
    [
      fc.oneof(fc.constantFrom(1e9, -3e10, 1e12), fc.double({ min: -1e12, max: 1e12, noNaN: true })),
      fc.double({ min: 0.5, max: 4, noNaN: true }),
    ],
    {
      numRuns: 8,
    },
  )("whitens advantages with an offset as those without it", async (offset, spread) => {
    const plain = await gradNormWith([spread, -spread]);
    const shifted = await gradNormWith([offset + spread, offset - spread]);
    expect(shifted / plain).toBeCloseTo(1, 2);
  });
});

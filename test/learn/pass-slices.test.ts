import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { defaultPassing, GPU_TOKENS_PER_PASS, passSlices, passSlicesInOrder } from "../../src/learn/train-step.ts";

const rowsOf = (lengths: readonly number[]) => lengths.map((n) => Array.from({ length: n }, (_, t) => t));
/** The padded work of a grouping, in the cost model's units (overhead per pass + rows x w x (1 + w / d)). */
const work = (lengths: readonly number[], slices: readonly number[][], overhead: number, d: number) =>
  slices.reduce((sum, slice) => {
    const w = Math.max(...slice.map((i) => lengths[i]));
    return sum + overhead + slice.length * w * (1 + w / d);
  }, 0);

describe("passSlices: a batch's rows grouped into forward passes", () => {
  test.prop([
    fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 1, maxLength: 80 }),
    fc.integer({ min: 1, max: 20_000 }),
  ])(
    "puts every row in exactly one pass, each within the token budget unless it is a single row, rows in order inside a pass",
    (lengths, budget) => {
      const slices = passSlices(rowsOf(lengths), budget);
      expect(slices.flat().sort((a, b) => a - b)).toEqual(lengths.map((_, i) => i));
      for (const slice of slices) {
        expect(slice.length).toBeGreaterThan(0);
        expect(slice).toEqual([...slice].sort((a, b) => a - b));
        if (slice.length > 1)
          expect(slice.length * Math.max(...slice.map((i) => lengths[i]))).toBeLessThanOrEqual(budget);
      }
    },
  );

  test.prop([fc.array(fc.integer({ min: 2, max: 400 }), { minLength: 1, maxLength: 64 })])(
    "never costs more padded work than cutting the batch in its order",
    (lengths) => {
      const budget = 8192;
      const byLength = work(lengths, passSlices(rowsOf(lengths), budget, { modelWidth: 128 }), 150, 128);
      const inOrder = work(lengths, passSlicesInOrder(rowsOf(lengths), budget), 150, 128);
      expect(byLength).toBeLessThanOrEqual(inOrder * (1 + 1e-9));
    },
  );

  it("keeps short rows out of a long row's pass when that saves work", () => {
    // One long episode and fifteen short ones: padding all to 360 would multiply the work by about 3.
    const lengths = [360, ...Array(15).fill(150)];
    const slices = passSlices(rowsOf(lengths), 8192, { modelWidth: 128 });
    expect(slices).toEqual([[0], lengths.slice(1).map((_, i) => i + 1)]);
  });
});

describe("defaultPassing: how a batch is cut when the caller does not say", () => {
  it("groups by length on wasm and cpu, and sends a minibatch through in one pass on a GPU backend", () => {
    const model = { config: { vocabSize: 437, contextLength: 384, width: 128, heads: 4, layers: 2 } };
    for (const backend of ["wasm", "cpu"]) expect(defaultPassing(model, backend).passes).toBe("by-length");
    expect(defaultPassing(model, "wasm").tokensPerPass).toBeLessThan(GPU_TOKENS_PER_PASS);
    for (const backend of ["webgpu", "webgl"])
      expect(defaultPassing(model, backend)).toEqual({ tokensPerPass: GPU_TOKENS_PER_PASS, passes: "in-order" });
    // hopqa's RL minibatch (32 episodes of up to 384 tokens) is one pass on a GPU, several on wasm.
    // 4 layers of width 256 (4x the layers x width) get a quarter of the tokens per pass, as on wasm.
    const large = { config: { ...model.config, layers: 4, width: 256 } };
    expect(defaultPassing(large, "webgpu").tokensPerPass).toBe(GPU_TOKENS_PER_PASS / 4);
    const lengths = Array.from({ length: 32 }, (_, i) => 120 + ((i * 37) % 264));
    const gpu = defaultPassing(model, "webgpu");
    expect(passSlicesInOrder(rowsOf(lengths), gpu.tokensPerPass)).toHaveLength(1);
    expect(passSlices(rowsOf(lengths), defaultPassing(model, "wasm").tokensPerPass).length).toBeGreaterThan(1);
  });
});

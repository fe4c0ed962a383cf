import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { AdamW } from "../../src/learn/adamw.ts";
import { scoreTokens, supervisedStep, trainStep } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { sample } from "../../src/policy/sampler.ts";

beforeAll(async () => {
  expect(await initBackend("wasm", { log: () => {} })).toBe("wasm");
});

const config = { vocabSize: 32, contextLength: 24, width: 32, heads: 2, layers: 2 };

describe("training on wasm", () => {
  it("overfits a fixed sequence by cross-entropy on its action tokens", async () => {
    const model = new Gpt(config, "overfit");
    const optimizer = new AdamW(model.parameters, { lr: 3e-3, weightDecay: 0 });
    const sequence = [1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8];
    const lossMask = sequence.map((_, t) => (t >= 4 ? 1 : 0));
    const batch = { tokens: [sequence, sequence], lossMask: [lossMask, lossMask] };
    const losses: number[] = [];
    for (let step = 0; step < 60; step++) {
      const result = await supervisedStep(model, batch, { optimizer });
      expect(result.skipped).toBe(false);
      losses.push(result.loss);
    }
    expect(losses[0]).toBeGreaterThan(0.8 * Math.log(config.vocabSize));
    expect(losses.at(-1)!).toBeLessThan(0.1 * losses[0]);
    const memory = tf.memory().numTensors;
    await supervisedStep(model, batch, { optimizer });
    expect(tf.memory().numTensors, "a step leaves no tensors behind").toBe(memory);
    optimizer.dispose();
    model.dispose();
  });

  it.each([false, true])(
    "moves logprobs along the advantage and values toward the returns (PPO; copy head: %s)",
    async (copy) => {
      const model = new Gpt({ ...config, copy }, "ppo");
      const optimizer = new AdamW(model.parameters, { lr: 1e-2, weightDecay: 0 });
      const tokens = [
        [1, 2, 3, 4, 5, 6],
        [1, 2, 3, 7, 8, 9],
      ];
      const lossMask = tokens.map(() => [0, 0, 0, 1, 1, 1]);
      const before = await scoreTokens(model, tokens);
      const batch = {
        tokens,
        lossMask,
        advantages: [
          [0, 0, 0, 1, 1, 1],
          [0, 0, 0, -1, -1, -1],
        ],
        logprobs: before.logprobs,
        oldValues: before.values,
        returns: tokens.map(() => [0, 0, 0, 1, 1, 1]),
      };
      for (let step = 0; step < 5; step++) {
        const result = await trainStep(model, batch, { optimizer, clipEps: 0.2, valueClipEps: null });
        expect(result.skipped).toBe(false);
        expect(result.tokens).toBe(6);
        if (step === 0) {
          expect(result.approxKl).toBeCloseTo(0, 6);
          expect(result.clipfrac).toBe(0);
        }
      }
      const after = await scoreTokens(model, tokens);
      for (let t = 3; t < 6; t++) {
        expect(after.logprobs[0][t]).toBeGreaterThan(before.logprobs[0][t]);
        expect(after.logprobs[1][t]).toBeLessThan(before.logprobs[1][t]);
        expect(Math.abs(after.values[0][t] - 1)).toBeLessThan(Math.abs(before.values[0][t] - 1));
      }
      optimizer.dispose();
      model.dispose();
    },
  );

  it.each([false, true])(
    "starts PPO at ratio 1 on what the sampler recorded, constrained decoding included (copy head: %s)",
    async (copy) => {
      const model = new Gpt({ ...config, initStd: 0.2, copy }, "on-policy");
      const optimizer = new AdamW(model.parameters, { lr: 1e-3 });
      const contexts = [
        [1, 2, 3],
        [4, 5, 6, 7, 8],
      ];
      const results = await sample(
        model,
        contexts.map((context, i) => ({
          context,
          seed: `row-${i}`,
          maxNewTokens: 6,
          allowedNext: i === 0 ? (prefix: readonly number[]) => (prefix.length % 2 ? [10, 11, 12] : null) : undefined,
        })),
      );
      const tokens = contexts.map((context, i) => [...context, ...results[i].tokens]);
      const perToken = (i: number, action: (t: number) => number) =>
        tokens[i].map((_, t) => (t < contexts[i].length ? 0 : action(t - contexts[i].length)));
      const result = await trainStep(
        model,
        {
          tokens,
          lossMask: tokens.map((_, i) => perToken(i, () => 1)),
          advantages: tokens.map((_, i) => perToken(i, () => 1)),
          logprobs: tokens.map((_, i) => perToken(i, (t) => results[i].logprobs[t])),
          allowed: tokens.map((row, i) =>
            row.map((_, t) => (t < contexts[i].length ? null : (results[i].allowed?.[t - contexts[i].length] ?? null))),
          ),
        },
        { optimizer },
      );
      expect(result.skipped).toBe(false);
      expect(Math.abs(result.approxKl)).toBeLessThan(1e-6);
      expect(result.clipfrac).toBe(0);
      optimizer.dispose();
      model.dispose();
    },
  );
  it.each([false, true])(
    "cuts a large batch into passes whose summed gradients make the same update, leaving no tensors (copy head: %s)",
    async (copy) => {
      // Rows of different lengths, masks, a reference and values: everything a PPO step uses.
      const rows = Array.from({ length: 7 }, (_, b) => Array.from({ length: 10 + b }, (_, t) => (3 * b + 5 * t) % 32));
      const lossMask = rows.map((row, b) => row.map((_, t) => (t >= 3 && (t + b) % 4 !== 0 ? 1 : 0)));
      const perToken = (f: (b: number, t: number) => number) => rows.map((row, b) => row.map((_, t) => f(b, t)));
      const batch = {
        tokens: rows,
        lossMask,
        advantages: perToken((b, t) => Math.sin(b + t)),
        logprobs: perToken((b, t) => -1 - 0.1 * ((b * t) % 5)),
        refLogprobs: perToken((b, t) => -1.2 + 0.05 * ((b + t) % 3)),
        returns: perToken((b) => b / 7),
        oldValues: perToken(() => 0),
      };
      const run = async (tokensPerPass: number, passes: "by-length" | "in-order" = "by-length") => {
        const model = new Gpt({ ...config, copy }, "slices");
        const optimizer = new AdamW(model.parameters, { lr: 1e-2, weightDecay: 0 });
        const result = await trainStep(model, batch, {
          optimizer,
          klCoef: 0.1,
          valueCoef: 0.5,
          entropyCoef: 0.01,
          tokensPerPass,
          passes,
        });
        const weights = [...model.parameters.values()].map((v) => Array.from(v.dataSync()));
        optimizer.dispose();
        model.dispose();
        return { result, weights };
      };
      const whole = await run(1_000_000, "in-order");
      const before = tf.memory().numTensors;
      // 40 tokens a pass: 2 rows of 16 or fewer tokens; by length, the longest rows first (not in order).
      for (const sliced of [await run(40), await run(40, "in-order"), await run(1_000_000)]) {
        expect(tf.memory().numTensors).toBe(before);
        for (const key of [
          "loss",
          "policyLoss",
          "valueLoss",
          "entropy",
          "kl",
          "approxKl",
          "clipfrac",
          "gradNorm",
        ] as const)
          expect(sliced.result[key], key).toBeCloseTo(whole.result[key], 5);
        // Adam's first step is about lr * sign(g): 1e-2 per weight, so 1e-3 tells a missed pass from float order
        // (an entry whose gradient is near 0 moves by g / (|g| + eps), sensitive to the order of summation: one
        // of 28,321 moved 9e-5 apart when the passes were grouped by length). gradNorm above checks the sum.
        for (const [i, w] of whole.weights.entries())
          for (const [j, x] of w.entries()) expect(sliced.weights[i][j]).toBeCloseTo(x, 3);
      }
      // Scoring cuts the same way and returns the same numbers, each row in its place.
      const model = new Gpt(config, "score");
      const a = await scoreTokens(model, rows, undefined, 1_000_000, "in-order");
      for (const b of [
        await scoreTokens(model, rows, undefined, 40),
        await scoreTokens(model, rows, undefined, 40, "in-order"),
      ]) {
        expect(b.logprobs.map((row) => row.length)).toEqual(rows.map((row) => row.length));
        for (const [i, row] of a.logprobs.entries())
          for (const [t, x] of row.entries()) expect(b.logprobs[i][t]).toBeCloseTo(x, 5);
      }
      model.dispose();
    },
  );

  it.each([false, true])(
    "reads nothing back synchronously, as WebGPU under Node requires (copy head: %s)",
    async (copy) => {
      // WebGPU in Node has no synchronous read (tfjs-backend-webgpu's dataSync needs OffscreenCanvas): a
      // step, a clone step or scoring that called dataSync or arraySync would fail there. (wasm's own kernels
      // read their inputs directly; that is the backend's business, not a read the learner asks for.)
      const refuse = () => {
        throw new Error("synchronous read");
      };
      const spies = [
        vi.spyOn(tf.Tensor.prototype, "dataSync").mockImplementation(refuse),
        vi.spyOn(tf.Tensor.prototype, "arraySync").mockImplementation(refuse),
      ];
      const model = new Gpt({ ...config, copy }, "async");
      const optimizer = new AdamW(model.parameters);
      try {
        const tokens = [
          [1, 2, 3, 4, 5, 6],
          [1, 2, 7, 8],
        ];
        const lossMask = tokens.map((row) => row.map((_, t) => (t >= 2 ? 1 : 0)));
        const allowed = tokens.map((row) => row.map((token, t) => (t === 3 ? [token, 9, 10] : null)));
        const scores = await scoreTokens(model, tokens, allowed, 8);
        const step = await trainStep(
          model,
          { tokens, lossMask, advantages: lossMask, logprobs: scores.logprobs, allowed, refLogprobs: scores.logprobs },
          { optimizer, klCoef: 0.1, tokensPerPass: 8 },
        );
        expect(step.skipped).toBe(false);
        expect(step.gradNorm).toBeGreaterThan(0);
        const clone = await supervisedStep(model, { tokens, lossMask }, { optimizer });
        expect(clone.loss).toBeGreaterThan(0);
        for (const spy of spies) expect(spy).not.toHaveBeenCalled();
      } finally {
        for (const spy of spies) spy.mockRestore();
        optimizer.dispose();
        model.dispose();
      }
    },
  );
});

/**
 * AdamW takes no step on a gradient that is 0 everywhere (an update with nothing to learn from, like a GRPO
 * batch whose every group tied): plain AdamW would move the weights by the momentum of earlier steps and by
 * weight decay, and count the step. And its options are checked as train's and the CLI's are.
 */
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { UsageError } from "../../src/index.ts";
import { AdamW, ZERO_GRADIENT } from "../../src/learn/adamw.ts";
import { initBackend } from "../../src/learn/index.ts";
import { scoreTokens, trainStep } from "../../src/learn/train-step.ts";
import { Gpt } from "../../src/policy/gpt.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const paramsOf = () =>
  new Map<string, tf.Variable>([
    [
      "w",
      tf.variable(
        tf.tensor2d([
          [1, 2],
          [3, 4],
        ]),
        true,
        "adamw-test-w",
      ),
    ],
    ["b", tf.variable(tf.tensor1d([0.5, -0.5]), true, "adamw-test-b")],
  ]);

describe("AdamW", () => {
  it("takes no step on a gradient that is 0 everywhere: weights, moments and step count stay", async () => {
    const params = paramsOf();
    const optimizer = new AdamW(params, { lr: 0.1, weightDecay: 0.1 });
    try {
      const ones = new Map([...params].map(([name, p]) => [name, tf.onesLike(p)] as const));
      expect((await optimizer.apply(ones)).applied).toBe(true);
      for (const g of ones.values()) g.dispose();
      const before = await optimizer.state();
      const weights = await Promise.all([...params.values()].map((p) => p.data()));
      const zeros = new Map([...params].map(([name, p]) => [name, tf.zerosLike(p)] as const));
      const outcome = await optimizer.apply(zeros);
      for (const g of zeros.values()) g.dispose();
      expect(outcome).toEqual({ applied: false, gradNorm: 0, reason: ZERO_GRADIENT });
      expect(optimizer.step).toBe(1);
      expect(await Promise.all([...params.values()].map((p) => p.data()))).toEqual(weights);
      expect(await optimizer.state()).toEqual(before);
    } finally {
      optimizer.dispose();
      for (const p of params.values()) p.dispose();
    }
  });

  it("a batch whose every advantage is 0 is no step of trainStep, unless an entropy bonus gives it a gradient", async () => {
    const model = new Gpt({ vocabSize: 16, contextLength: 8, width: 16, heads: 2, layers: 1 }, "async");
    const optimizer = new AdamW(model.parameters, { lr: 1e-2 });
    try {
      const tokens = [
        [1, 2, 3, 4],
        [1, 5, 6],
      ];
      const lossMask = tokens.map((row) => row.map((_, t) => (t >= 1 ? 1 : 0)));
      const advantages = lossMask.map((row) => row.map(() => 0));
      const { logprobs } = await scoreTokens(model, tokens);
      const batch = { tokens, lossMask, advantages, logprobs };
      const tied = await trainStep(model, batch, { optimizer });
      expect([tied.skipped, tied.reason, tied.gradNorm]).toEqual([true, ZERO_GRADIENT, 0]);
      expect(optimizer.step).toBe(0);
      const withEntropy = await trainStep(model, batch, { optimizer, entropyCoef: 0.01 });
      expect(withEntropy.skipped).toBe(false);
      expect(withEntropy.gradNorm).toBeGreaterThan(0);
      expect(optimizer.step).toBe(1);
    } finally {
      optimizer.dispose();
      model.dispose();
    }
  });

  it("refuses a config the CLI and train's config refuse, a learning rate of 0 first, as a UsageError naming the field", () => {
    const params = paramsOf();
    try {
      const refused = (config: object, message: RegExp) => {
        expect(() => new AdamW(params, config)).toThrow(UsageError);
        expect(() => new AdamW(params, config)).toThrow(message);
      };
      refused({ lr: 0 }, /^AdamW: lr must be a finite number > 0 \(the CLI's --lr; at 0 nothing is learnt\), got 0$/);
      refused({ lr: -1e-3 }, /^AdamW: lr must be .*, got -0\.001$/);
      refused({ lr: Number.NaN }, /^AdamW: lr must be .*, got NaN$/);
      refused({ lr: "1e-3" }, /^AdamW: lr must be .*, got "1e-3" \(a string\)$/);
      refused({ weightDecay: -0.1 }, /^AdamW: weightDecay must be a finite number >= 0, got -0\.1$/);
      refused({ beta2: 1 }, /^AdamW: beta2 must be a number >= 0 and < 1, got 1$/);
      refused({ eps: 0 }, /^AdamW: eps must be a finite number > 0, got 0$/);
      refused({ maxGradNorm: Number.POSITIVE_INFINITY }, /^AdamW: maxGradNorm must be .*, got Infinity$/);
      // What was accepted stays accepted: the defaults, no clipping, no weight decay.
      new AdamW(params, { maxGradNorm: null, weightDecay: 0 }).dispose();
      new AdamW(params, { lr: undefined }).dispose();
    } finally {
      for (const p of params.values()) p.dispose();
    }
  });
});

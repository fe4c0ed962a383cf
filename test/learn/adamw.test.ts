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

  it("updates as the AdamW formula says: defaults (clip 1, weight decay 0.01 on matrices only), then per-step overrides", async () => {
    const params = paramsOf();
    const optimizer = new AdamW(params);
    try {
      // The formula in float64, for flat values: clip by the global norm, moments, bias correction, decoupled decay.
      const ref = { w: [1, 2, 3, 4], b: [0.5, -0.5] };
      const m = { w: [0, 0, 0, 0], b: [0, 0] };
      const v = { w: [0, 0, 0, 0], b: [0, 0] };
      const reference = (g: { w: number[]; b: number[] }, t: number, lr: number, wd: number, clip: number | null) => {
        const norm = Math.hypot(...g.w, ...g.b);
        const scale = clip !== null && norm > clip ? clip / (norm + 1e-6) : 1;
        for (const key of ["w", "b"] as const)
          ref[key] = ref[key].map((p, i) => {
            const gi = g[key][i] * scale;
            m[key][i] = 0.9 * m[key][i] + 0.1 * gi;
            v[key][i] = 0.999 * v[key][i] + 0.001 * gi * gi;
            const adam = m[key][i] / (1 - 0.9 ** t) / (Math.sqrt(v[key][i] / (1 - 0.999 ** t)) + 1e-8);
            return p - lr * (adam + (key === "w" ? wd * p : 0));
          });
      };
      const step = async (g: { w: number[]; b: number[] }, overrides = {}) => {
        const grads = new Map<string, tf.Tensor>([
          ["w", tf.tensor2d(g.w, [2, 2])],
          ["b", tf.tensor1d(g.b)],
        ]);
        const outcome = await optimizer.apply(grads, overrides);
        for (const grad of grads.values()) grad.dispose();
        return outcome;
      };
      const expectParams = async () => {
        for (const key of ["w", "b"] as const) {
          const got = await params.get(key)!.data();
          for (const [i, want] of ref[key].entries()) expect(got[i], `${key}[${i}]`).toBeCloseTo(want, 6);
        }
      };
      // Norm 10: clipped to 1.
      const g1 = { w: [6, 0, 0, -8], b: [0, 0] };
      expect(await step(g1)).toEqual({ applied: true, gradNorm: 10 });
      reference(g1, 1, 3e-4, 0.01, 1);
      await expectParams();
      // No clipping (null overrides the config's 1), another rate and decay.
      // b[1]'s gradient is tiny: eps is added to sqrt(v), not under it.
      const g2 = { w: [3, -1, 2, 0.5], b: [4, 1e-6] };
      await step(g2, { maxGradNorm: null, lr: 0.01, weightDecay: 0.1 });
      reference(g2, 2, 0.01, 0.1, null);
      await expectParams();
      expect(optimizer.step).toBe(2);
    } finally {
      optimizer.dispose();
      for (const p of params.values()) p.dispose();
    }
  });

  it("restores a saved state only when it fits (changing nothing otherwise), and then holds exactly that state", async () => {
    const params = paramsOf();
    const optimizer = new AdamW(params);
    const grads = () =>
      new Map<string, tf.Tensor>([
        ["w", tf.tensor2d([0.3, -0.2, 0.1, 0.4], [2, 2])],
        ["b", tf.tensor1d([0.2, -0.1])],
      ]);
    try {
      await optimizer.apply(grads());
      const saved = await optimizer.state();
      const fresh = new AdamW(params);
      const refused = (state: typeof saved, message: string) => {
        expect(() => fresh.restore(state)).toThrow(message);
        expect(fresh.step).toBe(0);
      };
      refused({ ...saved, step: -1 }, "AdamW: step must be an integer >= 0, got -1");
      refused(
        { ...saved, moments: new Map([...saved.moments, ["extra", saved.moments.get("b")!]]) },
        "AdamW: saved moments for unknown parameter extra",
      );
      refused(
        { ...saved, moments: new Map([...saved.moments].filter(([name]) => name !== "b")) },
        "AdamW: no saved moments for parameter b",
      );
      const b = saved.moments.get("b")!;
      refused(
        { ...saved, moments: new Map([...saved.moments, ["b", { m: b.m, v: new Float32Array(3) }]]) },
        "AdamW: moments of b hold 2 and 3 values, the parameter 2",
      );
      expect(await fresh.state()).toEqual({
        step: 0,
        moments: new Map([...saved.moments].map(([n, s]) => [n, { m: s.m.map(() => 0), v: s.v.map(() => 0) }])),
      });
      fresh.restore(saved);
      expect(await fresh.state()).toEqual(saved);
      fresh.dispose();
    } finally {
      optimizer.dispose();
      for (const p of params.values()) p.dispose();
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

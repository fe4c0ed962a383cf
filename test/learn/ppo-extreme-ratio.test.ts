/**
 * PPO's clipped surrogate where the policy has moved far from the sampler: log ratios past 88 overflow
 * exp() in float32. Where the advantage is >= 0 the objective is -A min(r, 1 + eps), whose value and
 * gradient stay finite (the gradient is 0 past 1 + eps): computing exp(log r) there made 0 * Infinity, a NaN
 * gradient, and the whole update was skipped.
 */
import { fc, test } from "@fast-check/vitest";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { ppoLoss } from "../../src/learn/losses.ts";
import { initBackend } from "../../src/policy/backend.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

/** One token's loss and d loss / d logprob, in float32 (a mask of ones, so the mean is over the tokens). */
const lossAndGrad = (logRatios: readonly number[], advantages: readonly number[], clipEps: number) => {
  const n = logRatios.length;
  const oldLogprobs = tf.tensor1d(logRatios.map((x) => -x - 1));
  const logprobs = tf.tensor1d(new Array(n).fill(-1));
  const a = tf.tensor1d([...advantages]);
  const mask = tf.ones([n]);
  const { value, grad } = tf.valueAndGrad(
    (lp: tf.Tensor) => ppoLoss({ logprobs: lp, oldLogprobs, advantages: a, mask }, { clipEps }).loss,
  )(logprobs);
  const out = { loss: value.dataSync()[0], grad: Array.from(grad.dataSync()) };
  for (const t of [oldLogprobs, logprobs, a, mask, value, grad]) t.dispose();
  return out;
};

describe("ppoLoss at extreme log ratios", () => {
  test.prop(
    [
      fc.array(
        fc.record({
          logRatio: fc.double({ min: -150, max: 150, noNaN: true }),
          advantage: fc.oneof(fc.constant(0), fc.double({ min: 1e-3, max: 10, noNaN: true })),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      fc.double({ min: 0, max: 0.5, noNaN: true }),
    ],
    { numRuns: 60 },
  )(
    "with advantages >= 0: loss -mean(A min(r, 1 + eps)) and its gradient, finite however large r is",
    (tokens, clipEps) => {
      const { loss, grad } = lossAndGrad(
        tokens.map((t) => t.logRatio),
        tokens.map((t) => t.advantage),
        clipEps,
      );
      const n = tokens.length;
      const expected = -tokens.reduce((s, t) => s + t.advantage * Math.min(Math.exp(t.logRatio), 1 + clipEps), 0) / n;
      expect(Number.isFinite(loss)).toBe(true);
      expect(loss).toBeCloseTo(expected, 3);
      tokens.forEach((t, i) => {
        const r = Math.exp(t.logRatio);
        // Away from the kink at 1 + eps (float32 puts it within a few ulps).
        if (Math.abs(r - (1 + clipEps)) < 1e-4) return;
        const g = r < 1 + clipEps ? (-t.advantage * r) / n : 0;
        expect(Number.isFinite(grad[i]), `token ${i}: log ratio ${t.logRatio}`).toBe(true);
        expect(grad[i]).toBeCloseTo(g, 3);
      });
    },
  );

  test.prop([fc.double({ min: -80, max: 80, noNaN: true }), fc.double({ min: -10, max: 10, noNaN: true })], {
    numRuns: 60,
  })(
    "where exp(log r) fits in float32, the gradient is PPO's, whatever the advantage's sign",
    (logRatio, advantage) => {
      const clipEps = 0.2;
      const { grad } = lossAndGrad([logRatio], [advantage], clipEps);
      const r = Math.exp(logRatio);
      if (Math.abs(r - (1 + clipEps)) < 1e-4 || Math.abs(r - (1 - clipEps)) < 1e-4) return;
      const active = advantage >= 0 ? r < 1 + clipEps : r > 1 - clipEps;
      expect(grad[0] / Math.max(1, Math.abs(advantage * r))).toBeCloseTo(
        (active ? -advantage * r : 0) / Math.max(1, Math.abs(advantage * r)),
        4,
      );
    },
  );

  it("clips with a range too small for float32 (1 - eps and 1 + eps both round to 1) as with one of 0", () => {
    // tfjs-backend-wasm's clipByValue returned 3.6e-41 for such bounds: a loss of about 0, not -A.
    for (const clipEps of [0, 1e-9, 5.551115123125784e-17]) {
      const { loss, grad } = lossAndGrad([0, 0.5, -0.5], [1, 1, -1], clipEps);
      expect(loss, `clip ${clipEps}`).toBeCloseTo(-(1 + 1 - 1) / 3, 5);
      expect(
        grad.map((g) => Number(g.toFixed(5))),
        `clip ${clipEps}`,
      ).toEqual([-1 / 3, 0, 0].map((g) => Number(g.toFixed(5))));
    }
  });
});

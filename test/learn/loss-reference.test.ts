/**
 * ppoLoss against a plain-JS reference written from the formulas (Schulman et al. 2017; Schulman's k1, k2,
 * k3 with d = log pi_ref - log pi): its value and its gradient with respect to the logprobs, the values and
 * the entropies, on random tokens with weighted masks (seq-mean-token-mean's weights), both signs of the
 * advantage, ratios inside and outside the clip range, and each KL kind. Masked tokens get exactly 0.
 */
import { fc, test } from "@fast-check/vitest";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect } from "vitest";
import { type KlKind, ppoLoss } from "../../src/learn/losses.ts";
import { initBackend } from "../../src/policy/backend.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

interface Token {
  readonly mask: number;
  readonly logRatio: number;
  readonly old: number;
  readonly advantage: number;
  readonly refMinusLogp: number;
  readonly entropy: number;
  readonly oldValue: number;
  readonly valueStep: number;
  readonly ret: number;
}

const CLIP = 0.2;
const VALUE_CLIP = 0.3;
const [VALUE_COEF, ENTROPY_COEF, KL_COEF] = [0.5, 0.01, 0.1];

/** A number of [-2, 2] on a grid of 1/64, kept off the clip boundaries (ties there have no single gradient). */
const grid = fc.integer({ min: -128, max: 128 }).map((x) => x / 64);
const awayFrom = (x: number, edges: readonly number[]) => edges.every((e) => Math.abs(x - e) > 1e-3);

const tokenArb = fc
  .record({
    mask: fc.constantFrom(0, 1, 0.5, 1.75),
    logRatio: grid.map((x) => x / 2),
    old: fc.integer({ min: -60, max: -1 }).map((x) => x / 10),
    advantage: grid,
    refMinusLogp: grid,
    entropy: fc.integer({ min: 0, max: 30 }).map((x) => x / 10),
    oldValue: grid,
    valueStep: grid.map((x) => x / 2),
    ret: grid,
  })
  .filter(
    (t) =>
      awayFrom(t.logRatio, [Math.log(1 - CLIP), Math.log(1 + CLIP)]) &&
      awayFrom(t.valueStep, [-VALUE_CLIP, VALUE_CLIP]) &&
      awayFrom(t.oldValue + t.valueStep, [t.ret]) &&
      awayFrom(Math.abs(t.oldValue + t.valueStep - t.ret), [
        Math.abs(t.oldValue + Math.max(-VALUE_CLIP, Math.min(VALUE_CLIP, t.valueStep)) - t.ret),
      ]),
  );

/** The loss and its gradient by logprob, value and entropy, token by token, in float64. */
const reference = (tokens: readonly Token[], kind: KlKind) => {
  const n = Math.max(
    tokens.reduce((s, t) => s + t.mask, 0),
    1,
  );
  let loss = 0;
  const gLogp: number[] = [];
  const gValue: number[] = [];
  const gEntropy: number[] = [];
  for (const t of tokens) {
    const w = t.mask / n;
    if (t.mask === 0) {
      gLogp.push(0);
      gValue.push(0);
      gEntropy.push(0);
      continue;
    }
    const r = Math.exp(t.logRatio);
    const clipped = Math.min(Math.max(r, 1 - CLIP), 1 + CLIP);
    const policy = Math.max(-t.advantage * r, -t.advantage * clipped);
    // The unclipped term is the active one (or both are, inside the range): its gradient is -A r.
    const unclippedActive = -t.advantage * r >= -t.advantage * clipped;
    const d = t.refMinusLogp;
    const kl = kind === "k1" ? -d : kind === "k2" ? (d * d) / 2 : Math.exp(d) - d - 1;
    const dKl = kind === "k1" ? 1 : kind === "k2" ? -d : 1 - Math.exp(d);
    const v = t.oldValue + t.valueStep;
    const vClipped = t.oldValue + Math.min(Math.max(t.valueStep, -VALUE_CLIP), VALUE_CLIP);
    const valueLoss = 0.5 * Math.max((v - t.ret) ** 2, (vClipped - t.ret) ** 2);
    const valueUnclippedActive = (v - t.ret) ** 2 >= (vClipped - t.ret) ** 2;
    const insideValueClip = Math.abs(t.valueStep) < VALUE_CLIP;
    loss += w * (policy + VALUE_COEF * valueLoss - ENTROPY_COEF * t.entropy + KL_COEF * kl);
    gLogp.push(w * ((unclippedActive ? -t.advantage * r : 0) + KL_COEF * dKl));
    gValue.push(w * VALUE_COEF * (valueUnclippedActive ? v - t.ret : insideValueClip ? vClipped - t.ret : 0));
    gEntropy.push(-w * ENTROPY_COEF);
  }
  return { loss, gLogp, gValue, gEntropy };
};

const near = (got: number, want: number, what: string) =>
  expect(Math.abs(got - want), `${what}: ${got} vs ${want}`).toBeLessThanOrEqual(2e-5 * (1 + Math.abs(want)));

describe("ppoLoss against the formulas", () => {
  test.prop([fc.array(tokenArb, { minLength: 1, maxLength: 12 }), fc.constantFrom<KlKind>("k1", "k2", "k3")], {
    numRuns: 150,
  })("value and gradient (logprobs, values, entropy) match, token by token", (tokens, kind) => {
    const col = (f: (t: Token) => number) => tf.tensor1d(tokens.map(f));
    // Masked tokens get logprobs far from their recorded ones: they must not count at all.
    const logprobs = col((t) => (t.mask === 0 ? t.old + 50 : t.old + t.logRatio));
    const oldLogprobs = col((t) => t.old);
    const refLogprobs = col((t) => (t.mask === 0 ? -400 : t.old + t.logRatio + t.refMinusLogp));
    const values = col((t) => t.oldValue + t.valueStep);
    const entropy = col((t) => t.entropy);
    const inputs = {
      oldLogprobs,
      refLogprobs,
      advantages: col((t) => t.advantage),
      mask: col((t) => t.mask),
      oldValues: col((t) => t.oldValue),
      returns: col((t) => t.ret),
    };
    const config = {
      clipEps: CLIP,
      valueClipEps: VALUE_CLIP,
      valueCoef: VALUE_COEF,
      entropyCoef: ENTROPY_COEF,
      klCoef: KL_COEF,
      klKind: kind,
    };
    const f = (lp: tf.Tensor, v: tf.Tensor, h: tf.Tensor) =>
      ppoLoss({ ...inputs, logprobs: lp, values: v, entropy: h }, config).loss;
    const { value, grads } = tf.valueAndGrads(f)([logprobs, values, entropy]);
    const want = reference(tokens, kind);
    near(value.dataSync()[0], want.loss, "loss");
    const [gLogp, gValue, gEntropy] = grads.map((g) => Array.from(g.dataSync()));
    tokens.forEach((t, i) => {
      if (t.mask === 0) {
        expect([gLogp[i], gValue[i], gEntropy[i]].map(Math.abs), `masked token ${i}`).toEqual([0, 0, 0]);
        return;
      }
      near(gLogp[i], want.gLogp[i], `d/dlogp ${i}`);
      near(gValue[i], want.gValue[i], `d/dV ${i}`);
      near(gEntropy[i], want.gEntropy[i], `d/dH ${i}`);
    });
    tf.dispose([logprobs, values, entropy, value, ...grads, ...Object.values(inputs)]);
  });
});

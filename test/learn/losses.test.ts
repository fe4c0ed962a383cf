import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { AdamW } from "../../src/learn/adamw.ts";
import { clippedValueLoss, klEstimate, ppoLoss } from "../../src/learn/losses.ts";
import { trainStep } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const read = (t: tf.Tensor): number[] => Array.from(t.dataSync());

describe("ppoLoss", () => {
  it("sends exactly zero gradient to tokens outside the mask, even with wild logprobs there", () => {
    const mask = tf.tensor2d([
      [0, 1, 1, 0],
      [1, 0, 1, 0],
    ]);
    // Masked tokens hold values that would overflow exp() if they were not kept out of the ratio.
    const oldLogprobs = tf.tensor2d([
      [-200, -1, -2, 0],
      [-0.5, 300, -1.5, -90],
    ]);
    const logprobs = tf.tensor2d([
      [0, -1.2, -1.7, -300],
      [-0.4, -1, -1.4, 0],
    ]);
    const advantages = tf.tensor2d([
      [5, 1, -1, 7],
      [0.5, -3, 2, 1],
    ]);
    const refLogprobs = tf.tensor2d([
      [-500, -1.1, -1.9, 400],
      [-0.6, -2, -1.2, -800],
    ]);
    const entropy = tf.tensor2d([
      [9, 1, 2, 9],
      [1, 9, 2, 9],
    ]);
    for (const klKind of ["k1", "k2", "k3"] as const) {
      const grad = tf.grad(
        (lp: tf.Tensor) =>
          ppoLoss(
            { logprobs: lp, oldLogprobs, advantages, mask, refLogprobs, entropy },
            { klCoef: 0.1, klKind, entropyCoef: 0.01 },
          ).loss,
      )(logprobs);
      const values = read(grad);
      const maskValues = read(mask);
      values.forEach((g, i) => {
        expect(Number.isFinite(g), `token ${i} (${klKind})`).toBe(true);
        if (maskValues[i] === 0) expect(g, `token ${i} (${klKind})`).toBe(0);
        else expect(g).not.toBe(0);
      });
    }
  });

  it("clips the surrogate as PPO does (hand-computed)", () => {
    // ratios 1.5, 0.5, 1.1, 0.7; advantages 1, 1, -1, -1; eps 0.2
    const ratios = [1.5, 0.5, 1.1, 0.7];
    const oldLogprobs = tf.tensor1d([-1, -1, -1, -1]);
    const logprobs = tf.tensor1d(ratios.map((r) => Math.log(r) - 1));
    const advantages = tf.tensor1d([1, 1, -1, -1]);
    const mask = tf.ones([4]);
    const out = ppoLoss({ logprobs, oldLogprobs, advantages, mask }, { clipEps: 0.2 });
    // max(-A r, -A clip(r)): -1.2 (clipped), -0.5, 1.1, 0.8 (clipped)
    expect(out.policyLoss.dataSync()[0]).toBeCloseTo((-1.2 - 0.5 + 1.1 + 0.8) / 4, 5);
    expect(out.clipfrac.dataSync()[0]).toBeCloseTo(0.75, 6);
    const kl = ratios.reduce((sum, r) => sum + (r - 1 - Math.log(r)), 0) / 4;
    expect(out.approxKl.dataSync()[0]).toBeCloseTo(kl, 5);
    // Clipped tokens get no gradient; the others get -A r / n.
    const grad = tf.grad((lp: tf.Tensor) => ppoLoss({ logprobs: lp, oldLogprobs, advantages, mask }).loss)(logprobs);
    read(grad).forEach((g, i) => {
      expect(g).toBeCloseTo([0, -0.5 / 4, 1.1 / 4, 0][i], 5);
    });
  });

  it("clips the value loss around the old values (hand-computed)", () => {
    const values = tf.tensor1d([1.5, 0.0, 2.0]);
    const oldValues = tf.tensor1d([1.0, 1.0, 2.0]);
    const returns = tf.tensor1d([3.0, 0.0, 1.0]);
    const mask = tf.tensor1d([1, 1, 0]);
    // token 0: max((1.5-3)^2, (1.2-3)^2) = 3.24; token 1: max(0, (0.8-0)^2) = 0.64; token 2 masked
    const loss = clippedValueLoss(values, returns, mask, oldValues, 0.2);
    expect(loss.dataSync()[0]).toBeCloseTo((0.5 * (3.24 + 0.64)) / 2, 5);
    expect(clippedValueLoss(values, returns, mask).dataSync()[0]).toBeCloseTo((0.5 * (2.25 + 0)) / 2, 5);
  });

  it("takes the value loss over its own mask when one is given (targets defined on other tokens)", () => {
    const values = tf.tensor1d([1.5, 0.0, 2.0]);
    const returns = tf.tensor1d([3.0, 0.0, 0.0]);
    const common = { logprobs: tf.zeros([3]), oldLogprobs: tf.zeros([3]), advantages: tf.zeros([3]), values, returns };
    const everywhere = ppoLoss({ ...common, mask: tf.ones([3]) });
    // Token 2's target 0 is no target: with a value mask the critic is not pulled towards it.
    const own = ppoLoss({ ...common, mask: tf.ones([3]), valueMask: tf.tensor1d([1, 1, 0]), valueNormalizer: 2 });
    expect(everywhere.valueLoss.dataSync()[0]).toBeCloseTo((0.5 * (2.25 + 0 + 4)) / 3, 5);
    expect(own.valueLoss.dataSync()[0]).toBeCloseTo((0.5 * (2.25 + 0)) / 2, 5);
  });

  it("divides a slice's value loss by the value mask's batch total, not the policy mask's (gradient accumulation)", () => {
    // One slice of a larger batch: the policy mask counts 6 tokens over the batch, the value mask 8.
    const values = tf.tensor1d([1.5, 0.0, 2.0]);
    const returns = tf.tensor1d([3.0, 0.0, 0.0]);
    const slice = ppoLoss({
      logprobs: tf.zeros([3]),
      oldLogprobs: tf.zeros([3]),
      advantages: tf.zeros([3]),
      values,
      returns,
      mask: tf.tensor1d([1, 0, 0]),
      normalizer: 6,
      valueMask: tf.tensor1d([1, 1, 0]),
      valueNormalizer: 8,
    });
    expect(slice.valueLoss.dataSync()[0]).toBeCloseTo((0.5 * (2.25 + 0)) / 8, 6);
  });

  it("estimates KL with k1, k2 and k3", () => {
    const d = tf.tensor1d([0.5, -0.25]); // log pi_ref - log pi
    expect(read(klEstimate(d, "k1"))).toEqual([-0.5, 0.25]);
    expect(read(klEstimate(d, "k2"))).toEqual([0.125, 0.03125]);
    read(klEstimate(d, "k3")).forEach((k, i) => {
      const x = [0.5, -0.25][i];
      expect(k).toBeCloseTo(Math.exp(x) - x - 1, 6);
    });
  });
});

describe("k3 past a log difference of 20", () => {
  it("goes on as its tangent there: finite where exp() overflows float32 (d > 88.7), with a gradient", () => {
    const ds = [19, 20, 21, 88, 89, 200];
    const d = tf.tensor1d(ds);
    const D = 20;
    const k = read(klEstimate(d, "k3"));
    expect(k.every(Number.isFinite), k.join(", ")).toBe(true);
    ds.forEach((x, i) => {
      const want = x <= D ? Math.exp(x) - x - 1 : Math.exp(D) - D - 1 + (Math.exp(D) - 1) * (x - D);
      expect(k[i] / want).toBeCloseTo(1, 5);
    });
    // Its gradient: exp(d) - 1 below 20, the tangent's slope past it (never 0, never Infinity).
    const grad = read(tf.grad((x: tf.Tensor) => tf.sum(klEstimate(x, "k3")))(d));
    ds.forEach((x, i) => {
      expect(grad[i] / (Math.exp(Math.min(x, D)) - 1)).toBeCloseTo(1, 5);
    });
    // In the loss: a finite KL term and loss, not Infinity (which skipped the update).
    const mask = tf.tensor2d([[1, 1]]);
    const logprobs = tf.tensor2d([[-100, -0.1]]);
    const out = ppoLoss(
      {
        logprobs,
        oldLogprobs: logprobs,
        advantages: tf.tensor2d([[0, 0]]),
        mask,
        refLogprobs: tf.tensor2d([[-0.5, -0.1]]),
      },
      { klCoef: 0.05, klKind: "k3" },
    );
    expect(Number.isFinite(read(out.loss)[0])).toBe(true);
    expect(Number.isFinite(read(out.kl)[0])).toBe(true);
  });
});

describe("the KL loss term's pull, in expectation over the policy's own samples", () => {
  it("k2's is the gradient of KL(pi || ref); k3's that of KL(ref || pi); k1's is zero", () => {
    // Five actions, each one token weighted by its probability under the policy (the expectation a batch
    // sampled from pi estimates), against a uniform reference: the gradient of each kind's loss term with
    // respect to the logits, next to the true gradients of KL(pi || ref) and KL(ref || pi).
    const at = [1.2, -0.3, 0.5, -1.0, 0.1];
    // The point the gradient is taken at, and the constants made from it (the sampling weights, the old
    // logprobs): separate tensors, so that no gradient flows through the constants.
    const logits0 = tf.tensor1d(at);
    const pi = tf.softmax(tf.tensor1d(at));
    const oldLogprobs = tf.logSoftmax(tf.tensor1d(at));
    const refLogprobs = tf.fill([5], Math.log(1 / 5));
    const pull = (klKind: "k1" | "k2" | "k3") =>
      read(
        tf.grad((logits: tf.Tensor) => {
          const inputs = {
            logprobs: tf.logSoftmax(logits),
            oldLogprobs,
            advantages: tf.zeros([5]),
            mask: pi,
            refLogprobs,
            normalizer: 1,
          };
          return ppoLoss(inputs, { klCoef: 1, klKind }).loss;
        })(logits0),
      );
    const forward = read(
      tf.grad((logits: tf.Tensor) => {
        const logprobs = tf.logSoftmax(logits);
        return tf.sum(tf.mul(tf.exp(logprobs), tf.sub(logprobs, refLogprobs)));
      })(logits0),
    );
    const reverse = read(
      tf.grad((logits: tf.Tensor) => tf.sum(tf.mul(tf.exp(refLogprobs), tf.sub(refLogprobs, tf.logSoftmax(logits)))))(
        logits0,
      ),
    );
    const expectClose = (actual: number[], expected: number[], digits: number) => {
      actual.forEach((g, i) => {
        expect(g, `logit ${i}`).toBeCloseTo(expected[i], digits);
      });
    };
    expectClose(pull("k2"), forward, 5);
    expectClose(pull("k3"), reverse, 5);
    expectClose(pull("k1"), [0, 0, 0, 0, 0], 6);
    // The two directions differ here, or the test would tell nothing apart.
    expect(Math.abs(forward[0] - reverse[0])).toBeGreaterThan(0.01);
  });
});

describe("AdamW", () => {
  /** The update rule in float64, on a flat parameter list; `decayed[i]` says whether entry i is decayed. */
  const reference = (p: number[], decayed: boolean[], grads: number[][], lr: number, wd: number, maxNorm: number) => {
    const [b1, b2, eps] = [0.9, 0.999, 1e-8];
    const m = p.map(() => 0);
    const v = p.map(() => 0);
    let params = [...p];
    grads.forEach((g, step) => {
      const norm = Math.hypot(...g);
      const scale = norm > maxNorm ? maxNorm / (norm + 1e-6) : 1;
      const t = step + 1;
      params = params.map((x, i) => {
        const gi = g[i] * scale;
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        const adam = m[i] / (1 - b1 ** t) / (Math.sqrt(v[i] / (1 - b2 ** t)) + eps);
        return x - lr * (adam + (decayed[i] ? wd * x : 0));
      });
    });
    return params;
  };

  it("matches the hand-computed update, with decoupled decay on matrices and global norm clipping", async () => {
    const weight = tf.variable(tf.tensor2d([[1, -2]]));
    const bias = tf.variable(tf.tensor1d([0.5]));
    const params = new Map<string, tf.Variable>([
      ["weight", weight],
      ["bias", bias],
    ]);
    const optimizer = new AdamW(params, { lr: 0.1, weightDecay: 0.1, maxGradNorm: 1 });
    const steps = [
      [3, -4, 0], // global norm 5: clipped to 1
      [0.1, 0.2, -0.3], // below 1: unclipped
    ];
    for (const g of steps) {
      const grads = new Map<string, tf.Tensor>([
        ["weight", tf.tensor2d([[g[0], g[1]]])],
        ["bias", tf.tensor1d([g[2]])],
      ]);
      expect((await optimizer.apply(grads)).applied).toBe(true);
    }
    const expected = reference([1, -2, 0.5], [true, true, false], steps, 0.1, 0.1, 1);
    [...read(weight), ...read(bias)].forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i], 5);
    });
    expect(optimizer.step).toBe(2);
    optimizer.dispose();
    weight.dispose();
    bias.dispose();
  });

  it("skips a non-finite gradient and changes nothing", async () => {
    const weight = tf.variable(tf.tensor2d([[1, 2]]));
    const optimizer = new AdamW(new Map([["weight", weight]]));
    const outcome = await optimizer.apply(new Map([["weight", tf.tensor2d([[Number.NaN, 1]])]]));
    expect(outcome.applied).toBe(false);
    expect(read(weight)).toEqual([1, 2]);
    expect(optimizer.step).toBe(0);
    optimizer.dispose();
    weight.dispose();
  });
});

describe("trainStep", () => {
  it("skips the update and says why when the loss is not finite", async () => {
    const model = new Gpt({ vocabSize: 16, contextLength: 8, width: 8, heads: 2, layers: 1 }, "nan");
    const optimizer = new AdamW(model.parameters);
    const before = read(model.parameters.get("wte")!);
    const tokens = [[1, 2, 3, 4]];
    const result = await trainStep(
      model,
      { tokens, lossMask: [[0, 1, 1, 1]], advantages: [[0, Number.NaN, 1, 1]], logprobs: [[0, -1, -1, -1]] },
      { optimizer },
    );
    expect(result.skipped).toBe(true);
    expect(result.reason).toMatch(/NaN/);
    expect(read(model.parameters.get("wte")!)).toEqual(before);
    expect(optimizer.step).toBe(0);
    optimizer.dispose();
    model.dispose();
  });
});

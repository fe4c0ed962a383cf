import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

/** Central differences of a scalar function of one tensor, entry by entry. */
const numericGradient = (f: (x: tf.Tensor) => tf.Tensor, x: tf.Tensor, h = 1e-2): Float32Array => {
  const values = x.dataSync();
  const out = new Float32Array(values.length);
  const at = (i: number, delta: number) =>
    tf.tidy(() => {
      const changed = values.slice();
      changed[i] += delta;
      return tf.sum(f(tf.tensor(changed, x.shape))).dataSync()[0];
    });
  for (let i = 0; i < values.length; i++) out[i] = (at(i, h) - at(i, -h)) / (2 * h);
  return out;
};

const a = () =>
  tf.tensor2d([
    [0.3, -1.2, 2.1],
    [0.8, 1.5, -0.4],
  ]);
const positive = () =>
  tf.tensor2d([
    [0.3, 1.2, 2.1],
    [0.8, 1.5, 0.4],
  ]);
const row = () => tf.tensor1d([0.5, -0.7, 1.3]);

// Each case: a function of x whose output is summed with fixed weights, so every entry matters.
const cases: [string, (x: tf.Tensor) => tf.Tensor, () => tf.Tensor][] = [
  ["add (broadcast)", (x) => tf.add(x, row()), a],
  ["add (bias-like)", (x) => tf.add(row(), x), a],
  ["sub", (x) => tf.sub(row(), x), a],
  ["mul", (x) => tf.mul(x, tf.mul(x, row())), a],
  ["div", (x) => tf.div(row(), x), positive],
  ["maximum/minimum", (x) => tf.add(tf.maximum(x, 0.5), tf.minimum(x, 0.5)), a],
  ["squaredDifference", (x) => tf.squaredDifference(x, row()), a],
  [
    "matMul",
    (x) =>
      tf.matMul(
        x,
        tf.tensor2d([
          [1, 2],
          [3, -1],
          [0.5, 0.2],
        ]),
      ),
    a,
  ],
  ["matMul transposed", (x) => tf.matMul(x, x, false, true), a],
  ["batched matMul", (x) => tf.matMul(tf.reshape(x, [2, 1, 3]), tf.reshape(x, [2, 1, 3]), true, false), a],
  ["neg/log/sqrt/rsqrt", (x) => tf.add(tf.add(tf.neg(tf.log(x)), tf.sqrt(x)), tf.rsqrt(x)), positive],
  ["square/abs/exp", (x) => tf.add(tf.add(tf.square(x), tf.abs(x)), tf.exp(x)), a],
  ["relu/tanh/sigmoid", (x) => tf.add(tf.add(tf.relu(x), tf.tanh(x)), tf.sigmoid(x)), a],
  [
    "softmax",
    (x) =>
      tf.mul(
        tf.softmax(x),
        tf.tensor2d([
          [1, 2, 3],
          [-1, 0.5, 2],
        ]),
      ),
    a,
  ],
  ["sum/mean", (x) => tf.add(tf.mul(tf.sum(x, 1, true), x), tf.mean(x, 0)), a],
  [
    "transpose/reshape/expandDims",
    (x) => tf.mul(tf.expandDims(tf.reshape(tf.transpose(x), [6]), 0), tf.range(1, 7)),
    a,
  ],
  [
    "slice",
    (x) =>
      tf.mul(
        tf.slice(x, [0, 1], [2, 2]),
        tf.tensor2d([
          [1, 2],
          [3, 4],
        ]),
      ),
    a,
  ],
  [
    "concat/split",
    (x) => {
      const [left, right] = tf.split(x, [1, 2], 1);
      return tf.mul(tf.concat([right, left, right], 1), tf.range(1, 6));
    },
    a,
  ],
  ["clipByValue", (x) => tf.mul(tf.clipByValue(x, -1, 1), x), a],
  ["where", (x) => tf.where(tf.greater(x, 0), tf.mul(x, 3), tf.mul(x, x)), a],
  [
    "cast/zerosLike/onesLike",
    (x) => tf.add(tf.mul(tf.cast(x, "float32"), 2), tf.add(tf.zerosLike(x), tf.onesLike(x))),
    a,
  ],
  ["gather", (x) => tf.mul(tf.gather(x, tf.tensor1d([1, 0, 1], "int32")), 2), a],
];

describe("registered gradients", () => {
  it.each(cases)("%s agrees with finite differences", (_, f, input) => {
    const x = input();
    const weights = (y: tf.Tensor) => tf.mul(y, tf.reshape(tf.linspace(0.5, 1.5, y.size), y.shape));
    const g = (t: tf.Tensor) => weights(f(t));
    const analytic = tf
      .grad((t: tf.Tensor) => tf.sum(g(t)))(x)
      .dataSync();
    const numeric = numericGradient(g, x);
    analytic.forEach((value, i) => {
      expect(Math.abs(value - numeric[i]), `entry ${i}`).toBeLessThan(2e-2 * (1 + Math.abs(value)));
    });
  });
});

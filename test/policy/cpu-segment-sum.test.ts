/**
 * On the cpu backend, tfjs's UnsortedSegmentSum runs a whole-input equal, multiply and sum per segment. The copy
 * head sums rows x slots scores into rows x vocab segments, so a lookup update (copy head on) sat for minutes
 * (scoring 4 rows of 40 tokens: 35 s). initBackend("cpu") puts a one-pass kernel in its place.
 */
import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt, gptConfig } from "../../src/policy/gpt.ts";

describe("the cpu backend's segment sum", () => {
  it("sums as the definition says, and lets a copy-head model score 4 rows of 64 tokens in seconds", async () => {
    await initBackend("cpu", { log: () => {} });
    const x = tf.tensor2d([1, 2, 3, 4, 5, 6, 7, 8], [4, 2]);
    const sums = tf.unsortedSegmentSum(x, tf.tensor1d([2, 0, 2, 5], "int32"), 3);
    expect(sums.shape).toEqual([3, 2]);
    expect(Array.from(sums.dataSync())).toEqual([3, 4, 0, 0, 1 + 5, 2 + 6]);

    const model = new Gpt(
      gptConfig({ vocabSize: 300, layers: 1, heads: 2, width: 16, contextLength: 96, copy: true }),
      "s",
    );
    const tokens = Array.from({ length: 4 }, (_, r) => Array.from({ length: 64 }, (_, i) => (i * 7 + r) % 300));
    const started = Date.now();
    const logp = tf.tidy(() => model.logits(tf.tensor2d(tokens, [4, 64], "int32")) as tf.Tensor);
    const seconds = (Date.now() - started) / 1000;
    // Log p of a normalised mixture: each position's probabilities sum to 1.
    const mass = tf.tidy(() => tf.sum(tf.exp(logp), -1)).dataSync();
    expect(Array.from(mass).every((m) => Math.abs(m - 1) < 1e-3)).toBe(true);
    expect(seconds).toBeLessThan(10);
  }, 30_000);
});

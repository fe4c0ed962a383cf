/**
 * The loss weights trainer gives each token (lossAggregation), against numbers worked out by hand: with
 * seq-mean-token-mean each sequence weighs as much as any other however long it is, and the weights still sum
 * to the number of masked tokens (what trainedTokens counts, and what the losses are divided by).
 */
import { describe, expect, it } from "vitest";
import { aggregate } from "../../src/learn/trainer.ts";

const masks = [
  [0, 1, 1, 1],
  [1, 0],
  [0, 0, 0],
  [0, 1, 1, 1, 1, 1, 1],
];

describe("loss weights per token", () => {
  it("token-mean: the mask itself", () => {
    expect(aggregate(masks, "token-mean")).toEqual(masks);
  });

  it("seq-mean-token-mean: each masked row shares one row's weight, total/rows, the weights sum to the masked tokens", () => {
    // 10 masked tokens in 3 rows that have any: a row weighs 10/3, spread over its own tokens.
    const weights = aggregate(masks, "seq-mean-token-mean");
    const expected = [
      [0, 10 / 9, 10 / 9, 10 / 9],
      [10 / 3, 0],
      [0, 0, 0],
      [0, 10 / 18, 10 / 18, 10 / 18, 10 / 18, 10 / 18, 10 / 18],
    ];
    for (const [i, row] of weights.entries()) {
      expect(row).toHaveLength(expected[i].length);
      for (const [t, w] of row.entries()) expect(w, `row ${i}, token ${t}`).toBeCloseTo(expected[i][t], 12);
    }
    const rowSums = weights.map((row) => row.reduce((a, b) => a + b, 0));
    expect(rowSums[0]).toBeCloseTo(rowSums[1], 12);
    expect(rowSums[1]).toBeCloseTo(rowSums[3], 12);
    expect(rowSums.reduce((a, b) => a + b, 0)).toBeCloseTo(10, 12);
  });
});

import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { Rng } from "../../src/kernel/prng.ts";
import { scoreTokens } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { disposeCache, Gpt } from "../../src/policy/gpt.ts";
import {
  chooseToken,
  PREFILL_BYTES,
  prefillGroups,
  prefillRowBytes,
  type SampleRow,
  sample,
} from "../../src/policy/sampler.ts";

const VOCAB = 48;
let model: Gpt;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
  // A larger init spread than training's default, so distributions are far from uniform.
  model = new Gpt({ vocabSize: VOCAB, contextLength: 32, width: 16, heads: 2, layers: 2, initStd: 0.2 }, "sampler");
});

const rows: SampleRow[] = [
  { context: [1, 2, 3], seed: "a", maxNewTokens: 6 },
  { context: [4, 5, 6, 7, 8, 9, 10, 11], seed: "b", maxNewTokens: 3, temperature: 0.7 },
  { context: [12], seed: "c", maxNewTokens: 8, topP: 0.8 },
  { context: [13, 14, 15, 16], seed: "d", maxNewTokens: 5, temperature: 1.5, stopTokens: [0, 1, 2, 3] },
  { context: [17, 18], seed: "e", maxNewTokens: 7 },
];

describe("sample", () => {
  it("gives a row the same tokens and logprobs alone and in a batch of five", async () => {
    const batched = await sample(model, rows);
    for (const [i, row] of rows.entries()) {
      const [alone] = await sample(model, [row]);
      expect(batched[i].tokens, `row ${i}`).toEqual(alone.tokens);
      expect(batched[i].finish).toBe(alone.finish);
      alone.logprobs.forEach((logprob, t) => {
        expect(Math.abs(batched[i].logprobs[t] - logprob)).toBeLessThan(1e-5);
      });
    }
  });

  it("samples a batch past the prefill budget in groups of rows, each row as it would alone", async () => {
    // Budget for two rows of the longest context (8 tokens).
    const budget = 2 * prefillRowBytes(model.config, 8);
    expect(prefillGroups(rows, model.config, budget).map((g) => g.length)).toEqual([2, 2, 1]);
    const grouped = await sample(model, rows, { prefillBytes: budget });
    const whole = await sample(model, rows);
    expect(grouped.map((r) => r.tokens)).toEqual(whole.map((r) => r.tokens));
    expect(grouped.map((r) => r.finish)).toEqual(whole.map((r) => r.finish));
    grouped.forEach((r, i) => {
      r.logprobs.forEach((logprob, t) => {
        expect(Math.abs(whole[i].logprobs[t] - logprob)).toBeLessThan(1e-5);
      });
    });
    // The default budget, on the default model (2 layers, 4 heads, width 128): 64 rows of warehouse's 704-token
    // contexts (which aborted the wasm heap in one batch) and 300 of hopqa's 384 (which aborted in groups of 113)
    // go in groups; 100 rows of hopqa's 384 go in one.
    const shape = { heads: 4, layers: 2, width: 128, mlpRatio: 4 };
    const of = (count: number, length: number) =>
      Array.from({ length: count }, () => ({ context: new Array<number>(length).fill(1) }));
    for (const long of [of(64, 704), of(300, 384)]) {
      const groups = prefillGroups(long, shape);
      expect(groups.length).toBeGreaterThan(1);
      const length = long[0].context.length;
      expect(groups.every((g) => g.length * prefillRowBytes(shape, length) <= PREFILL_BYTES)).toBe(true);
    }
    expect(prefillGroups(of(100, 384), shape)).toHaveLength(1);
  });

  it("keeps a prefill's memory within prefillRowBytes whatever the depth (turn-local, copy head)", async () => {
    // Before, a prefill held every layer's attention scores until it ended: 300 rows of 4-hop hopqa contexts
    // (groups of 113 x 384 tokens) passed wasm's 4 GiB heap and aborted every episode.
    const deep = new Gpt(
      {
        vocabSize: VOCAB,
        contextLength: 80,
        width: 32,
        heads: 4,
        layers: 4,
        copy: true,
        attention: "turn-local",
        turnStarts: [5],
        initStd: 0.2,
      },
      "deep",
    );
    const contexts = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 72 - b }, (_, t) => (t % 17 === 0 ? 5 : 6 + ((t * 7 + b) % 40))),
    );
    const before = tf.memory().numBytes;
    const info = await tf.profile(() => {
      const { logits, cache } = deep.prefill(contexts);
      logits.dispose();
      disposeCache(cache);
    });
    expect(tf.memory().numBytes).toBe(before);
    expect(info.peakBytes - before).toBeLessThanOrEqual(contexts.length * prefillRowBytes(deep.config, 72));
    // Grouped by a budget of two rows, each row samples as in one batch.
    const deepRows = contexts.map((context, i) => ({ context, seed: `deep${i}`, maxNewTokens: 6 }));
    const whole = await sample(deep, deepRows);
    const grouped = await sample(deep, deepRows, { prefillBytes: 2 * prefillRowBytes(deep.config, 72) });
    expect(grouped.map((r) => r.tokens)).toEqual(whole.map((r) => r.tokens));
    deep.dispose();
  });

  it("depends only on the row's seed", async () => {
    const [a1] = await sample(model, [{ context: [5, 6], seed: "s1", maxNewTokens: 12 }]);
    const [a2] = await sample(model, [{ context: [5, 6], seed: "s1", maxNewTokens: 12 }]);
    const [b] = await sample(model, [{ context: [5, 6], seed: "s2", maxNewTokens: 12 }]);
    expect(a1.tokens).toEqual(a2.tokens);
    expect(a1.tokens).not.toEqual(b.tokens);
  });

  it("reports the logprobs the learner recomputes (temperature 1)", async () => {
    const results = await sample(model, rows);
    const sequences = rows.map((row, i) => [...row.context, ...results[i].tokens]);
    const scores = await scoreTokens(model, sequences);
    rows.forEach((row, i) => {
      results[i].logprobs.forEach((logprob, t) => {
        expect(Math.abs(scores.logprobs[i][row.context.length + t] - logprob)).toBeLessThan(1e-4);
      });
    });
  });

  it("emits only allowed tokens under constrained decoding and reports the lists it used", async () => {
    const lists: number[][] = [];
    // Even ids after an even count of tokens, odd ids otherwise; unconstrained at the third token.
    const allowedNext = (prefix: readonly number[]) => {
      if (prefix.length === 2) return null;
      const list = Array.from({ length: VOCAB }, (_, id) => id).filter((id) => id % 2 === prefix.length % 2);
      lists.push(list);
      return list;
    };
    const constrained: SampleRow = { context: [3, 9, 27], seed: "c1", maxNewTokens: 6, allowedNext };
    const [result] = await sample(model, [constrained, rows[0]]);
    expect(result.allowed).toHaveLength(6);
    result.tokens.forEach((token, t) => {
      const allowed = result.allowed![t];
      if (t === 2) expect(allowed).toBeNull();
      else {
        expect(allowed).toEqual(lists[t < 2 ? t : t - 1]);
        expect(allowed).toContain(token);
      }
    });
    const scores = await scoreTokens(
      model,
      [[...constrained.context, ...result.tokens]],
      [[null, null, null, ...result.allowed!]],
    );
    result.logprobs.forEach((logprob, t) => {
      expect(Math.abs(scores.logprobs[0][3 + t] - logprob)).toBeLessThan(1e-4);
    });
  });

  it("stops at a stop token and includes it", async () => {
    const [result] = await sample(model, [
      {
        context: [1],
        seed: "stop",
        maxNewTokens: 10,
        stopTokens: [7],
        allowedNext: (p) => (p.length === 3 ? [7] : null),
      },
    ]);
    expect(result.tokens).toHaveLength(4);
    expect(result.tokens[3]).toBe(7);
    expect(result.finish).toBe("stop");
  });

  it("decodes greedily by argmax, whatever the seed", async () => {
    const [a] = await sample(model, [{ context: [2, 4], seed: "x", maxNewTokens: 5, greedy: true }]);
    const [b] = await sample(model, [{ context: [2, 4], seed: "y", maxNewTokens: 5, greedy: true }]);
    expect(a.tokens).toEqual(b.tokens);
    const sequence = [2, 4, ...a.tokens];
    const logits = tf.tidy(
      () => (model.logits(tf.tensor2d([sequence], [1, sequence.length], "int32")).arraySync() as number[][][])[0],
    );
    a.tokens.forEach((token, t) => {
      const row = logits[1 + t];
      expect(row.indexOf(Math.max(...row))).toBe(token);
    });
  });

  it("refuses a row that would run past the context length", async () => {
    await expect(sample(model, [{ context: [1, 2, 3], seed: "z", maxNewTokens: 30 }])).rejects.toThrow(/contextLength/);
  });
});

describe("chooseToken", () => {
  const logits = [0, Math.log(6), Math.log(3), 0]; // probabilities 1/11, 6/11, 3/11, 1/11

  it("keeps only the top-p nucleus", () => {
    for (let i = 0; i < 20; i++) {
      const choice = chooseToken(logits, { topP: 0.5 }, Rng.fromSeed(`p${i}`), null);
      expect(choice.token).toBe(1);
    }
  });

  it("reports the temperature-1 logprob under the allowed mask", () => {
    const choice = chooseToken(logits, { temperature: 0.3 }, Rng.fromSeed("t"), [0, 3]);
    expect([0, 3]).toContain(choice.token);
    expect(choice.logprob).toBeCloseTo(Math.log(0.5), 10);
  });

  it("samples in proportion to the probabilities", () => {
    const counts = [0, 0, 0, 0];
    const rng = Rng.fromSeed("counts");
    for (let i = 0; i < 4000; i++) counts[chooseToken(logits, {}, rng, null).token]++;
    const total = 1 + 6 + 3 + 1;
    [1, 6, 3, 1].forEach((weight, id) => {
      expect(Math.abs(counts[id] / 4000 - weight / total)).toBeLessThan(0.03);
    });
  });
});

describe("sampling settings at their boundaries", () => {
  const logits = [0, Math.log(6), Math.log(3), 0]; // probabilities 1/11, 6/11, 3/11, 1/11

  it("samples inside the top-p nucleus in proportion to the kept probabilities", () => {
    // topP 0.8 keeps ids 1 and 2 (6/11 + 3/11 >= 0.8), renormalised: 2/3 and 1/3.
    const counts = [0, 0, 0, 0];
    const rng = Rng.fromSeed("nucleus");
    for (let i = 0; i < 3000; i++) counts[chooseToken(logits, { topP: 0.8 }, rng, null).token]++;
    expect(counts[0] + counts[3]).toBe(0);
    expect(Math.abs(counts[1] / 3000 - 2 / 3)).toBeLessThan(0.03);
  });

  it("stops the nucleus once it holds exactly top-p, and breaks ties by the lower id", () => {
    // Probabilities 1/2, 1/4, 1/4: topP 0.5 is reached by id 0 alone.
    const half = [Math.log(2), 0, 0];
    for (let i = 0; i < 20; i++) expect(chooseToken(half, { topP: 0.5 }, Rng.fromSeed(`h${i}`), null).token).toBe(0);
    // Probabilities 1/4, 1/2, 1/4: topP 0.6 keeps id 1 and, of the tied ids 0 and 2, id 0.
    const tied = [0, Math.log(2), 0];
    const seen = new Set<number>();
    for (let i = 0; i < 40; i++) seen.add(chooseToken(tied, { topP: 0.6 }, Rng.fromSeed(`t${i}`), null).token);
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it("decodes greedily at temperature 0, taking the lowest id on tied logits", () => {
    const tiedTop = [0, 2, 1, 2];
    for (let i = 0; i < 10; i++) {
      expect(chooseToken(tiedTop, { temperature: 0 }, Rng.fromSeed(`g${i}`), null).token).toBe(1);
      expect(chooseToken(tiedTop, { greedy: true }, Rng.fromSeed(`g${i}`), [1, 3]).token).toBe(1);
    }
  });

  it("samples at temperature 0 as greedy decoding does", async () => {
    const [cold] = await sample(model, [{ context: [2, 4], seed: "cold", maxNewTokens: 5, temperature: 0 }]);
    const [greedy] = await sample(model, [{ context: [2, 4], seed: "other", maxNewTokens: 5, greedy: true }]);
    expect(cold.tokens).toEqual(greedy.tokens);
  });

  it("gives no tokens for maxNewTokens 0, and accepts a row that fills the context exactly", async () => {
    const [none, full] = await sample(model, [
      { context: [1, 2], seed: "none", maxNewTokens: 0 },
      { context: [1, 2], seed: "full", maxNewTokens: 30 },
    ]);
    expect(none).toEqual({ tokens: [], logprobs: [], finish: "length" });
    expect(full.tokens).toHaveLength(30);
    expect(full.finish).toBe("length");
  });

  it("records no allowed lists for an unconstrained row", async () => {
    const [result] = await sample(model, [{ context: [1, 2], seed: "free", maxNewTokens: 3 }]);
    expect(result.allowed).toBeUndefined();
  });

  it("refuses bad rows and bad allowed lists, saying what was wrong", async () => {
    const row = { context: [1], seed: "bad", maxNewTokens: 2 };
    await expect(sample(model, [row, { ...row, context: [] }])).rejects.toThrow("row 1: the context is empty");
    await expect(sample(model, [{ ...row, topP: 0 }])).rejects.toThrow("row 0: topP must be in (0, 1]");
    await expect(sample(model, [{ ...row, temperature: -0.5 }])).rejects.toThrow("row 0: temperature must be >= 0");
    await expect(sample(model, [{ ...row, maxNewTokens: -1 }])).rejects.toThrow("maxNewTokens must be a non-negative");
    await expect(sample(model, [{ ...row, allowedNext: () => [VOCAB] }])).rejects.toThrow(
      `allowed token id ${VOCAB} is not in [0, ${VOCAB})`,
    );
    await expect(sample(model, [{ ...row, allowedNext: () => [-1] }])).rejects.toThrow("allowed token id -1");
    await expect(sample(model, [{ ...row, allowedNext: () => [] }])).rejects.toThrow(
      "allowedNext returned an empty list",
    );
  });
});

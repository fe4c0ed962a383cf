import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { initBackend } from "../../src/policy/backend.ts";
import { allowedLogitMask, disposeCache, Gpt, type TokenStats } from "../../src/policy/gpt.ts";

const TINY = { vocabSize: 40, contextLength: 24, width: 16, heads: 2, layers: 2 } as const;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const fullLogits = (model: Gpt, sequence: readonly number[]): number[][] =>
  tf.tidy(() => {
    const logits = model.logits(tf.tensor2d([[...sequence]], [1, sequence.length], "int32"));
    return (logits.arraySync() as number[][][])[0];
  });

const maxAbsDifference = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
};

/**
 * Prefills `contexts`, feeds every row `continuation` one token at a time through the KV cache, and expects the
 * logits of each step (the last one included) to be a full forward pass's over the same tokens, within `tolerance`.
 */
const expectCachedDecodingAsFull = (
  model: Gpt,
  contexts: number[][],
  continuation: readonly number[],
  tolerance: number,
): void => {
  const steps: number[][][] = [];
  let { logits, cache } = model.prefill(contexts);
  for (const token of continuation) {
    steps.push(logits.arraySync() as number[][]);
    logits.dispose();
    ({ logits, cache } = model.decode(
      cache,
      contexts.map(() => token),
    ));
  }
  steps.push(logits.arraySync() as number[][]);
  logits.dispose();
  disposeCache(cache);
  contexts.forEach((context, row) => {
    const reference = fullLogits(model, [...context, ...continuation]);
    steps.forEach((step, s) => {
      expect(maxAbsDifference(step[row], reference[context.length - 1 + s])).toBeLessThan(tolerance);
    });
  });
};

describe("Gpt", () => {
  it.each([
    [true, false, "learned"],
    [false, false, "learned"],
    [true, true, "learned"],
    [true, false, "alibi"],
    [false, true, "alibi"],
  ] as const)(
    "decodes with a KV cache to the same logits as a full forward pass (tied: %s, copy head: %s, positions: %s)",
    (tied, copy, positions) => {
      const model = new Gpt({ ...TINY, tiedEmbeddings: tied, copy, positions }, "kv");
      const contexts = [
        [1, 2, 3, 4, 5, 6],
        [7, 8],
        [9, 10, 11],
      ];
      expectCachedDecodingAsFull(model, contexts, [12, 13, 14, 15], 1e-4);
      model.dispose();
    },
  );

  it.each([
    [false, "learned"],
    [true, "learned"],
    [true, "alibi"],
  ] as const)(
    "gives a row the same logits whatever its left padding and batch neighbours (copy head: %s, positions: %s)",
    (copy, positions) => {
      const model = new Gpt({ ...TINY, copy, positions }, "pad");
      const alone = model.prefill([[3, 1, 4]]);
      const batched = model.prefill([
        [2, 7, 1, 8, 2, 8, 1],
        [3, 1, 4],
      ]);
      const row = (batched.logits.arraySync() as number[][])[1];
      expect(maxAbsDifference(row, (alone.logits.arraySync() as number[][])[0])).toBeLessThan(1e-5);
      for (const r of [alone, batched]) {
        r.logits.dispose();
        disposeCache(r.cache);
      }
      model.dispose();
    },
  );

  describe("turn-local attention", () => {
    // Ids 5 and 6 start a turn (as `<search>` and `<answer>` do): the prompt is [1, 2, 3], then three turns.
    const TURN_LOCAL = { ...TINY, attention: "turn-local", turnStarts: [5, 6] } as const;
    const episode = [1, 2, 3, 5, 7, 8, 9, 5, 10, 11, 12, 6, 13, 14];

    it.each([false, true])(
      "decodes with a KV cache to the logits of a full forward pass, over several turns and left padding (copy head: %s)",
      (copy) => {
        const model = new Gpt({ ...TURN_LOCAL, copy }, "turns");
        const contexts = [episode.slice(0, 9), episode.slice(0, 4), [4, 5, 7]];
        expectCachedDecodingAsFull(model, contexts, [10, 6, 11, 5, 12, 13], 1e-5);
        model.dispose();
      },
    );

    it.each([false, true])(
      "makes a one-layer model's slot blind to turns long past, and not to the prompt (copy head: %s)",
      (copy) => {
        // One layer: with L layers a slot hears of L turns back, through the previous turn's hidden states, and
        // the copy head's keys (over final hidden states) add one more.
        const model = new Gpt({ ...TURN_LOCAL, copy, layers: 1 }, "blind");
        const full = new Gpt({ ...TINY, copy, layers: 1 }, "blind");
        // Four turns: slots 3-6, 7-10, 11-13, 14-16.
        const long = [1, 2, 3, 5, 7, 8, 9, 5, 10, 11, 12, 5, 15, 16, 6, 13, 14];
        const last = long.length - 1;
        // The first turn's tokens (slots 4-6) changed; the prompt changed.
        const otherFirstTurn = long.map((id, t) => (t >= 4 && t <= 6 ? id + 10 : id));
        const otherPrompt = long.map((id, t) => (t === 1 ? 20 : id));
        const at = (m: Gpt, sequence: number[], t: number) => fullLogits(m, sequence)[t];
        expect(maxAbsDifference(at(model, long, last), at(model, otherFirstTurn, last))).toBeLessThan(1e-6);
        if (!copy) expect(maxAbsDifference(at(model, long, 12), at(model, otherFirstTurn, 12))).toBeLessThan(1e-6);
        // The second turn still sees the first, and the last slot sees the prompt.
        expect(maxAbsDifference(at(model, long, 8), at(model, otherFirstTurn, 8))).toBeGreaterThan(1e-4);
        expect(maxAbsDifference(at(model, long, last), at(model, otherPrompt, last))).toBeGreaterThan(1e-4);
        // Full attention: the last slot does see the first turn.
        expect(maxAbsDifference(at(full, long, last), at(full, otherFirstTurn, last))).toBeGreaterThan(1e-4);
        model.dispose();
        full.dispose();
      },
    );

    it("is refused without the ids that start a turn, and those ids without it", () => {
      expect(() => new Gpt({ ...TINY, attention: "turn-local" }, "x")).toThrow(/turn-local attention needs turnStarts/);
      expect(() => new Gpt({ ...TINY, attention: "turn-local", turnStarts: [40] }, "x")).toThrow(
        /turnStarts id 40 is not a token id in \[0, 40\)/,
      );
      expect(() => new Gpt({ ...TINY, turnStarts: [5] }, "x")).toThrow(/turnStarts applies only with attention/);
      expect(() => new Gpt({ ...TINY, attention: "local" as "full" }, "x")).toThrow(/attention must be "full" or/);
    });
  });

  it("initialises deterministically from its seed", () => {
    const a = new Gpt(TINY, "same");
    const b = new Gpt(TINY, "same");
    const c = new Gpt(TINY, "other");
    const values = (m: Gpt) => m.parameters.get("h.0.attn.query.weight")!.dataSync();
    expect(Array.from(values(a))).toEqual(Array.from(values(b)));
    expect(Array.from(values(a))).not.toEqual(Array.from(values(c)));
    expect(a.parameterCount()).toBe(b.parameterCount());
    for (const m of [a, b, c]) m.dispose();
  });

  it.each([
    [false, "learned"],
    [true, "learned"],
    [false, "alibi"],
  ] as const)("has gradients that agree with finite differences (copy head: %s, positions: %s)", (copy, positions) => {
    // gelu keeps the loss smooth for finite differences (a ReLU kink between x-h and x+h spoils them).
    const model = new Gpt({ ...TINY, layers: 1, initStd: 0.3, activation: "gelu", copy, positions }, "grad");
    const inputs = tf.tensor2d(
      [
        [1, 5, 9, 2, 6],
        [3, 3, 8, 1, 0],
      ],
      [2, 5],
      "int32",
    );
    const targets = tf.tensor2d(
      [
        [5, 9, 2, 6, 4],
        [3, 8, 1, 0, 7],
      ],
      [2, 5],
      "int32",
    );
    const weights = tf.tensor2d([
      [0.3, -1, 0.5, 2, -0.7],
      [1, 0.2, -0.4, 0.9, 0.6],
    ]);
    const logitMask = allowedLogitMask(
      [
        [null, [9, 2, 4]],
        [[3, 8], null, [1, 2, 3]],
      ],
      5,
      TINY.vocabSize,
    )!;
    // A pad slot's own outputs are meaningless (all its keys are masked) and never trained: weight 0.
    const padWeights = tf.mul(
      weights,
      tf.tensor2d([
        [1, 1, 1, 1, 1],
        [0, 1, 1, 1, 1],
      ]),
    );
    const weighted = (s: TokenStats, w: tf.Tensor) =>
      tf.sum(tf.mul(tf.add(tf.add(s.logprobs, tf.mul(s.entropy, 0.5)), tf.mul(s.values, 0.3)), w));
    // Every output (logprobs, entropies, values), plain and with left padding and constrained logits.
    const loss = () =>
      tf.tidy(() =>
        tf.add(
          weighted(model.tokenStats(inputs, targets), weights),
          weighted(model.tokenStats(inputs, targets, { leftPad: [0, 1], logitMask }), padWeights),
        ),
      ) as tf.Scalar;
    const variables = [...model.parameters.values()];
    const { grads } = tf.variableGrads(loss, variables);
    const checked = [
      "wte",
      ...(positions === "learned" ? ["wpe"] : []),
      "h.0.ln1.gain",
      "h.0.attn.query.weight",
      "h.0.attn.key.weight",
      "h.0.attn.value.bias",
      "h.0.attn.proj.weight",
      "h.0.ln2.bias",
      "h.0.mlp.fc.bias",
      "h.0.mlp.proj.weight",
      "lnf.gain",
      "value.weight",
      ...(copy ? ["copy.query.weight", "copy.key.weight"] : []),
    ];
    for (const name of checked) {
      const variable = model.parameters.get(name)!;
      const analytic = grads[variable.name].dataSync();
      // The entry with the largest gradient, checked by a central difference in float32.
      let index = 0;
      for (let i = 0; i < analytic.length; i++) if (Math.abs(analytic[i]) > Math.abs(analytic[index])) index = i;
      const original = variable.dataSync().slice();
      const at = (delta: number) => {
        const changed = original.slice();
        changed[index] += delta;
        variable.assign(tf.tensor(changed, variable.shape));
        const value = loss();
        const number = value.dataSync()[0];
        value.dispose();
        return number;
      };
      const h = 4e-3;
      const numeric = (at(h) - at(-h)) / (2 * h);
      variable.assign(tf.tensor(original, variable.shape));
      expect(Math.abs(numeric - analytic[index]), `${name}[${index}]`).toBeLessThan(
        0.01 * Math.abs(analytic[index]) + 1e-3,
      );
    }
    for (const g of Object.values(grads)) g.dispose();
    tf.dispose([inputs, targets, weights, padWeights, logitMask]);
    model.dispose();
  });

  it("with the copy head, puts the probability of copying a slot on the token that followed it", () => {
    // A model whose vocabulary logits are flat (zero output weights) can only prefer a token by copying:
    // position t may copy slot s < t, which emits the token at s + 1.
    const model = new Gpt({ ...TINY, tiedEmbeddings: false, copy: true, initStd: 0.5 }, "copy");
    model.parameters.get("head")!.assign(tf.zeros([TINY.width, TINY.vocabSize]));
    const logits = fullLogits(model, [5, 9, 5, 7]);
    const probabilities = logits.map((row) => row.map(Math.exp));
    for (const row of probabilities) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
    // Position 0 has nothing to copy: uniform.
    expect(Math.max(...probabilities[0]) - Math.min(...probabilities[0])).toBeLessThan(1e-6);
    // Position 1 may copy slot 0, which emits 9; position 3 slots 0, 1, 2, which emit 9, 5, 7.
    const others = (row: number[], boosted: number[]) => row.filter((_, id) => !boosted.includes(id));
    const flat = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
    expect(flat(others(probabilities[1], [9]))).toBeLessThan(1e-6);
    expect(probabilities[1][9]).toBeGreaterThan(probabilities[1][0]);
    expect(flat(others(probabilities[3], [9, 5, 7]))).toBeLessThan(1e-6);
    expect(probabilities[3][5]).toBeGreaterThan(probabilities[3][0]);
    model.dispose();
  });

  it("with the copy head, takes the input ids from the caller (WebGPU's path) and checks their count", () => {
    const model = new Gpt({ ...TINY, copy: true, initStd: 0.5 }, "copy-ids");
    const rows = [
      [5, 9, 5, 7, 1],
      [2, 2, 3, 9, 5],
    ];
    const tokens = tf.tensor2d(rows, [2, 5], "int32");
    const read = (options: { ids?: number[] }) => {
      const logits = model.logits(tokens, options);
      const values = Array.from(logits.dataSync());
      logits.dispose();
      return values;
    };
    // The same logits whether the head reads the ids back or is given them.
    expect(read({ ids: rows.flat() })).toEqual(read({}));
    // Ids that do not belong to the tensor change what may be copied: they are used, not ignored.
    expect(read({ ids: rows.flat().map((id) => (id + 1) % TINY.vocabSize) })).not.toEqual(read({}));
    expect(() => model.logits(tokens, { ids: [1, 2, 3] })).toThrow(/ids has 3 values for tokens of shape \[2, 5\]/);
    tokens.dispose();
    model.dispose();
  });

  it("loads a config without the copy key as a model without the copy head", () => {
    const model = new Gpt(TINY, "plain");
    expect(model.config.copy).toBeUndefined();
    expect(model.copyHead).toBeNull();
    expect([...model.parameters.keys()].some((name) => name.startsWith("copy."))).toBe(false);
    model.dispose();
  });

  it("with ALiBi, has no position embeddings and sees only distances: a run of one token looks the same everywhere", () => {
    const run = Array.from({ length: 12 }, () => 7);
    const spread = (positions: "learned" | "alibi") => {
      const model = new Gpt({ ...TINY, positions, initStd: 0.5 }, "alibi");
      const logits = fullLogits(model, run);
      const names = [...model.parameters.keys()];
      model.dispose();
      return { worst: Math.max(...logits.map((row) => maxAbsDifference(row, logits[0]))), names };
    };
    const alibi = spread("alibi");
    expect(alibi.names).not.toContain("wpe");
    expect(alibi.worst).toBeLessThan(1e-5);
    // The same check fails with learned positions: each position adds its own embedding.
    const learned = spread("learned");
    expect(learned.names).toContain("wpe");
    expect(learned.worst).toBeGreaterThan(1e-3);
  });

  it("rejects an unknown kind of positions", () => {
    expect(() => new Gpt({ ...TINY, positions: "rope" as never }, "x")).toThrow(
      /positions must be "learned" or "alibi"/,
    );
  });

  it("refuses a misspelt field, naming the one meant, and says a number given as text is text", () => {
    // Before: { widht: 32 } built a model of the default width 64 without a word, and width "32" said "got 32".
    expect(() => new Gpt({ ...TINY, widht: 32 } as never, "x")).toThrow(
      "GPT config: unknown option `widht` (did you mean `width`?)",
    );
    expect(() => new Gpt({ ...TINY, width: "32" as never }, "x")).toThrow(
      'GPT config: width must be a positive integer, got "32" (a string)',
    );
    // A switch as text ("false" is truthy) is refused, not taken as on.
    expect(() => new Gpt({ ...TINY, copy: "false" as never }, "x")).toThrow(
      new RangeError('GPT config: copy must be true or false, got "false" (a string)'),
    );
  });
});

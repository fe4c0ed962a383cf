/**
 * trainStep's reported losses against a reference computed in plain JS from scoreTokens' per-token
 * logprobs, values and entropies: checks that the batch's per-token fields (advantages, recorded logprobs,
 * returns, old values, reference logprobs, the weighted loss mask) are paired with the distribution that
 * produced the same token after the one-token shift, that masked tokens count for nothing, and that the
 * losses are means over the whole batch's mask however the rows are cut into passes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { AdamW } from "../../src/learn/adamw.ts";
import { type PassGrouping, scoreTokens, trainStep } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

const [CLIP, VALUE_CLIP, VALUE_COEF, ENTROPY_COEF, KL_COEF] = [0.2, 0.25, 0.5, 0.03, 0.2];

describe("trainStep's losses, token by token", () => {
  it.each<[number, PassGrouping]>([
    [1_000, "in-order"],
    [12, "by-length"],
    [12, "in-order"],
  ])("match a plain-JS reference (%s tokens a pass, %s)", async (tokensPerPass, passes) => {
    const model = new Gpt({ vocabSize: 24, contextLength: 16, width: 16, heads: 2, layers: 1, initStd: 0.3 }, "ref");
    const tokens = [
      [1, 4, 9, 2, 7, 7, 3, 11, 5],
      [2, 6, 1],
      [3, 3, 8, 12, 20, 1, 0, 14, 9, 9, 4, 2],
      [5, 17, 6, 6, 2],
    ];
    const wave = (b: number, t: number, k: number) => Math.sin(1.7 * b + 0.9 * t + k);
    // Weighted masks (as seq-mean-token-mean makes), token 0 always out.
    const lossMask = tokens.map((row, b) => row.map((_, t) => (t === 0 || (t + b) % 3 === 0 ? 0 : 1 + (b % 2) * 0.5)));
    const scores = await scoreTokens(model, tokens);
    // Recorded logprobs off the current ones by up to +-0.45 nats: ratios inside and outside the clip range.
    const logprobs = tokens.map((row, b) => row.map((_, t) => scores.logprobs[b][t] - 0.45 * wave(b, t, 1)));
    const advantages = tokens.map((row, b) => row.map((_, t) => (lossMask[b][t] === 0 ? 0 : 2 * wave(b, t, 2))));
    const returns = tokens.map((row, b) => row.map((_, t) => wave(b, t, 3)));
    const oldValues = tokens.map((row, b) => row.map((_, t) => scores.values[b][t] + 0.4 * wave(b, t, 4)));
    const refLogprobs = tokens.map((row, b) => row.map((_, t) => scores.logprobs[b][t] + 0.6 * wave(b, t, 5)));

    let n = 0;
    const sums = { policy: 0, value: 0, entropy: 0, kl: 0 };
    tokens.forEach((row, b) => {
      for (let t = 0; t < row.length; t++) {
        const m = lossMask[b][t];
        if (m === 0) continue;
        n += m;
        const r = Math.exp(scores.logprobs[b][t] - logprobs[b][t]);
        const a = advantages[b][t];
        sums.policy += m * Math.max(-a * r, -a * Math.min(Math.max(r, 1 - CLIP), 1 + CLIP));
        const v = scores.values[b][t];
        const vClipped = oldValues[b][t] + Math.min(Math.max(v - oldValues[b][t], -VALUE_CLIP), VALUE_CLIP);
        sums.value += m * 0.5 * Math.max((v - returns[b][t]) ** 2, (vClipped - returns[b][t]) ** 2);
        sums.entropy += m * scores.entropy[b][t];
        const d = refLogprobs[b][t] - scores.logprobs[b][t];
        sums.kl += m * (Math.exp(d) - d - 1);
      }
    });
    const want = {
      policyLoss: sums.policy / n,
      valueLoss: sums.value / n,
      entropy: sums.entropy / n,
      kl: sums.kl / n,
    };
    const wantLoss = want.policyLoss + VALUE_COEF * want.valueLoss - ENTROPY_COEF * want.entropy + KL_COEF * want.kl;

    const optimizer = new AdamW(model.parameters, { lr: 1e-3, weightDecay: 0 });
    const result = await trainStep(
      model,
      { tokens, lossMask, advantages, logprobs, returns, oldValues, refLogprobs },
      {
        optimizer,
        tokensPerPass,
        passes,
        clipEps: CLIP,
        valueClipEps: VALUE_CLIP,
        valueCoef: VALUE_COEF,
        entropyCoef: ENTROPY_COEF,
        klCoef: KL_COEF,
        klKind: "k3",
      },
    );
    expect(result.skipped).toBe(false);
    expect(result.tokens).toBeCloseTo(n, 6);
    for (const [name, value] of Object.entries(want)) {
      const got = result[name as keyof typeof want];
      expect(Math.abs(got - value), `${name}: ${got} vs ${value}`).toBeLessThan(1e-4 * (1 + Math.abs(value)));
    }
    expect(Math.abs(result.loss - wantLoss)).toBeLessThan(1e-4 * (1 + Math.abs(wantLoss)));
    optimizer.dispose();
    model.dispose();
  });
});

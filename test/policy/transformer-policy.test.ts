import { beforeAll, describe, expect, it } from "vitest";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { sample } from "../../src/policy/sampler.ts";
import { TransformerPolicy } from "../../src/policy/transformer-policy.ts";
import type { PolicyRequest } from "../../src/runtime/policy.ts";

const tokenizer = new WordTokenizer(["search", "answer", "paris", "london", "capital", "of", "france"]);
let model: Gpt;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
  model = new Gpt({ vocabSize: tokenizer.size, contextLength: 32, width: 16, heads: 2, layers: 1, initStd: 0.2 }, "p");
});

const request = (episode: string, text: string, seed = `${episode}:0`): PolicyRequest => {
  const tokens = tokenizer.encode(text);
  return {
    episode,
    turn: 0,
    seed,
    task: null,
    history: [{ role: "observation", text, tokens }],
    context: tokens,
  };
};

describe("TransformerPolicy", () => {
  it("answers a batch with ids, decoded text, logprobs and the current version", async () => {
    const policy = new TransformerPolicy({ id: "gpt-test", model, tokenizer, sampling: { maxNewTokens: 5 } });
    policy.version = 7;
    const actions = await policy.act([request("e1", "capital of france"), request("e2", "search paris")]);
    expect(actions).toHaveLength(2);
    for (const action of actions) {
      expect(action.version).toBe(7);
      expect(action.tokens.length).toBeGreaterThan(0);
      expect(action.tokens.length).toBeLessThanOrEqual(5);
      expect(action.logprobs).toHaveLength(action.tokens.length);
      expect(action.text).toBe(tokenizer.decode(action.tokens));
      expect(action.allowed).toBeUndefined();
    }
  });

  it("acts on a request the same way alone and in a batch", async () => {
    const policy = new TransformerPolicy({ id: "gpt-test", model, tokenizer, sampling: { maxNewTokens: 6 } });
    const target = request("e3", "answer london", "run:3:1");
    const [alone] = await policy.act([target]);
    const batched = await policy.act([request("e4", "of of of france capital"), target, request("e5", "paris")]);
    expect(batched[1].tokens).toEqual(alone.tokens);
  });

  it("keeps the last contextLength - maxNewTokens tokens of a long context", async () => {
    const policy = new TransformerPolicy({ id: "gpt-test", model, tokenizer, sampling: { maxNewTokens: 4 } });
    const long = request("e6", Array.from({ length: 40 }, (_, i) => (i % 2 ? "paris" : "london")).join(" "));
    const [fromLong] = await policy.act([long]);
    // The sampler given the last 28 tokens itself: one token more or fewer gives other probabilities.
    const [fromCut] = await sample(model, [
      { context: long.context.slice(-28), seed: long.seed, maxNewTokens: 4, stopTokens: policy.sampling.stopTokens },
    ]);
    expect(fromLong.tokens).toEqual(fromCut.tokens);
    for (const [t, logprob] of fromLong.logprobs.entries()) expect(logprob).toBeCloseTo(fromCut.logprobs[t], 6);
  });

  it("applies the constrained-decoding hook and records the allowed ids", async () => {
    const allowedIds = ["paris", "london"].map((w) => tokenizer.idOf(w)!).sort((a, b) => a - b);
    const policy = new TransformerPolicy({
      id: "gpt-test",
      model,
      tokenizer,
      sampling: { maxNewTokens: 3 },
      constrain: (r) => (r.episode === "e7" ? () => allowedIds : null),
    });
    const [constrained, free] = await policy.act([request("e7", "answer"), request("e8", "answer")]);
    expect(constrained.allowed).toEqual([allowedIds, allowedIds, allowedIds]);
    for (const token of constrained.tokens) expect(allowedIds).toContain(token);
    expect(free.allowed).toBeUndefined();
  });

  it("refuses a misspelt option and a sampling value out of range when it is made, not in every episode", () => {
    // Before: { temp: 0.5 } and { verison: 3 } were dropped without a word, and temperature -1 or topP 2 aborted
    // every episode at its first action ("row 0: temperature must be >= 0").
    const make = (options: object) => () => new TransformerPolicy({ id: "gpt-test", model, tokenizer, ...options });
    expect(make({ sampling: { temp: 0.5 } })).toThrow(
      "TransformerPolicy's sampling: unknown option `temp` (did you mean `temperature`?); TransformerPolicy's sampling knows temperature, topP",
    );
    expect(make({ verison: 3 })).toThrow("TransformerPolicy: unknown option `verison` (did you mean `version`?)");
    expect(make({ sampling: { temperature: -1 } })).toThrow(
      "TransformerPolicy: sampling.temperature must be a finite number >= 0 (0: greedy), got -1",
    );
    expect(make({ sampling: { temperature: "1" } })).toThrow(/sampling\.temperature .* got "1" \(a string\)$/);
    expect(make({ sampling: { topP: 2 } })).toThrow(
      "TransformerPolicy: sampling.topP must be a number in (0, 1], got 2",
    );
    expect(make({ sampling: { maxNewTokens: 0 } })).toThrow(/sampling\.maxNewTokens must be an integer >= 1 .* got 0$/);
    expect(make({ sampling: { greedy: "yes" } })).toThrow(/sampling\.greedy must be true or false, got "yes"/);
    expect(make({ sampling: { temperature: 0, topP: 0.9, maxNewTokens: 3, greedy: true } })).not.toThrow();
  });
});

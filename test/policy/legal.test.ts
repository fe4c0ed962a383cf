/** Constrained decoding from an environment's legal actions: the prefix tree, the sampler, SFT's masks. */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { EnvProtocolError, thrownFrom } from "../../src/kernel/errors.ts";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { withLegalMasks } from "../../src/learn/sft.ts";
import { scoreTokens } from "../../src/learn/train-step.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { ActionTrie, actionTokens, allowedForAction, constrainTo, legalTrie } from "../../src/policy/legal.ts";
import { TransformerPolicy } from "../../src/policy/transformer-policy.ts";
import { formatAnswer, formatCall } from "../../src/runtime/action-format.ts";
import type { EnvDefinition } from "../../src/runtime/env.ts";
import type { PolicyRequest } from "../../src/runtime/policy.ts";

const sequences = fc.uniqueArray(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 6 }), {
  minLength: 1,
  maxLength: 12,
  selector: (s) => s.join(","),
});

describe("ActionTrie", () => {
  it("allows exactly the next tokens of its sequences, and knows its whole sequences", () => {
    fc.assert(
      fc.property(sequences, (seqs) => {
        const trie = new ActionTrie(seqs);
        expect(trie.size).toBe(seqs.length);
        for (const seq of seqs) {
          expect(trie.has(seq)).toBe(true);
          for (let i = 0; i < seq.length; i++) {
            const expected = [
              ...new Set(
                seqs.filter((s) => s.length > i && s.slice(0, i).join() === seq.slice(0, i).join()).map((s) => s[i]),
              ),
            ].sort((a, b) => a - b);
            expect(trie.allowedAfter(seq.slice(0, i))).toEqual(expected);
          }
        }
      }),
    );
  });

  it("a walk that follows the allowed ids to a dead end has produced one of the sequences", () => {
    fc.assert(
      fc.property(sequences, fc.array(fc.nat(), { minLength: 6, maxLength: 6 }), (seqs, picks) => {
        // Prefix-free sets, as actions ending in <eos> are.
        const ended = seqs.map((s) => [...s, 99]);
        const trie = new ActionTrie(ended);
        const walk: number[] = [];
        for (let i = 0; ; i++) {
          const allowed = trie.allowedAfter(walk) as number[];
          if (allowed.length === 0) break;
          walk.push(allowed[(picks[i % picks.length] ?? 0) % allowed.length]);
        }
        expect(ended.map((s) => s.join())).toContain(walk.join());
        expect(trie.has(walk)).toBe(true);
      }),
    );
  });

  it("leaves a prefix it does not hold, and refuses an empty action", () => {
    const trie = new ActionTrie([[1, 2, 3]]);
    expect(trie.allowedAfter([2])).toBeUndefined();
    expect(trie.has([1, 2])).toBe(false);
    expect(allowedForAction(trie, [1, 3, 3])).toBeUndefined();
    expect(allowedForAction(trie, [1, 2, 3])).toEqual([[1], [2], [3]]);
    expect(() => new ActionTrie([[]])).toThrow(/no tokens/);
  });

  it("counts a legal action listed twice once", () => {
    const trie = new ActionTrie([[1, 2], [1], [1, 2], [1]]);
    expect(trie.size).toBe(2);
    expect(trie.longest).toBe(2);
  });
});

// A toy environment: only its legal actions matter here.
const tokenizer = new WordTokenizer(["search", "answer", "paris", "london", "rome", "capital", "of", "france"]);
const toyEnv = {
  id: "toy",
  tokenizer,
  legalActions: ({ history }: { history: readonly { text: string }[] }) => {
    const seen = ["paris", "london", "rome"].filter((city) => history.some((t) => t.text.includes(city)));
    return [...seen.map((c) => `search ${c} capital`), ...seen.map((c) => `answer ${c}`)];
  },
} as unknown as EnvDefinition;

const request = (episode: string, text: string): PolicyRequest => {
  const tokens = tokenizer.encode(text);
  return {
    episode,
    turn: 0,
    seed: `${episode}:0`,
    task: null,
    history: [{ role: "observation", text, tokens }],
    context: tokens,
  };
};

describe("constrained decoding", () => {
  let model: Gpt;
  beforeAll(async () => {
    await initBackend("wasm", { log: () => {} });
    model = new Gpt(
      { vocabSize: tokenizer.size, contextLength: 32, width: 16, heads: 2, layers: 1, initStd: 0.5 },
      "c",
    );
  });

  /** A GPT policy sampling under the toy environment's legal actions. */
  const constrained = (maxNewTokens: number, gpt = model) =>
    new TransformerPolicy({
      id: "toy-gpt",
      model: gpt,
      tokenizer,
      sampling: { maxNewTokens },
      constrain: constrainTo(toyEnv),
    });

  it("samples only legal actions, records each token's allowed ids, and training rescores them exactly", async () => {
    const policy = constrained(8);
    const requests = Array.from({ length: 24 }, (_, i) =>
      request(`e${i}`, i % 2 ? "paris or rome" : "capital of london"),
    );
    const actions = await policy.act(requests);
    const seenTexts = new Set<string>();
    actions.forEach((action, i) => {
      const legal = toyEnv.legalActions?.(requests[i]) ?? [];
      expect(legal).toContain(action.text);
      seenTexts.add(action.text);
      expect(action.allowed).toHaveLength(action.tokens.length);
      for (const [t, ids] of (action.allowed ?? []).entries()) expect(ids).toContain(action.tokens[t]);
    });
    // Sampling is not collapsed onto one action: the constraint leaves the model's choice among legal ones.
    expect(seenTexts.size).toBeGreaterThan(1);
    // The learner's logprobs under the recorded masks are the sampler's.
    const tokens = requests.map((r, i) => [...r.context, ...actions[i].tokens]);
    const allowed = requests.map((r, i) => [...r.context.map(() => null), ...(actions[i].allowed ?? [])]);
    const scores = await scoreTokens(model, tokens, allowed);
    for (const [i, r] of requests.entries())
      for (const [t, lp] of actions[i].logprobs.entries())
        expect(scores.logprobs[i][r.context.length + t]).toBeCloseTo(lp, 4);
  });

  it("a legal action longer than maxNewTokens is sampled whole, not cut into a malformed one", async () => {
    const [action] = await constrained(2).act([request("long", "paris")]);
    expect(["search paris capital", "answer paris"]).toContain(action.text);
    const tiny = constrained(
      2,
      new Gpt({ vocabSize: tokenizer.size, contextLength: 6, width: 16, heads: 2, layers: 1 }, "t"),
    );
    await expect(tiny.act([request("long", "paris")])).rejects.toThrow(/takes 6 tokens, which leaves no room/);
  });

  it("an environment that declares no legal action for a state, or not texts, is an error naming it", () => {
    const none = { ...toyEnv, legalActions: () => [] } as unknown as EnvDefinition;
    expect(() => legalTrie(none, request("x", "paris"))).toThrow(
      /^environment toy: declared no legal action for turn 0 \(legalActions returned \[\]\)$/,
    );
    // A typed error of the environment's, as every other broken-environment error: callers can tell it by its tag.
    expect(() => legalTrie(none, request("x", "paris"))).toThrow(EnvProtocolError);
    for (const [legal, says] of [
      [[1, 2], /toy: legalActions returned a list whose item 0 is 1 for turn 0; it must return the action texts/],
      [["search paris", { text: "x" }], /a list whose item 1 is an object for turn 0/],
      ["answer paris", /legalActions returned "answer paris" \(a string\) for turn 0/],
      // An async legalActions: its Promise is named as one, not as "an object".
      [
        Promise.resolve(["answer paris"]),
        /toy: legalActions returned a Promise \(from an async function\? this must answer at once\) for turn 0/,
      ],
      // A JavaScript legalActions without its `return`: refused, not run unconstrained.
      [
        undefined,
        /toy: legalActions returned undefined for turn 0 \(a missing return\?\); it must return the action texts, or null/,
      ],
    ] as const) {
      const wrong = { ...toyEnv, legalActions: () => legal } as unknown as EnvDefinition;
      expect(() => legalTrie(wrong, request("x", "paris"))).toThrow(says);
      expect(() => legalTrie(wrong, request("x", "paris"))).toThrow(EnvProtocolError);
    }
    const unconstrained = { ...toyEnv, legalActions: () => null } as unknown as EnvDefinition;
    expect(constrainTo(unconstrained)(request("x", "paris"))).toBeNull();
  });

  it("a legal action written as a tag the environment calls malformed (a misspelt tool) is an error naming it", () => {
    // Sampled under such a list, the policy could only write what the machine penalises, and nothing said so.
    const { a, b } = weather.task("legal");
    const view = { task: { a, b }, history: [] };
    const withLegal = (texts: string[]) => ({ ...weather, legalActions: () => texts }) as unknown as EnvDefinition;
    const good = [formatCall(weather.tools.weather, { city: a }), formatAnswer(b)];
    expect(legalTrie(withLegal(good), view)?.size).toBe(2);
    // Untagged text is the machine's own business (a machine may read its own words).
    expect(legalTrie(withLegal([...good, "pass"]), view)?.size).toBe(3);
    // So is a tag named like none of its tools: the machine reads its own words (<move>), constrained decoding worked.
    expect(legalTrie(withLegal([...good, "<move>left</move>"]), view)?.size).toBe(3);
    for (const [text, reason] of [
      [`<wether>${a}</wether>`, /unknown tool wether; tools: weather/],
      [`<weather>${a}</waether>`, /expected <tool>argument<\/tool> or <answer>text<\/answer>/],
      [`<answer>${a}</answer><answer>${b}</answer>`, /more than one <answer> in one action/],
    ] as const)
      expect(() => legalTrie(withLegal([...good, text]), view)).toThrow(
        new RegExp(
          `^environment weather: legalActions returned ${JSON.stringify(text).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(item 2\\) for turn 0, which is malformed: ${reason.source}.*formatCall\\(tool, args\\)`,
        ),
      );
  });

  it("a legalActions that throws is named as the environment's, keeping the line of its own code that threw", () => {
    // Said as "policy X failed: legal bug", it blamed the policy and named no legalActions.
    let thrown: unknown;
    const throwing = {
      ...toyEnv,
      legalActions: () => {
        thrown = new Error("legal bug");
        throw thrown;
      },
    } as unknown as EnvDefinition;
    let error: unknown;
    try {
      legalTrie(throwing, request("x", "paris"));
    } catch (cause) {
      error = cause;
    }
    expect((error as Error).message).toBe("environment toy: legalActions threw for turn 0: legal bug");
    expect(error).toBeInstanceOf(EnvProtocolError);
    expect((error as EnvProtocolError).cause).toBe(thrown);
    expect(thrownFrom(error)).toMatch(/^test\/policy\/legal\.test\.ts:\d+:\d+$/);
    // The line in legalActions that threw, not the line here that called legalTrie.
    expect(thrownFrom(error)).toBe(thrownFrom(thrown));
  });

  it("SFT masks: a demonstrated legal action gets the sampler's allowed ids, an illegal one none", () => {
    const observed = (text: string) => ({ type: "env.observed", text, tokens: tokenizer.encode(text) });
    const acted = (text: string) => ({ type: "agent.acted", text, tokens: actionTokens(tokenizer, text) });
    const events = [
      { type: "episode.started", task: null },
      observed("capital of paris"),
      acted("search paris capital"),
      observed("rome"),
      acted("answer london"), // london was never shown: not legal
    ] as never[];
    const { events: masked, illegal } = withLegalMasks(toyEnv, events);
    expect(illegal).toBe(1);
    const first = masked[2] as unknown as { allowed: number[][]; tokens: number[] };
    expect(first.allowed).toHaveLength(first.tokens.length);
    expect(first.allowed[0]).toEqual([tokenizer.idOf("answer"), tokenizer.idOf("search")].sort((a, b) => a! - b!));
    expect((masked[4] as unknown as { allowed?: unknown }).allowed).toBeUndefined();
  });
});

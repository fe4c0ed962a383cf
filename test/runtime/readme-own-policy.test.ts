import { lastValueFrom, toArray } from "rxjs";
import { expect, it } from "vitest";
import weather from "../../actors/weather/env.ts"; // in your own project: your environment's module
import * as r1 from "../../src/index.ts"; // in your own project: "agent-r1-ts"

// Your LLM behind its API: the transcript in, the action's text out. This stub plays one (it asks both cities'
// weather, then answers); a real one awaits a client here, with `seed` as its sampling seed where it takes one.
const llm = async (transcript: string, _seed: string): Promise<string> => {
  const [, a, b] = /warmer : (\w+) or (\w+)/.exec(transcript) ?? [];
  const known = (city = "") => Number(new RegExp(`${city} : (-?\\d+)`).exec(transcript)?.[1] ?? Number.NaN);
  if (Number.isNaN(known(a))) return `<weather>${a}</weather>`;
  if (Number.isNaN(known(b))) return `<weather>${b}</weather>`;
  return `<answer>${known(a) > known(b) ? a : b}</answer>`;
};

// A Policy: an id, a version, the environment's tokenizer, and act(), which answers a batch of requests (one per
// episode waiting for an action), one action per request, in order.
const llmPolicy = (tokenizer: r1.Tokenizer, complete = llm): r1.Policy => {
  const eos = tokenizer.idOf("<eos>");
  return {
    id: "my-llm",
    version: 0,
    tokenizer,
    act: (requests) =>
      Promise.all(
        requests.map(async ({ history, seed }) => {
          const text = await complete(history.map((turn) => turn.text).join("\n"), seed);
          // The tokens are the truth: the text, then <eos>, which ends an action (decodes to no text).
          const tokens = eos === undefined ? tokenizer.encode(text) : [...tokenizer.encode(text), eos];
          // A logprob per token, <= 0; an API that gives none: 0. Recording, replay and sft do not read them.
          return { tokens, text: tokenizer.decode(tokens), logprobs: tokens.map(() => 0), version: 0 };
        }),
      ),
  };
};

// Registered in the environment's `policies` (in its own module), `record --policy llm` runs it.
const env = r1.defineEnv({ ...weather, policies: { ...weather.policies, llm: () => llmPolicy(weather.tokenizer) } });

it("an LLM of your own as a Policy: its episodes run, journal and replay like any policy's", async () => {
  const journal = new r1.MemoryJournal();
  const policy = new r1.PolicyActor(env.policies!.llm());
  const run = r1.rollout({ env, policy, journal, seed: "own", episodes: 6, concurrency: 3 });
  const episodes = await lastValueFrom(run.episodes.pipe(toArray()));
  expect(episodes.map((e) => [e.reason, e.metrics.success, e.turns])).toEqual(Array(6).fill(["answered", 1, 3]));
  expect(policy.batches).toBeLessThan(policy.rows); // concurrent episodes' requests came in batches
  for (const { episode } of episodes) {
    const replayed = r1.replayEpisode(await journal.read(episode), env); // throws on any divergence
    expect([replayed.reason, replayed.tokensVerified]).toEqual(["answered", true]);
  }
});

it("the runtime refuses an action whose text is not its tokens' decoding, or a logprob above 0", async () => {
  const good = llmPolicy(weather.tokenizer);
  const changed = (change: (action: r1.PolicyAction) => r1.PolicyAction): r1.Policy => ({
    ...good,
    act: async (requests) => (await good.act(requests)).map(change),
  });
  const refusals: [r1.Policy, RegExp][] = [
    [
      changed((a) => ({ ...a, text: a.text.toUpperCase() })),
      /its text "<WEATHER>\w+<\/WEATHER>" is not what its tokens spell .* give text = tokenizer\.decode\(tokens\)$/,
    ],
    [changed((a) => ({ ...a, logprobs: a.logprobs.map(() => 0.5) })), /logprobs must be finite and <= 0$/],
  ];
  for (const [policy, problem] of refusals) {
    const journal = new r1.MemoryJournal();
    const episode = await r1.runEpisode({ env, policy: new r1.PolicyActor(policy), journal, seed: "own" });
    expect(episode.reason).toMatch(/^aborted: policy my-llm returned an invalid action: /);
    expect(episode.reason).toMatch(problem);
    expect(episode.turns).toBe(0); // refused before the journal took it: the episode ends at its first action
  }
});

import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import {
  canonicalJson,
  type EpisodeEvent,
  MemoryJournal,
  NonDeterminismError,
  PolicyActor,
  runEpisode,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { scriptedPolicy } from "../../src/runtime/scripted-policy.ts";
import { episodeScriptArbitrary, playEpisode } from "../../src/testing/index.ts";
import { createRaceEnv, lookupActionOptions, playing } from "../support/index.ts";

const bodies = (events: readonly EpisodeEvent[]) =>
  events.map(({ v: _v, episode: _e, seq: _s, prev: _p, digest: _d, ...body }) => canonicalJson(body));

describe("replay folds recorded inputs through the machine's pure transitions", () => {
  fcTest.prop([episodeScriptArbitrary(lookupEnv, { ...lookupActionOptions, maxActions: 8 })], { numRuns: 60 })(
    "for any agent output and tool failure, the fold equals the live run",
    async (script) => {
      const journal = new MemoryJournal();
      const live = await playEpisode(lookupEnv, script, { journal });
      const recorded = await journal.read(live.record.episode);
      const replayed = replayEpisode(recorded, lookupEnv);
      expect(replayed.return).toBe(live.record.return);
      expect(replayed.turns).toBe(live.record.turns);
      expect(replayed.events.map((e) => canonicalJson(e))).toEqual(bodies(recorded));
      // Deriving afresh (no comparison) gives the same stream too.
      const fresh = replayEpisode(recorded, lookupEnv, { verify: false });
      expect(fresh.events.map((e) => canonicalJson(e))).toEqual(bodies(recorded));
    },
  );

  fcTest.prop([fc.scheduler(), fc.array(fc.boolean(), { minLength: 1, maxLength: 3 })], { numRuns: 40 })(
    "concurrent tool results: any arrival order is recorded and replays to the same events",
    async (s, calls) => {
      const env = createRaceEnv({ a: () => "A", b: () => "B" });
      const journal = new MemoryJournal();
      const live = await s.waitFor(
        playEpisode(
          env,
          { seed: "race", actions: calls.map(() => "<a>x</a>") },
          { journal, schedule: (label, result) => s.schedule(result, label) },
        ),
      );
      const recorded = await journal.read(live.record.episode);
      const replayed = replayEpisode(recorded, env);
      expect(replayed.events.map((e) => canonicalJson(e))).toEqual(bodies(recorded));
      // Each observation states the arrival order; it must be the recorded tool.returned order.
      const toolOf = new Map(recorded.flatMap((e) => (e.type === "tool.called" ? [[e.call, e.tool] as const] : [])));
      const arrivals = recorded.flatMap((e) =>
        e.type === "tool.returned" ? [`${toolOf.get(e.call)}=${JSON.stringify(e.result)}`] : [],
      );
      const observed = recorded.flatMap((e) => (e.type === "env.observed" && e.turn > 0 ? [e.text] : []));
      expect(observed).toEqual(calls.slice(0, 2).map((_, k) => arrivals.slice(2 * k, 2 * k + 2).join(" ")));
    },
  );

  it("a different reward order in the record is a NonDeterminismError naming episode and seq", async () => {
    const env = createRaceEnv({ a: () => "A", b: () => "B" });
    const journal = new MemoryJournal();
    const live = await runEpisode({
      env,
      policy: new PolicyActor(playing(["<a>x</a>"], env.tokenizer)),
      journal,
      seed: "r",
    });
    const recorded = [...(await journal.read(live.episode))];
    // Swap the two tool results: the machine now sees b first and derives another reward.
    const i = recorded.findIndex((e) => e.type === "tool.returned");
    const j = recorded.findIndex((e, k) => k > i && e.type === "tool.returned");
    const first = recorded[i] as Extract<EpisodeEvent, { type: "tool.returned" }>;
    const second = recorded[j] as Extract<EpisodeEvent, { type: "tool.returned" }>;
    recorded[i] = { ...first, call: second.call, result: second.result };
    recorded[j] = { ...second, call: first.call, result: first.result };
    const failure = (() => {
      try {
        replayEpisode(recorded, env);
      } catch (e) {
        return e;
      }
    })();
    expect(failure).toBeInstanceOf(NonDeterminismError);
    expect((failure as NonDeterminismError).episode).toBe(live.episode);
    expect((failure as NonDeterminismError).message).toMatch(/seq \d+: replay diverged/);
  });

  it("an action whose text is not what its tokens spell is refused (the live runtime aborts such an action)", async () => {
    const journal = new MemoryJournal();
    const live = await playEpisode(lookupEnv, { seed: "t", actions: ["<lookup>k1</lookup>"] }, { journal });
    const recorded = [...(await journal.read(live.record.episode))];
    const i = recorded.findIndex((e) => e.type === "agent.acted");
    const acted = recorded[i] as Extract<EpisodeEvent, { type: "agent.acted" }>;
    expect(() => replayEpisode(recorded, lookupEnv)).not.toThrow();
    recorded[i] = { ...acted, text: "<lookup>k2</lookup>" };
    expect(() => replayEpisode(recorded, lookupEnv)).toThrow(
      /replay diverged\n {2}recorded: agent\.acted's tokens, which spell "<lookup>k1<\/lookup>"\n {2}replayed: agent\.acted's text, "<lookup>k2<\/lookup>": the journal disagrees with itself/,
    );
    // A logprob for the token too: an action with more tokens than logprobs is refused before replay (this one
    // was replayed once the array had been checked, as it was taken unchecked ever after).
    recorded[i] = { ...acted, tokens: [...acted.tokens, 1e6], logprobs: [...acted.logprobs, 0] };
    expect(() => replayEpisode(recorded, lookupEnv)).toThrow(/token id/);
    // Deriving afresh (re-rewarding) does not check the tokens against the text, as before.
    expect(replayEpisode(recorded, lookupEnv, { verify: false }).turns).toBe(1);
    // It trusts the record's text, but a text that makes another tool call than the recorded one is refused:
    // the recorded result answers lookup(k1), not lookup(k2).
    recorded[i] = { ...acted, text: "<lookup>k2</lookup>" };
    expect(() => replayEpisode(recorded, lookupEnv, { verify: false })).toThrow(
      /this environment calls lookup\(\{"key":"k2"\}\) as call c0: the recorded result answers lookup\(\{"key":"k1"\}\)/,
    );
  });

  it("a policy that returns garbage aborts the episode readably, and the abort replays", async () => {
    const broken = {
      ...scriptedPolicy("broken", lookupEnv.tokenizer, () => "x"),
      act: async () => [{ tokens: [1e9], text: "x", logprobs: [0], version: 0 }],
    };
    const journal = new MemoryJournal();
    const live = await runEpisode({ env: lookupEnv, policy: new PolicyActor(broken), journal, seed: "b" });
    expect(live.reason).toMatch(/^aborted: policy broken returned an invalid action: token ids must be integers/);
    expect(() => replayEpisode(live.events, lookupEnv)).not.toThrow();
  });
});

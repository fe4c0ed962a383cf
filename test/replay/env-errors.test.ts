/**
 * An environment that throws (a guard, an assign, a reward that is not a finite number) ends the live episode
 * as "aborted: environment error: ...". Such a journal is faithful: replay must re-derive that end, not call
 * it a divergence (a trainer replaying its episodes stopped the whole run on one).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  canonicalJson,
  defineEnv,
  type EnvInput,
  end,
  MemoryJournal,
  NonDeterminismError,
  observe,
  reward,
  WordTokenizer,
} from "../../src/index.ts";
import { envErrorThrownAt, replayEpisode } from "../../src/replay/replay.ts";
import { playEpisode } from "../../src/testing/index.ts";
import { createSecretEnv } from "../testing/fixtures.ts";

const machine = setup({
  types: { context: {} as { turn: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
}).createMachine({
  context: { turn: 0 },
  initial: "awaiting",
  entry: observe("say something"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: ({ event }) => event.text.includes("stop"), target: "done", actions: end("stopped", {}) },
          {
            actions: [
              assign({
                // A Set in the context: the state hash could not stand for it.
                ...({
                  bag: ({ event }: { event: AgentActEvent }) => (event.text.includes("set") ? new Set([1]) : null),
                } as object),
                turn: ({ context, event }) => {
                  if (event.text.includes("boom")) throw new Error(`assign exploded on turn ${context.turn}`);
                  return context.turn + 1;
                },
              }),
              reward(
                "process",
                ({ event }) => {
                  if (event.text.includes("again")) throw new Error("reward exploded");
                  return event.text.includes("nan") ? Number.NaN : 0.1;
                },
                "spoke",
              ),
              observe("again"),
            ],
          },
        ],
      },
    },
    done: { type: "final" },
  },
});
const brittle = defineEnv({
  id: "brittle",
  version: "1",
  description: "throws on boom, rewards NaN on nan",
  machine,
  tools: {},
  tokenizer: new WordTokenizer(["say", "something", "again", "hello", "boom", "nan", "set", "stop"]),
  task: () => ({ q: "x" }),
});

const recordOf = async (actions: string[]) => {
  const journal = new MemoryJournal();
  const live = await playEpisode(brittle, { seed: "s", actions }, { journal });
  return { live: live.record, events: await journal.read(live.record.episode) };
};

describe("replaying an episode the environment aborted", () => {
  it.each([
    ["a transition that throws", ["hello", "boom"], "aborted: environment error: assign exploded on turn 1"],
    ["a reward that is not a number", ["hello", "nan"], 'reward "spoke" has value NaN'],
    [
      "a context that is not plain JSON",
      ["hello", "set"],
      "context.bag is a Set: the machine's context must be plain JSON",
    ],
  ])("%s: verifies, and re-derives the same end", async (_, actions, reason) => {
    const { live, events } = await recordOf(actions);
    expect(live.reason).toContain(reason);
    const replayed = replayEpisode(events, brittle);
    expect(replayed.reason).toBe(live.reason);
    expect(replayed.return).toBe(live.return);
    expect(canonicalJson(replayed.events.at(-1))).toContain("aborted: environment error:");
    expect(replayEpisode(events, brittle, { verify: false }).reason).toBe(live.reason);
  });

  it("the live record says where the environment's own code threw (not journaled), none for the framework's checks", async () => {
    const thrown = await recordOf(["hello", "boom"]);
    const line = readFileSync(new URL(import.meta.url), "utf8")
      .split("\n")
      .findIndex((l) => l.includes("throw new Error(`assign exploded"));
    expect(thrown.live.thrownAt).toMatch(new RegExp(`^test/replay/env-errors\\.test\\.ts:${line + 1}:\\d+$`));
    expect(canonicalJson(thrown.events)).not.toContain("env-errors.test.ts");
    const rewarded = await recordOf(["hello", "again"]);
    expect(rewarded.live.reason).toBe("aborted: environment error: reward exploded");
    const rewardLine = readFileSync(new URL(import.meta.url), "utf8")
      .split("\n")
      .findIndex((l) => l.includes('throw new Error("reward exploded")'));
    expect(rewarded.live.thrownAt).toMatch(new RegExp(`^test/replay/env-errors\\.test\\.ts:${rewardLine + 1}:\\d+$`));
    // A NaN reward is refused by the framework: its message names the reward, there is no user line to show.
    expect((await recordOf(["hello", "nan"])).live.thrownAt).toBeUndefined();
  });

  it("replay finds the line again (an assign, a reward, a guard), as the live record named it; none for the framework's checks", async () => {
    for (const actions of [
      ["hello", "boom"],
      ["hello", "again"],
    ]) {
      const { live, events } = await recordOf(actions);
      expect(live.thrownAt).toMatch(/^test\/replay\/env-errors\.test\.ts:\d+:\d+$/);
      expect(replayEpisode(events, brittle).thrownAt).toBe(live.thrownAt);
      expect(replayEpisode(events, brittle, { verify: false }).thrownAt).toBe(live.thrownAt);
      expect(envErrorThrownAt(events, brittle)).toBe(live.thrownAt);
    }
    // A guard: XState rethrows its error without the stack; the wrapped guard noted where it threw, in replay too.
    const fragile = createSecretEnv({}, { crashOn: /boom/ });
    const journal = new MemoryJournal();
    const played = await playEpisode(fragile, { seed: "s", actions: ["boom"] }, { journal });
    const events = await journal.read(played.record.episode);
    expect(played.record.thrownAt).toMatch(/^test\/testing\/fixtures\.ts:\d+:\d+$/);
    expect(replayEpisode(events, fragile).thrownAt).toBe(played.record.thrownAt);
    const nan = await recordOf(["hello", "nan"]);
    expect(replayEpisode(nan.events, brittle).thrownAt).toBeUndefined();
    // An episode that ended otherwise is not replayed, and has none.
    expect(envErrorThrownAt((await recordOf(["stop"])).events, brittle)).toBeUndefined();
  });

  it("a journal that says the machine threw something else still diverges, naming both", async () => {
    const { events } = await recordOf(["hello", "boom"]);
    const last = events.at(-1)!;
    const edited = [...events.slice(0, -1), { ...last, reason: "aborted: environment error: something else" }];
    let error: unknown;
    try {
      replayEpisode(edited as typeof events, brittle);
    } catch (cause) {
      error = cause;
    }
    expect(error).toBeInstanceOf(NonDeterminismError);
    expect(String((error as Error).message)).toContain(
      "the episode ended here: aborted: environment error: something else",
    );
    expect(String((error as Error).message)).toContain("the machine threw: assign exploded on turn 1");
  });

  it("an episode that ran on normally still replays as before", async () => {
    const { live, events } = await recordOf(["hello", "stop"]);
    expect(replayEpisode(events, brittle).reason).toBe(live.reason);
  });
});

/**
 * Environment code that throws something other than an Error (`throw undefined`, `throw 3`, a plain or cyclic
 * object) is said to have thrown that value, as tools' throws are: "environment error: undefined" or
 * "[object Object]" told the user nothing, and a guard's `throw undefined` was said as XState's own failure
 * ("Cannot read properties of undefined (reading 'message')"). Replay re-derives the same end.
 */
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  MemoryJournal,
  observe,
  PolicyActor,
  WordTokenizer,
} from "../../src/index.ts";
import { legalTrie } from "../../src/policy/legal.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import type { EnvDefinition } from "../../src/runtime/env.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { playEpisode } from "../../src/testing/index.ts";

const cyclic: { self?: unknown } = {};
cyclic.self = cyclic;
/** What each word of an action throws. */
const thrown: Record<string, () => unknown> = {
  undef: () => undefined,
  three: () => 3,
  plain: () => ({ code: 7 }),
  cyclic: () => cyclic,
  named: () => ({ message: "an error-like object" }),
};
const throwFor = (text: string): void => {
  for (const [word, value] of Object.entries(thrown)) if (text.includes(word)) throw value();
};

const machine = setup({
  types: { context: {} as { turn: number; always?: string }, events: {} as AgentActEvent, input: {} as EnvInput<null> },
  guards: {
    named: ({ event }) => {
      if (event.text.startsWith("named-guard")) throwFor(event.text);
      return false;
    },
  },
}).createMachine({
  context: { turn: 0 },
  initial: "awaiting",
  entry: observe("say something"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: "named", target: "done" },
          {
            guard: ({ event }) => {
              if (event.text.startsWith("guard")) throwFor(event.text);
              return event.text === "stop";
            },
            target: "done",
            actions: end("stopped", {}),
          },
          {
            target: "checking",
            actions: [
              ({ event }) => {
                if (event.text.startsWith("action")) throwFor(event.text);
              },
              assign({
                turn: ({ context, event }) => {
                  if (event.text.startsWith("assign")) throwFor(event.text);
                  return context.turn + 1;
                },
                always: ({ event }) => event.text,
              }),
            ],
          },
        ],
      },
    },
    checking: {
      always: {
        guard: ({ context }) => {
          if (context.always?.startsWith("always")) throwFor(context.always);
          return true;
        },
        target: "awaiting",
        actions: observe("again"),
      },
    },
    done: { type: "final" },
  },
});
const words = ["say", "something", "again", "stop", ...Object.keys(thrown)];
for (const place of ["guard", "named-guard", "action", "assign", "always"])
  for (const word of Object.keys(thrown)) words.push(`${place}-${word}`);
const brittle = defineEnv({
  id: "brittle",
  version: "1",
  description: "throws what is not an Error",
  machine,
  tools: {},
  tokenizer: new WordTokenizer(words),
  task: () => null,
});

const saidAs: Record<string, string> = {
  undef: "threw undefined, not an Error",
  three: "threw 3, not an Error",
  plain: "threw { code: 7 }, not an Error",
  cyclic: "threw <ref *1> { self: [Circular *1] }, not an Error",
  named: "an error-like object",
};

describe("environment code that throws what is not an Error", () => {
  it.each(
    ["guard", "named-guard", "action", "assign", "always"].flatMap((place) =>
      Object.keys(thrown).map((word) => [place, word] as const),
    ),
  )(
    "%s throwing %s: the end reason says what was thrown, live and (but for an action) in replay",
    async (place, word) => {
      const journal = new MemoryJournal();
      const live = await playEpisode(brittle, { seed: "s", actions: [`${place}-${word}`] }, { journal });
      expect(live.record.reason).toMatch(/^aborted: environment error: /);
      expect(live.record.reason).toContain(saidAs[word]);
      expect(live.record.reason).not.toMatch(/: undefined$|\[object Object\]|reading 'message'/);
      // Replay's pure transitions do not run a custom action (`({ event }) => ...`), so its throw is checked live only.
      if (place === "action") return;
      const events = await journal.read(live.record.episode);
      expect(replayEpisode(events, brittle).reason).toBe(live.record.reason);
    },
  );

  // What versions before 2026-12-05 recorded: String(value), or XState's guard error on the value's `message`
  // (an event's guard; an always guard's throw reached the runtime as it was).
  const legacyInner: Record<string, string> = {
    undef: "undefined",
    three: "3",
    plain: "[object Object]",
    cyclic: "[object Object]",
    named: "[object Object]",
  };
  it.each(
    ["guard", "named-guard", "assign", "always"].flatMap((place) =>
      Object.keys(thrown).map((word) => [place, word] as const),
    ),
  )("%s throwing %s: a journal of an older version, which said it otherwise, still verifies", async (place, word) => {
    const journal = new MemoryJournal();
    const live = await playEpisode(brittle, { seed: "s", actions: [`${place}-${word}`] }, { journal });
    const reason = live.record.reason;
    const guardPrefix = reason.slice(0, reason.indexOf(":\n") + 2);
    const older =
      place === "assign" || place === "always"
        ? `aborted: environment error: ${legacyInner[word]}`
        : word === "undef"
          ? "aborted: environment error: Cannot read properties of undefined (reading 'message')"
          : `${guardPrefix}${word === "named" ? "an error-like object" : "undefined"}`;
    const events = (await journal.read(live.record.episode)).map((e) =>
      e.type === "episode.ended" ? { ...e, reason: older } : e,
    );
    expect(replayEpisode(events, brittle, { verify: true }).reason).toBe(older);
    // The text this version says is not taken for another value's.
    const other = events.map((e) => (e.type === "episode.ended" ? { ...e, reason: `${older}!` } : e));
    expect(() => replayEpisode(other, brittle, { verify: true })).toThrow(/replay diverged/);
  });

  it("a task function and legalActions that throw undefined say so", async () => {
    const env = {
      ...lookupEnv,
      task: () => {
        throw undefined;
      },
    };
    const r = rollout({
      env,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed: "t",
      episodes: 1,
    });
    await expect(lastValueFrom(r.episodes.pipe(toArray()))).rejects.toThrow(
      'task("t:task0") threw for episode 0: threw undefined, not an Error',
    );
    const legal = {
      ...brittle,
      legalActions: () => {
        throw 3;
      },
    } as unknown as EnvDefinition;
    const tokens = brittle.tokenizer.encode("say");
    expect(() =>
      legalTrie(legal, { history: [{ role: "observation", text: "say", tokens }], task: null } as never),
    ).toThrow("environment brittle: legalActions threw for turn 0: threw 3, not an Error");
  });
});

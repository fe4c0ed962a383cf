/**
 * Text that is not Unicode: a lone UTF-16 surrogate cannot be written as canonical JSON. A policy's action
 * holding one used to throw inside the runtime, where nothing caught it: `record` died with a stack trace
 * and lost the episodes it was running, and the testing kit hung. An action's lone surrogate now becomes
 * U+FFFD before anything sees it (as UTF-8 would make it); text the environment writes itself that cannot
 * be journaled aborts that episode, naming the event, and keeps what was recorded before it.
 */
import fc from "fast-check";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  callOf,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  MemoryJournal,
  observe,
  PolicyActor,
  replayEpisode,
  rollout,
  Schema,
  scriptedPolicy,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { checkRewards, neverCrashes, playEpisode, replaysIdentically } from "../../src/testing/index.ts";

/** Echoes the action into its observation, ends on "stop"; writes a lone surrogate of its own on "broken". */
const machine = setup({
  types: { context: {} as { heard: string[] }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
}).createMachine({
  context: { heard: [] },
  initial: "awaiting",
  entry: observe("say something"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: ({ event }) => event.text === "stop", target: "done", actions: end("stopped", { reward: 1 }) },
          { guard: ({ event }) => event.text === "broken", actions: observe("half a pair \ud800") },
          {
            actions: [
              assign({ heard: ({ context, event }) => [...context.heard, event.text] }),
              observe(({ event }) => `you said ${event.text}`),
            ],
          },
        ],
      },
    },
    done: { type: "final" },
  },
});
const env = defineEnv({
  id: "echo",
  version: "1",
  description: "echoes what the agent says",
  machine,
  tools: {},
  tokenizer: new WordTokenizer(["say", "something", "you", "said", "stop", "broken", "hello"]),
  task: () => ({ q: "x" }),
});

describe("text that is not Unicode", () => {
  it.each(["hello \ud800", "\udfff", "a\ud800b\udc00"])(
    "an action with a lone surrogate (%j) is recorded with U+FFFD and the episode goes on",
    async (text) => {
      const { record, events } = await playEpisode(env, { seed: "s", actions: [text, "stop"] });
      expect(record.reason).toBe("stopped");
      const acted = events.find((e) => e.type === "agent.acted") as { text: string };
      expect(acted.text).toBe(text.toWellFormed());
      expect(acted.text.isWellFormed()).toBe(true);
      const observed = events.filter((e) => e.type === "env.observed").map((e) => (e as { text: string }).text);
      expect(observed).toContain(`you said ${text.toWellFormed()}`);
      expect(replayEpisode(events, env).events).toHaveLength(events.length);
    },
  );

  it("an environment's own text that cannot be journaled aborts its episode, naming the event, and keeps the rest", async () => {
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["hello", "broken", "stop"] });
    expect(record.reason).toMatch(/^aborted: could not record env\.observed: .*surrogate/i);
    // The start, the first action and its echo are kept; the journal ends with the abort.
    expect(events.map((e) => e.type)).toContain("agent.acted");
    expect(events.some((e) => e.type === "env.observed" && (e as { text: string }).text === "you said hello")).toBe(
      true,
    );
    expect(events.at(-1)?.type).toBe("episode.ended");
    // The same environment replays it faithfully: the abort is the journal's, not a divergence.
    const replayed = replayEpisode(events, env);
    expect(replayed.events).toHaveLength(events.length);
    expect(replayed.events.at(-1)).toMatchObject({ type: "episode.ended", reason: record.reason });
  });

  it("a batch keeps its other episodes when one policy writes a lone surrogate", async () => {
    const journal = new MemoryJournal();
    // Episode 0 says a lone surrogate, the others plain words; the episodes run together.
    const policy = scriptedPolicy("half", env.tokenizer, (request) =>
      request.turn === 0 ? (request.episode.endsWith("-0") ? "hello \ud800" : "hello") : "stop",
    );
    const records = await lastValueFrom(
      rollout({ env, policy: new PolicyActor(policy), journal, seed: "r", episodes: 3 }).episodes.pipe(toArray()),
    );
    expect(records.map((r) => r.reason)).toEqual(["stopped", "stopped", "stopped"]);
    expect(records.map((r) => r.events.find((e) => e.type === "agent.acted")?.text).sort()).toEqual([
      "hello",
      "hello",
      "hello \ufffd",
    ]);
  });

  it("a call whose JSON escapes write a lone surrogate is malformed, not an aborted episode", async () => {
    // `\ud800` in a call's JSON is ASCII in the action, and a lone surrogate once parsed: callOf gave it to the
    // machine, whose invoke journaled it as tool.called, and the episode aborted ("could not record tool.called").
    const order = defineTool({
      name: "order",
      description: "orders an item",
      parameters: Schema.Struct({ item: Schema.String, qty: Schema.Number }),
      execute: ({ item }) => item,
    });
    const tools = { order };
    const call = (text: string) => callOf<{ item: string; qty: number }>(text, tools, "order");
    const shop = setup({
      types: {
        context: {} as { last: string },
        events: {} as AgentActEvent,
        input: {} as EnvInput<{ q: string }>,
      },
      actors: toolActors(tools),
    }).createMachine({
      context: { last: "" },
      initial: "waiting",
      entry: observe("order"),
      states: {
        waiting: {
          on: {
            "agent.act": [
              { guard: ({ event }) => event.text === "stop", target: "done", actions: end("stopped") },
              {
                guard: ({ event }) => call(event.text) !== undefined,
                target: "asking",
                actions: assign({ last: ({ event }) => event.text }),
              },
              { actions: observe("malformed") },
            ],
          },
        },
        asking: {
          invoke: {
            src: "order",
            input: ({ context }: { context: { last: string } }) => call(context.last)!,
            onDone: { target: "waiting", actions: observe("ordered") },
          },
        },
        done: { type: "final" },
      },
    });
    const shopEnv = defineEnv({
      id: "shop",
      version: "1",
      description: "orders items",
      machine: shop,
      tools,
      tokenizer: new WordTokenizer(["order", "ordered", "malformed", "stop"]),
      task: () => ({ q: "x" }),
    });
    const { record, events } = await playEpisode(shopEnv, {
      seed: "s",
      actions: ['<order>{"item":"\\ud800","qty":1}</order>', '<order>{"item":"tea","qty":1}</order>', "stop"],
    });
    expect(record.reason).toBe("stopped");
    expect(events.filter((e) => e.type === "env.observed").map((e) => (e as { text: string }).text)).toEqual([
      "order",
      "malformed",
      "ordered",
    ]);
    expect(replayEpisode(events, shopEnv).events).toHaveLength(events.length);
  });

  it("the testing kit's neverCrashes passes on lone surrogates instead of hanging", async () => {
    await checkRewards(env, {
      actions: fc.constantFrom("hello \ud800", "\udfff", "<answer>\ud800</answer>"),
      numRuns: 10,
      invariants: [neverCrashes(), replaysIdentically()],
    });
  }, 30_000);
});

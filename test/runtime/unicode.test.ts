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
  reward,
  rollout,
  Schema,
  scriptedPolicy,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { checkRewards, exploreEnv, neverCrashes, playEpisode, replaysIdentically } from "../../src/testing/index.ts";

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

describe("an environment's own text that is not Unicode, wherever it is, gives a clear error and keeps what was recorded", () => {
  // A slice that cuts an emoji in two leaves a lone surrogate; no journal line can hold one.
  const LONE = "ab\ud83d";
  type Where = "args" | "observation" | "reward reason" | "end reason" | "metric name" | "context" | "task";
  const envWith = (where: Where) => {
    let ran = 0;
    const check = defineTool({
      name: "check",
      description: "Checks a word.",
      parameters: Schema.Struct({ word: Schema.String }),
      execute: ({ word }) => {
        ran += 1;
        return `checked ${word}`;
      },
    });
    const machine = setup({
      types: { context: {} as { note: string }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
      actors: toolActors({ check }),
    }).createMachine({
      context: { note: "" },
      entry: observe("go"),
      initial: "waiting",
      states: {
        waiting: {
          on: {
            "agent.act": {
              target: "checking",
              actions: assign({ note: () => (where === "context" ? LONE : "") }),
            },
          },
        },
        checking: {
          invoke: {
            src: "check",
            input: () => ({ word: where === "args" ? LONE : "ok" }),
            onDone: {
              target: "done",
              actions: [
                observe(({ event }) =>
                  where === "observation"
                    ? `seen ${LONE}`
                    : event.output.ok
                      ? String(event.output.content)
                      : event.output.error.kind,
                ),
                reward("outcome", 1, () => (where === "reward reason" ? LONE : "checked")),
                end(
                  () => (where === "end reason" ? LONE : "finished"),
                  (): Record<string, number> => (where === "metric name" ? { [LONE]: 1 } : {}),
                ),
              ],
            },
          },
        },
        done: { type: "final" },
      },
    });
    const env = defineEnv({
      id: "lone",
      version: "1",
      description: "writes a lone surrogate of its own somewhere",
      machine,
      tools: { check },
      tokenizer: new WordTokenizer(["go", "checked", "ok", "invalid-args"]),
      task: () => ({ q: where === "task" ? LONE : "x" }),
    });
    return { env, ran: () => ran };
  };
  const task = { q: "x" };

  it("a tool call's arguments: the call fails as invalid-args naming where, live and in checkCoverage", async () => {
    // The live episode aborted ("could not record tool.called: Lone surrogate is not allowed") and exploreEnv threw.
    const { env, ran } = envWith("args");
    const refused = {
      ok: false,
      error: {
        kind: "invalid-args",
        message:
          "check's arguments are not Unicode text: arguments.word holds a lone surrogate, which is not Unicode; a call's arguments are journaled as JSON, so give well-formed text (e.g. text.toWellFormed(), or slice by characters: [...text].slice(0, n).join(\"\"))",
      },
    };
    const live = await playEpisode(env, { seed: "s", actions: ["go"] });
    expect(live.record.reason).toBe("finished");
    // Journaled with U+FFFD in place of the surrogate, as UTF-8 would make it; the tool never ran.
    expect(live.events.flatMap((e) => (e.type === "tool.called" ? [e.args] : []))).toEqual([{ word: "ab\ufffd" }]);
    expect(live.events.flatMap((e) => (e.type === "tool.returned" ? [e.result] : []))).toEqual([refused]);
    expect(ran()).toBe(0);
    expect(replayEpisode(live.events, env, { verify: true }).events).toHaveLength(live.events.length);
    expect(await env.tools.check.call({ word: LONE })).toEqual(refused);
    const report = exploreEnv(env, { task, actions: ["go"] });
    expect(report.problems).toEqual([]);
    const ended = report.paths.filter((p) => p.state.ended);
    expect(ended.map((p) => p.steps.at(-1))).toEqual(['check {"word":"ab\ufffd"} fails: invalid-args']);
    const path = await playEpisode(env, ended[0].script);
    expect(path.events.flatMap((e) => (e.type === "tool.returned" ? [e.result] : []))).toEqual([refused]);
  });

  it.each([
    [
      "observation",
      /^aborted: could not record env\.observed: /,
      /the observation "seen ab\\ud83d" .*holds a lone surrogate/,
    ],
    [
      "reward reason",
      /^aborted: could not record reward\.assigned: /,
      /its reason "ab\\ud83d" .*holds a lone surrogate/,
    ],
    // The episode's end could not be journaled: runEpisode rejected ("Lone surrogate is not allowed"), uncaught.
    [
      "end reason",
      /^aborted: environment error: lone: end\(\): the reason "ab\\ud83d" \(a string\) holds a lone surrogate, which is not Unicode and no journal can hold; give well-formed text/,
      /end\(\): the reason "ab\\ud83d" .*holds a lone surrogate/,
    ],
    // Likewise: runEpisode rejected, uncaught.
    [
      "metric name",
      /^aborted: environment error: lone: end\(\) metric "ab\\ud83d" holds a lone surrogate, which is not Unicode and no journal can hold/,
      /end\(\) metric "ab\\ud83d" holds a lone surrogate/,
    ],
    // Said as canonicalize said it ("environment error: Lone surrogate is not allowed"), and exploreEnv threw it.
    [
      "context",
      /^aborted: environment error: lone: context\.note holds a lone surrogate, which is not Unicode: the machine's context must be plain JSON/,
      /context\.note holds a lone surrogate/,
    ],
  ] as const)(
    "%s: the live episode ends naming it, keeping what came before; checkCoverage reports it",
    async (where, live, explored) => {
      const { env } = envWith(where);
      const played = await playEpisode(env, { seed: "s", actions: ["go"] });
      expect(played.record.reason).toMatch(live);
      expect(played.events.map((e) => e.type).slice(0, 4)).toEqual([
        "episode.started",
        "env.observed",
        "env.transitioned",
        "agent.acted",
      ]);
      expect(played.events.at(-1)?.type).toBe("episode.ended");
      expect(replayEpisode(played.events, env, { verify: true }).events).toHaveLength(played.events.length);
      // exploreEnv said nothing of the first three (or threw, for the context), so checkCoverage passed them.
      const report = exploreEnv(env, { task, actions: ["go"] });
      expect(report.problems.filter((p) => p.kind === "invalid").map((p) => p.detail)).toEqual([
        expect.stringMatching(explored),
      ]);
    },
  );

  it("the task: refused before anything runs, naming the field", async () => {
    const { env } = envWith("task");
    // It aborted as "could not record episode.started", in a journal of an episode.ended alone.
    await expect(playEpisode(env, { seed: "s", actions: ["go"] })).rejects.toThrow(
      `episode "s"'s task is not plain JSON: task.q holds a lone surrogate, which is not Unicode`,
    );
    expect(() => exploreEnv(env, { actions: ["go"] })).toThrow(
      "exploreEnv: the task is not plain JSON: task.q holds a lone surrogate, which is not Unicode",
    );
  });

  it("a tool result the test injects: refused as no tool result (a live tool's text gets U+FFFD)", async () => {
    const { env } = envWith("observation");
    // It aborted the episode as "could not record tool.returned", which neverCrashes blamed on the environment.
    await expect(
      playEpisode(env, { seed: "s", actions: ["go"], toolResults: [{ ok: true, content: LONE }] }),
    ).rejects.toThrow("script.toolResults[0] is not a tool result (result.content holds a lone surrogate");
    await expect(
      playEpisode(env, {
        seed: "s",
        actions: ["go"],
        toolResults: [{ ok: false, error: { kind: "error", message: LONE } }],
      }),
    ).rejects.toThrow("(result.error.message holds a lone surrogate");
  });
});

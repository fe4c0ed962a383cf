/**
 * The framework's own checks of what a machine emits (an observation that is not text, a reward or a metric
 * that is not a finite number) name the line of the environment's code where that observe(), reward() or
 * end() was written, as a throw in the environment's own code names its line.
 */
import { describe, expect, it } from "vitest";
import { type AnyStateMachine, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  observe,
  replayEpisode,
  reward,
  WordTokenizer,
} from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";

const machine = setup({
  types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
}).createMachine({
  context: { n: 0 },
  initial: "awaiting",
  entry: observe("say a word"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: ({ event }) => event.text === "text", actions: observe(({ context }) => context.n as never) },
          { guard: ({ event }) => event.text === "reward", actions: reward("process", () => Number.NaN, "a bad sum") },
          { guard: ({ event }) => event.text === "metric", actions: end("done", () => ({ success: "yes" as never })) },
          {
            guard: ({ event }) => event.text === "string",
            actions: reward("process", () => "0.5" as never, "as text"),
          },
          { guard: ({ event }) => event.text === "metrics", actions: end("done", () => 5 as never) },
          {
            guard: ({ event }) => event.text === "huge",
            actions: [reward("process", 1e308, "big"), reward("process", 1e308, "bigger")],
          },
          { guard: ({ event }) => event.text === "null", actions: observe(() => null as never) },
          { guard: ({ event }) => event.text === "pending", actions: observe((async () => "hi") as never) },
          {
            guard: ({ event }) => event.text === "promised",
            actions: end("done", (async () => ({ success: 1 })) as never),
          },
          { guard: ({ event }) => event.text === "because", actions: end((async () => "done") as never) },
          { guard: ({ event }) => event.text === "why", actions: reward("process", 1, (async () => "r") as never) },
          { actions: observe("again") },
        ],
      },
    },
  },
});
const env = defineEnv({
  id: "emitting",
  version: "1",
  description: "emits what the runtime refuses, on a word",
  machine,
  tools: {},
  tokenizer: new WordTokenizer([
    "say",
    "a",
    "word",
    "again",
    "text",
    "reward",
    "metric",
    "kind",
    "string",
    "huge",
    "null",
    "pending",
    "promised",
    "because",
    "why",
  ]),
  task: () => ({ q: "x" }),
});

describe("an emitted value the runtime refuses", () => {
  it.each([
    ["text", /observe\(\) needs a string, got number \(observe\(\) at \S*emitted-errors\.test\.ts:30:\d+\)$/],
    [
      "reward",
      /reward "a bad sum" has value NaN; rewards must be finite numbers \(reward\(\) at \S*emitted-errors\.test\.ts:31:\d+\)$/,
    ],
    [
      "metric",
      /end\(\) metric success is "yes" \(a string\); metrics must be finite numbers \(end\(\) at \S*emitted-errors\.test\.ts:32:\d+\)$/,
    ],
    [
      "string",
      /reward "as text" has value "0\.5" \(a string\); rewards must be finite numbers \(reward\(\) at \S*emitted-errors\.test\.ts:35:\d+\)$/,
    ],
    [
      "metrics",
      /end\(\)'s metrics are 5; give an object of finite numbers, e\.g\. end\("answered", \{ success: 1 \}\) \(end\(\) at \S*emitted-errors\.test\.ts:37:\d+\)$/,
    ],
    [
      "huge",
      /reward "bigger" of 1e\+308 takes the episode's return \(1e\+308 so far\) past the largest number; rewards must sum to a finite return \(reward\(\) at \S*emitted-errors\.test\.ts:40:\d+\)$/,
    ],
    // A tool's undefined result is null in the journal: said as null, not as "object".
    ["null", /observe\(\) needs a string, got null \(observe\(\) at \S*emitted-errors\.test\.ts:42:\d+\)$/],
    // An async function's Promise: named as one (an async end() metrics function was journaled as {} silently).
    [
      "pending",
      /observe\(\) needs a string, got a Promise \(from an async function\? this must answer at once\) \(observe\(\) at \S*emitted-errors\.test\.ts:43:\d+\)$/,
    ],
    // A reason given as a Promise was journaled as "[object Promise]".
    [
      "because",
      /end\(\)'s reason is a Promise \(from an async function\? this must answer at once\); give it as a string \(end\(\) at \S*emitted-errors\.test\.ts:48:\d+\)$/,
    ],
    [
      "why",
      /reward\("process", 1, reason\): its reason is a Promise \(from an async function\? this must answer at once\); give it as a string \(reward\(\) at \S*emitted-errors\.test\.ts:49:\d+\)$/,
    ],
    [
      "promised",
      /end\(\)'s metrics are a Promise \(from an async function\? this must answer at once\); give an object of finite numbers.* \(end\(\) at \S*emitted-errors\.test\.ts:46:\d+\)$/,
    ],
  ])("%s: the episode aborts naming the line where it was written", async (word, says) => {
    const { record, events } = await playEpisode(env, { seed: "s", actions: [word] });
    expect(record.reason).toMatch(/^aborted: /);
    expect(record.reason).toMatch(says);
    // Nothing refused reaches the journal: its rewards are of a known kind and sum to its finite return.
    const rewards = events.flatMap((e) => (e.type === "reward.assigned" ? [e] : []));
    for (const r of rewards) expect(["process", "outcome"]).toContain(r.kind);
    expect(Number.isFinite(record.return)).toBe(true);
    expect(record.return).toBe(rewards.reduce((sum, r) => sum + r.value, 0));
  });
});

describe("a machine left waiting for nothing", () => {
  /** An environment around `machine` that asks "say yes", as each test here writes it. */
  const sayYes = (id: string, description: string, machine: AnyStateMachine) =>
    defineEnv({
      id,
      version: "1",
      description,
      machine,
      tools: {},
      tokenizer: new WordTokenizer(["say", "yes"]),
      task: () => ({}),
    });

  it("aborts saying the last input took no transition that observes, ends or calls a tool, and what to add", async () => {
    // Only "yes" is handled: any other action matches no transition, and nothing asks the agent again.
    const strict = setup({ types: { events: {} as AgentActEvent } }).createMachine({
      initial: "awaiting",
      entry: observe("say yes"),
      states: {
        awaiting: { on: { "agent.act": { guard: ({ event }) => event.text === "yes", actions: end("done") } } },
      },
    });
    const env = defineEnv({
      id: "strict",
      version: "1",
      description: "handles one word",
      machine: strict,
      tools: {},
      tokenizer: new WordTokenizer(["say", "yes", "no"]),
      task: () => ({}),
    });
    const silent = defineEnv({
      ...env,
      machine: setup({}).createMachine({ initial: "a", states: { a: { on: { "agent.act": {} } } } }),
    });
    expect((await playEpisode(silent, { seed: "s", actions: [] })).record.reason).toBe(
      'aborted: environment error: the machine is in state "a" waiting for nothing (no observe(), no end(), no tool call in flight): it started without observing: give its entry (or its first state\'s) an observe() with the task, or a tool call',
    );
    const { record } = await playEpisode(env, { seed: "s", actions: ["no"] });
    expect(record.reason).toBe(
      'aborted: environment error: the machine is in state "awaiting" waiting for nothing (no observe(), no end(), no tool call in flight): the last input (an action, or a tool\'s result) took no transition that observes, ends or calls a tool; end each agent.act list with an unguarded fallback (a format penalty and observe()), and observe() on entering a state that waits for the agent; a state that runs several tools at once needs a way out once every result is in (an always transition whose guard then holds)',
    );
  });

  it("names the event a machine's transitions are on when it is no agent.act: at definition if misspelt, else when an action goes unheard", () => {
    const machineOn = (event: string) =>
      setup({}).createMachine({
        initial: "awaiting",
        entry: observe("say yes"),
        states: { awaiting: { on: { [event]: { actions: end("done") } } } },
      });
    for (const typo of ["agent.akt", "agent_act", "Agent.Act", "agent.action"])
      expect(() => sayYes("deaf", "hears no action", machineOn(typo))).toThrow(
        `environment deaf: state "awaiting" has a transition on "${typo}", an event the runtime never sends (did you mean \`agent.act\`?): the agent's actions arrive as agent.act, and a tool's result on its invoke's onDone`,
      );
    // An event of the machine's own (raised or sent to itself) is its business; with no agent.act anywhere, the
    // machine could never hear the agent.
    expect(() => sayYes("deaf", "hears no action", machineOn("tick"))).toThrow(
      'environment deaf: no state of its machine has a transition on agent.act, the event the agent\'s actions arrive as, so no action would be heard: give the state that waits for the agent on: { "agent.act": [...] }',
    );
    for (const heard of ["agent.act", "agent.*", "*"])
      expect(() => sayYes("deaf", "hears no action", machineOn(heard))).not.toThrow();
  });

  it("an action asked for by a state that does not hear agent.act ends the episode naming that state and what it handles", async () => {
    // "asking" observes and waits for the agent, but only "answered" has the agent.act transition.
    const machine = setup({ types: { events: {} as AgentActEvent | { type: "tick" } } }).createMachine({
      initial: "asking",
      states: {
        asking: { entry: observe("say yes"), on: { tick: "answered" } },
        answered: { on: { "agent.act": { actions: end("done") } } },
      },
    });
    const env = sayYes("deaf", "asks in a state that does not listen", machine);
    const { record } = await playEpisode(env, { seed: "s", actions: ["yes"] });
    expect(record.reason).toBe(
      'aborted: environment error: the machine is in state "asking" waiting for nothing (no observe(), no end(), no tool call in flight): "asking" has no transition on agent.act (nor any state above it), so the agent\'s action goes unheard (it handles "tick"): the agent\'s actions arrive as the event agent.act; give the state that waits for the agent on: { "agent.act": [...] }',
    );
  });

  it('names a state with no transition that is not final (a forgotten type: "final") and says to make it final', async () => {
    // The answer leads to "done", which was meant to be final: the fallback's advice (an unguarded agent.act
    // transition) did not fit, since "done" has no transition at all.
    const unfinished = setup({ types: { events: {} as AgentActEvent } }).createMachine({
      initial: "awaiting",
      entry: observe("say yes"),
      states: { awaiting: { on: { "agent.act": { target: "done" } } }, done: {} },
    });
    const env = sayYes("unfinished", "forgets its final state", unfinished);
    const { record } = await playEpisode(env, { seed: "s", actions: ["yes"] });
    expect(record.reason).toBe(
      'aborted: environment error: the machine is in state "done" waiting for nothing (no observe(), no end(), no tool call in flight): "done" has no transition (no on, always or invoke, nor any state above it) and is not final: make it a final state (type: "final"), or end() the episode on the transition into it',
    );
  });

  it("names a final state one level down (its compound has no onDone), which ends nothing, and says how to leave it", async () => {
    // The user made "done" final, inside "play": the episode ends at a top-level final state only, and the
    // message told to add an unguarded agent.act fallback.
    const nested = setup({ types: { events: {} as AgentActEvent } }).createMachine({
      initial: "play",
      entry: observe("say yes"),
      states: {
        play: {
          initial: "awaiting",
          states: { awaiting: { on: { "agent.act": { target: "done" } } }, done: { type: "final" } },
        },
      },
    });
    const env = sayYes("nested-final", "a final state inside a compound with no onDone", nested);
    const { record } = await playEpisode(env, { seed: "s", actions: ["yes"] });
    expect(record.reason).toBe(
      'aborted: environment error: the machine is in state {"play":"done"} waiting for nothing (no observe(), no end(), no tool call in flight): "play.done" is a final state inside "play", which has no onDone: the episode ends only at a final state of the machine\'s top level; give "play" an onDone to one, or end() the episode on the transition into it',
    );
  });

  it("names the parallel state, not its regions, when the final states sit in its regions: its onDone is what moves on", async () => {
    // A region's final state makes the region done; the parallel state is done when all its regions are, and
    // its onDone is what leaves it. The message told to give each region an onDone.
    const parallel = setup({ types: { events: {} as AgentActEvent } }).createMachine({
      initial: "play",
      entry: observe("say yes"),
      states: {
        play: {
          type: "parallel",
          states: {
            ask: {
              initial: "awaiting",
              states: { awaiting: { on: { "agent.act": { target: "done" } } }, done: { type: "final" } },
            },
            log: { initial: "done", states: { done: { type: "final" } } },
          },
        },
      },
    });
    const env = sayYes("parallel-final", "final states in the regions of a parallel state with no onDone", parallel);
    const { record } = await playEpisode(env, { seed: "s", actions: ["yes"] });
    expect(record.reason).toBe(
      'aborted: environment error: the machine is in state {"play":{"ask":"done","log":"done"}} waiting for nothing (no observe(), no end(), no tool call in flight): "play.ask.done", "play.log.done" are final states in the regions "play.ask", "play.log" of the parallel state "play", which has no onDone: a parallel state is done when each of its regions reaches a final state, and its onDone is what leaves it; the episode ends only at a final state of the machine\'s top level; give "play" an onDone to one, or end() the episode on the transition into it',
    );
  });
});

describe("a reward() whose kind, value or reason is wrong as written", () => {
  it("is refused where it is written, when the module loads, not in every episode that takes its transition", () => {
    // Before: reward("outcom", 1, "r") and reward("process", "0.5", "r") built, and every episode through them
    // aborted as an environment error (tsx runs an environment module without typechecking it).
    expect(() => reward("outcom" as never, 1, "r")).toThrow(
      'reward(kind, value, reason): kind must be "process" or "outcome", got "outcom" (a string)',
    );
    expect(() => reward("process", "0.5" as never, "r")).toThrow(
      'reward("process", value, reason): value must be a finite number or a function of { context, event } giving one, got "0.5" (a string)',
    );
    expect(() => reward("outcome", Number.NaN, "r")).toThrow(
      /^reward\("outcome", value, reason\): value must be .* got NaN$/,
    );
    expect(() => reward("process", 1, 3 as never)).toThrow(
      'reward("process", value, reason): reason must be a string or a function of { context, event } giving one, got 3',
    );
    // Functions are judged when they give their value, in the episode (above).
    expect(() =>
      reward(
        "process",
        () => Number.NaN,
        () => "r",
      ),
    ).not.toThrow();
  });
});

describe("an end() whose reason is no string as written", () => {
  it("is refused where it is written, naming what was given, as reward()'s reason is", () => {
    // Before: end(3) built, and every episode through it ended with the reason "3".
    expect(() => end(3 as never)).toThrow(
      "end(reason, metrics): reason must be a string or a function of { context, event } giving one, got 3",
    );
    expect(() => end({ why: "answered" } as never, { success: 1 })).toThrow(
      /^end\(reason, metrics\): reason must be a string .* got an object$/,
    );
    expect(() => end(undefined as never)).toThrow(/^end\(reason, metrics\): reason must be a string .* got undefined/);
    // A string, or a function judged when it gives its reason, in the episode.
    expect(() => end("answered", { success: 1 })).not.toThrow();
    expect(() => end(() => "answered")).not.toThrow();
  });

  it("refuses an observe() whose text, as written, is no string (forgotten, a number)", () => {
    // Before: observe() and observe(5) built, and every episode that took their transition aborted.
    expect(() => observe(undefined as never)).toThrow(
      "observe(text): text must be a string or a function of { context, event } giving one, got undefined",
    );
    expect(() => observe(5 as never)).toThrow(/^observe\(text\): text must be a string .* got 5$/);
    expect(() => observe(() => 5 as never)).not.toThrow(); // judged in the episode (above)
  });

  it("refuses metrics written as values that are not finite numbers, where they are written", () => {
    // Before: end("answered", { success: NaN }) built, and every episode that reached it aborted.
    expect(() => end("answered", { success: Number.NaN })).toThrow(
      "end(reason, metrics): metric success is NaN; metrics must be finite numbers (or a function of { context, event } giving them)",
    );
    expect(() => end("answered", { success: "yes" as never })).toThrow(
      /^end\(reason, metrics\): metric success is "yes" \(a string\)/,
    );
    expect(() => end("answered", 5 as never)).toThrow(
      /^end\(reason, metrics\): metrics must be an object of finite numbers .* got 5$/,
    );
    // A function's metrics are judged in the episode (above).
    expect(() => end("answered", () => ({ success: Number.NaN }))).not.toThrow();
  });
});

describe('an end() whose reason says "aborted:" or is no string', () => {
  // Before: end("aborted: patient left", { success: 1 }) was journaled as the runtime's own abort, so record
  // counted the episode as aborted ("success 1.000 of the 0 not aborted", exit 1 when all were), and train and
  // sft left it out; end(404) and a reason function's forgotten return were journaled as "404" and "undefined".
  it("is refused where it is written, as reward()'s reason is", () => {
    expect(() => end("aborted: patient left", { success: 1 })).toThrow(
      /^end\(reason, metrics\): the reason "aborted: patient left" \(a string\) starts with "aborted:", which marks an episode the runtime cut short .*give the environment's own ending another reason/,
    );
    // (a reason of another type as written: "an end() whose reason is no string as written", above)
    expect(() => end("refused", { success: 0 })).not.toThrow();
  });

  it("given by a function, ends that episode as an environment error naming the end() that gave it", async () => {
    const ending = (reason: () => unknown) =>
      defineEnv({
        id: "ending",
        version: "1",
        description: "ends with the reason a function gives",
        machine: setup({ types: { events: {} as AgentActEvent } }).createMachine({
          entry: observe("go"),
          initial: "w",
          states: {
            w: { on: { "agent.act": { target: "d", actions: end(reason as never, { success: 1 }) } } },
            d: { type: "final" },
          },
        }),
        tools: {},
        tokenizer: new WordTokenizer(["go"]),
        task: () => ({}),
      });
    const cases: [() => unknown, RegExp][] = [
      [
        () => "aborted: patient left",
        /^aborted: environment error: ending: end\(\): the reason "aborted: patient left" .* starts with "aborted:"/,
      ],
      [() => undefined, /^aborted: environment error: ending: end\(\)'s reason is undefined; give it as a string/],
    ];
    for (const [reason, said] of cases) {
      const { record } = await playEpisode(ending(reason), { seed: "s", actions: ["go"] });
      expect(record.reason).toMatch(said);
      expect(record.reason).toMatch(/\(end\(\) at \S*emitted-errors\.test\.ts:\d+:\d+\)$/);
    }
    const { record } = await playEpisode(
      ending(() => "refused"),
      { seed: "s", actions: ["go"] },
    );
    expect([record.reason, record.metrics]).toEqual(["refused", { success: 1 }]);
  });
});

describe("a reward() whose reason function gives no string", () => {
  // Before: reward("process", 1, () => 7) was journaled with the reason "7", an object's as "[object Object]" and a
  // forgotten return as "undefined", silently, where end()'s reason function ends the episode so (README: "a
  // function's result is judged in the episode, which it aborts").
  const rewarding = (reason: () => unknown) =>
    defineEnv({
      id: "rewarding",
      version: "1",
      description: "rewards with the reason a function gives",
      machine: setup({ types: { events: {} as AgentActEvent } }).createMachine({
        entry: observe("go"),
        initial: "w",
        states: {
          w: {
            on: {
              "agent.act": {
                target: "d",
                actions: [
                  reward("process", 0.25, "first"),
                  reward("outcome", 1, reason as never),
                  end("answered", { success: 1 }),
                ],
              },
            },
          },
          d: { type: "final" },
        },
      }),
      tools: {},
      tokenizer: new WordTokenizer(["go"]),
      task: () => ({}),
    });

  it.each([
    [() => 7, "7"],
    [() => ({ why: "right" }), "an object"],
    [() => undefined, "undefined"],
  ])(
    "%s: ends the episode as an environment error naming the reward and what its reason was",
    async (reason, shown) => {
      const env = rewarding(reason);
      const { record, events } = await playEpisode(env, { seed: "s", actions: ["go"] });
      expect(record.reason).toMatch(
        new RegExp(
          `^aborted: environment error: rewarding: reward\\("outcome", 1, reason\\): its reason is ${shown.replace(/[()]/g, "\\$&")}; give it as a string \\(reward\\(\\) at \\S*emitted-errors\\.test\\.ts:\\d+:\\d+\\)$`,
        ),
      );
      // What was recorded before it stays: the prompt, the action and the reward given before it, in the return.
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(["episode.started", "env.observed", "agent.acted", "reward.assigned", "episode.ended"]),
      );
      expect(events.flatMap((e) => (e.type === "reward.assigned" ? [[e.kind, e.value, e.reason]] : []))).toEqual([
        ["process", 0.25, "first"],
      ]);
      expect(record.return).toBe(0.25);
      // Replay re-derives that end from the journal.
      expect(replayEpisode(events, env, { verify: true }).reason).toBe(record.reason);
    },
  );

  it("a reason function that gives a string is journaled as it is", async () => {
    const { record, events } = await playEpisode(
      rewarding(() => "right"),
      { seed: "s", actions: ["go"] },
    );
    expect([record.reason, record.return]).toEqual(["answered", 1.25]);
    expect(events.flatMap((e) => (e.type === "reward.assigned" ? [e.reason] : []))).toEqual(["first", "right"]);
  });
});

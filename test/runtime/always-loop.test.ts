/**
 * An `always` transition whose guard keeps holding (to its own state, or round a cycle of states) looped
 * synchronously inside XState until memory ran out: defineEnv refuses unguarded cycles, but a guard's value
 * is known only at run time. The runtime now bounds the microsteps of one event, so such an episode ends as
 * an environment error, recorded with the events before it.
 */
import { describe, expect, it } from "vitest";
import { assign, raise, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  MemoryJournal,
  observe,
  WordTokenizer,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { exploreEnv, playEpisode } from "../../src/testing/index.ts";

const loopingEnv = (id: string, cycle: boolean, maxIterations?: number) =>
  defineEnv({
    id,
    version: "1",
    description: "an always transition whose guard keeps holding once the agent says spin",
    machine: setup({
      types: {
        context: {} as { spins: number },
        events: {} as AgentActEvent,
        input: {} as EnvInput<{ q: string }>,
      },
    }).createMachine({
      context: { spins: 0 },
      ...(maxIterations === undefined ? {} : { options: { maxIterations } }),
      initial: "awaiting",
      entry: observe("say something"),
      states: {
        awaiting: {
          on: {
            "agent.act": [
              { guard: ({ event }) => event.text.includes("spin"), target: "spinning" },
              { guard: ({ event }) => event.text.includes("stop"), target: "done", actions: end("stopped", {}) },
              { actions: observe("again") },
            ],
          },
        },
        spinning: {
          always: {
            guard: ({ context }) => context.spins >= 0,
            target: cycle ? "turning" : "spinning",
            reenter: true,
            actions: assign({ spins: ({ context }) => context.spins + 1 }),
          },
        },
        turning: { always: { guard: () => true, target: "spinning" } },
        done: { type: "final" },
      },
    }),
    tools: {},
    tokenizer: new WordTokenizer(["say", "something", "again", "spin", "stop", "hello"]),
    task: () => ({ q: "x" }),
  });

describe("an always transition whose guard keeps holding", () => {
  it.each([
    ["to its own state", false, 'looping in state "spinning"'],
    ["round a cycle of states", true, 'looping round states "spinning" → "turning" → "spinning"'],
  ])(
    "%s ends the episode as an environment error naming the looping states, keeping the events before it",
    async (_, cycle, loop) => {
      const env = loopingEnv(cycle ? "cycling" : "spinning", cycle);
      const journal = new MemoryJournal();
      const { record } = await playEpisode(env, { seed: "s", actions: ["hello", "spin"] }, { journal });
      expect(record.reason).toBe(
        `aborted: environment error: event agent.act in state "awaiting" set off more than 10000 microsteps without settling, ${loop}: an \`always\` transition whose guard stays true (to its own state, or round a cycle of states), or events raised in a loop; make the guard false once its transition is taken, or wait there for the agent (observe()) or a tool (XState: Infinite loop detected)`,
      );
      // The events before it are kept: the first action and what it got, the looping one, then the end.
      const events = await journal.read(record.episode);
      expect(events.map((e) => e.type)).toEqual([
        "episode.started",
        "env.observed",
        "env.transitioned",
        "agent.acted",
        "env.observed",
        "env.transitioned",
        "agent.acted",
        "episode.ended",
      ]);
      // Replay re-derives the same end (it bounds the machine as the live runtime does), rather than loop.
      expect(replayEpisode(events, env).reason).toBe(record.reason);
      // The bound is on the framework's copies: the user's machine is not changed.
      expect(env.machine.options.maxIterations).toBe(Number.POSITIVE_INFINITY);
    },
    20_000,
  );

  it("events raised in a loop are said as the event sent to the machine, live and in replay (which verifies)", async () => {
    // An action raising the event it handles: XState's microsteps take the raised event, which replay never sees.
    const env = defineEnv({
      id: "raising",
      version: "1",
      description: "an event raised in a loop once the agent acts",
      machine: setup({
        types: {
          context: {} as { n: number },
          events: {} as AgentActEvent | { type: "ping" },
          input: {} as EnvInput<{ q: string }>,
        },
      }).createMachine({
        context: { n: 0 },
        initial: "awaiting",
        entry: observe("say something"),
        states: {
          awaiting: { on: { "agent.act": { target: "pinging", actions: raise({ type: "ping" }) } } },
          pinging: {
            on: { ping: { actions: [assign({ n: ({ context }) => context.n + 1 }), raise({ type: "ping" })] } },
          },
        },
      }),
      tools: {},
      tokenizer: new WordTokenizer(["say", "something", "spin"]),
      task: () => ({ q: "x" }),
    });
    const journal = new MemoryJournal();
    const { record } = await playEpisode(env, { seed: "s", actions: ["spin"] }, { journal });
    expect(record.reason).toMatch(
      /^aborted: environment error: event agent\.act in state "awaiting" set off more than 10000 microsteps without settling, looping in state "pinging": /,
    );
    const events = await journal.read(record.episode);
    expect(replayEpisode(events, env, { verify: true }).reason).toBe(record.reason);
  }, 20_000);

  it("names the states that loop, not the one the event arrived in, live, in replay (which verifies) and in exploreEnv", async () => {
    // The action takes the machine to "arrived", which passes on to "b" by an always transition; b and c then
    // pass to each other for ever (their guards keep holding).
    const env = defineEnv({
      id: "onward",
      version: "1",
      description: "arrives in one state, then loops between two others",
      machine: setup({
        types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
      }).createMachine({
        context: { n: 0 },
        initial: "awaiting",
        entry: observe("say something"),
        states: {
          awaiting: { on: { "agent.act": "arrived" } },
          arrived: { always: "b" },
          b: { always: { guard: ({ context }) => context.n >= 0, target: "c" } },
          c: { always: { guard: () => true, target: "b", actions: assign({ n: ({ context }) => context.n + 1 }) } },
        },
      }),
      tools: {},
      tokenizer: new WordTokenizer(["say", "something", "go"]),
      task: () => ({ q: "x" }),
    });
    const journal = new MemoryJournal();
    const { record } = await playEpisode(env, { seed: "s", actions: ["go"] }, { journal });
    expect(record.reason).toMatch(
      /^aborted: environment error: event agent\.act in state "awaiting" set off more than 10000 microsteps without settling, looping round states "b" → "c" → "b": /,
    );
    expect(record.reason).not.toContain('"arrived"');
    const events = JSON.parse(JSON.stringify(await journal.read(record.episode)));
    expect(replayEpisode(events, env, { verify: true }).reason).toBe(record.reason);
    const report = exploreEnv(env, { actions: ["go"] });
    expect(report.problems.map((p) => p.detail).join("\n")).toContain(
      'event agent.act in state "awaiting" set off more than 10000 microsteps without settling, looping round states "b" → "c" → "b"',
    );
  }, 20_000);

  it("names the looping state of a machine that loops on entering its initial state", async () => {
    const env = defineEnv({
      id: "looping-start",
      version: "1",
      description: "loops as it starts",
      machine: setup({
        types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
      }).createMachine({
        context: { n: 0 },
        initial: "first",
        on: { "agent.act": ".first" },
        states: {
          first: { always: "round" },
          round: {
            always: {
              guard: ({ context }) => context.n >= 0,
              target: "round",
              reenter: true,
              actions: assign({ n: ({ context }) => context.n + 1 }),
            },
          },
        },
      }),
      tools: {},
      tokenizer: new WordTokenizer(["go"]),
      task: () => ({ q: "x" }),
    });
    const journal = new MemoryJournal();
    const { record } = await playEpisode(env, { seed: "s", actions: [] }, { journal });
    expect(record.reason).toMatch(
      /^aborted: environment error: entering the machine's initial state set off more than 10000 microsteps without settling, looping in state "round": /,
    );
    // Replay re-derives that end (XState's initial transition gives the error as a snapshot, not a throw).
    expect(replayEpisode(await journal.read(record.episode), env, { verify: true }).reason).toBe(record.reason);
    const report = exploreEnv(env, { actions: ["go"] });
    expect(report.problems.map((p) => p.detail).join("\n")).toContain(
      'entering the machine\'s initial state set off more than 10000 microsteps without settling, looping in state "round"',
    );
  }, 20_000);

  it("replay --verify takes the end of a journal recorded before the looping states were named", async () => {
    const env = loopingEnv("older", true);
    const journal = new MemoryJournal();
    const { record } = await playEpisode(env, { seed: "s", actions: ["spin"] }, { journal });
    const events = (await journal.read(record.episode)).map((event) =>
      event.type === "episode.ended"
        ? { ...event, reason: event.reason.replace(/, looping round states [^:]*:/, ":") }
        : event,
    );
    expect(events.at(-1)?.type === "episode.ended" && events.at(-1)).toMatchObject({
      reason: expect.stringContaining("microsteps without settling: an `always`"),
    });
    const older = (events.at(-1) as { reason: string }).reason;
    expect(replayEpisode(events, env, { verify: true }).reason).toBe(older);
  }, 20_000);

  it("a machine's own options.maxIterations is the bound instead", async () => {
    const env = loopingEnv("own-bound", false, 50);
    const { record } = await playEpisode(env, { seed: "s", actions: ["spin"] });
    expect(record.reason).toMatch(
      /^aborted: environment error: event agent\.act in state "awaiting" set off more than 50 microsteps without settling, looping in state "spinning": /,
    );
  });

  it("exploreEnv ends and reports it, on the path that sets it off, rather than loop", () => {
    const report = exploreEnv(loopingEnv("explored", true), { actions: ["hello", "spin", "stop"] });
    const endless = report.problems.filter((p) => p.detail.includes("microsteps without settling"));
    expect(endless.length, JSON.stringify(report.problems)).toBeGreaterThan(0);
    expect(endless[0].detail).toContain('event agent.act in state "awaiting" set off more than 10000 microsteps');
    expect(endless[0].detail).toContain("`always` transition whose guard stays true");
  }, 20_000);
});

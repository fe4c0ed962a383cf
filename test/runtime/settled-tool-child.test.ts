/**
 * XState keeps an invoked child in the snapshot's children after its result was delivered, while the machine
 * stays in the invoking state (an `onDone` without a target). The runtime took such a child for a call in
 * flight: a machine that then observed was never asked for its next action, and one left waiting for
 * nothing was never aborted; the episode hung, and `record` stopped with Node's exit 13 blaming a module.
 */
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  observe,
  replayEpisode,
  reward,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";
import { echoTool } from "../support/index.ts";

const echo = echoTool;
const tools = { echo };
const tokenizer = WordTokenizer.fromCorpus(["go echo a b stop"]);
const base = { version: "1", description: "an echo", tools, tokenizer, task: () => ({}) };
const types = {
  context: {} as { n: number },
  events: {} as AgentActEvent,
  input: {} as EnvInput<Record<string, never>>,
};

describe("a tool's child that has returned is no call in flight", () => {
  it("a machine that takes the result and stays, observing, is asked again (and replays)", async () => {
    const machine = setup({ types, actors: toolActors(tools) }).createMachine({
      context: { n: 0 },
      entry: observe("go"),
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": { target: "asking" } } },
        asking: {
          invoke: {
            src: "echo",
            input: { word: "a" },
            onDone: { actions: observe(({ event }) => String(event.output.ok)) },
          },
          on: {
            "agent.act": [
              { guard: ({ event }) => event.text === "stop", target: "done", actions: end("stopped", { success: 1 }) },
              { actions: [assign({ n: ({ context }) => context.n + 1 }), observe("again")] },
            ],
          },
        },
        done: { type: "final" },
      },
    });
    const env = defineEnv({ ...base, id: "stays", machine });
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["<echo>a</echo>", "a", "stop"] });
    expect(record.reason).toBe("stopped");
    expect(record.turns).toBe(3);
    expect(() => replayEpisode(events, env)).not.toThrow();
  });

  it("a machine left waiting for nothing after a result aborts, saying so, instead of hanging", async () => {
    const machine = setup({ types, actors: toolActors(tools) }).createMachine({
      context: { n: 0 },
      entry: observe("go"),
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": { target: "asking" } } },
        asking: { invoke: { src: "echo", input: { word: "a" }, onDone: { actions: reward("process", 0.1, "got") } } },
      },
    });
    const env = defineEnv({ ...base, id: "stuck", machine });
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["<echo>a</echo>"] });
    expect(record.reason).toMatch(/^aborted: environment error: the machine is in state "asking" waiting for nothing/);
    expect(() => replayEpisode(events, env)).not.toThrow();
  });

  it("two concurrent calls whose join never fires abort once both have returned", async () => {
    const machine = setup({ types, actors: toolActors(tools) }).createMachine({
      context: { n: 0 },
      entry: observe("go"),
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": { target: "both" } } },
        both: {
          invoke: [
            { src: "echo", input: { word: "a" }, onDone: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
            { src: "echo", input: { word: "b" }, onDone: { actions: assign({ n: ({ context }) => context.n + 1 }) } },
          ],
          // The join waits for three results of two calls: it never fires.
          always: { guard: ({ context }) => context.n === 3, target: "waiting", actions: observe("both") },
        },
      },
    });
    const env = defineEnv({ ...base, id: "join", machine });
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["a"] });
    expect(events.filter((e) => e.type === "tool.returned")).toHaveLength(2);
    expect(record.reason).toMatch(/^aborted: environment error: the machine is in state "both" waiting for nothing/);
  });
});

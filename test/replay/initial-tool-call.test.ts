/**
 * A machine whose first state calls a tool while its entry observes the task: the live actor starts the
 * initial state's children before it runs the entry's other actions, so the journal has the tool call
 * before the observation. Replay derived them the other way round and failed an honest journal, with a hint
 * blaming an impure guard.
 */
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
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
const machine = setup({
  types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<Record<string, never>> },
  actors: toolActors(tools),
}).createMachine({
  context: { n: 0 },
  entry: [observe("go"), reward("process", 0.1, "started")],
  initial: "warming",
  states: {
    // Two readings before the agent's first turn, while the task is observed.
    warming: {
      invoke: [
        { src: "echo", input: { word: "a" }, onDone: { actions: observe("a") } },
        { src: "echo", input: { word: "b" }, onDone: { target: "waiting", actions: observe("b") } },
      ],
    },
    waiting: { on: { "agent.act": { target: "done", actions: end("ok", { success: 1 }) } } },
    done: { type: "final" },
  },
});
const env = defineEnv({
  id: "warm-up",
  version: "1",
  description: "reads before the agent acts",
  machine,
  tools,
  tokenizer: WordTokenizer.fromCorpus(["go a b"]),
  task: () => ({}),
});

describe("tool calls of the initial state", () => {
  it("are journaled before the entry's observation, and replay derives them in that order", async () => {
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["a"] });
    expect(record.reason).toBe("ok");
    expect(events.slice(1, 5).map((e) => e.type)).toEqual([
      "tool.called",
      "tool.called",
      "env.observed",
      "reward.assigned",
    ]);
    expect(() => replayEpisode(events, env)).not.toThrow();
  });
});

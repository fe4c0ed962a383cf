/** An environment that calls four tools at once each turn, for arrival-order tests. */
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  observe,
  parseAction,
  reward,
  Schema,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";

export const FAN_OUT_TOOLS = ["a", "b", "c", "d"] as const;

/**
 * Each action that is not an answer calls a, b, c and d at once (in that order), then pays the process reward
 * `rewardOf(order)`, order being the tools in the order their results arrived; an answer, or the third action,
 * ends the episode.
 */
export const createFanOutEnv = (rewardOf: (order: readonly string[]) => number) => {
  const tools = Object.fromEntries(
    FAN_OUT_TOOLS.map((name) => [
      name,
      defineTool({
        name,
        description: `tool ${name}`,
        parameters: Schema.Struct({ q: Schema.String }),
        execute: () => name.toUpperCase(),
      }),
    ]),
  );
  const region = (name: string) => ({
    initial: "wait",
    states: {
      wait: {
        invoke: {
          src: name,
          input: { q: name },
          onDone: { target: "got", actions: { type: "arrived" as const, params: { name } } },
        },
      },
      got: { type: "final" as const },
    },
  });
  const machine = setup({
    types: {
      context: {} as { order: string[]; turn: number },
      events: {} as AgentActEvent,
      input: {} as EnvInput<{ q: string }>,
    },
    actors: toolActors(tools),
    actions: {
      arrived: assign({ order: ({ context }, params: { name: string }) => [...context.order, params.name] }),
    },
  }).createMachine({
    context: { order: [], turn: 0 },
    initial: "awaiting",
    entry: observe("ask"),
    states: {
      awaiting: {
        on: {
          "agent.act": [
            {
              guard: ({ context, event }) => context.turn >= 2 || parseAction(event.text, tools).kind === "answer",
              target: "done",
              actions: [reward("outcome", 1, "answered"), end("answered", { success: 1 })],
            },
            { target: "all", actions: assign({ order: [], turn: ({ context }) => context.turn + 1 }) },
          ],
        },
      },
      all: {
        type: "parallel",
        states: Object.fromEntries(FAN_OUT_TOOLS.map((name) => [name, region(name)])),
        onDone: {
          target: "awaiting",
          actions: [
            reward("process", ({ context }) => rewardOf(context.order), "arrival order"),
            observe(({ context }) => context.order.join(" ")),
          ],
        },
      },
      done: { type: "final" },
    },
  });
  return defineEnv({
    id: "fan-out",
    version: "1",
    description: "four tools at once",
    machine,
    tools,
    tokenizer: new WordTokenizer(["a", "b", "c", "d", "ask", "answer"]),
    task: () => ({ q: "x" }),
  });
};

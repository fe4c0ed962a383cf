/**
 * observe(), reward() and end() take their context and event types from the machine they are placed in, as
 * XState's own assign() does: a TypeScript user gets a typo in `context.task` flagged by the compiler
 * (npm test type-checks this file), not an `undefined` in an observation at run time.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  observe,
  reward,
  type ToolResult,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";
import { echoTool } from "../support/index.ts";

type Task = { word: string };
type Context = { task: Task; asked: number };
const echo = echoTool;
const tools = { echo };

const machine = setup({
  types: { context: {} as Context, events: {} as AgentActEvent, input: {} as EnvInput<Task> },
  actors: toolActors(tools),
}).createMachine({
  context: ({ input }) => ({ task: input.task, asked: 0 }),
  entry: observe(({ context }) => {
    expectTypeOf(context).toEqualTypeOf<Context>();
    // @ts-expect-error: a field the context does not have is a compile error
    void context.task.wrod;
    return `say ${context.task.word}`;
  }),
  initial: "waiting",
  states: {
    waiting: {
      on: {
        "agent.act": [
          {
            guard: ({ event }) => event.text === "ask",
            target: "asking",
            actions: [
              reward(
                "process",
                ({ event }) => {
                  expectTypeOf(event).toEqualTypeOf<AgentActEvent>();
                  // @ts-expect-error: so is a misspelt event field
                  void event.txt;
                  return event.tokens.length > 0 ? 0.1 : 0;
                },
                ({ context }) => `asked about ${context.task.word}`,
              ),
              assign({ asked: ({ context }) => context.asked + 1 }),
            ],
          },
          {
            target: "done",
            actions: [
              reward("outcome", ({ context, event }) => (event.text === context.task.word ? 1 : 0), "answer"),
              end("answered", ({ context, event }) => ({
                success: event.text === context.task.word ? 1 : 0,
                asked: context.asked,
              })),
            ],
          },
        ],
      },
    },
    asking: {
      invoke: {
        src: "echo",
        input: ({ context }: { context: Context }) => ({ word: context.task.word }),
        onDone: {
          target: "waiting",
          actions: observe(({ event }) => {
            // A tool's done event carries its ToolResult.
            expectTypeOf(event.output).toEqualTypeOf<ToolResult>();
            return event.output.ok ? `it says ${event.output.content}` : "error";
          }),
        },
      },
    },
    done: { type: "final" },
  },
});

const env = defineEnv<Task>({
  id: "typed",
  version: "1",
  description: "echoes a word; the agent says it",
  machine,
  tools,
  tokenizer: new WordTokenizer(["say", "it", "says", "ask", "error", "hello"]),
  task: () => ({ word: "hello" }),
});

describe("typed action creators", () => {
  it("run as before: the callbacks see the machine's context and the event", async () => {
    const { record, events } = await playEpisode(env, { seed: "s", actions: ["ask", "hello"] });
    const observations = events.flatMap((e) => (e.type === "env.observed" ? [e.text] : []));
    expect(observations).toEqual(["say hello", "it says hello"]);
    expect(record.return).toBeCloseTo(1.1);
    expect(record.reason).toBe("answered");
  });
});

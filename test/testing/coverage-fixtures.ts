/**
 * `counter`: a tiny machine for the coverage tests. Every action but "end" (and the optional "limbo" and
 * "stuck") is a turn: it counts `turns` up, or appends the action to `seen`, or both, and observes. With a
 * `turnLimit` the episode ends there; without one it never ends while its context keeps growing.
 */
import { assign, setup } from "xstate";
import * as r1 from "../../src/index.ts";

type Context = { turns: number; seen: string[] };

export interface CounterOptions {
  /** End the episode once `turns` reaches this (default: never). */
  readonly turnLimit?: number;
  /** What a turn grows: the `turns` count, the `seen` list, or both (default "turns"). */
  readonly grows?: "turns" | "seen" | "both";
  /** "limbo" leads to a state that waits for nothing; "stuck" to a state no path leaves. */
  readonly traps?: boolean;
}

export const createCounterEnv = (options: CounterOptions = {}) => {
  const grows = options.grows ?? "turns";
  const machine = setup({
    types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput },
  }).createMachine({
    id: "counter",
    context: { turns: 0, seen: [] },
    entry: r1.observe("go"),
    initial: "waiting",
    states: {
      waiting: {
        on: {
          "agent.act": [
            { guard: ({ event }) => event.text === "end", target: "done", actions: r1.end("answered") },
            {
              guard: ({ context }) => options.turnLimit !== undefined && context.turns >= options.turnLimit,
              target: "done",
              actions: r1.end("turn-limit"),
            },
            { guard: ({ event }) => options.traps === true && event.text === "limbo", target: "limbo" },
            {
              guard: ({ event }) => options.traps === true && event.text === "stuck",
              target: "stuck",
              actions: r1.observe("stuck"),
            },
            {
              target: "waiting",
              reenter: true,
              actions: [
                assign({
                  turns: ({ context }) => (grows === "seen" ? context.turns : context.turns + 1),
                  seen: ({ context, event }) => (grows === "turns" ? context.seen : [...context.seen, event.text]),
                }),
                r1.observe(({ context }) => `turn ${context.turns}`),
              ],
            },
          ],
        },
      },
      limbo: {},
      stuck: { on: { "agent.act": { target: "stuck", reenter: true, actions: r1.observe("still stuck") } } },
      done: { type: "final" },
    },
  });
  return r1.defineEnv({
    id: "counter",
    version: "1",
    description: "Counts turns; ends on request, or at a turn limit.",
    machine,
    tools: {},
    tokenizer: r1.WordTokenizer.fromCorpus(["go turn stuck still end limbo tick tock 0 1 2 3 4 5 6 7 8 9"]),
    task: () => null,
  });
};

/**
 * `lookup`: find the value of a key in a store, through a `lookup(key)` tool, in one or two hops.
 *
 * Rewards: +0.2 (process) for a well-formed lookup that retrieves a key the task needs, the first time;
 * -0.1 for a malformed action; -0.1 for repeating a lookup; outcome 1 for the right answer, else 0.
 */

import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  formatAnswer,
  formatCall,
  type LegalView,
  observe,
  parseAction,
  reward,
  Schema,
  type ToolResult,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { drawTask, KEYS, type LookupTask, promptOf, STORE, solve, VALUES } from "./store.ts";

export const MAX_TURNS = 6;

export const lookupTool = defineTool({
  name: "lookup",
  description: "Returns the value stored under a key, or null when the key does not exist.",
  parameters: Schema.Struct({ key: Schema.String }),
  timeoutMs: 1000,
  // Own keys only: `__proto__` or `toString` would find Object.prototype's.
  execute: ({ key }) => (Object.hasOwn(STORE, key) ? STORE[key] : null),
});

const tools = { lookup: lookupTool };

interface Context {
  task: LookupTask;
  turn: number;
  looked: string[];
  lastReward: number;
  pending: string;
  feedback: string;
}

type Events = AgentActEvent;

/** The reward scheme; the defaults are the environment's. Variants exist to re-reward recorded episodes. */
export interface LookupRewards {
  readonly neededKey: number;
  readonly repeated: number;
  readonly malformed: number;
}
export const DEFAULT_REWARDS: LookupRewards = { neededKey: 0.2, repeated: -0.1, malformed: -0.1 };

const createMachine = (rewards: LookupRewards) =>
  setup({
    types: { context: {} as Context, events: {} as Events, input: {} as EnvInput<LookupTask> },
    actors: toolActors(tools),
    guards: {
      outOfTurns: ({ context }) => context.turn >= MAX_TURNS,
    },
  }).createMachine({
    id: "lookup",
    context: ({ input }) => ({
      task: input.task,
      turn: 0,
      looked: [],
      lastReward: 0,
      pending: "",
      feedback: "",
    }),
    initial: "awaiting",
    entry: observe(({ context }) => promptOf(context.task)),
    states: {
      awaiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => parseAction(event.text, tools).kind === "answer",
              target: "done",
              actions: [
                assign({ turn: ({ context }) => context.turn + 1 }),
                reward(
                  "outcome",
                  ({ context, event }) => (answerOf(event.text) === solve(context.task).answer ? 1 : 0),
                  ({ context, event }) =>
                    answerOf(event.text) === solve(context.task).answer ? "correct answer" : "wrong answer",
                ),
                end("answered", ({ context, event }) => ({
                  success: answerOf(event.text) === solve(context.task).answer ? 1 : 0,
                })),
              ],
            },
            {
              guard: ({ event }) => parseAction(event.text, tools).kind === "call",
              target: "calling",
              actions: assign({
                turn: ({ context }) => context.turn + 1,
                pending: ({ event }) => keyOf(event.text),
              }),
            },
            {
              target: "checkTurns",
              actions: [
                assign({
                  turn: ({ context }) => context.turn + 1,
                  feedback: ({ event }) => {
                    const parsed = parseAction(event.text, tools);
                    return `error : ${parsed.kind === "malformed" ? "malformed action" : "unexpected action"} .`;
                  },
                }),
                reward("process", rewards.malformed, "malformed action"),
              ],
            },
          ],
        },
      },
      calling: {
        invoke: {
          src: "lookup",
          input: ({ context }: { context: Context }) => ({ key: context.pending }),
          onDone: {
            target: "checkTurns",
            actions: [
              reward(
                "process",
                ({ context }) => processReward(context, rewards),
                ({ context }) => processReason(context),
              ),
              assign({
                looked: ({ context }) => [...context.looked, context.pending],
                feedback: ({ context, event }) => describeResult(context.pending, event.output),
              }),
            ],
          },
        },
      },
      checkTurns: {
        always: [
          {
            guard: "outOfTurns",
            target: "done",
            actions: [reward("outcome", 0, "turn limit"), end("turn-limit", { success: 0 })],
          },
          { target: "awaiting", actions: observe(({ context }) => context.feedback) },
        ],
      },
      done: { type: "final" },
    },
  });

const answerOf = (text: string) => {
  const parsed = parseAction(text, tools);
  return parsed.kind === "answer" ? parsed.text : "";
};
const keyOf = (text: string) => {
  const parsed = parseAction(text, tools);
  return parsed.kind === "call" ? String((parsed.args as { key: string }).key) : "";
};

const processReward = (context: Context, rewards: LookupRewards): number => {
  if (context.looked.includes(context.pending)) return rewards.repeated;
  return solve(context.task).path.includes(context.pending) ? rewards.neededKey : 0;
};
const processReason = (context: Context): string => {
  if (context.looked.includes(context.pending)) return "repeated lookup";
  return solve(context.task).path.includes(context.pending) ? "retrieved a needed key" : "retrieved an unneeded key";
};

const describeResult = (key: string, result: ToolResult): string => {
  if (!result.ok) return `error : lookup failed ( ${result.error.kind} ) .`;
  return result.content === null ? `${key} : not found .` : `${key} = ${String(result.content)} .`;
};

export const tokenizer = new WordTokenizer([
  ...KEYS,
  ...VALUES,
  ..."Find the value stored under The key holds another that error malformed action unexpected lookup failed not found answer timeout invalid args".split(
    " ",
  ),
  "<",
  ">",
  "/",
  ".",
  ":",
  "=",
  "(",
  ")",
  "-",
]);

/**
 * Constrained decoding's legal actions: a lookup of a key the prompt or a result named, or an answer naming
 * a value some result showed.
 */
export const legalActions = ({ history }: LegalView<LookupTask>): string[] => {
  const words = (turns: readonly { text: string }[]) => new Set(turns.flatMap((t) => t.text.split(/\s+/)));
  const observations = history.filter((t) => t.role === "observation");
  const named = words(observations);
  const shown = words(observations.slice(1));
  return [
    ...KEYS.filter((k) => named.has(k)).map((key) => formatCall(lookupTool, { key })),
    ...VALUES.filter((v) => shown.has(v)).map((v) => formatAnswer(v)),
  ];
};

/** The warm start lookup declares: expert episodes cloned, and cloning epochs (`train` and `npm start`). */
export const LOOKUP_WARM_START = { episodes: 400, epochs: 5 } as const;

export const createLookupEnv = (rewards: LookupRewards = DEFAULT_REWARDS) =>
  defineEnv<LookupTask>({
    id: "lookup",
    version: "1",
    description: "Find a key's value in a store through a lookup tool (one or two hops).",
    machine: createMachine(rewards),
    tools,
    tokenizer,
    task: drawTask,
    maxTurns: MAX_TURNS + 2,
    legalActions,
    // The copy head: a key named in the prompt or a value shown in a result is one pointer away.
    model: { copy: true },
    // A fresh policy never samples a well-formed <lookup>...</lookup> (RL would see no reward): clone a few
    // expert episodes first. `train --no-warm-start` skips it.
    warmStart: LOOKUP_WARM_START,
  });

export const lookupEnv = createLookupEnv();

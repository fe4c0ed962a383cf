/**
 * `secret`: a small environment whose reward functions the kit's tests swap for broken ones. The agent
 * checks words with a `check` tool ("yes" when it is the secret) and answers; the default rewards are
 * sound: +0.1 the first time a word is checked, -0.05 for a malformed action, outcome 1 for the secret.
 */
import fc from "fast-check";
import { assign, setup } from "xstate";
import * as r1 from "../../src/index.ts";

export const WORDS = ["ant", "bee", "cat", "dog", "elk"];

const check = r1.defineTool({
  name: "check",
  description: "Looks a word up; the environment compares what it returns with the secret.",
  parameters: r1.Schema.Struct({ word: r1.Schema.String }),
  execute: ({ word }, _context) => word,
});
const tools = { check };

type Task = { secret: string };
type Context = { task: Task; turn: number; checked: string[]; word: string };

export interface SecretRewards {
  /** Process reward when a check returns. */
  readonly process: (c: { checked: readonly string[]; word: string; secret: string }) => number;
  /** Outcome reward for an answer. */
  readonly outcome: (c: { answer: string; secret: string; turn: number }) => number;
}

export const SOUND_REWARDS: SecretRewards = {
  process: ({ checked, word }) => (checked.includes(word) ? 0 : 0.1),
  outcome: ({ answer, secret }) => (answer === secret ? 1 : 0),
};

export const TURN_LIMIT = 5;

export const createSecretEnv = (
  rewards: Partial<SecretRewards> = {},
  /** turnLimitOutcome: the outcome reward of the turn limit's end (default none). */
  options: {
    crashOn?: RegExp;
    loops?: boolean;
    turnLimit?: number;
    forgetsFailedChecks?: boolean;
    turnLimitOutcome?: number;
  } = {},
) => {
  const turnLimit = options.turnLimit ?? TURN_LIMIT;
  const { process, outcome } = { ...SOUND_REWARDS, ...rewards };
  const answer = (text: string) => r1.answerOf(text, tools);
  const word = (text: string) => r1.callOf<{ word: string }>(text, tools, "check")?.word;
  const machine = setup({
    types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
    actors: r1.toolActors(tools),
  }).createMachine({
    id: "secret",
    context: ({ input }) => ({ task: input.task, turn: 0, checked: [], word: "" }),
    entry: r1.observe("guess the secret word"),
    initial: "waiting",
    states: {
      waiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => {
                if (options.crashOn?.test(event.text)) throw new Error("cannot read this action");
                return answer(event.text) !== undefined;
              },
              target: "done",
              actions: [
                r1.reward(
                  "outcome",
                  ({ context, event }) =>
                    outcome({ answer: answer(event.text)!, secret: context.task.secret, turn: context.turn }),
                  "answer",
                ),
                r1.end("answered"),
              ],
            },
            {
              guard: ({ context }) => !options.loops && context.turn >= turnLimit - 1,
              target: "done",
              actions:
                options.turnLimitOutcome === undefined
                  ? r1.end("turn-limit")
                  : [r1.reward("outcome", options.turnLimitOutcome, "turn-limit"), r1.end("turn-limit")],
            },
            {
              guard: ({ event }) => word(event.text) !== undefined,
              target: "checking",
              actions: assign({ word: ({ event }) => word(event.text)!, turn: ({ context }) => context.turn + 1 }),
            },
            {
              target: "waiting",
              reenter: true,
              actions: [
                assign({ turn: ({ context }) => (options.loops ? context.turn : context.turn + 1) }),
                r1.reward("process", -0.05, "malformed"),
                r1.observe("error : use <check>word</check> or <answer>word</answer>"),
              ],
            },
          ],
        },
      },
      checking: {
        invoke: {
          src: "check",
          input: ({ context }: { context: Context }) => ({ word: context.word }),
          onDone: {
            target: "waiting",
            actions: [
              r1.reward(
                "process",
                ({ context }) => process({ checked: context.checked, word: context.word, secret: context.task.secret }),
                "checked a word",
              ),
              // forgetsFailedChecks: a failed check is not remembered, so its retry is a first check again.
              assign({
                checked: ({ context, event }) =>
                  options.forgetsFailedChecks && !(event.output as r1.ToolResult).ok
                    ? context.checked
                    : [...context.checked, context.word],
              }),
              r1.observe(({ context, event }) => {
                const result = event.output as r1.ToolResult;
                if (!result.ok) return `error : ${result.error.kind}`;
                return `${context.word} : ${result.content === context.task.secret ? "yes" : "no"}`;
              }),
            ],
          },
        },
      },
      done: { type: "final" },
    },
  });
  return r1.defineEnv<Task>({
    id: "secret",
    version: "1",
    description: "Find the secret word with a check tool.",
    machine,
    tools,
    tokenizer: r1.WordTokenizer.fromCorpus([...WORDS, "guess the secret word error use check answer yes no : < > /"]),
    task: (seed) => ({ secret: r1.Rng.fromSeed(seed).pick(WORDS) }),
  });
};

/** Meaningful arguments and answers for `secret`, for the action arbitraries. */
export const secretActions = {
  args: { check: fc.constantFrom(...WORDS).map((word) => ({ word })) },
  answers: fc.constantFrom(...WORDS),
};

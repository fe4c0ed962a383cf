/**
 * XState skips an action named by a string that setup() does not define, without a word: a misspelt
 * `"cots"` for `"cost"` dropped a reward from every episode, which recorded, replayed and trained as if the
 * machine had none. defineEnv refuses such a name (and a guard's, which XState throws on only when an episode
 * reaches it), naming the state, where it is used and the name meant. (TypeScript catches such a name in a
 * machine typed by setup(), but tsx runs an environment module without typechecking it; the casts below stand
 * for that.) So is a compound state's `initial` that names none of its children, which XState resolves only
 * when an episode enters the state.
 */
import { describe, expect, it } from "vitest";
import { and, assign, not, or, setup, stateIn } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  observe,
  reward,
  Schema,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";

const echo = defineTool({
  name: "echo",
  description: "says it back",
  parameters: Schema.Struct({ text: Schema.String }),
  execute: ({ text }) => text,
});
const tools = { echo };
type Names = { entry?: string; act?: string; done?: string; guard?: string; always?: string };
const envWith = (names: Names) => {
  const machine = setup({
    types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
    actors: toolActors(tools),
    actions: { cost: reward("process", -0.1, "call cost"), count: assign({ n: ({ context }) => context.n + 1 }) },
    guards: { isStop: ({ event }) => (event as AgentActEvent).text === "stop" },
  }).createMachine({
    context: { n: 0 },
    initial: "waiting",
    entry: [observe("go"), ...(names.entry ? [names.entry as never] : [])],
    states: {
      waiting: {
        on: {
          "agent.act": [
            { guard: (names.guard ?? "isStop") as "isStop", target: "done", actions: end("stopped", { success: 1 }) },
            { target: "calling", actions: [(names.act ?? "count") as "count"] },
          ],
        },
      },
      calling: {
        invoke: {
          src: "echo",
          input: { text: "x" },
          onDone: { target: "checked", actions: [(names.done ?? "cost") as "cost", observe("again")] },
        },
      },
      checked: { always: { target: "waiting", actions: { type: (names.always ?? "count") as "count" } } },
      done: { type: "final" },
    },
  });
  return defineEnv({
    id: "named",
    version: "1",
    description: "named actions and guards",
    machine,
    tools,
    tokenizer: new WordTokenizer(["go", "again", "stop"]),
    task: () => ({ q: "x" }),
  });
};

describe("defineEnv and the machine's named actions and guards", () => {
  it("takes a machine whose every named action and guard is defined", () => {
    expect(envWith({}).id).toBe("named");
  });
  it.each([
    [
      { done: "cots" },
      /state "calling"'s invoke onDone names the action "cots", which setup\(\) does not define \(did you mean `cost`\?\); its actions: cost, count/,
    ],
    [
      { act: "countt" },
      /state "waiting"'s transition on "agent\.act" names the action "countt", .*did you mean `count`/,
    ],
    [{ entry: "cost2" }, /the machine's root's entry names the action "cost2"/],
    [{ always: "counts" }, /state "checked"'s always transition names the action "counts"/],
    [
      { guard: "isStp" },
      /state "waiting"'s transition on "agent\.act" names the guard "isStp", .*did you mean `isStop`\?\); its guards: isStop/,
    ],
  ] as [Names, RegExp][])("refuses %o, naming where and the name meant", (names, message) => {
    expect(() => envWith(names)).toThrow(message);
  });
  it("refuses a misspelt guard combined by and(), or() or not() (XState threw on it when an episode reached it)", () => {
    for (const guard of [and(["isStop", "isStp"]), or([not("isStp"), "isStop"]), not({ type: "isStp" })])
      expect(() => envWith({ guard: guard as never })).toThrow(
        /state "waiting"'s transition on "agent\.act" names the guard "isStp", .*did you mean `isStop`\?\)/,
      );
    expect(envWith({ guard: and(["isStop", not("isStop"), stateIn("waiting")]) as never }).id).toBe("named");
  });
});

describe("defineEnv and a compound state's initial", () => {
  const envStartingAt = (initial: string, inner: string) =>
    defineEnv({
      id: "initial",
      version: "1",
      description: "a machine that starts somewhere",
      machine: setup({
        types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
      }).createMachine({
        context: { n: 0 },
        initial,
        entry: observe("go"),
        states: {
          waiting: { on: { "agent.act": { target: "done", actions: end("stopped", { success: 1 }) } } },
          done: { initial: inner, states: { filed: { type: "final" } } },
        },
      }),
      tools: {},
      tokenizer: new WordTokenizer(["go"]),
      task: () => ({ q: "x" }),
    });
  it("takes initial states that exist", () => {
    expect(envStartingAt("waiting", "filed").id).toBe("initial");
  });
  it("refuses an initial that names no child (every episode aborted when it entered the state), naming the one meant", () => {
    expect(() => envStartingAt("wating", "filed")).toThrow(
      /^environment initial: the machine has initial "wating", which is none of its states \(did you mean `waiting`\?\); its states: waiting, done$/,
    );
    expect(() => envStartingAt("waiting", "filled")).toThrow(
      /^environment initial: state "done" has initial "filled", which is none of its states \(did you mean `filed`\?\); its states: filed$/,
    );
  });
});

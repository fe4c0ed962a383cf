import { expect, it } from "vitest";
import { setup } from "xstate";
import * as r1 from "../../src/index.ts";

// A context field named `call` (the pending tool call, a natural name) is also a member of a function type
// (`Function.prototype.call`). XState's `assign` takes a function or an object of fields as one union, so with
// its types `assign({ call: ({ event }) => ... })` left `event` an implicit any (TS7031 under strict) unless
// annotated. The package's `assign` is XState's, typed as two overloads: this file compiles under the
// repository's strict typecheck with no annotation, and the assignments run as XState's.
const echo = r1.defineTool({
  name: "echo",
  description: "Says its text back.",
  parameters: r1.Schema.Struct({ text: r1.Schema.String }),
  execute: ({ text }) => text,
});
const tools = { echo };
type Task = { word: string };
type Context = { task: Task; call: { text: string } | null; apply: string; heard: string[] };

const machine = setup({
  types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
  actors: r1.toolActors(tools),
  actions: { forget: r1.assign({ call: null }), keep: r1.assign({ call: ({ context }) => context.call }) },
}).createMachine({
  context: ({ input }) => ({ task: input.task, call: null, apply: "", heard: [] }),
  entry: [r1.assign(({ context }) => ({ apply: context.task.word })), r1.observe("say something")],
  initial: "waiting",
  states: {
    waiting: {
      on: {
        "agent.act": [
          {
            guard: ({ event }) => r1.callOf(event.text, tools, "echo") !== undefined,
            target: "echoing",
            actions: [
              r1.assign({ call: ({ event }) => r1.callOf<{ text: string }>(event.text, tools, "echo") ?? null }),
              "keep",
            ],
          },
          {
            target: "done",
            actions: r1.end(({ context }) => `heard ${context.heard.join(",")} after ${context.apply}`),
          },
        ],
      },
    },
    echoing: {
      invoke: {
        src: "echo",
        input: ({ context }) => ({ text: context.call?.text ?? "" }),
        onDone: {
          target: "waiting",
          actions: [
            r1.assign({
              heard: ({ context, event }) => [...context.heard, event.output.ok ? String(event.output.content) : "?"],
            }),
            "forget",
            r1.observe(({ context }) => `call ${context.call === null ? "done" : "pending"}`),
          ],
        },
      },
    },
    done: { type: "final" },
  },
});

const tokenizer = r1.WordTokenizer.fromCorpus(["say something call done pending echo answer a b"]);
const env = r1.defineEnv({
  id: "assign-call",
  version: "1",
  description: "Echoes words; a context field named call.",
  machine,
  tools,
  tokenizer,
  task: (): Task => ({ word: "go" }),
  policies: {
    script: () =>
      r1.scriptedPolicy("script", tokenizer, ({ turn }) =>
        turn < 2 ? r1.formatCall(echo, { text: turn ? "b" : "a" }) : r1.formatAnswer("x"),
      ),
  },
});

it("r1.assign is XState's assign, typed so that a context field named call needs no annotation", async () => {
  const journal = new r1.MemoryJournal();
  const episode = await r1.runEpisode({
    env,
    policy: new r1.PolicyActor(env.policies!.script()),
    journal,
    seed: "s",
  });
  expect(episode.reason).toBe("heard a,b after go");
  expect(episode.events.filter((e) => e.type === "env.observed").map((e) => e.text)).toEqual([
    "say something",
    "call done",
    "call done",
  ]);
  expect(r1.replayEpisode(await journal.read(episode.episode), env).reason).toBe("heard a,b after go");
});

/**
 * A stopped record or eval waits, briefly, for the tool calls of the episodes it halts (src/runtime/halt.ts).
 * A call that timed out and ignores its signal never settles: once its episode has ended (the timeout
 * journaled as its result), it is no call of an episode in flight, so a later stop neither waits 3 s for it
 * nor names it as a call whose finalizers may not have run.
 */
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import {
  defineEnv,
  defineTool,
  end,
  MemoryJournal,
  observe,
  Schema,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { toolCallsSettled } from "../../src/runtime/halt.ts";
import { playEpisode } from "../../src/testing/index.ts";

const stuck = defineTool({
  name: "stuck",
  description: "never answers, and ignores its signal",
  parameters: Schema.Struct({}),
  timeoutMs: 20,
  execute: () => new Promise<string>(() => {}),
});
const tools = { stuck };
const env = defineEnv({
  id: "stuck-tool",
  version: "1",
  description: "a tool that times out and never settles",
  machine: setup({ actors: toolActors(tools) }).createMachine({
    initial: "waiting",
    entry: observe("go"),
    states: {
      waiting: { on: { "agent.act": "calling" } },
      calling: {
        invoke: { src: "stuck", input: {}, onDone: { target: "done", actions: end("answered", { success: 0 }) } },
      },
      done: { type: "final" },
    },
  }),
  tools,
  tokenizer: new WordTokenizer(["go", "call"]),
  task: () => ({}),
});

describe("tool calls a halt waits for", () => {
  it("are not those of episodes that already ended (a timed-out call that never settles)", async () => {
    const { record } = await playEpisode(env, { seed: "s", actions: ["call"] }, { journal: new MemoryJournal() });
    expect(record.reason).toBe("answered");
    // The episode has ended: nothing of an episode in flight is left to wait for.
    expect(await toolCallsSettled(200)).toEqual([]);
  });
});

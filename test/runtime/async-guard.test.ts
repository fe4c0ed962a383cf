/**
 * An async guard's Promise is truthy: XState took its transition whatever the guard meant (an outcome reward
 * paid for any action), live and in replay alike, and nothing said so. The runtime now ends such an episode as an
 * environment error that says the guard returned a Promise.
 */
import { expect, it } from "vitest";
import { setup } from "xstate";
import * as r1 from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";

const machine = setup({
  types: { context: {} as { turn: number }, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<{ q: string }> },
}).createMachine({
  context: { turn: 0 },
  initial: "awaiting",
  entry: r1.observe("say something"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          {
            guard: (async ({ event }: { event: r1.AgentActEvent }) => event.text === "stop") as never,
            target: "done",
            actions: [r1.reward("outcome", 1, "stopped"), r1.end("stopped", {})],
          },
          { actions: r1.observe("again") },
        ],
      },
    },
    done: { type: "final" },
  },
});
const env = r1.defineEnv({
  id: "async-guard",
  version: "1",
  description: "an async guard",
  machine,
  tools: {},
  tokenizer: new r1.WordTokenizer(["say", "something", "again", "stop", "hello"]),
  task: () => ({ q: "x" }),
});

it("an async guard ends the episode saying it returned a Promise, live and in replay, instead of holding for any action", async () => {
  const { record, events } = await playEpisode(env, { seed: "s", actions: ["hello"] });
  expect(record.reason).toMatch(
    /^aborted: environment error: Unable to evaluate guard .*\n?a guard returned a Promise \(an async guard\?\), which XState takes as true whatever it resolves to; a guard must answer at once, true or false/s,
  );
  expect(record.return).toBe(0);
  expect(r1.replayEpisode([...events], env).reason).toBe(record.reason);
});

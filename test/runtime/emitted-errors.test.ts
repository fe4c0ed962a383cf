/**
 * The framework's own checks of what a machine emits (an observation that is not text, a reward or a metric
 * that is not a finite number) name the line of the environment's code where that observe(), reward() or
 * end() was written, as a throw in the environment's own code names its line.
 */
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import { type AgentActEvent, defineEnv, type EnvInput, end, observe, reward, WordTokenizer } from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";

const machine = setup({
  types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
}).createMachine({
  context: { n: 0 },
  initial: "awaiting",
  entry: observe("say a word"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: ({ event }) => event.text === "text", actions: observe(({ context }) => context.n as never) },
          { guard: ({ event }) => event.text === "reward", actions: reward("process", Number.NaN, "a bad sum") },
          { guard: ({ event }) => event.text === "metric", actions: end("done", { success: "yes" as never }) },
          { actions: observe("again") },
        ],
      },
    },
  },
});
const env = defineEnv({
  id: "emitting",
  version: "1",
  description: "emits what the runtime refuses, on a word",
  machine,
  tools: {},
  tokenizer: new WordTokenizer(["say", "a", "word", "again", "text", "reward", "metric"]),
  task: () => ({ q: "x" }),
});

describe("an emitted value the runtime refuses", () => {
  it.each([
    ["text", /observe\(\) needs a string, got number \(observe\(\) at \S*emitted-errors\.test\.ts:21:\d+\)$/],
    [
      "reward",
      /reward "a bad sum" has value NaN; rewards must be finite numbers \(reward\(\) at \S*emitted-errors\.test\.ts:22:\d+\)$/,
    ],
    [
      "metric",
      /end\(\) metric success is yes; metrics must be finite numbers \(end\(\) at \S*emitted-errors\.test\.ts:23:\d+\)$/,
    ],
  ])("%s: the episode aborts naming the line where it was written", async (word, says) => {
    const { record } = await playEpisode(env, { seed: "s", actions: [word] });
    expect(record.reason).toMatch(/^aborted: /);
    expect(record.reason).toMatch(says);
  });
});

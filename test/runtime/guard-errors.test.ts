/**
 * XState rethrows a guard's error without its stack ("Unable to evaluate guard ..."), so an episode a guard
 * ended said which state but not which line. The live record now names the line, as it does for a throwing
 * assign or reward, for inline, named and combined (and/or/not) guards; the user's machine is not changed.
 */
import { describe, expect, it } from "vitest";
import { and, not, setup } from "xstate";
import { type AgentActEvent, defineEnv, type EnvInput, end, observe, WordTokenizer } from "../../src/index.ts";
import { playEpisode } from "../../src/testing/index.ts";

const explode = (text: string, word: string): boolean => {
  if (text.includes(word)) throw new Error(`guard exploded on ${word}`);
  return text.includes("stop");
};

const machine = setup({
  types: { context: {} as { turn: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
  guards: {
    named: ({ event }) => explode(event.text, "named"),
  },
}).createMachine({
  context: { turn: 0 },
  initial: "awaiting",
  entry: observe("say something"),
  states: {
    awaiting: {
      on: {
        "agent.act": [
          { guard: ({ event }) => explode(event.text, "inline"), target: "done", actions: end("stopped", {}) },
          { guard: "named", target: "done", actions: end("stopped", {}) },
          { guard: and([not(({ event }) => explode(event.text, "combined")), "named"]), target: "done" },
          { actions: observe("again") },
        ],
      },
    },
    done: { type: "final" },
  },
});
const words = ["say", "something", "again", "inline", "named", "combined", "stop", "hello"];
const env = defineEnv({
  id: "guarded",
  version: "1",
  description: "guards that throw on a word",
  machine,
  tools: {},
  tokenizer: new WordTokenizer(words),
  task: () => ({ q: "x" }),
});
const inlineGuard = () =>
  ([...(machine.root.transitions.get("agent.act") ?? [])] as { guard?: unknown }[]).map((t) => t.guard);

describe("a guard that throws", () => {
  it.each(["inline", "named", "combined"])("ends the episode naming the %s guard's line", async (word) => {
    const before = inlineGuard();
    const { record } = await playEpisode(env, { seed: "s", actions: ["hello", word] });
    expect(record.reason).toMatch(
      new RegExp(
        `^aborted: environment error: Unable to evaluate guard .*awaiting.*\\n?guard exploded on ${word}$`,
        "s",
      ),
    );
    // explode's throw, in this file: the user's line, not XState's.
    expect(record.thrownAt).toMatch(/guard-errors\.test\.ts:12:\d+$/);
    expect(inlineGuard()).toEqual(before);
  });

  it("still decides as the user's guards do", async () => {
    const { record } = await playEpisode(env, { seed: "s", actions: ["hello", "stop"] });
    expect(record.reason).toBe("stopped");
    expect(record.thrownAt).toBeUndefined();
  });
});

/**
 * Re-rewarding (`replayEpisode(events, variant, { verify: false })`) feeds the recorded tool results to the
 * variant's machine, call by call. A variant that asks a tool for something else than the recording did would
 * be given the result of another call and re-score the episode on it, silently; and one that asks for more
 * than was recorded ended as "journal cut short", of a journal that was whole.
 */
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  MemoryJournal,
  NonDeterminismError,
  observe,
  parseAction,
  reward,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { playEpisode } from "../../src/testing/index.ts";
import { echoTool } from "../support/index.ts";

const tools = { echo: echoTool };

/**
 * `<echo>w</echo>` echoes a word (process reward 1 when the tool says back the word asked, once), then an
 * answer ends it. `ask` turns the action's word into the word the machine asks for: the variants under test.
 */
const createEchoEnv = (ask: (word: string) => string = (w) => w, needsCalls = 1, answerCalls = false) =>
  defineEnv({
    id: "echo-env",
    version: "1",
    description: "echo a word, then answer",
    machine: setup({
      types: {
        context: {} as { word: string; calls: number },
        events: {} as AgentActEvent,
        input: {} as EnvInput<{ q: string }>,
      },
      actors: toolActors(tools),
    }).createMachine({
      context: { word: "", calls: 0 },
      initial: "awaiting",
      entry: observe("echo a word then answer"),
      states: {
        awaiting: {
          on: {
            "agent.act": [
              {
                guard: ({ context, event }) =>
                  parseAction(event.text, tools).kind === "answer" && context.calls >= needsCalls,
                target: "done",
                actions: [reward("outcome", 1, "answered"), end("answered", { success: 1 })],
              },
              {
                // answerCalls: an answer is one more call (a variant that asks for a call never recorded).
                guard: ({ event }) =>
                  parseAction(event.text, tools).kind === "call" ||
                  (answerCalls && parseAction(event.text, tools).kind === "answer"),
                target: "calling",
                actions: assign({
                  word: ({ event }) => {
                    const parsed = parseAction(event.text, tools);
                    if (parsed.kind === "answer") return ask(parsed.text);
                    return ask(parsed.kind === "call" ? String((parsed.args as { word: string }).word) : "");
                  },
                }),
              },
              { target: "awaiting", reenter: true, actions: observe("again") },
            ],
          },
        },
        calling: {
          invoke: {
            src: "echo",
            input: ({ context }: { context: { word: string } }) => ({ word: context.word }),
            onDone: {
              target: "awaiting",
              actions: [
                reward(
                  "process",
                  ({ context, event }) => (event.output.ok && event.output.content === context.word ? 1 : 0),
                  "echoed",
                ),
                assign({ calls: ({ context }) => context.calls + 1 }),
                observe(({ event }) => (event.output.ok ? String(event.output.content) : "error")),
              ],
            },
          },
        },
        done: { type: "final" },
      },
    }),
    tools,
    tokenizer: WordTokenizer.fromCorpus(["echo a word then answer again error hi HI"]),
    task: () => ({ q: "x" }),
  });

const recordedEpisode = async () => {
  const journal = new MemoryJournal();
  const live = await playEpisode(
    createEchoEnv(),
    { seed: "e", actions: ["<echo>hi</echo>", "<answer>hi</answer>"] },
    { journal },
  );
  expect(live.record.return).toBe(2);
  return journal.read(live.record.episode);
};

describe("re-rewarding feeds a variant only the results of the calls it makes as recorded", () => {
  it("a variant of the same calls re-derives the episode", async () => {
    const events = await recordedEpisode();
    const same = replayEpisode(events, createEchoEnv(), { verify: false });
    expect(same.return).toBe(2);
    expect(same.reason).toBe("answered");
  });

  it("a variant that calls a tool with other arguments is refused, naming both calls, not given the recorded result", async () => {
    const events = await recordedEpisode();
    const shouting = createEchoEnv((w) => w.toUpperCase());
    const failure = (() => {
      try {
        return replayEpisode(events, shouting, { verify: false });
      } catch (e) {
        return e;
      }
    })();
    // Before: the variant was given "hi" as echo("HI")'s result, scored 0 for it, and the episode re-derived
    // as answered with return 1.
    expect(failure).toBeInstanceOf(NonDeterminismError);
    expect((failure as Error).message).toContain(
      'recorded: call c0: echo({"word":"hi"})\n  replayed: this environment calls echo({"word":"HI"}) as call c0: the recorded result answers echo({"word":"hi"}), not this call',
    );
  });

  it("a variant that asks for more than a whole journal holds says so, not that the journal was cut short", async () => {
    const events = await recordedEpisode();
    const stricter = replayEpisode(
      events,
      createEchoEnv((w) => w, 2),
      { verify: false },
    );
    expect(stricter.reason).toBe(
      "aborted: the recorded actions ran out before this environment ended the episode (it asks for another action)",
    );
    const calling = replayEpisode(
      events,
      createEchoEnv((w) => w, 2, true),
      { verify: false },
    );
    expect(calling.reason).toBe(
      'aborted: the recording holds no result for echo({"word":"hi"}), which this environment calls: a variant that re-rewards recorded episodes must make the tool calls they made',
    );
    // A journal that was cut short still says so.
    const cut = events.slice(
      0,
      events.findIndex((e) => e.type === "tool.returned"),
    );
    expect(replayEpisode(cut, createEchoEnv(), { verify: false }).reason).toBe("aborted: journal cut short");
  });
});

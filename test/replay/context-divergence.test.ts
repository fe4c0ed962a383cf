/**
 * A journal keeps only a hash of the machine's context. When a replayed transition reaches another hash,
 * the divergence names the context fields the transition changed in replay, and names the one field for
 * certain when putting it back makes the recorded hash: a user finds the impure field without a debugger.
 */
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvDefinition,
  type EnvInput,
  end,
  MemoryJournal,
  NonDeterminismError,
  observe,
  WordTokenizer,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { playEpisode } from "../../src/testing/index.ts";

type Context = { turns: number; stamp: number | null; note: string; stamps: number[] };

/** Two impure writes: `stamp` reads a clock outside the machine; `note` is written only after the first run. */
const makeEnv = (variants = false): EnvDefinition => {
  let clock = 0;
  let runs = 0;
  const machine = setup({
    types: { context: {} as Context, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
  }).createMachine({
    context: () => ({ turns: 0, stamp: null, note: "", stamps: [] }),
    initial: "awaiting",
    entry: observe("say something"),
    states: {
      awaiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => event.text === "clock",
              target: "done",
              actions: [assign({ turns: ({ context }) => context.turns + 1, stamp: () => clock++ }), end("done")],
            },
            {
              // In place: the array the previous snapshot holds changes too.
              guard: ({ event }) => event.text === "push",
              target: "done",
              actions: [
                assign({
                  stamps: ({ context }) => {
                    context.stamps.push(clock++);
                    return context.stamps;
                  },
                }),
                end("done"),
              ],
            },
            {
              // In place, in an action of its own (not an assign): replay runs only XState's own actions, so
              // the push is live only, and the field replay changed (turns) is not the one that differs.
              guard: ({ event }) => event.text === "stash",
              target: "done",
              actions: [
                ({ context }) => {
                  context.stamps.push(clock++);
                },
                assign({ turns: ({ context }) => context.turns + 1 }),
                end("done"),
              ],
            },
            {
              // A field named like an Object.prototype member, present only after the first run.
              guard: ({ event }) => event.text === "builtin",
              target: "done",
              actions: [assign(() => (runs++ > 0 ? ({ valueOf: 1 } as never) : {})), end("done")],
            },
            {
              target: "done",
              actions: [
                assign({ turns: ({ context }) => context.turns + 1, note: () => (runs++ > 0 ? "seen before" : "") }),
                end("done"),
              ],
            },
          ],
        },
      },
      done: { type: "final" },
    },
  });
  return defineEnv({
    id: "stamped",
    version: "1",
    description: "writes outside state into its context",
    machine,
    tools: {},
    tokenizer: new WordTokenizer(["say", "something", "clock", "hello", "push", "builtin", "stash"]),
    task: () => ({ q: "x" }),
    // An environment with variants: its divergence hint adds that options must not change the machine.
    ...(variants ? { configure: () => makeEnv(), options: {} } : {}),
  });
};

const divergence = async (action: string, variants = false): Promise<string> => {
  const env = makeEnv(variants);
  const journal = new MemoryJournal();
  const live = await playEpisode(env, { seed: "s", actions: [action] }, { journal });
  const events = await journal.read(live.record.episode);
  try {
    replayEpisode(events, env);
  } catch (error) {
    expect(error).toBeInstanceOf(NonDeterminismError);
    return (error as NonDeterminismError).message;
  }
  throw new Error("replay did not diverge");
};

describe("a context that diverged in replay", () => {
  it("names the fields the transition changed in replay, with their values", async () => {
    const message = await divergence("clock");
    expect(message).toContain("the state is the same; the context differs");
    expect(message).toContain("context.stamp null -> 1, context.turns 0 -> 1");
  });

  it("names the one field for certain when putting it back gives the recorded hash", async () => {
    const message = await divergence("hello");
    expect(message).toContain('context.note was "" when recorded, and replay made it "seen before"');
  });

  it("sees a change made in place (a push into an array), not 'no field changed'", async () => {
    const message = await divergence("push");
    expect(message).toContain("this transition changed in replay: context.stamps [] -> [1]");
  });

  it("says when no field the transition changed explains the hash: a change in place, live only, is not listed", async () => {
    // The push into context.stamps happened live only; replay's transition changed turns alone. Listing
    // turns, as if it differed, sent the user to the wrong field.
    const message = await divergence("stash");
    expect(message).toContain(
      "this transition changed in replay: context.turns 0 -> 1, and putting it back does not give the recorded hash: " +
        "the recording differs in a field this list does not show (changed live only: in place, not through assign) or holds another value in one it does (Date.now, Math.random)",
    );
    // Where putting a field back explains the hash, that field is named for certain, as before.
    expect(await divergence("hello")).not.toContain("putting it back does not give");
  });

  it("a field named like a built-in (valueOf) is named, not an error of its own", async () => {
    const message = await divergence("builtin");
    expect(message).toContain("context.valueOf was (absent) when recorded, and replay made it 1");
  });

  it("adds the configure() rule to the hint only for an environment with variants", async () => {
    expect(await divergence("clock")).not.toContain("configure()");
    expect(await divergence("clock", true)).toContain(
      "a configure() option that changes the machine replays as another environment)",
    );
  });

  it("a faithful replay does not diverge", async () => {
    const env = makeEnv();
    const journal = new MemoryJournal();
    const live = await playEpisode(env, { seed: "s", actions: ["hello"] }, { journal });
    // The env's `runs` counter moved: a fresh env (a new process) replays it faithfully.
    expect(replayEpisode(await journal.read(live.record.episode), makeEnv()).turns).toBe(1);
  });
});

describe("a journal the property kit played, replayed against another machine", () => {
  it("says that the kit's journal may be of a variant under test, and how to replay it against that variant", async () => {
    // A spreadsheet walkthrough: a broken reward's counterexample, replayed with `--env` of the module (which
    // exports the sound reward), diverged with only the hint about impure code, which that module did not have.
    // (A journal of another policy keeps the hint as it was: test/replay/golden.test.ts.)
    expect(await divergence("clock")).toContain(
      'this journal was played by the property kit (policy "script"): a counterexample of a variant under test ' +
        "(a broken reward the module does not export) diverges against the module's export by design: replay it " +
        "against that variant in code, replayEpisode(await readJournalFile(path), variant)",
    );
  });
});

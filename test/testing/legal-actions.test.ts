/**
 * A loophole that takes two particular steps: in a warehouse, `lookup(bin)` and `count(item, bin)` each
 * reveal the answer, and the first of them that does earns +0.2. A leaky version forgets that the agent was
 * already told, so looking the task's bin up and then counting the task's item pays twice. Random arguments
 * (from the tools' schemas) almost never name the task's bin and item, so the kit missed it (a new user found
 * this). When the environment declares `legalActions`, the kit now draws about half of the actions from
 * them, in the state reached, and finds it with the default number of runs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import * as r1 from "../../src/index.ts";
import {
  checkRewards,
  episodeScriptArbitrary,
  NothingCheckedError,
  neverCrashes,
  playEpisode,
  processRewardCap,
} from "../../src/testing/index.ts";

const BINS = Array.from({ length: 40 }, (_, i) => `b${i}`);
const ITEMS = Array.from({ length: 40 }, (_, i) => `i${i}`);
type Task = { bin: string; item: string; units: number };
const held = (task: Task, bin: string, item: string) => (bin === task.bin && item === task.item ? task.units : 0);

const lookup = r1.defineTool({
  name: "lookup",
  description: "What a bin holds.",
  parameters: r1.Schema.Struct({ bin: r1.Schema.String }),
  execute: ({ bin }, _context) => bin,
});
const count = r1.defineTool({
  name: "count",
  description: "How many units of an item a bin holds.",
  parameters: r1.Schema.Struct({ item: r1.Schema.String, bin: r1.Schema.String }),
  execute: ({ item, bin }, _context) => `${item} ${bin}`,
});
const tools = { lookup, count };

const createWarehouse = (leaky: boolean) => {
  type Context = { task: Task; turn: number; told: boolean; bin: string; item: string };
  const lookupOf = (text: string) => r1.callOf<{ bin: string }>(text, tools, "lookup");
  const countOf = (text: string) => r1.callOf<{ item: string; bin: string }>(text, tools, "count");
  /** +0.2 when this call reveals the task's answer, and (unless leaky) the agent had not been told yet. */
  const revealed = ({ context }: { context: Context }) =>
    context.bin === context.task.bin &&
    (context.item === "" || context.item === context.task.item) &&
    (leaky || !context.told)
      ? 0.2
      : 0;
  const machine = setup({
    types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
    actors: r1.toolActors(tools),
  }).createMachine({
    context: ({ input }) => ({ task: input.task, turn: 0, told: false, bin: "", item: "" }),
    entry: r1.observe(({ context }) => `how many ${context.task.item} in ${context.task.bin} ?`),
    initial: "waiting",
    states: {
      waiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => r1.answerOf(event.text, tools) !== undefined,
              target: "done",
              actions: [
                r1.reward(
                  "outcome",
                  ({ context, event }) => (r1.answerOf(event.text, tools) === String(context.task.units) ? 1 : 0),
                  "answer",
                ),
                r1.end("answered"),
              ],
            },
            { guard: ({ context }) => context.turn >= 5, target: "done", actions: r1.end("turn-limit") },
            {
              guard: ({ event }) => lookupOf(event.text) !== undefined,
              target: "looking",
              actions: assign({
                bin: ({ event }) => lookupOf(event.text)!.bin,
                item: "",
                turn: ({ context }) => context.turn + 1,
              }),
            },
            {
              guard: ({ event }) => countOf(event.text) !== undefined,
              target: "counting",
              actions: assign({
                bin: ({ event }) => countOf(event.text)!.bin,
                item: ({ event }) => countOf(event.text)!.item,
                turn: ({ context }) => context.turn + 1,
              }),
            },
            {
              target: "waiting",
              reenter: true,
              actions: [assign({ turn: ({ context }) => context.turn + 1 }), r1.observe("error : unknown action")],
            },
          ],
        },
      },
      looking: {
        invoke: {
          src: "lookup",
          input: ({ context }: { context: Context }) => ({ bin: context.bin }),
          onDone: {
            target: "waiting",
            actions: [
              r1.reward("process", revealed, "revealed the answer"),
              assign({ told: ({ context }) => context.told || revealed({ context }) > 0 }),
              r1.observe(({ context }) =>
                context.bin === context.task.bin
                  ? `${context.bin} holds ${context.task.units} ${context.task.item}`
                  : `${context.bin} is empty`,
              ),
            ],
          },
        },
      },
      counting: {
        invoke: {
          src: "count",
          input: ({ context }: { context: Context }) => ({ item: context.item, bin: context.bin }),
          onDone: {
            target: "waiting",
            actions: [
              r1.reward("process", revealed, "revealed the answer"),
              assign({ told: ({ context }) => context.told || revealed({ context }) > 0 }),
              r1.observe(({ context }) => `${held(context.task, context.bin, context.item)} units`),
            ],
          },
        },
      },
      done: { type: "final" },
    },
  });
  return r1.defineEnv<Task>({
    id: "warehouse",
    version: "1",
    description: "Count units of an item in a bin, with lookup and count tools.",
    machine,
    tools,
    tokenizer: r1.WordTokenizer.fromCorpus([
      ...BINS,
      ...ITEMS,
      "how many in ? holds is empty units error unknown action",
    ]),
    task: (seed) => {
      const rng = r1.Rng.fromSeed(seed);
      return { bin: rng.pick(BINS), item: rng.pick(ITEMS), units: rng.int(1, 9) };
    },
    // The sensible moves: the task's lookup and count, and an answer.
    legalActions: ({ task }) => [
      r1.formatCall(lookup, { bin: task.bin }),
      r1.formatCall(count, { item: task.item, bin: task.bin }),
      r1.formatAnswer(String(task.units)),
    ],
  });
};

describe("the kit draws actions from the environment's legal actions", () => {
  it("finds a loophole that takes two particular steps, with the default number of runs", async () => {
    const check = checkRewards(createWarehouse(true), { invariants: [processRewardCap(0.2)] });
    await expect(check).rejects.toThrow(/process rewards sum to 0\.4.*above the cap 0\.2/s);
  }, 60_000);

  it("which schema-made arguments alone miss (legal: false), and the kit says its cases checked nothing", async () => {
    // Random bins and items never earn a process reward, so the cap was never approached: no pass.
    const error = await checkRewards(createWarehouse(true), { invariants: [processRewardCap(0.2)], legal: false }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(NothingCheckedError);
    expect(String((error as Error).message)).toMatch(
      /^checkRewards: "process rewards sum to at most 0\.2" passed without checking anything: none of the 50 episodes drawn earned a positive process reward/,
    );
  }, 60_000);

  it("passes the sound environment, and hostile actions still come", async () => {
    await checkRewards(createWarehouse(false), { invariants: [processRewardCap(0.2), neverCrashes()] });
    const scripts = fc.sample(episodeScriptArbitrary(createWarehouse(false)), { numRuns: 200, seed: 3 });
    const actions = scripts.flatMap((s) => s.actions);
    const legal = actions.filter((a) => typeof a !== "string").length;
    expect(legal / actions.length).toBeGreaterThan(0.3);
    expect(legal / actions.length).toBeLessThan(0.7);
  }, 60_000);

  it("picks a kind first, so a list of many answers and few calls still gets its calls played", async () => {
    // Every answer from 0 to 39 is legal (an agent may guess): 2 calls in a list of 42. A pick of index % 42 drew
    // an answer, which ends the episode, 40 times in 42: checkRewards took 1-74 cases (median 22, 12 seeds) to
    // find the leaky two-step loophole above, past its default 50 at some seeds; picking a kind first, 1-7 (3).
    const guessing = (leaky: boolean) => {
      const env = createWarehouse(leaky);
      return r1.defineEnv({
        ...env,
        legalActions: (view) => [
          ...Array.from({ length: 20 }, (_, n) => r1.formatAnswer(String(n))),
          ...env.legalActions!(view)!.filter((text) => r1.answerOf(text, tools) === undefined),
          ...Array.from({ length: 20 }, (_, n) => r1.formatAnswer(String(n + 20))),
        ],
      });
    };
    const env = guessing(false);
    const task = env.task("s1");
    const kinds = { answer: 0, lookup: 0, count: 0 };
    for (let index = 0; index < 60; index++) {
      const { events } = await playEpisode(env, { seed: "s1", actions: [{ legal: index }] });
      const text = events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []))[0] ?? "";
      kinds[text.startsWith("<lookup>") ? "lookup" : text.startsWith("<count>") ? "count" : "answer"]++;
    }
    // The kinds in order of first appearance (answers, lookups, counts), index % 3 picking one.
    expect(kinds).toEqual({ answer: 20, lookup: 20, count: 20 });
    // Within a kind, the next digits of the index: picks 0, 3, 6, ... are answers 0, 1, 2, ...
    const played = async (index: number) =>
      (await playEpisode(env, { seed: "s1", actions: [{ legal: index }] })).events.flatMap((e) =>
        e.type === "agent.acted" ? [e.text] : [],
      )[0];
    expect(await played(3)).toBe("<answer>1</answer>");
    expect(await played(3 * 25)).toBe("<answer>25</answer>");
    expect(await played(4)).toBe(`<lookup>${task.bin}</lookup>`);
    const check = checkRewards(guessing(true), { invariants: [processRewardCap(0.2)] });
    await expect(check).rejects.toThrow(/process rewards sum to 0\.4.*above the cap 0\.2/s);
  }, 60_000);

  it("plays a legal pick as the action it stands for in the state reached", async () => {
    const env = createWarehouse(false);
    const { events } = await playEpisode(env, { seed: "s1", actions: [{ legal: 1 }, { legal: 2 }] });
    const task = env.task("s1");
    const acted = events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []));
    expect(acted).toEqual([
      `<count>{"item":"${task.item}","bin":"${task.bin}"}</count>`,
      `<answer>${task.units}</answer>`,
    ]);
  });

  it("a drawn repeat of a legal pick repeats the text it played, where the legal actions changed since", async () => {
    // Legal actions without the calls already made (as hopqa's searches): the pick's index, played again, named
    // another action, so the kit's "exact repeats" (where rewards get farmed) were none for such picks.
    const sound = createWarehouse(false);
    const fresh = r1.defineEnv({
      ...sound,
      legalActions: (view) =>
        sound.legalActions!(view)!.filter((text) => !view.history.some((t) => t.role === "action" && t.text === text)),
    });
    const task = fresh.task("s1");
    const pick = { legal: 0 };
    const { events } = await playEpisode(fresh, { seed: "s1", actions: [pick, pick, { legal: 0 }] });
    expect(events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []))).toEqual([
      `<lookup>${task.bin}</lookup>`,
      `<lookup>${task.bin}</lookup>`,
      `<count>{"item":"${task.item}","bin":"${task.bin}"}</count>`,
    ]);
    let repeats = 0;
    for (const script of fc.sample(episodeScriptArbitrary(fresh), { numRuns: 60, seed: 3 })) {
      const acted = (await playEpisode(fresh, script)).events.flatMap((e) =>
        e.type === "agent.acted" ? [e.text] : [],
      );
      script.actions.forEach((action, i) => {
        const first = script.actions.indexOf(action);
        if (typeof action === "string" || first === i || i >= acted.length) return;
        repeats++;
        expect(acted[i]).toBe(acted[first]);
      });
    }
    expect(repeats).toBeGreaterThan(0);
  });

  it("reports a legalActions that throws, or returns no list of texts, as the environment's crash, naming it", async () => {
    // Before, the kit called legalActions itself: its throw was the script's failure, which neverCrashes passes
    // (constrained training then aborted every episode), and a forgotten return played an empty action.
    const sound = createWarehouse(false);
    const failing = r1.defineEnv({
      ...sound,
      legalActions: (view) => {
        if (view.history.length > 1) throw new Error("legal bug");
        return sound.legalActions!(view);
      },
    });
    await expect(checkRewards(failing, { invariants: [neverCrashes()], numRuns: 30 })).rejects.toThrow(
      /the episode ended with "aborted: environment error: legalActions threw for turn 1: legal bug \(asked by policy script's constrained decoding\)" \(thrown at test\/testing\/legal-actions\.test\.ts:\d+:\d+\)/,
    );
    const forgetful = r1.defineEnv({ ...sound, legalActions: (() => undefined) as never });
    const { record } = await playEpisode(forgetful, { seed: "s1", actions: [{ legal: 0 }] });
    expect(record.reason).toMatch(/legalActions returned undefined for turn 0 \(a missing return\?\)/);
    // Nothing threw, so there is no stack to point at: the message names where the environment is defined.
    expect(record.reason).toMatch(/\(the environment is defined at test\/testing\/legal-actions\.test\.ts:\d+:\d+\)/);
    const listless = r1.defineEnv({ ...sound, legalActions: (() => "answer x") as never });
    const other = await playEpisode(listless, { seed: "s1", actions: [{ legal: 0 }] });
    expect(other.record.reason).toMatch(
      /returned "answer x" \(a string\) for turn 0.*\(the environment is defined at test\/testing\/legal-actions\.test\.ts:\d+/,
    );
  });
});

/** `lookup`, checked with the property-testing kit: its reward invariants, a model of it, and its paths. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expertPolicy,
  KEYS,
  type LookupTask,
  lookupEnv,
  lookupTool,
  MAX_TURNS,
  promptOf,
  STORE,
  solve,
  VALUES,
} from "../../actors/lookup/index.ts";
import { parseAction } from "../../src/index.ts";
import { collect } from "../../src/learn/collect.ts";
import { withLegalMasks } from "../../src/learn/sft.ts";
import {
  checkCoverage,
  checkModel,
  checkRewards,
  type EnvModel,
  failedToolResultArbitrary,
  neverCrashes,
  noRewardForRepeatedCalls,
  outcomeDependsOnlyOnFinalAnswer,
  playEpisode,
  processRewardCap,
  replaysIdentically,
  returnBounds,
  rewardBounds,
} from "../../src/testing/index.ts";

// A few tasks and the keys that matter to them, so that random episodes often retrieve a needed key.
const TASKS: LookupTask[] = [
  { key: "k3", hops: 1 },
  { key: "k30", hops: 2 },
  { key: "k41", hops: 2 },
];
const NEAR_KEYS = [...new Set(TASKS.flatMap((t) => solve(t).path)), "k0", "k47"];
const generators = {
  tasks: fc.constantFrom(...TASKS),
  args: { lookup: fc.oneof(fc.constantFrom(...NEAR_KEYS), fc.constantFrom(...KEYS)).map((key) => ({ key })) },
  answers: fc.constantFrom(...TASKS.map((t) => solve(t).answer), ...VALUES),
};

describe("lookup's rewards", () => {
  it("hold their invariants on generated episodes, hostile actions and tool failures included", async () => {
    await checkRewards(lookupEnv, {
      ...generators,
      numRuns: 20,
      invariants: [
        rewardBounds({ min: -0.1, max: 1 }),
        // At worst a penalty on each of the 6 turns; at best both needed keys and the right answer.
        returnBounds({ min: -0.1 * MAX_TURNS, max: 0.2 * 2 + 1 }),
        processRewardCap(0.4),
        noRewardForRepeatedCalls(),
        outcomeDependsOnlyOnFinalAnswer(),
        neverCrashes(),
        replaysIdentically(),
      ],
    });
  });

  it("actions past the action parser's length limit are refused like any malformed action", async () => {
    await checkRewards(lookupEnv, { ...generators, hugeLength: 100_001, numRuns: 10, invariants: [neverCrashes()] });
    const played = await playEpisode(lookupEnv, { seed: "s1", actions: [`<answer>${"x".repeat(100_001)}</answer>`] });
    expect(played.rewards.map((r) => [r.value, r.reason])).toEqual([[-0.1, "malformed action"]]);
  });
});

type State = { task: LookupTask; turn: number; looked: string[] };

/** lookup as its README describes it. */
const lookupModel: EnvModel<State, LookupTask> = {
  init: (task) => ({ task, turn: 0, looked: [] }),
  opening: (task) => promptOf(task),
  act: (state, text, toolResult) => {
    const action = parseAction(text, lookupEnv.tools);
    const turn = state.turn + 1;
    if (action.kind === "answer")
      return { state, reward: action.text === solve(state.task).answer ? 1 : 0, done: true };
    let reward = -0.1;
    let observation = "error : malformed action .";
    let looked = state.looked;
    if (action.kind === "call") {
      const key = String((action.args as { key: string }).key);
      reward = looked.includes(key) ? -0.1 : solve(state.task).path.includes(key) ? 0.2 : 0;
      looked = [...looked, key];
      observation =
        toolResult && !toolResult.ok
          ? `error : lookup failed ( ${toolResult.error.kind} ) .`
          : Object.hasOwn(STORE, key) // own keys: `__proto__` (a near miss the kit tries) is not stored
            ? `${key} = ${STORE[key]} .`
            : `${key} : not found .`;
    }
    // The last turn ends the episode, with an outcome of 0.
    if (turn >= MAX_TURNS) return { state, reward, done: true };
    return { state: { ...state, turn, looked }, reward, observation, done: false };
  },
};

describe("lookup behaves like its model", () => {
  it("on random action sequences, with failing tools", async () => {
    await checkModel(lookupEnv, {
      ...generators,
      model: lookupModel,
      numRuns: 30,
      toolFaults: failedToolResultArbitrary(),
    });
  });
});

describe("lookup's machine, explored with xstate/graph", () => {
  it("reaches every state, ends on every path, and observes before every action", () => {
    const task: LookupTask = { key: "k30", hops: 2 };
    const { path, answer } = solve(task);
    const report = checkCoverage(lookupEnv, {
      task,
      // A few samples: each one multiplies the states (here 141; with the second key as well, 1,304).
      actions: [`<lookup>${path[0]}</lookup>`, `<answer>${answer}</answer>`, "hello"],
      toolResults: (_tool, args) => [
        { ok: true, content: STORE[(args as { key: string }).key] ?? null },
        { ok: false, error: { kind: "timeout", message: "lookup timed out after 1000 ms" } },
      ],
    });
    expect(report.reached).toEqual(["lookup.awaiting", "lookup.calling", "lookup.checkTurns", "lookup.done"]);
  });
});

describe("lookup's legal actions (constrained decoding)", () => {
  it("the expert's actions are all legal; lookups name keys seen, answers values shown", async () => {
    const collected = await collect({ env: lookupEnv, policy: expertPolicy(), seed: "legal", episodes: 30 });
    for (const { events } of collected) {
      const { events: masked, illegal } = withLegalMasks(lookupEnv, events);
      expect(illegal).toBe(0);
      const shown: string[] = [];
      for (const e of masked) {
        if (e.type === "env.observed") shown.push(e.text);
        if (e.type !== "agent.acted") continue;
        expect(e.allowed).toHaveLength(e.tokens.length);
        const legal = lookupEnv.legalActions!({
          task: (events[0] as unknown as { task: LookupTask }).task,
          history: shown.map((text) => ({ role: "observation" as const, text, tokens: [] })),
        });
        expect(legal?.length).toBeGreaterThan(0);
        for (const action of legal ?? []) {
          const parsed = parseAction(action, { lookup: lookupTool });
          const word = action.replace(/<\/?\w+>/g, "");
          if (parsed.kind === "answer") expect(shown.slice(1).join(" ").split(" ")).toContain(word);
          else expect(shown.join(" ").split(" ")).toContain(word);
        }
      }
    }
  });
});

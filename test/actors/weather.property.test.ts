/** The README's weather environment, checked with the property-testing kit. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { parseAction } from "../../src/index.ts";
import {
  checkCoverage,
  checkModel,
  checkRewards,
  type EnvModel,
  failedToolResultArbitrary,
  neverCrashes,
  noRewardForRepeatedCalls,
  orderIndependentRewards,
  outcomeDependsOnlyOnFinalAnswer,
  outcomeRewardOnEveryEnd,
  processRewardCap,
  replaysIdentically,
  returnBounds,
  rewardBounds,
} from "../../src/testing/index.ts";

type Task = { a: string; b: string; day: number };
const CITIES = [
  ...new Set(Array.from({ length: 40 }, (_, i) => weather.task(`c${i}`) as Task).flatMap((t) => [t.a, t.b])),
].sort();
const temperature = (city: string, day: number) =>
  weather.tools.weather.execute({ city, day }, { signal: new AbortController().signal }) as number | null;
const warmer = ({ a, b, day }: Task) => ((temperature(a, day) ?? 0) > (temperature(b, day) ?? 0) ? a : b);
const generators = {
  args: { weather: fc.constantFrom(...CITIES, "atlantis").map((city) => ({ city })) },
  answers: fc.constantFrom(...CITIES),
};

describe("weather's rewards", () => {
  it("hold their invariants", async () => {
    await checkRewards(weather, {
      ...generators,
      numRuns: 20,
      invariants: [
        rewardBounds({ min: -0.1, max: 1 }),
        // Four malformed actions before the turn limit; at best both cities and the right answer.
        returnBounds({ min: -0.4, max: 1.2 }),
        processRewardCap(0.2),
        noRewardForRepeatedCalls(),
        outcomeDependsOnlyOnFinalAnswer(),
        // The turn limit pays outcome 0 too: a copy whose wrong answers cost would not reward stalling.
        outcomeRewardOnEveryEnd(),
        neverCrashes(),
        replaysIdentically(),
      ],
    });
  });

  it("calls one tool at a time, so arrival order cannot change a reward", async () => {
    await expect(
      checkRewards(weather, { ...generators, numRuns: 20, invariants: [orderIndependentRewards()] }),
    ).rejects.toThrow(/passed without checking anything: none of the 20 episodes drawn had two tool calls in flight/);
  });
});

type State = { task: Task; turns: number; seen: string[] };

/** weather as its README describes it. */
const weatherModel: EnvModel<State, Task> = {
  init: (task) => ({ task, turns: 1, seen: [] }),
  opening: ({ a, b }) => `which is warmer : ${a} or ${b} ?`,
  act: (state, text, toolResult) => {
    const action = parseAction(text, weather.tools);
    if (action.kind === "answer") return { state, reward: action.text === warmer(state.task) ? 1 : 0, done: true };
    if (state.turns > 4) return { state, reward: 0, done: true };
    const turns = state.turns + 1;
    if (action.kind !== "call")
      return { state: { ...state, turns }, reward: -0.1, observation: "error : use <weather>city</weather>" };
    const city = String((action.args as { city: string }).city);
    const fresh = [state.task.a, state.task.b].includes(city) && !state.seen.includes(city);
    const observation =
      toolResult && !toolResult.ok
        ? `error : ${toolResult.error.message}`
        : `${city} : ${temperature(city, state.task.day)}`;
    return { state: { ...state, turns, seen: [...state.seen, city] }, reward: fresh ? 0.1 : 0, observation };
  },
};

describe("weather behaves like its model", () => {
  it("on random action sequences, with failing tools", async () => {
    await checkModel(weather, {
      ...generators,
      model: weatherModel,
      numRuns: 30,
      toolFaults: failedToolResultArbitrary(),
    });
  });
});

describe("weather's machine, explored with xstate/graph", () => {
  it("reaches every state, ends on every path, and observes before every action", () => {
    const task = weather.task("w") as Task;
    const report = checkCoverage(weather, {
      task,
      actions: [
        `<weather>${task.a}</weather>`,
        `<weather>${task.b}</weather>`,
        `<answer>${warmer(task)}</answer>`,
        "?",
      ],
    });
    expect(report.unreachable).toEqual([]);
    expect(report.reached.map((id) => id.split(".").at(-1))).toEqual(["asking", "done", "waiting"]);
  });
});

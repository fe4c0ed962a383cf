/**
 * An episode's record carries its environment's task type: `defineEnv({ task: (seed): Task => ... })` knows it,
 * and runEpisode, rollout, collect, evaluate and train hand it on, so `record.task.item` reads with no cast
 * (npm test type-checks this file: with `task: Json` each read below is a compile error, "possibly 'null'").
 * Code that takes the records of any environment keeps `EpisodeRecord`, whose task is JSON.
 */
import { lastValueFrom, type Observable, toArray } from "rxjs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvDefinition,
  type EnvInput,
  type EpisodeRecord,
  end,
  type Json,
  MemoryJournal,
  observe,
  PolicyActor,
  reward,
  rollout,
  runEpisode,
  scriptedPolicy,
  WordTokenizer,
} from "../../src/index.ts";
import type { evaluate, train } from "../../src/learn/index.ts";
import { collect, loadEnv } from "../../src/learn/index.ts";

type Task = { readonly item: string; readonly count: number };
type Context = { task: Task };

const machine = setup({
  types: { context: {} as Context, events: {} as AgentActEvent, input: {} as EnvInput<Task> },
}).createMachine({
  context: ({ input }) => ({ task: input.task }),
  entry: observe(({ context }) => `how many ${context.task.item} ?`),
  on: {
    "agent.act": {
      target: ".done",
      actions: [
        reward("outcome", ({ context, event }) => (event.text === String(context.task.count) ? 1 : 0), "exact"),
        end("answered"),
      ],
    },
  },
  initial: "asking",
  states: { asking: {}, done: { type: "final" } },
});

const env = defineEnv({
  id: "counting",
  version: "1",
  description: "says how many",
  machine,
  tools: {},
  tokenizer: WordTokenizer.fromCorpus(["how many apples pears ? 1 2 3"]),
  task: (seed): Task => ({ item: seed.length % 2 === 0 ? "apples" : "pears", count: (seed.length % 3) + 1 }),
});
const policy = () => new PolicyActor(scriptedPolicy<Task>("counter", env.tokenizer, ({ task }) => String(task.count)));

describe("an episode record's task has its environment's task type", () => {
  it("runEpisode: record.task.item reads with no cast", async () => {
    const record = await runEpisode({ env, policy: policy(), journal: new MemoryJournal(), seed: "s1" });
    expectTypeOf(record).toEqualTypeOf<EpisodeRecord<Task>>();
    expectTypeOf(record.task).toEqualTypeOf<Task>();
    expect(record.task.item).toBe("apples");
    expect(record.return).toBe(1);
  });

  it("rollout: each record on episodes has the task type", async () => {
    const run = rollout({ env, policy: policy(), journal: new MemoryJournal(), seed: "r", episodes: 3 });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    expectTypeOf(records).toEqualTypeOf<EpisodeRecord<Task>[]>();
    expect(records.map((r) => r.task.item).every((item) => item === "apples" || item === "pears")).toBe(true);
    expect(records.every((r) => r.return === 1)).toBe(true);
  });

  it("collect: the collected records and onEpisode's have the task type", async () => {
    const seen: string[] = [];
    const batch = await collect({
      env,
      policy: policy().policy,
      seed: "c",
      episodes: 2,
      onEpisode: (record) => seen.push(record.task.item),
    });
    expectTypeOf(batch[0]!.record.task).toEqualTypeOf<Task>();
    expect(batch.map((c) => c.record.task.item).sort()).toEqual([...seen].sort());
  });

  it("evaluate and train: their callbacks' records have the task type (types only: nothing is trained)", () => {
    const typed = (evaluateIt: typeof evaluate, trainIt: typeof train) => [
      evaluateIt(env, policy().policy, { episodes: 1, seed: "e", onEpisode: (record) => record.task.item }),
      trainIt({
        env,
        config: {} as Parameters<typeof train>[0]["config"],
        out: "unused",
        onEpisode: (record) => record.task.count,
        onEvalEpisode: (_, record) => record.task.item,
      }),
    ];
    expectTypeOf(typed).toBeFunction();
  });

  it("records of any environment stay JSON, and a task given of another type gives JSON tasks", async () => {
    expectTypeOf<EpisodeRecord["task"]>().toEqualTypeOf<Json>();
    const anyEnv: EnvDefinition = env;
    const record = await runEpisode({ env: anyEnv, policy: policy(), journal: new MemoryJournal(), seed: "s" });
    expectTypeOf(record.task).toEqualTypeOf<Json>();
    const given = { item: "pears", count: 2 } as Json;
    const withTask = await runEpisode({ env, policy: policy(), journal: new MemoryJournal(), seed: "t", task: given });
    expectTypeOf(withTask.task).toEqualTypeOf<Json>();
    // An environment whose task was replaced by a spread disagrees with itself on the task's type: JSON tasks.
    const respread = { ...env, task: (seed: string) => ({ other: seed }) };
    const run = rollout({ env: respread, policy: policy(), journal: new MemoryJournal(), seed: "x", episodes: 1 });
    expectTypeOf(run.episodes).toEqualTypeOf<Observable<EpisodeRecord>>();
    expect((await lastValueFrom(run.episodes)).task).toEqual({ other: "x:task0" });
    expect(withTask.task).toEqual(given);
  });

  it("loadEnv<Task>: a module's environment loaded from code has the module's task type, JSON without it", async () => {
    // The weather module's own `type Task`; before, loadEnv took no type argument and its tasks were JSON only.
    type WeatherTask = { a: string; b: string };
    const weather = await loadEnv<WeatherTask>("actors/weather/env.ts");
    expectTypeOf(weather).toEqualTypeOf<EnvDefinition<WeatherTask>>();
    const task = weather.task("s");
    expect([typeof task.a, typeof task.b]).toEqual(["string", "string"]);
    expectTypeOf((await loadEnv("actors/weather/env.ts")).task).returns.toEqualTypeOf<Json>();
  });
});

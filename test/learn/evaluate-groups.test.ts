/**
 * An environment's `taskGroup` names the kind of each task; evaluate then reports each kind's scores beside the
 * totals (`groups`), so a 4-hop question's exact match is not averaged away among 2-hop ones.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { hopqa } from "../../actors/hopqa/index.ts";
import { lookup } from "../../actors/lookup/index.ts";
import type { LookupTask } from "../../actors/lookup/store.ts";
import { defineEnv, type EnvDefinition, type EpisodeRecord } from "../../src/index.ts";
import { summarizeEpisodes } from "../../src/learn/evaluate.ts";
import { describeEval, evaluate } from "../../src/learn/index.ts";

const lookupByHops: EnvDefinition<LookupTask> = {
  ...(lookup as unknown as EnvDefinition<LookupTask>),
  taskGroup: (task) => `${task.hops} hop${task.hops === 1 ? "" : "s"}`,
};

const record = (i: number, group: number, em: number, success: boolean | undefined): EpisodeRecord => ({
  episode: `ep-${i}`,
  seed: `s:${i}`,
  task: { kind: group },
  events: [],
  reason: "answered",
  return: em,
  turns: 1,
  metrics: success === undefined ? { em } : { em, success: success ? 1 : 0 },
});

describe("evaluate's scores by kind of task (an environment's taskGroup)", () => {
  it("gives each kind's episodes and scores, which add up to the totals", async () => {
    const summary = await evaluate(lookupByHops, lookup.policies.expert(), { episodes: 24, seed: "groups" });
    const groups = summary.groups ?? {};
    expect(Object.keys(groups).sort()).toEqual(["1 hop", "2 hops"]);
    expect(Object.values(groups).reduce((n, g) => n + g.episodes, 0)).toBe(24);
    const successes = Object.values(groups).reduce((n, g) => n + (g.successRate ?? 0) * g.episodes, 0);
    expect(successes / 24).toBeCloseTo(summary.successRate ?? -1, 12);
    expect(summary.groupsProblem).toBeUndefined();
  });

  it("has no groups for an environment that names no kinds", async () => {
    const summary = await evaluate(lookup, lookup.policies.expert(), { episodes: 3, seed: "plain" });
    expect(summary).not.toHaveProperty("groups");
    expect(summary).not.toHaveProperty("groupsProblem");
  });

  it("keeps the scores when taskGroup throws or names no kind, and says which episode and why", async () => {
    const throwing = { ...lookupByHops, taskGroup: () => JSON.parse("{") as string };
    const summary = await evaluate(throwing, lookup.policies.expert(), { episodes: 4, seed: "bug" });
    expect(summary.episodes).toBe(4);
    expect(summary.successRate).toBe(1);
    expect(summary.groups).toBeUndefined();
    expect(summary.groupsProblem).toMatch(/^environment lookup: taskGroup threw for the task of ep-bug-0: .*JSON/);
    expect(describeEval(summary)).toContain("no scores by kind of task: environment lookup: taskGroup threw");
    const empty = await evaluate({ ...lookupByHops, taskGroup: () => "" }, lookup.policies.expert(), {
      episodes: 2,
      seed: "bug",
    });
    expect(empty.groupsProblem).toBe(
      "environment lookup: taskGroup gave an empty name for the task of ep-bug-0; it must give the name of the task's kind, a non-empty string",
    );
  });

  it("defineEnv refuses a taskGroup that is no function, saying what it takes", () => {
    const { id, version, description, machine, tools, tokenizer, task } = lookup;
    expect(() =>
      defineEnv({ id, version, description, machine, tools, tokenizer, task, taskGroup: "hops" as never }),
    ).toThrow(
      'environment lookup: `taskGroup` must be a function ((task) => the name of its kind, e.g. "2 hops"), got',
    );
  });

  it("hopqa names its questions' kinds by chain length: 2 and 3 hops on test, 4 on ood", async () => {
    const expert = hopqa.policies.expert();
    const test = await evaluate(hopqa.configure({ split: "test", worlds: "1-20" }), expert, {
      episodes: 16,
      seed: "g",
    });
    expect(Object.keys(test.groups ?? {}).sort()).toEqual(["2 hops", "3 hops"]);
    const ood = await evaluate(hopqa.configure({ split: "ood", worlds: "1-20" }), expert, { episodes: 4, seed: "g" });
    expect(Object.keys(ood.groups ?? {})).toEqual(["4 hops"]);
    expect(ood.groups?.["4 hops"].metrics.em).toBe(ood.metrics.em);
  });

  it("a kind may have any name, __proto__ and constructor included", () => {
    const records = [record(0, 0, 1, true), record(1, 1, 0, false), record(2, 0, 0, true)];
    const names = ["__proto__", "constructor"];
    const summary = summarizeEpisodes(records, undefined, {
      id: "toy",
      taskGroup: (task: unknown) => names[(task as { kind: number }).kind],
    });
    expect(Object.keys(summary.groups ?? {})).toEqual(["__proto__", "constructor"]);
    const own = (groups: unknown) => Object.getOwnPropertyDescriptor(groups, "__proto__")?.value;
    expect(own(summary.groups).episodes).toBe(2);
    expect(own(JSON.parse(JSON.stringify(summary)).groups).metrics.em).toBe(0.5);
  });

  test.prop([
    fc.array(
      fc.record({
        group: fc.integer({ min: 0, max: 3 }),
        em: fc.double({ min: 0, max: 1, noNaN: true }),
        success: fc.option(fc.boolean(), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 60 },
    ),
  ])("each kind's mean, weighted by its episodes, is the total's mean; every episode is in one kind", (drawn) => {
    const records = drawn.map((d, i) => record(i, d.group, d.em, d.success));
    const env = { id: "toy", taskGroup: (task: unknown) => `kind ${(task as { kind: number }).kind}` };
    const summary = summarizeEpisodes(records, undefined, env);
    const groups = Object.values(summary.groups ?? {});
    expect(groups.reduce((n, g) => n + g.episodes, 0)).toBe(records.length);
    const em = groups.reduce((sum, g) => sum + g.metrics.em * g.episodes, 0) / records.length;
    expect(em).toBeCloseTo(summary.metrics.em, 9);
    const reported = records.filter((r) => "success" in r.metrics).length;
    if (reported > 0) {
      const successes = records.reduce((n, r) => n + (r.metrics.success ?? 0), 0);
      expect(summary.successRate).toBeCloseTo(successes / reported, 12);
    } else expect(summary.successRate).toBeNull();
    for (const [name, g] of Object.entries(summary.groups ?? {}))
      expect(g.episodes).toBe(records.filter((r) => `kind ${(r.task as { kind: number }).kind}` === name).length);
  });
});

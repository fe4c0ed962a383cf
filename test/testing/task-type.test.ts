/**
 * The testing kit carries its environment's task type, as runEpisode and rollout do (test/runtime/task-type.test.ts):
 * `episodeScriptArbitrary`, `playEpisode`, `EpisodeDriver`, `checkModel`'s model and `exploreEnv`'s paths give
 * `script.task.secret` and `driver.task.secret` with no cast, and so do checkRewards' invariants (npm test type-checks this file: with `task: Json`
 * each read below is a compile error). Code for any environment keeps the defaults, whose task is JSON.
 */
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { EnvDefinition, EpisodeRecord, Json } from "../../src/index.ts";
import {
  CounterexampleError,
  type CoveragePath,
  type CoverageReport,
  checkModel,
  checkRewards,
  EpisodeDriver,
  type EpisodeScript,
  episodeInvariant,
  episodeScriptArbitrary,
  exploreEnv,
  neverCrashes,
  type PlayedEpisode,
  playEpisode,
  type RewardInvariant,
  rewardBounds,
} from "../../src/testing/index.ts";
import { createSecretEnv, secretActions } from "./fixtures.ts";

type Task = { secret: string };
const env = createSecretEnv();

describe("the testing kit's scripts, driver, model and exploration have the environment's task type", () => {
  it("episodeScriptArbitrary and playEpisode: script.task and record.task read with no cast", async () => {
    const scripts = episodeScriptArbitrary(env, { ...secretActions, tasks: fc.constant({ secret: "bee" }) });
    expectTypeOf(scripts).toEqualTypeOf<fc.Arbitrary<EpisodeScript<Task>>>();
    const [script] = fc.sample(scripts, { numRuns: 1, seed: 1 });
    expect(script.task?.secret).toBe("bee");
    const played = await playEpisode(env, { seed: "s1", actions: ["<answer>bee</answer>"] });
    expectTypeOf(played).toEqualTypeOf<PlayedEpisode<Task>>();
    expectTypeOf(played.record).toEqualTypeOf<EpisodeRecord<Task>>();
    expect(played.script.task?.secret).toBe(played.record.task.secret);
    // `tasks` of another type than the environment's give JSON scripts, as runEpisode's `task` does.
    // @ts-expect-error: the task is JSON, which may have no `secret`
    episodeScriptArbitrary(env, { tasks: fc.constant({ word: "bee" }) }).map((s) => s.task?.secret);
  });

  it("EpisodeDriver: driver.task and the closed record's task", async () => {
    const driver = await EpisodeDriver.start(env, { seed: "s2", task: { secret: "cat" } });
    expectTypeOf(driver).toEqualTypeOf<EpisodeDriver<Task>>();
    expect(driver.task.secret).toBe("cat");
    await driver.act("<answer>cat</answer>");
    const record = await driver.close();
    expect(record.task.secret).toBe("cat");
    expect(record.return).toBe(1);
  });

  it("checkModel: the model's init and opening get the task type without annotations", async () => {
    await checkModel(env, {
      ...secretActions,
      numRuns: 2,
      model: {
        init: (task) => ({ secret: task.secret }),
        opening: (task) => (task.secret.length > 0 ? "guess the secret word" : "?"),
        act: (state) => ({ state }),
      },
    });
  });

  it("exploreEnv: each path's script has the task type", () => {
    const report = exploreEnv(env, { task: { secret: "bee" }, actions: ["<answer>bee</answer>"] });
    expectTypeOf(report).toEqualTypeOf<CoverageReport<Task>>();
    expectTypeOf(report.paths[0]).toEqualTypeOf<CoveragePath<Task>>();
    expect(report.paths.every((p) => p.script.task?.secret === "bee")).toBe(true);
  });

  it("checkRewards: an episodeInvariant written in invariants reads the task with no cast, beside built-in ones", async () => {
    const seen: string[] = [];
    const check = checkRewards(env, {
      ...secretActions,
      numRuns: 5,
      tasks: fc.constant({ secret: "bee" }),
      invariants: [
        rewardBounds({ min: -1, max: 1 }),
        neverCrashes(),
        episodeInvariant(
          "the task reaches the invariant",
          (e, on) => {
            expectTypeOf(e).toEqualTypeOf<PlayedEpisode<Task>>();
            expectTypeOf(on).toEqualTypeOf<EnvDefinition<Task>>();
            seen.push(e.record.task.secret);
            return e.script.task?.secret === "bee" ? undefined : `the task is ${e.record.task.secret}`;
          },
          { appliesTo: (e) => e.record.task.secret.length > 0 },
        ),
      ],
    });
    await check;
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set(["bee"]));
    // A failing one reports its message, written with the task's own field.
    const failure = await checkRewards(env, {
      ...secretActions,
      numRuns: 5,
      invariants: [episodeInvariant("never a secret", (e) => `the secret is ${e.record.task.secret}`)],
    }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(failure).toBeInstanceOf(CounterexampleError);
    expect((failure as CounterexampleError).violation.message).toMatch(/^the secret is \w+$/);
  });

  it("checkRewards: an invariant made apart has JSON tasks unless given its Task, and one of another Task is refused", () => {
    const apart = episodeInvariant("apart", (e) => {
      expectTypeOf(e).toEqualTypeOf<PlayedEpisode>();
      // @ts-expect-error: made apart from any environment, the task is JSON, which may have no `secret`
      return e.record.task.secret;
    });
    const given = episodeInvariant<Task>("given", (e) => (e.record.task.secret ? undefined : "no secret"));
    expectTypeOf(given).toEqualTypeOf<RewardInvariant<EpisodeScript<Task>, Task>>();
    const annotated = episodeInvariant("annotated", (e: PlayedEpisode<Task>) => e.record.task.secret || undefined);
    expectTypeOf(annotated).toEqualTypeOf<RewardInvariant<EpisodeScript<Task>, Task>>();
    // Both kinds go in one list (not run: a type check).
    const typeCheckOnly = () => checkRewards(env, { invariants: [apart, given, annotated] });
    const other = episodeInvariant<{ word: string }>("other", (e) => e.record.task.word);
    // @ts-expect-error: an invariant of tasks with a `word` cannot check an environment whose tasks have none
    const refused = () => checkRewards(env, { invariants: [other] });
    // For an environment of any task type, an invariant written in the list gets JSON tasks.
    const anyEnv: EnvDefinition = env;
    const anyTask = () =>
      checkRewards(anyEnv, {
        invariants: [
          episodeInvariant("any", (e) => {
            expectTypeOf(e).toEqualTypeOf<PlayedEpisode>();
            return undefined;
          }),
        ],
      });
    expect([typeCheckOnly, refused, anyTask].every((f) => typeof f === "function")).toBe(true);
  });

  it("code for any environment, and a task given as JSON, keep JSON tasks", async () => {
    expectTypeOf<EpisodeScript["task"]>().toEqualTypeOf<Json | undefined>();
    const anyEnv: EnvDefinition = env;
    expectTypeOf(episodeScriptArbitrary(anyEnv)).toEqualTypeOf<fc.Arbitrary<EpisodeScript>>();
    const given = { secret: "ant" } as Json;
    const played = await playEpisode(env, { seed: "s3", task: given, actions: [] });
    expectTypeOf(played).toEqualTypeOf<PlayedEpisode>();
    const driver = await EpisodeDriver.start(anyEnv, { seed: "s4" });
    expectTypeOf(driver.task).toEqualTypeOf<Json>();
    await driver.close();
  });
});

/**
 * The testing kit carries its environment's task type, as runEpisode and rollout do (test/runtime/task-type.test.ts):
 * `episodeScriptArbitrary`, `playEpisode`, `EpisodeDriver`, `checkModel`'s model and `exploreEnv`'s paths give
 * `script.task.secret` and `driver.task.secret` with no cast (npm test type-checks this file: with `task: Json`
 * each read below is a compile error). Code for any environment keeps the defaults, whose task is JSON.
 */
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { EnvDefinition, EpisodeRecord, Json } from "../../src/index.ts";
import {
  type CoveragePath,
  type CoverageReport,
  checkModel,
  EpisodeDriver,
  type EpisodeScript,
  episodeScriptArbitrary,
  exploreEnv,
  type PlayedEpisode,
  playEpisode,
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

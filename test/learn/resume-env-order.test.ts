/**
 * A resumed train run or sft compares its env spec with the one it was started with whatever the order of the
 * options: the experiment's run folders and stopped warm starts written with `hopqa?wording=possessive&legal=relations`
 * go on under `hopqa?legal=relations&wording=possessive` (the one spelling it writes now). Other options are
 * still refused, naming both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hopqa } from "../../actors/hopqa/index.ts";
import { lookup } from "../../actors/lookup/index.ts";
import { main } from "../../src/cli/main.ts";
import { sameEnvironment } from "../../src/cli/registry.ts";
import { modelConfigFor, trainConfigFor } from "../../src/learn/config.ts";
import { sft } from "../../src/learn/sft.ts";
import { readRunConfig, train } from "../../src/learn/trainer.ts";
import { configureEnv } from "../../src/runtime/variants.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();
const log = () => {};
const model = { layers: 1, heads: 2, width: 16 };

/** sft() stopped after its first epoch, its progress saved for a resume. */
const stoppedAfterAnEpoch = async (options: Parameters<typeof sft>[0]) => {
  let epochs = 0;
  const first = await sft({
    ...options,
    shouldStop: () => epochs >= 1,
    onEpoch: () => {
      epochs++;
    },
  });
  expect(first.stopped).toBe(true);
};

describe("a resume under the same env options in another order", () => {
  it("train: goes on; other options are refused, naming both", async () => {
    const out = join(tempDir("agent-r1-resume-order-"), "run");
    const config = (env: string, steps: number) => ({
      ...trainConfigFor(lookup, {
        backend: "wasm",
        steps,
        tasksPerStep: 2,
        groupSize: 2,
        evalEpisodes: 0,
        warmStart: null,
        model,
      }),
      env,
    });
    expect((await train({ env: lookup, config: config("lookup?b=2&a=1", 1), out, log })).version).toBe(1);
    await expect(train({ env: lookup, config: config("lookup?a=1&b=3", 1), out, resume: true, log })).rejects.toThrow(
      `env "lookup?a=1&b=3" (the run has "lookup?b=2&a=1") cannot apply`,
    );
    expect((await train({ env: lookup, config: config("lookup?a=1&b=2", 1), out, resume: true, log })).version).toBe(1);
  }, 60_000);

  it("train from code: a built-in environment's options spelt another way go on, as train --resume --env takes them", async () => {
    const out = join(tempDir("agent-r1-resume-spelling-"), "run");
    const env = configureEnv(hopqa, "world-seed=5");
    const config = (spec: string, steps: number) => ({
      ...trainConfigFor(env, {
        backend: "wasm",
        steps,
        tasksPerStep: 1,
        groupSize: 2,
        evalEpisodes: 0,
        warmStart: null,
        model,
      }),
      env: spec,
    });
    expect((await train({ env, config: config("hopqa?world-seed=5", 1), out, log })).version).toBe(1);
    // hopqa's world-seed=5 is worlds=5-5: the CLI's sameEnvironment says so, and so does train() now.
    expect(sameEnvironment("hopqa?worlds=5-5", "hopqa?world-seed=5")).toBe(true);
    const resumed = await train({ env, config: config("hopqa?worlds=5-5", 2), out, resume: true, log });
    expect(resumed.version).toBe(2);
    // The run keeps its own spelling, as train --resume --env does.
    expect(readRunConfig(out)?.env).toBe("hopqa?world-seed=5");
    await expect(train({ env, config: config("hopqa?world-seed=6", 2), out, resume: true, log })).rejects.toThrow(
      `env "hopqa?world-seed=6" (the run has "hopqa?world-seed=5") cannot apply`,
    );
  }, 60_000);

  it("sft: goes on; other options are refused, naming both", async () => {
    const dir = tempDir("agent-r1-sft-order-");
    const data = join(dir, "demos");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", data])).toBe(0);
    const out = join(dir, "clone");
    const base = { env: lookup, data, out, epochs: 2, batchSize: 2, backend: "wasm", model, log } as const;
    await stoppedAfterAnEpoch({ ...base, envSpec: "lookup?b=2&a=1" });
    await expect(sft({ ...base, envSpec: "lookup?a=1&b=3", resume: true })).rejects.toThrow(
      `resume: envSpec differs from the stopped sft's: "lookup?b=2&a=1" then, "lookup?a=1&b=3" now`,
    );
    const resumed = await sft({ ...base, envSpec: "lookup?a=1&b=2", resume: true });
    expect(resumed.stopped).toBeUndefined();
  }, 60_000);

  it("sft from code: a built-in environment's options spelt another way go on, as sft --resume --env takes them", async () => {
    const dir = tempDir("agent-r1-sft-spelling-");
    const data = join(dir, "demos");
    const record = ["record", "--env", "hopqa?world-seed=5", "--policy", "expert", "--episodes", "4", "--out", data];
    expect(await main(record)).toBe(0);
    const out = join(dir, "clone");
    const env = configureEnv(hopqa, "world-seed=5");
    const base = {
      env,
      data,
      out,
      epochs: 2,
      batchSize: 2,
      backend: "wasm" as const,
      model: modelConfigFor(env, model),
      log,
    };
    await stoppedAfterAnEpoch({ ...base, envSpec: "hopqa?world-seed=5" });
    // Other options are still refused, naming both.
    await expect(sft({ ...base, envSpec: "hopqa?world-seed=6", resume: true })).rejects.toThrow(
      `resume: envSpec differs from the stopped sft's: "hopqa?world-seed=5" then, "hopqa?world-seed=6" now`,
    );
    // hopqa's world-seed=5 is worlds=5-5: the CLI's sameEnvironment says so, and so does sft() now.
    expect(sameEnvironment("hopqa?worlds=5-5", "hopqa?world-seed=5")).toBe(true);
    const resumed = await sft({ ...base, envSpec: "hopqa?worlds=5-5", resume: true });
    expect(resumed.stopped).toBeUndefined();
    // The clone keeps the stopped sft's spelling, as sft --resume --env does.
    expect(JSON.parse(readFileSync(join(out, "sft.json"), "utf8")).env).toBe("hopqa?world-seed=5");
  }, 60_000);
});

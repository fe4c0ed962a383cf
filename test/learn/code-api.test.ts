/**
 * The learner from code, through the package's own entry point (`agent-r1-ts/learn`), as the README shows
 * it: a config built for an environment, training, a policy from the checkpoint, evaluation; and the
 * mistakes `train()` refuses before any work.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evaluateSuiteShown } from "../../actors/hopqa/suite.ts";
import weather from "../../actors/weather/env.ts";
import { seedArg } from "../../src/cli/args.ts";
import { runConfigEnv } from "../../src/cli/registry.ts";
import { UsageError } from "../../src/index.ts";
import {
  averageCheckpoints,
  DEFAULT_TRAIN_CONFIG,
  evaluate,
  loadEnv,
  loadPolicy,
  sft,
  train,
  trainConfigFor,
} from "../../src/learn/index.ts";
import { readRunConfig } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

const tiny = { layers: 1, heads: 2, width: 16 };

describe("the learner from code", () => {
  it("is the package's `agent-r1-ts/learn` entry point", async () => {
    const learn = await import("agent-r1-ts/learn");
    expect(learn.train).toBe(train);
    for (const name of [
      "sft",
      "evaluate",
      "loadPolicy",
      "trainConfigFor",
      "plotRuns",
      "loadEnv",
      "averageCheckpoints",
    ] as const)
      expect(typeof learn[name], name).toBe("function");
  });

  it("the benchmark is `agent-r1-ts/hopqa`: the environment and the results table's suite", async () => {
    const bench = await import("agent-r1-ts/hopqa");
    expect(bench.hopqa.id).toBe("hopqa");
    expect(bench.COLUMNS.map((c) => c.id)).toEqual(["test-seen", "test-new", "ood-new"]);
    const suite = await bench.evaluateSuite(() => bench.hopqa.policies.expert(), 2);
    expect(suite["test-new"].em).toBe(1); // the expert reads the world graph
    // `eval --suite --seed` takes 100 characters, and each column plays SEED:COLUMN, past them: still evaluated.
    const long = await bench.evaluateSuite(() => bench.hopqa.policies.expert(), 1, "s".repeat(100));
    expect(long["ood-new"].episodes).toBe(1);
    // No questions is refused, not scored 0 in every column.
    for (const episodes of [0, -3, 2.5])
      await expect(bench.evaluateSuite(() => bench.hopqa.policies.expert(), episodes)).rejects.toThrow(
        `evaluateSuite: episodes (questions per column) must be a positive whole number, got ${episodes}`,
      );
    // npm start scores on start:SEED, past 100 characters for a long --seed: the CLI's own path takes it.
    const started = await evaluateSuiteShown(
      "eval",
      () => bench.hopqa.policies.expert(),
      1,
      `start:${"s".repeat(100)}`,
    );
    expect(started["test-new"].episodes).toBe(1);
    // A seed `eval --suite --seed` refuses is refused here, before any question is played.
    for (const seed of ["", "two words", "s".repeat(101)])
      await expect(bench.evaluateSuite(() => bench.hopqa.policies.expert(), 1, seed)).rejects.toThrow(
        "evaluateSuite: seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got",
      );
  });

  it("trainConfigFor builds what `train --env ID` would: the environment's id, model, warm start; then the overrides", async () => {
    const lookup = await loadEnv("lookup");
    const config = trainConfigFor(lookup, { steps: 3, model: { width: 32 } });
    expect(config).toMatchObject({ env: "lookup", steps: 3, algo: DEFAULT_TRAIN_CONFIG.algo });
    expect(config.model).toMatchObject({ contextLength: 192, copy: true, width: 32, layers: 2 });
    expect(config.warmStart).toEqual(lookup.warmStart);
    expect(trainConfigFor(lookup, { init: "some/checkpoint" }).warmStart).toBeUndefined();
    expect(trainConfigFor({ ...weather, maxActionTokens: 20 }).maxNewTokens).toBe(20);
    expect(() => trainConfigFor(lookup, { steps: 0 })).toThrow(UsageError);
    expect(() => trainConfigFor(lookup, { lr: -1 })).toThrow(/train config: [\s\S]*"lr"/);
    // 0 as the CLI's --lr 0 is refused: an update that changes no weight.
    expect(() => trainConfigFor(lookup, { lr: 0 })).toThrow(UsageError);
    expect(() => trainConfigFor(lookup, { lr: 0 })).toThrow(
      /^train config: lr must be a finite number > 0 \(the CLI's --lr; at 0 nothing is learnt\)\n {2}at \["lr"\], got 0$/,
    );
    // Each wrong field is followed by what it held (Effect's message said only what it expected).
    expect(() => trainConfigFor(lookup, { steps: "3" as never, model: { width: 1.5 } })).toThrow(
      'train config: Expected number\n  at ["steps"], got "3" (a string)\nExpected an integer\n  at ["model"]["width"], got 1.5',
    );
    // A CLI flag's name, or a misspelt field, names the field it meant and lists them all.
    expect(() => trainConfigFor(lookup, { tasks: 2 } as never)).toThrow(
      "train config: no field `tasks` (did you mean `tasksPerStep`?); the fields: env, algo, steps,",
    );
    expect(() => trainConfigFor(lookup, { klCoeff: 0.1 } as never)).toThrow(
      "no field `klCoeff` (did you mean `klCoef`?)",
    );
    // The same inside `model`, where two swapped letters count as one slip; a `model` that is no object is refused.
    expect(() => trainConfigFor(lookup, { model: { widht: 64 } } as never)).toThrow(
      "train config: `model` has no field `widht` (did you mean `width`?); its fields: layers, heads, width, contextLength,",
    );
    expect(() => trainConfigFor(lookup, { model: 3 } as never)).toThrow("train config: `model` must be an object");
    // A shape no model has: refused here, not first by train().
    expect(() => trainConfigFor(lookup, { model: { width: 15, heads: 2 } })).toThrow(
      "trainConfigFor: model: width 15 is not a multiple of heads 2",
    );
  });

  it("trainConfigFor names the module of an environment loadEnv loaded from one, so the CLI can resume and eval the run", async () => {
    const fromModule = await loadEnv("./actors/weather/env.ts");
    expect(trainConfigFor(fromModule).env).toBe("./actors/weather/env.ts");
    // A built-in id stays the id, even after a configured variant of it was loaded.
    await loadEnv("hopqa?split=ood");
    expect(trainConfigFor(await loadEnv("lookup")).env).toBe("lookup");
    expect(trainConfigFor(await loadEnv("hopqa")).env).toBe("hopqa");
    // An environment object of your own (not the one loadEnv loaded) keeps its id, as before.
    expect(trainConfigFor({ ...weather }).env).toBe("weather");
    // What `eval --checkpoint RUN` and `train --resume` read from the run's config.json loads again.
    const out = join(tempDir(), "from-module");
    mkdirSync(out);
    writeFileSync(join(out, "config.json"), JSON.stringify(trainConfigFor(fromModule)));
    const named = runConfigEnv(out);
    expect(named?.env).toBe("./actors/weather/env.ts");
    expect((await loadEnv(named!.env)).id).toBe("weather");
    // Saved again by an editor with a byte order mark, as train --resume accepts it: still the run's environment.
    writeFileSync(join(out, "config.json"), `\uFEFF${JSON.stringify(trainConfigFor(fromModule))}`);
    expect(runConfigEnv(out)?.env).toBe("./actors/weather/env.ts");
  });

  it("a run's config.json edited by hand into invalid JSON is refused with the line and column (Node 20 gives only the offset)", () => {
    const out = join(tempDir(), "hand-edited");
    mkdirSync(join(out, "checkpoints"), { recursive: true });
    writeFileSync(join(out, "config.json"), '{\n  "env": "lookup",\n  // a note\n  "algo": "grpo"\n}\n');
    expect(() => readRunConfig(out)).toThrow(/config\.json: not valid JSON \(.*position 23, line 3 column 3\)$/);
    expect(() => runConfigEnv(out)).toThrow(
      /config\.json: not valid JSON \(.*position 23, line 3 column 3\), so the run's/,
    );
  });

  it("train() refuses a config that does not decode, or that names another environment, before any work", async () => {
    const out = join(tempDir(), "refused");
    const base = { ...DEFAULT_TRAIN_CONFIG, backend: "wasm" as const, model: { ...tiny, contextLength: 192 } };
    await expect(train({ env: weather, config: { ...base, env: "weather", steps: 0 }, out })).rejects.toThrow(
      /train config: [\s\S]*"steps"/,
    );
    await expect(train({ env: weather, config: base, out })).rejects.toThrow(
      /env is "lookup" but the environment given is weather; set env to "(weather|\.\/actors\/weather\/env\.ts)"/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("warm-starts and evaluates a run whose seed is as long as a seed may be (100 characters: its warm start's SEED:warm-start and evaluation's eval:SEED are longer)", async () => {
    const lookup = await loadEnv("lookup");
    const seed = "s".repeat(100);
    const config = trainConfigFor(lookup, {
      backend: "wasm",
      seed,
      steps: 1,
      tasksPerStep: 1,
      groupSize: 2,
      evalEpisodes: 1,
      warmStart: { episodes: 2, epochs: 1 },
      model: tiny,
    });
    const evaluated: string[] = [];
    const out = join(tempDir(), "long-seed");
    const onEvalEpisode = (_phase: string, record: { seed: string }) => evaluated.push(record.seed);
    expect((await train({ env: lookup, config, out, log: () => {}, onEvalEpisode })).version).toBe(1);
    expect(evaluated).toEqual([`eval:${seed}:0`, `eval:${seed}:0`]);
  }, 60_000);

  it("trains, loads the checkpoint as a policy, evaluates and averages it; a resume keeps the run's own config", async () => {
    const lookup = await loadEnv("lookup");
    const out = join(tempDir(), "run");
    const config = trainConfigFor(lookup, {
      backend: "wasm",
      steps: 1,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: null,
      model: tiny,
    });
    const result = await train({ env: lookup, config, out, log: () => {} });
    expect(result.version).toBe(1);
    expect(JSON.parse(readFileSync(join(out, "config.json"), "utf8")).env).toBe("lookup");

    const policy = await loadPolicy(lookup, join(out, "checkpoints", "v00001"), { backend: "wasm" });
    const summary = await evaluate(lookup, policy, { episodes: 3, seed: "code-api" });
    expect(summary.episodes).toBe(3);
    await expect(evaluate(lookup, policy, { episodes: 2.5, seed: "code-api" })).rejects.toThrow(
      "evaluate: episodes must be a whole number (0 or more), got 2.5",
    );
    expect(summary.successRate).toBeGreaterThanOrEqual(0);
    // A run folder (or its checkpoints/) means its latest checkpoint, as `eval --checkpoint` takes it.
    for (const dir of [out, join(out, "checkpoints")])
      expect((await loadPolicy(lookup, dir, { backend: "wasm" })).version).toBe(1);
    const averaged = await averageCheckpoints([out, join(out, "checkpoints", "v00001")]);
    expect(averaged.versions).toEqual([1, 1]);
    averaged.model.dispose();
    // Another environment's observations would be read as other words: refused, not scored.
    await expect(evaluate(weather, policy, { episodes: 2, seed: "x" })).rejects.toThrow(
      /^evaluate: the policy was made for another tokenizer \(words-v1:\w+\) than environment weather's \(words-v1:\w+\)/,
    );

    // A resume continues with the run's own config.json: another environment, algorithm or shape is
    // refused by field, and the config.json is left as it was.
    const savedText = readFileSync(join(out, "config.json"), "utf8");
    const other = { ...config, env: "./actors/weather/env.ts", steps: 2 };
    await expect(train({ env: weather, config: other, out, resume: true, log: () => {} })).rejects.toThrow(
      `resume: ${out} continues with its own config.json, so env "./actors/weather/env.ts" (the run has "lookup") cannot apply`,
    );
    const changed = { ...config, algo: "ppo" as const, model: { ...config.model, width: 32 }, steps: 2 };
    await expect(train({ env: lookup, config: changed, out, resume: true, log: () => {} })).rejects.toThrow(
      /^resume: .* so algo "ppo" \(the run has "grpo"\), model \{.*"width":32.*\} \(the run has \{.*"width":16.*\}\) cannot apply; give the run's config \(readRunConfig\(out\)\) with only steps or backend changed/,
    );
    await expect(
      train({ env: lookup, config: { ...config, steps: 0 }, out, resume: true, log: () => {} }),
    ).rejects.toThrow(/train config: [\s\S]*"steps"/);
    expect(readFileSync(join(out, "config.json"), "utf8")).toBe(savedText);
    // A fresh train() into the run's folder is refused in code's words, not the CLI's flags.
    await expect(train({ env: lookup, config, out, log: () => {} })).rejects.toThrow(
      `${out} already holds a run; continue it with train({ ..., resume: true }), or give train() another out`,
    );
    expect(readFileSync(join(out, "config.json"), "utf8")).toBe(savedText);
    // Evaluating reads no optimizer state: a truncated optimizer.bin stops a resume, not loadPolicy.
    const damaged = join(tempDir(), "damaged-optimizer");
    cpSync(out, damaged, { recursive: true });
    const moments = join(damaged, "checkpoints", "v00001", "optimizer.bin");
    writeFileSync(moments, readFileSync(moments).subarray(0, 100));
    expect((await loadPolicy(lookup, damaged, { backend: "wasm" })).version).toBe(1);
    await expect(
      train({ env: lookup, config: { ...config, steps: 2 }, out: damaged, resume: true, log: () => {} }),
    ).rejects.toThrow(/optimizer\.bin: truncated: 100 bytes, the manifest says \d+/);
    // A misspelt folder is not a new run.
    const missing = join(tempDir(), "no-such-run");
    await expect(train({ env: lookup, config, out: missing, resume: true, log: () => {} })).rejects.toThrow(
      `resume: no run folder ${missing}; give the folder of the run to continue, or drop resume to start a new run there`,
    );
    expect(existsSync(missing)).toBe(false);
  }, 60_000);

  it("mistakes from code get one clear line naming the option, before any work", async () => {
    const lookup = await loadEnv("lookup");
    const config = trainConfigFor(lookup, { steps: 1, warmStart: null, model: tiny, backend: "wasm" });
    const out = join(tempDir(), "mistakes");
    // train: a misspelt option, no out, a file as out, a raw object of a few fields, an id for env.
    await expect(train({ env: lookup, config, out, resum: true } as never)).rejects.toThrow(
      "train: unknown option `resum` (did you mean `resume`?)",
    );
    // A config field given to train itself (`train --init`'s init, say) is said as the config's.
    await expect(train({ env: lookup, config, out, init: "runs/warm" } as never)).rejects.toThrow(
      "train: `init` is a field of the config, not an option of train: trainConfigFor(env, { init: ... }), then train({ env, config, out })",
    );
    await expect(train({ env: lookup, config } as never)).rejects.toThrow(
      "train: out must be the run's folder (a path), got undefined",
    );
    const file = join(tempDir(), "a-file");
    writeFileSync(file, "x");
    await expect(train({ env: lookup, config, out: file, log: () => {} })).rejects.toThrow(`${file} is a file`);
    await expect(train({ env: lookup, config: { algo: "grpo", steps: 1 } as never, out })).rejects.toThrow(
      /^train config: missing env, seed, backend, .*; build the config with trainConfigFor\(env, \{ \.\.\.overrides \}\)/,
    );
    await expect(train({ env: "lookup" as never, config, out })).rejects.toThrow(
      'train: env must be an environment object, got the string "lookup"; load it first: await loadEnv("lookup")',
    );
    expect(existsSync(out)).toBe(false);
    // loadPolicy and evaluate.
    await expect(loadPolicy("lookup" as never, out)).rejects.toThrow(
      "loadPolicy: the first argument must be an environment object",
    );
    await expect(loadPolicy(lookup, out, { constrianed: true } as never)).rejects.toThrow(
      "loadPolicy: unknown option `constrianed` (did you mean `constrained`?)",
    );
    const expert = lookup.policies!.expert();
    await expect(evaluate(lookup, expert, undefined as never)).rejects.toThrow("evaluate: give the options");
    await expect(evaluate(lookup, expert, { episode: 2, seed: "s" } as never)).rejects.toThrow(
      "evaluate: unknown option `episode` (did you mean `episodes`?)",
    );
    await expect(evaluate(lookup, expert, { episodes: "3", seed: "s" } as never)).rejects.toThrow('got "3"');
    // Left out, the seed (or episodes) is said as missing, with what to give, not "got undefined".
    await expect(evaluate(lookup, expert, { episodes: 2 } as never)).rejects.toThrow(
      'evaluate: seed is missing: give the evaluation\'s seed, a string (episode i plays seed SEED:i; as agent-r1 eval --seed, whose default is "eval": keep it apart from training seeds), e.g. evaluate(env, policy, { episodes: 100, seed: "eval" })',
    );
    await expect(evaluate(lookup, expert, { seed: "s" } as never)).rejects.toThrow(
      'evaluate: episodes is missing: give how many episodes to run (0 or more), e.g. evaluate(env, policy, { episodes: 100, seed: "eval" })',
    );
    await expect(evaluate(lookup, expert, { episodes: 2, seed: 7 } as never)).rejects.toThrow(
      "evaluate: seed must be a string (episode i plays seed SEED:i), got 7",
    );
    // A seed `agent-r1 eval --seed` refuses is refused here too, in the CLI's words: "" played episodes ":0", ":1".
    for (const [seed, shown] of [
      ["", '""'],
      ["held out", '"held out"'],
      ["x".repeat(101), `"${"x".repeat(40)}"...`],
    ])
      await expect(evaluate(lookup, expert, { episodes: 2, seed })).rejects.toThrow(
        `evaluate: seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ${shown}`,
      );
    // A train config too (its seed names the run's episodes): built, or written by hand and given to train().
    const seedRule = `train config: seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ""`;
    expect(() => trainConfigFor(lookup, { seed: "" })).toThrow(seedRule);
    const handWritten = { ...trainConfigFor(lookup, { steps: 1, warmStart: null, model: tiny }), seed: "" };
    await expect(
      train({ env: lookup, config: handWritten, out: join(tempDir(), "empty-seed"), log: () => {} }),
    ).rejects.toThrow(seedRule);
    expect(() => seedArg("")).toThrow(
      `--seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ""`,
    );
    // sft: a misspelt option, no out, an unknown backend.
    const data = join(tempDir(), "no-demos");
    await expect(sft({ env: lookup, data, out, epoch: 1 } as never)).rejects.toThrow(
      "sft: unknown option `epoch` (did you mean `epochs`?)",
    );
    await expect(sft({ env: lookup, data } as never)).rejects.toThrow(
      "sft: out must be a folder path (for the checkpoint), got undefined",
    );
    await expect(sft({ env: lookup, data, out, batchSize: 0 })).rejects.toThrow(
      "sft: batchSize must be a whole number >= 1, got 0",
    );
    // A seed `agent-r1 sft --seed` refuses is refused here too, in the CLI's words, before anything is read.
    for (const [seed, shown] of [
      ["", '""'],
      ["two words", '"two words"'],
      ["x".repeat(101), `"${"x".repeat(40)}"...`],
    ])
      await expect(sft({ env: lookup, data, out, seed })).rejects.toThrow(
        `sft: seed must be 1 to 100 ASCII letters (a-z, A-Z), digits, '.', '_', '-' or ':', got ${shown}`,
      );
    await expect(sft({ env: lookup, data, out, seed: 7 as never })).rejects.toThrow(
      "sft: seed must be a string, got 7",
    );
    expect(existsSync(out)).toBe(false);
  });

  it('from plain JavaScript, a switch given as text (constrained: "no", truthy) is refused, not taken as true', async () => {
    const lookup = await loadEnv("lookup");
    const out = join(tempDir(), "switches");
    const data = join(tempDir(), "no-demos");
    for (const key of ["constrained", "successfulOnly", "resume"])
      await expect(sft({ env: lookup, data, out, [key]: "no" } as never)).rejects.toThrow(
        `sft: ${key} must be true or false, got "no"`,
      );
    for (const key of ["constrained", "greedy"])
      await expect(loadPolicy(lookup, out, { [key]: "false" } as never)).rejects.toThrow(
        `loadPolicy: ${key} must be true or false, got "false" (a string)`,
      );
    expect(existsSync(out)).toBe(false);
  });

  it("train() refuses a config whose environment module defines another environment", async () => {
    const lookup = await loadEnv("lookup");
    const config = trainConfigFor(await loadEnv("./actors/weather/env.ts"), { steps: 1, warmStart: null, model: tiny });
    const out = join(tempDir(), "mixed");
    await expect(train({ env: lookup, config, out, log: () => {} })).rejects.toThrow(
      'train config: env "./actors/weather/env.ts" defines environment weather, but the environment given is lookup; set env to "lookup"',
    );
    expect(existsSync(out)).toBe(false);
  });
});

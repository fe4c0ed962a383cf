/**
 * The learner from code, as a user's own project sees it: everything imported from the package's two
 * entries only. A training loop of one's own from the exported pieces, an advantage estimator of one's own
 * in train(), and train() stopped by an AbortSignal.
 */
import { readFileSync } from "node:fs";

import { join } from "node:path";
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import type { Json } from "effect/Schema";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { assign, setup } from "xstate";
import { expertPolicy, lookupEnv } from "../../actors/lookup/index.ts";
import {
  defineEnv,
  defineTool,
  end,
  isAgentR1Error,
  observe,
  Schema,
  toolActors,
  type UsageError,
  UsageError as UsageErrorClass,
  WordTokenizer,
} from "../../src/index.ts";
import {
  AdamW,
  BackendUnavailableError,
  CheckpointError,
  collect,
  computeAdvantages,
  DEFAULT_TRAIN_CONFIG,
  ESTIMATORS,
  type Estimator,
  episodeToSequence,
  evaluate,
  fitToContext,
  Gpt,
  initBackend,
  isLearnError,
  type LearnError,
  loadCheckpoint,
  modelConfigFor,
  policyFromModel,
  train,
  trainConfigFor,
  trainStep,
} from "../../src/learn/index.ts";
import { findJournals } from "../../src/observe/journals.ts";
import { shapedAbortSignal, tempDir } from "../support/index.ts";

/** Two updates of 4 tasks x 2 episodes from a fresh model, no evaluation: enough to see what train() says. */
const TWO_SMALL_UPDATES = {
  steps: 2,
  tasksPerStep: 4,
  groupSize: 2,
  evalEpisodes: 0,
  warmStart: null,
  maxNewTokens: 2,
} as const;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

describe("the learner's pieces, from agent-r1-ts/learn", () => {
  it("make a training loop of one's own: collect, sequences, advantages, a step that changes the model", async () => {
    const model = new Gpt(
      { ...modelConfigFor(lookupEnv), vocabSize: lookupEnv.tokenizer.size, contextLength: 96 },
      "own-loop",
    );
    const config = { ...DEFAULT_TRAIN_CONFIG, maxNewTokens: 8, temperature: 1 };
    const policy = policyFromModel(lookupEnv, model, lookupEnv.tokenizer, config);
    const batch = await collect({ env: lookupEnv, policy, seed: "own", episodes: 8, groupSize: 4 });
    expect(batch).toHaveLength(8);
    const sequences = batch.flatMap(({ events }) => fitToContext(episodeToSequence(events), 96, 8) ?? []);
    expect(sequences.length).toBeGreaterThan(0);
    // A sequence's action mask covers exactly the policy's sampled tokens.
    for (const s of sequences)
      expect(s.actionMask.reduce((n, m) => n + m, 0)).toBe(s.logprobs.filter((_, t) => s.actionMask[t]).length);
    // Rewards that differ within a group, so that the advantages are not all zero.
    const rewarded = sequences.map((s, i) => ({
      ...s,
      totalReturn: i % 2,
      rewards: s.rewards.map((_, t) => (t === s.rewards.length - 1 ? i % 2 : 0)),
    }));
    const { advantages } = computeAdvantages("grpo", rewarded);
    expect(advantages.some((a) => a.some((x) => x !== 0))).toBe(true);
    const before = new Float32Array(await [...model.parameters.values()][0].data());
    const optimizer = new AdamW(model.parameters, { lr: 1e-2 });
    const result = await trainStep(
      model,
      {
        tokens: sequences.map((s) => s.tokens),
        lossMask: sequences.map((s) => Float32Array.from(s.actionMask)),
        advantages,
        logprobs: sequences.map((s) => s.logprobs),
      },
      { optimizer },
    );
    expect(result.skipped).toBe(false);
    expect(Number.isFinite(result.loss)).toBe(true);
    const after = new Float32Array(await [...model.parameters.values()][0].data());
    expect(after).not.toEqual(before);
    model.dispose();
  });

  it("train() takes an advantage estimator of one's own, and checks what it returns", async () => {
    const seen: number[] = [];
    // GRPO's estimator, halved: a user's variant of a shipped one.
    const halfGrpo: Estimator = (sequences, extras, options) => {
      seen.push(sequences.length);
      const result = ESTIMATORS.grpo(sequences, extras, options);
      return { ...result, advantages: result.advantages.map((a) => a.map((x) => x / 2)) };
    };
    const config = trainConfigFor(lookupEnv, {
      steps: 2,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: null,
    });
    const out = tempDir("agent-r1-own-estimator-");
    const run = await train({ env: lookupEnv, config, out, estimator: { name: "half-grpo", estimate: halfGrpo } });
    expect(run.version).toBe(2);
    expect(seen).toEqual([4, 4]);
    // One advantage array too few: refused with the estimator's name, not trained on.
    const short: Estimator = (sequences, extras, options) => {
      const result = ESTIMATORS.grpo(sequences, extras, options);
      return { ...result, advantages: result.advantages.slice(1) };
    };
    await expect(
      train({
        env: lookupEnv,
        config,
        out: tempDir("agent-r1-short-estimator-"),
        estimator: { name: "short", estimate: short },
      }),
    ).rejects.toThrow("short: returned 3 advantage arrays for 4 sequences; give one per sequence");
    // With ppo, the critic's targets (returns) are required; a count of degenerate groups always.
    const noReturns: Estimator = (sequences, extras, options) => {
      const { returns: _, ...rest } = ESTIMATORS.ppo(sequences, extras, options);
      return rest;
    };
    const ppo = { ...config, algo: "ppo" as const };
    await expect(
      train({
        env: lookupEnv,
        config: ppo,
        out: tempDir("agent-r1-ppo-estimator-"),
        estimator: { name: "no-returns", estimate: noReturns },
      }),
    ).rejects.toThrow("no-returns: with algo ppo the estimator must return returns (the critic's targets) too");
    const uncounted: Estimator = (sequences, extras, options) =>
      ({ advantages: ESTIMATORS.grpo(sequences, extras, options).advantages }) as never;
    await expect(
      train({
        env: lookupEnv,
        config,
        out: tempDir("agent-r1-uncounted-"),
        estimator: { name: "uncounted", estimate: uncounted },
      }),
    ).rejects.toThrow("uncounted: degenerateGroups must be a count");
  });

  const shout = (execute: (args: { word: string }) => unknown) =>
    defineTool({
      name: "shout",
      description: "the word in capitals",
      parameters: Schema.Struct({ word: Schema.String }),
      execute: execute as (args: { word: string }) => Json,
    });

  // Every action calls the tool; the machine gets { ok: false } and goes on. Two updates, the lines train said.
  const trainWithTool = async (tool: ReturnType<typeof shout>): Promise<string[]> => {
    const tools = { shout: tool };
    const machine = setup({ types: { context: {} as { turns: number } }, actors: toolActors(tools) }).createMachine({
      context: { turns: 0 },
      entry: observe("go"),
      initial: "waiting",
      states: {
        waiting: {
          on: {
            "agent.act": [
              { guard: ({ context }) => context.turns >= 1, target: "done", actions: end("turns", { success: 0 }) },
              { target: "calling", actions: assign({ turns: ({ context }) => context.turns + 1 }) },
            ],
          },
        },
        calling: {
          invoke: { src: "shout", input: { word: "a" }, onDone: { target: "waiting", actions: observe("ok") } },
        },
        done: { type: "final" },
      },
    });
    const env = defineEnv({
      id: "broken-tool",
      version: "1",
      description: "a tool that fails",
      machine,
      tools,
      tokenizer: new WordTokenizer(["go", "ok"]),
      task: () => ({}),
    });
    const lines: string[] = [];
    const config = trainConfigFor(env, {
      steps: 2,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: null,
      maxNewTokens: 2,
    });
    await train({ env, config, out: tempDir("agent-r1-broken-tool-"), log: (line) => lines.push(line) });
    return lines;
  };
  it("train() says once where a tool's code threw: a bug in a tool is not a hard environment", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: the typo is the point
    const lines = await trainWithTool(shout((args) => (args as any).wrod.toUpperCase()));
    const said = lines.filter((line) => line.includes("a tool's code threw"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^update 1 of 2: a tool's code threw \(the machine got \{ ok: false, error \}\): 4x shout error: Cannot read properties of undefined \(reading 'toUpperCase'\) \(thrown at test\/learn\/library-api\.test\.ts:\d+:\d+\)/,
    );
    // A tool that fails on purpose (a flaky bank) is told how to say so, once, rather than warned on every run.
    expect(said[0]).toContain(
      "; if it is (a flaky service, on purpose), throw a tagged error (a Data.TaggedError, or an Error with a string _tag), which is not said",
    );
  });

  it("train() does not call a tagged failure (an Effect program's typed error) a bug in the tool", async () => {
    // A failure the tool reports on purpose, as the README's Effect tool does: the machine branches on its tag.
    class Busy extends Data.TaggedError("Busy")<{ readonly message: string }> {}
    const lines = await trainWithTool(
      shout(() => Effect.runPromise(Effect.fail(new Busy({ message: "the service is busy" })))),
    );
    expect(lines.filter((line) => line.includes("a tool's code threw"))).toEqual([]);
  });

  it("train() says once when success is of only the episodes that report it", async () => {
    const { default: partial } = await import("../reliability/fixtures/partial-success-env.ts");
    const lines: string[] = [];
    const config = trainConfigFor(partial, TWO_SMALL_UPDATES);
    const sampled: string[] = [];
    await train({
      env: partial,
      config,
      out: tempDir("agent-r1-partial-"),
      log: (line) => lines.push(line),
      // Progress inside an update: each sampled episode, counted against the update's.
      onEpisode: (record, done, of) => sampled.push(`${done}/${of} ${record.episode.slice(0, 3)}`),
    });
    expect(sampled).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${n}/8 ep-`));
    const said = lines.filter((line) => line.includes("ended without a success metric"));
    expect(said, lines.join("\n")).toHaveLength(1);
    expect(said[0]).toMatch(
      /^update \d of 2: success is of the \d episodes? that report it; \d ended without a success metric \(end\(reason, \{ success: 0 \}\) counts a failure\) \(said once\)$/,
    );
  });

  it("train() says once when an episode's success was outside [0, 1] (no rate)", async () => {
    const { default: percent } = await import("../reliability/fixtures/percent-success-env.ts");
    const lines: string[] = [];
    const config = trainConfigFor(percent, TWO_SMALL_UPDATES);
    await train({ env: percent, config, out: tempDir("agent-r1-percent-"), log: (line) => lines.push(line) });
    const said = lines.filter((line) => line.includes("outside [0, 1]"));
    expect(said, lines.join("\n")).toHaveLength(1);
    expect(said[0]).toMatch(
      /^update \d of 2: \d of 8 episodes ended with a success metric outside \[0, 1\] \(e\.g\. ep-\S+: success 100\), so the success shown is no rate: .* \(said once\)$/,
    );
  });

  it("train() stops at an AbortSignal as at shouldStop: between updates, its checkpoint written", async () => {
    const controller = new AbortController();
    const config = trainConfigFor(lookupEnv, {
      steps: 5,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: null,
    });
    const run = await train({
      env: lookupEnv,
      config,
      out: tempDir("agent-r1-signal-train-"),
      signal: controller.signal,
      onUpdate: (metrics) => {
        if (metrics.version === 2) controller.abort(new Error("enough"));
      },
    });
    expect(run.stopped).toBe(true);
    expect(run.version).toBe(2);
  });

  it("evaluate() stops at an AbortSignal: its running episodes end, journaled as stopped, and it rejects with the signal's reason", async () => {
    // It took no signal: a long evaluation from code could be stopped only by ending the process.
    const expert = expertPolicy;
    const dir = tempDir("agent-r1-signal-eval-");
    const controller = new AbortController();
    let ended = 0;
    const stopped = evaluate(lookupEnv, expert(), {
      episodes: 50,
      seed: "held",
      dir,
      signal: controller.signal,
      onEpisode: () => {
        if (++ended === 3) controller.abort(new Error("deadline"));
      },
    });
    await expect(stopped).rejects.toThrow("deadline");
    // The episodes running (evaluate runs them all at once) ended there, journaled as stopped.
    const reasons = (await findJournals(dir)).map(
      (file) => JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!).reason as string,
    );
    expect(reasons.filter((r) => r === "aborted: stopped: deadline").length).toBeGreaterThan(0);
    // Aborted already: nothing runs; its reason is an AbortError unless one was given.
    const aborted = AbortSignal.abort();
    let ran = 0;
    const before = evaluate(lookupEnv, expert(), {
      episodes: 5,
      seed: "held",
      signal: aborted,
      onEpisode: () => ran++,
    });
    await expect(before).rejects.toMatchObject({ name: "AbortError" });
    expect(ran).toBe(0);
    await expect(
      evaluate(lookupEnv, expert(), { episodes: 5, seed: "held", signal: true as unknown as AbortSignal }),
    ).rejects.toThrow(/^evaluate: signal must be an AbortSignal \(new AbortController\(\)\.signal, .*\), got boolean$/);
  });

  it("evaluate() takes any object shaped as an AbortSignal (another realm's, a polyfill's), as collect and train do", async () => {
    // It refused all but Node's own (an instanceof check): such a signal, which collect and train take, failed.
    const { shaped, abort, signal } = shapedAbortSignal();
    expect((await evaluate(lookupEnv, expertPolicy(), { episodes: 3, seed: "held", signal })).episodes).toBe(3);
    const dir = tempDir("agent-r1-shaped-signal-eval-");
    let ended = 0;
    // Its 50 episodes run at once: each listened on the signal itself, and Node warned of a leak
    // ("MaxListenersExceededWarning: ... 11 abort listeners added to [EventTarget]").
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const stopped = evaluate(lookupEnv, expertPolicy(), {
        episodes: 50,
        seed: "held",
        dir,
        signal,
        onEpisode: () => {
          if (++ended === 3) abort(new Error("deadline"));
        },
      });
      await expect(stopped).rejects.toThrow("deadline");
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
    // The episodes running heard it: they ended there, journaled as stopped.
    const reasons = (await findJournals(dir)).map(
      (file) => JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!).reason as string,
    );
    expect(reasons.filter((r) => r === "aborted: stopped: deadline").length).toBeGreaterThan(0);
    // Aborted already, with no reason: an AbortError, as with Node's own.
    shaped.reason = undefined;
    await expect(evaluate(lookupEnv, expertPolicy(), { episodes: 5, seed: "held", signal })).rejects.toMatchObject({
      name: "AbortError",
    });
    // An AbortController given for its signal is still refused, saying so.
    await expect(
      evaluate(lookupEnv, expertPolicy(), {
        episodes: 5,
        seed: "held",
        signal: new AbortController() as unknown as AbortSignal,
      }),
    ).rejects.toThrow("(an AbortController? give its .signal)");
  });

  it("type their errors: LearnError covers the kernel's and the learner's tagged errors", () => {
    expectTypeOf<CheckpointError>().toExtend<LearnError>();
    expectTypeOf<BackendUnavailableError>().toExtend<LearnError>();
    expectTypeOf<UsageError>().toExtend<LearnError>();
    const error: LearnError = new CheckpointError({ problem: "missing", file: "x", detail: "no such folder" });
    expect(error._tag === "CheckpointError" && error.problem).toBe("missing");
  });

  it("isLearnError lifts a learner's rejection into an Effect's error channel, where catchTag reaches it", async () => {
    // Mapped with the kernel's isAgentR1Error, a CheckpointError became an UnknownError and catchTag never matched.
    const load = (dir: string) =>
      Effect.tryPromise({
        try: () => loadCheckpoint(dir),
        catch: (e) => (isLearnError(e) ? e : new Cause.UnknownError(e)),
      });
    const missing = join(tempDir(), "nothing-here");
    const said = load(missing).pipe(
      Effect.map(() => "loaded"),
      Effect.catchTag("CheckpointError", (e) => Effect.succeed(`${e.problem}: ${e.file}`)),
    );
    expect(await Effect.runPromise(said)).toMatch(/^missing: .*nothing-here/);
    expect(isAgentR1Error(new CheckpointError({ problem: "missing", file: "x", detail: "d" }))).toBe(false);
    for (const error of [
      new CheckpointError({ problem: "missing", file: "x", detail: "d" }),
      new BackendUnavailableError({ requested: "webgpu", reason: "d", available: ["wasm"] }),
      new UsageErrorClass({ detail: "d" }),
    ])
      expect(isLearnError(error), error._tag).toBe(true);
    for (const other of [new TypeError("x"), { _tag: "CheckpointError" }, null, "CheckpointError"])
      expect(isLearnError(other)).toBe(false);
  });
});

/**
 * The GPU check's passes, timed on each backend asked for (default: webgpu, then wasm), as JSON lines:
 * a forward pass, rollout decoding and a training step. scripts/gpu-check.sh bundles it with
 * @tensorflow/tfjs-backend-webgpu for the GPU machine; here it runs with
 * `node bin/run-ts.js scripts/gpu-step.ts wasm`.
 *
 * Models: a larger GPT (4 layers, 8 heads, width 256, context 256) and hopqa's (2 layers, 4 heads, width
 * 128, context 384, copy head); batch 32 rows. Each pass runs GPU_STEP_REPEATS times (default 7): two warm
 * up, the median of the rest is reported. GPU_STEP_FORWARD_ONLY=1 skips the training step;
 * GPU_STEP_MODELS=hopqa (or large) times one model.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-wasm";
import { AdamW } from "../src/learn/adamw.ts";
import { trainStep } from "../src/learn/train-step.ts";
import { type BackendName, initBackend } from "../src/policy/backend.ts";
import { disposeCache, Gpt } from "../src/policy/gpt.ts";

/** The models timed: a larger GPT, and hopqa's own (2 layers, width 128, context 384, copy head). */
const MODELS = {
  large: { vocabSize: 512, layers: 4, heads: 8, width: 256, contextLength: 256 },
  hopqa: { vocabSize: 437, layers: 2, heads: 4, width: 128, contextLength: 384, copy: true },
} as const;
type ModelName = keyof typeof MODELS;
const ROWS = 32;
/** New tokens per row in the decoding pass. */
const NEW_TOKENS = 32;
/** Runs per pass: the first two warm up, the rest are timed (GPU_STEP_REPEATS, default 7). */
const REPEATS = Math.max(3, Number(process.env.GPU_STEP_REPEATS ?? 7));
const backends = (process.argv.slice(2).length ? process.argv.slice(2) : ["webgpu", "wasm"]) as BackendName[];

// Bundled into one file, wasm's pthreads would start workers from the bundle itself: one thread, as in Node.
tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);

/** The same seeded model and token rows on every backend, so that the first run's result can be compared. */
const setUp = async (backend: BackendName, name: ModelName, length: number) => {
  const config = MODELS[name];
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(config, "gpu-step");
  const rows = Array.from({ length: ROWS }, (_, b) =>
    Array.from({ length }, (_, t) => (b * 131 + t * 17) % config.vocabSize),
  );
  return { config, model, rows };
};

/** Runs `pass` REPEATS times; the median time of the timed runs, and what the first run returned. */
const timed = async <T>(pass: () => T | Promise<T>): Promise<{ ms: number; first: T; runs: number }> => {
  const times: number[] = [];
  let first: T | undefined;
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    const value = await pass();
    if (i === 0) first = value;
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], first: first as T, runs: times.length };
};

const perSecond = (count: number, ms: number) => Math.round(count / (ms / 1000));
/** One JSON line: which backend ran, which model and pass, then the pass's own fields. */
const line = (name: ModelName, pass: string, fields: Record<string, number | string>) => ({
  backend: tf.getBackend(),
  model: name,
  pass,
  ...fields,
});

/** A PPO training step with every token trained (cut into passes as training does), AdamW applied. */
const timeStep = async (backend: BackendName, name: ModelName) => {
  const { config, model, rows: tokens } = await setUp(backend, name, MODELS[name].contextLength);
  const optimizer = new AdamW(model.parameters, { lr: 1e-4 });
  const perToken = (f: (t: number) => number) => tokens.map((row) => row.map((_, t) => f(t)));
  const batch = {
    tokens,
    lossMask: perToken((t) => (t === 0 ? 0 : 1)),
    advantages: perToken((t) => Math.sin(t)),
    logprobs: perToken(() => -Math.log(config.vocabSize)),
  };
  const { ms, first, runs } = await timed(async () => {
    const result = await trainStep(model, batch, { optimizer });
    if (result.skipped) throw new Error(`step skipped: ${result.reason}`);
    return result.loss;
  });
  const parameters = [...model.parameters.values()].reduce((n, v) => n + v.size, 0);
  optimizer.dispose();
  model.dispose();
  return line(name, "train step", {
    parameters,
    stepMs: Math.round(ms),
    tokensPerSecond: perSecond(ROWS * config.contextLength, ms),
    firstLoss: first,
    timedSteps: runs,
  });
};

/**
 * A forward pass alone (logits of the whole batch, read back with `await data()`). The ids go along as
 * numbers: the copy head needs them on the CPU, and WebGPU under Node cannot read the tensor back
 * synchronously (docs/gpu.md).
 */
const timeForward = async (backend: BackendName, name: ModelName) => {
  const { config, model, rows } = await setUp(backend, name, MODELS[name].contextLength);
  const { ms, first, runs } = await timed(async () => {
    const tokens = tf.tensor2d(rows, [ROWS, config.contextLength], "int32");
    const logits = model.logits(tokens, { ids: rows.flat() });
    const sum = tf.sum(logits);
    const value = (await sum.data())[0];
    tf.dispose([tokens, logits, sum]);
    return value;
  });
  model.dispose();
  return line(name, "forward", {
    forwardMs: Math.round(ms),
    tokensPerSecond: perSecond(ROWS * config.contextLength, ms),
    logitSum: first,
    timedPasses: runs,
  });
};

/**
 * Rollout decoding as the sampler does it: a prefill of 32 prompts (context minus NEW_TOKENS slots), then
 * one token per row per step through the KV cache, each step's logits read back with `await data()` and
 * the greedy token picked on the CPU.
 */
const timeDecode = async (backend: BackendName, name: ModelName) => {
  const { config, model, rows: prompts } = await setUp(backend, name, MODELS[name].contextLength - NEW_TOKENS);
  const argmax = (values: ArrayLike<number>, row: number) => {
    let best = 0;
    for (let v = 1; v < config.vocabSize; v++)
      if (values[row * config.vocabSize + v] > values[row * config.vocabSize + best]) best = v;
    return best;
  };
  const { ms, first, runs } = await timed(async () => {
    let { logits, cache } = model.prefill(prompts);
    const firstRow: number[] = [];
    for (let step = 0; step < NEW_TOKENS; step++) {
      const values = await logits.data();
      logits.dispose();
      const next = Array.from({ length: ROWS }, (_, b) => argmax(values, b));
      firstRow.push(next[0]);
      if (step === NEW_TOKENS - 1) break;
      ({ logits, cache } = model.decode(cache, next));
    }
    disposeCache(cache);
    return firstRow;
  });
  model.dispose();
  return line(name, "decode", {
    decodeMs: Math.round(ms),
    newTokensPerSecond: perSecond(ROWS * NEW_TOKENS, ms),
    firstRowTokens: first.join(","),
    timedRuns: runs,
  });
};

const report = async (run: () => Promise<object>, backend: string, name: string, pass: string) => {
  try {
    console.log(JSON.stringify(await run()));
  } catch (error) {
    console.log(
      JSON.stringify({ backend, model: name, pass, error: error instanceof Error ? error.message : String(error) }),
    );
  }
};

/** GPU_STEP_MODELS (comma-separated, default all) picks the models. */
const models = (process.env.GPU_STEP_MODELS?.split(",") ?? Object.keys(MODELS)) as ModelName[];
for (const name of models) if (!(name in MODELS)) throw new Error(`GPU_STEP_MODELS: unknown model ${name}`);
for (const backend of backends)
  for (const name of models) {
    await report(() => timeForward(backend, name), backend, name, "forward");
    await report(() => timeDecode(backend, name), backend, name, "decode");
    if (process.env.GPU_STEP_FORWARD_ONLY !== "1")
      await report(() => timeStep(backend, name), backend, name, "train step");
  }

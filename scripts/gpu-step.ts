/**
 * One training step of a larger GPT, timed on each backend asked for (default: webgpu, then wasm), as
 * JSON lines. scripts/gpu-check.sh bundles it with @tensorflow/tfjs-backend-webgpu for the GPU machine;
 * here it runs with `node bin/run-ts.js scripts/gpu-step.ts wasm`.
 *
 * Models: a larger GPT (4 layers, 8 heads, width 256, context 256) and hopqa's (2 layers, 4 heads, width
 * 128, context 384, copy head); batch 32 full rows; PPO loss with every token trained (cut into passes as
 * training does). Two warm-up steps, then the median of the rest (GPU_STEP_REPEATS, default 7 steps).
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
const ROWS = 32;
/** Steps per model and backend: the first two warm up, the rest are timed (GPU_STEP_REPEATS, default 7). */
const REPEATS = Math.max(3, Number(process.env.GPU_STEP_REPEATS ?? 7));
const backends = (process.argv.slice(2).length ? process.argv.slice(2) : ["webgpu", "wasm"]) as BackendName[];

// Bundled into one file, wasm's pthreads would start workers from the bundle itself: one thread, as in Node.
tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);

const timeStep = async (backend: BackendName, name: keyof typeof MODELS) => {
  const config = MODELS[name];
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(config, "gpu-step");
  const optimizer = new AdamW(model.parameters, { lr: 1e-4 });
  const tokens = Array.from({ length: ROWS }, (_, b) =>
    Array.from({ length: config.contextLength }, (_, t) => (b * 131 + t * 17) % config.vocabSize),
  );
  const perToken = (f: (t: number) => number) => tokens.map((row) => row.map((_, t) => f(t)));
  const batch = {
    tokens,
    lossMask: perToken((t) => (t === 0 ? 0 : 1)),
    advantages: perToken((t) => Math.sin(t)),
    logprobs: perToken(() => -Math.log(config.vocabSize)),
  };
  const times: number[] = [];
  // The same seeded weights and batch on every backend: the first step's loss should agree across them.
  let firstLoss = Number.NaN;
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    const result = trainStep(model, batch, { optimizer });
    if (result.skipped) throw new Error(`step skipped: ${result.reason}`);
    if (i === 0) firstLoss = result.loss;
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  const parameters = [...model.parameters.values()].reduce((n, v) => n + v.size, 0);
  optimizer.dispose();
  model.dispose();
  return {
    backend: tf.getBackend(),
    model: name,
    parameters,
    stepMs: Math.round(ms),
    tokensPerSecond: Math.round((ROWS * config.contextLength) / (ms / 1000)),
    firstLoss,
    timedSteps: times.length,
  };
};

/**
 * A forward pass alone (logits of the whole batch, read back with `await data()`): the path that needs no
 * synchronous read, so it also runs where the train step's `dataSync` cannot (WebGPU under Node, docs/gpu.md).
 */
const timeForward = async (backend: BackendName, name: keyof typeof MODELS) => {
  const config = MODELS[name];
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(config, "gpu-step");
  const rows = Array.from({ length: ROWS }, (_, b) =>
    Array.from({ length: config.contextLength }, (_, t) => (b * 131 + t * 17) % config.vocabSize),
  );
  const times: number[] = [];
  let checksum = Number.NaN;
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    const tokens = tf.tensor2d(rows, [ROWS, config.contextLength], "int32");
    const logits = model.logits(tokens);
    const sum = tf.sum(logits);
    const value = (await sum.data())[0];
    tf.dispose([tokens, logits, sum]);
    if (i === 0) checksum = value;
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  model.dispose();
  return {
    backend: tf.getBackend(),
    model: name,
    pass: "forward",
    forwardMs: Math.round(ms),
    tokensPerSecond: Math.round((ROWS * config.contextLength) / (ms / 1000)),
    logitSum: checksum,
    timedPasses: times.length,
  };
};

/**
 * Rollout decoding as the sampler does it: a prefill of 32 prompts (context minus 32 slots), then 32 steps
 * of one token per row through the KV cache, each step's logits read back with `await data()` and the
 * greedy token picked on the CPU.
 */
const NEW_TOKENS = 32;
const timeDecode = async (backend: BackendName, name: keyof typeof MODELS) => {
  const config = MODELS[name];
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(config, "gpu-step");
  const prompts = Array.from({ length: ROWS }, (_, b) =>
    Array.from({ length: config.contextLength - NEW_TOKENS }, (_, t) => (b * 131 + t * 17) % config.vocabSize),
  );
  const argmax = (values: Float32Array | Int32Array | Uint8Array, row: number) => {
    let best = 0;
    for (let v = 1; v < config.vocabSize; v++)
      if (values[row * config.vocabSize + v] > values[row * config.vocabSize + best]) best = v;
    return best;
  };
  const times: number[] = [];
  let generated: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    let { logits, cache } = model.prefill(prompts);
    const out: number[] = [];
    for (let step = 0; step < NEW_TOKENS; step++) {
      const values = await logits.data();
      logits.dispose();
      const next = Array.from({ length: ROWS }, (_, b) => argmax(values, b));
      out.push(next[0]);
      if (step === NEW_TOKENS - 1) break;
      ({ logits, cache } = model.decode(cache, next));
    }
    disposeCache(cache);
    if (i === 0) generated = out;
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  model.dispose();
  return {
    backend: tf.getBackend(),
    model: name,
    pass: "decode",
    decodeMs: Math.round(ms),
    newTokensPerSecond: Math.round((ROWS * NEW_TOKENS) / (ms / 1000)),
    firstRowTokens: generated.join(","),
    timedRuns: times.length,
  };
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

for (const backend of backends)
  for (const name of Object.keys(MODELS) as (keyof typeof MODELS)[]) {
    await report(() => timeForward(backend, name), backend, name, "forward");
    await report(() => timeDecode(backend, name), backend, name, "decode");
    if (process.env.GPU_STEP_FORWARD_ONLY !== "1")
      await report(() => timeStep(backend, name), backend, name, "train step");
  }

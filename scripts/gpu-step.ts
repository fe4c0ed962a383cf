/**
 * One training step of a larger GPT, timed on each backend asked for (default: webgpu, then wasm), as
 * JSON lines. scripts/gpu-check.sh bundles it with @tensorflow/tfjs-backend-webgpu for the GPU machine;
 * here it runs with `node bin/run-ts.js scripts/gpu-step.ts wasm`.
 *
 * Model: 4 layers, 8 heads, width 256, context 256; batch 32 rows of 256 tokens; PPO loss with every
 * token trained (cut into passes as training does). Two warm-up steps, then the median of five.
 */
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-wasm";
import { AdamW } from "../src/learn/adamw.ts";
import { trainStep } from "../src/learn/train-step.ts";
import { type BackendName, initBackend } from "../src/policy/backend.ts";
import { Gpt } from "../src/policy/gpt.ts";

const CONFIG = { vocabSize: 512, layers: 4, heads: 8, width: 256, contextLength: 256 };
const ROWS = 32;
const backends = (process.argv.slice(2).length ? process.argv.slice(2) : ["webgpu", "wasm"]) as BackendName[];

// Bundled into one file, wasm's pthreads would start workers from the bundle itself: one thread, as in Node.
tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);

const timeStep = async (backend: BackendName) => {
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(CONFIG, "gpu-step");
  const optimizer = new AdamW(model.parameters, { lr: 1e-4 });
  const tokens = Array.from({ length: ROWS }, (_, b) =>
    Array.from({ length: CONFIG.contextLength }, (_, t) => (b * 131 + t * 17) % CONFIG.vocabSize),
  );
  const perToken = (f: (t: number) => number) => tokens.map((row) => row.map((_, t) => f(t)));
  const batch = {
    tokens,
    lossMask: perToken((t) => (t === 0 ? 0 : 1)),
    advantages: perToken((t) => Math.sin(t)),
    logprobs: perToken(() => -Math.log(CONFIG.vocabSize)),
  };
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const started = performance.now();
    const result = trainStep(model, batch, { optimizer });
    if (result.skipped) throw new Error(`step skipped: ${result.reason}`);
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const ms = times[Math.floor(times.length / 2)];
  const parameters = [...model.parameters.values()].reduce((n, v) => n + v.size, 0);
  optimizer.dispose();
  model.dispose();
  return {
    backend: tf.getBackend(),
    parameters,
    stepMs: Math.round(ms),
    tokensPerSecond: Math.round((ROWS * CONFIG.contextLength) / (ms / 1000)),
  };
};

for (const backend of backends) {
  try {
    console.log(JSON.stringify(await timeStep(backend)));
  } catch (error) {
    console.log(JSON.stringify({ backend, error: error instanceof Error ? error.message : String(error) }));
  }
}

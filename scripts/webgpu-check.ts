/**
 * Does training on WebGPU compute what it computes on wasm? Three PPO steps (copy head, constrained masks,
 * KL, value loss, batches cut into several passes), one cloning step and a scoring pass, on a small GPT,
 * first on WebGPU and then on wasm from the same seed; prints each number on both and exits 1 if any
 * differs by more than 1e-3 (relative to max(1, |x|)).
 *
 *   npm i --no-save webgpu@0.6.2 @tensorflow/tfjs-backend-webgpu@4.22.0   # optional packages (docs/gpu.md)
 *   npm run check:webgpu
 *
 * It needs a WebGPU adapter: a GPU with its Vulkan driver, or without one Mesa's software Vulkan driver
 * (lavapipe; on Debian bookworm from bookworm-backports, docs/gpu.md has the four lines), with
 * VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.json; the check takes a software adapter because it asks
 * for webgpu by name.
 */
import { AdamW } from "../src/learn/adamw.ts";
import { scoreTokens, supervisedStep, trainStep } from "../src/learn/train-step.ts";
import { type BackendName, initBackend } from "../src/policy/backend.ts";
import { Gpt } from "../src/policy/gpt.ts";

const TOLERANCE = 1e-3;
const config = { vocabSize: 64, contextLength: 48, width: 32, heads: 2, layers: 2, copy: true };
const rows = Array.from({ length: 6 }, (_, b) => Array.from({ length: 20 + 3 * b }, (_, t) => (7 * b + 5 * t) % 64));
const lossMask = rows.map((row) => row.map((_, t) => (t >= 4 ? 1 : 0)));
const allowed = rows.map((row) => row.map((token, t) => (t > 0 && t % 5 === 0 ? [token, 1, 2, 3] : null)));
const advantages = rows.map((row, b) => row.map((_, t) => Math.sin(b + t)));

/** The numbers one backend produces, by name. */
const run = async (backend: BackendName): Promise<Record<string, number>> => {
  await initBackend(backend, { log: () => {} });
  const model = new Gpt(config, "webgpu-check");
  const optimizer = new AdamW(model.parameters, { lr: 1e-2 });
  try {
    const out: Record<string, number> = {};
    const before = await scoreTokens(model, rows, allowed, 64);
    for (let step = 1; step <= 3; step++) {
      const result = await trainStep(
        model,
        {
          tokens: rows,
          lossMask,
          advantages,
          logprobs: before.logprobs,
          refLogprobs: before.logprobs,
          returns: lossMask,
          oldValues: before.values,
          allowed,
        },
        { optimizer, klCoef: 0.1, valueCoef: 0.5, tokensPerPass: 64 },
      );
      if (result.skipped) throw new Error(`PPO step ${step} skipped: ${result.reason}`);
      for (const key of ["loss", "policyLoss", "valueLoss", "kl", "gradNorm"] as const)
        out[`ppo${step}.${key}`] = result[key];
    }
    const clone = await supervisedStep(model, { tokens: rows, lossMask }, { optimizer });
    out["clone.loss"] = clone.loss;
    out["clone.gradNorm"] = clone.gradNorm;
    const after = await scoreTokens(model, rows, allowed);
    out["score.sumLogprobs"] = after.logprobs.reduce((sum, row) => sum + row.reduce((a, b) => a + b, 0), 0);
    return out;
  } finally {
    optimizer.dispose();
    model.dispose();
  }
};

let webgpu: Record<string, number>;
try {
  webgpu = await run("webgpu");
} catch (error) {
  console.error(`check:webgpu: ${error instanceof Error ? error.message : String(error)}`);
  console.error("It needs the optional packages and a WebGPU adapter: see the top of scripts/webgpu-check.ts.");
  process.exit(2);
}
const wasm = await run("wasm");
let worst = 0;
for (const [name, value] of Object.entries(webgpu)) {
  const difference = Math.abs(value - wasm[name]) / Math.max(1, Math.abs(wasm[name]));
  worst = Math.max(worst, difference);
  console.log(JSON.stringify({ name, webgpu: value, wasm: wasm[name], difference }));
}
const ok = worst <= TOLERANCE;
console.log(JSON.stringify({ ok, worstDifference: worst, tolerance: TOLERANCE }));
process.exit(ok ? 0 : 1);

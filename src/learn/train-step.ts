/**
 * One optimisation step of the policy: PPO-style (any advantage estimator feeds it) or supervised
 * cross-entropy on action tokens (behaviour cloning).
 *
 * Batches are token-aligned, like trajectories: index t of every per-token array refers to token t, and
 * the logprob, value and allowed list at t are those of the distribution that produced token t from
 * tokens 0..t-1. Rows may have different lengths; they are right-padded here (every row starts at
 * position 0, as in sampling). Token 0 has no distribution, so its mask must be 0.
 *
 * Constrained decoding: when a token was sampled under an allowed list, training scores it under the same
 * mask, so the importance ratio compares like with like.
 */
import * as tf from "@tensorflow/tfjs-core";
import { allowedLogitMask, type Gpt, type GptConfig } from "../policy/gpt.ts";
import type { AdamW, AdamWOverrides } from "./adamw.ts";
import { crossEntropyLoss, type PpoLossConfig, ppoLoss, ppoLossConfig } from "./losses.ts";

type PerToken = readonly (readonly number[] | ArrayLike<number>)[];
type AllowedLists = readonly (readonly (readonly number[] | null)[])[];

/** One update's rows, per token: what trainStep trains on. */
export interface TrainBatch {
  /** Token ids per row. */
  readonly tokens: readonly (readonly number[])[];
  /** 1 on tokens that are trained (sampled action tokens), 0 on prompt, observations and padding. */
  readonly lossMask: PerToken;
  /** The advantage of each token (0 outside the loss mask), as computeAdvantages gives it. */
  readonly advantages: PerToken;
  /** Logprobs recorded when the tokens were sampled (any value where the mask is 0). */
  readonly logprobs: PerToken;
  /** PPO's critic: value targets R_t and the values V_old(s_t) recorded before this update. */
  readonly returns?: PerToken;
  readonly oldValues?: PerToken;
  /**
   * The tokens whose value target R_t is defined, when they are not the loss mask's (default): without the
   * loss mask the policy terms cover every response token, while GAE's targets exist on action tokens only.
   */
  readonly valueMask?: PerToken;
  /** Logprobs of a frozen reference policy, for the KL penalty. */
  readonly refLogprobs?: PerToken;
  /** Constrained decoding: the ids allowed at each token, null where unconstrained. */
  readonly allowed?: AllowedLists;
  /** Per row, the position its first token takes (`train --position-offsets`; default 0 for every row). */
  readonly positionOffsets?: readonly number[];
}

/** The optimizer, the loss's weights and this step's overrides (e.g. the scheduled learning rate). */
export interface TrainStepOptions extends Partial<PpoLossConfig>, AdamWOverrides {
  readonly optimizer: AdamW;
  /** Whiten advantages over this batch's masked tokens first (CleanRL's norm_adv). Default false. */
  readonly normalizeAdvantages?: boolean;
  /**
   * Padded tokens per forward pass; a larger batch is cut into slices whose gradients are summed. Default:
   * `defaultPassing` (by the model's size on wasm and cpu, GPU_TOKENS_PER_PASS on a GPU backend).
   */
  readonly tokensPerPass?: number;
  /**
   * How rows are grouped into passes: "by-length" (the default on wasm and cpu) pads each pass to its own
   * longest row, rows of similar length together; "in-order" (the default on a GPU backend) cuts the batch
   * in its order (the benchmark's baseline on wasm).
   */
  readonly passes?: PassGrouping;
}

export type PassGrouping = "by-length" | "in-order";

/** The update's losses and diagnostics (numbers read back after the step); `skipped` when it was not applied. */
export interface TrainStepResult {
  /**
   * True when the update was not applied (NaN or infinite loss or gradient, or a gradient 0 everywhere:
   * `ZERO_GRADIENT`, nothing to learn from); `reason` says which.
   */
  readonly skipped: boolean;
  /** Why the update was skipped. */
  readonly reason?: string;
  /** The total loss: the policy, value, entropy and KL terms, weighted as PpoLossConfig says. */
  readonly loss: number;
  readonly policyLoss: number;
  readonly valueLoss: number;
  readonly entropy: number;
  /** Mean KL estimate to the reference policy (0 without refLogprobs or klCoef). */
  readonly kl: number;
  /** Mean KL of the updated policy to the sampling one, CleanRL's approx_kl. */
  readonly approxKl: number;
  /** Share of masked tokens whose ratio left the clip range. */
  readonly clipfrac: number;
  /** Global gradient norm before clipping (NaN when the loss itself was not finite). */
  readonly gradNorm: number;
  /** Tokens under the loss mask. */
  readonly tokens: number;
}

export interface SupervisedBatch {
  readonly tokens: readonly (readonly number[])[];
  readonly lossMask: PerToken;
  readonly allowed?: AllowedLists;
  /** Per row, the position its first token takes (randomized positions; default 0 for every row). */
  readonly positionOffsets?: readonly number[];
}

export interface SupervisedStepResult {
  readonly skipped: boolean;
  readonly reason?: string;
  /** Mean cross-entropy (nats per masked token). */
  readonly loss: number;
  readonly gradNorm: number;
  readonly tokens: number;
}

// ---------------------------------------------------------------------------------------------------------
// Batch layout
// ---------------------------------------------------------------------------------------------------------

/** Everything shifted by one: inputs are tokens 0..T-2, targets and per-token values are 1..T-1. */
interface Shifted {
  readonly rows: number;
  readonly width: number;
  readonly inputs: tf.Tensor2D;
  readonly targets: tf.Tensor2D;
  readonly logitMask: tf.Tensor3D | null;
  /** The options of the model's pass: the logit mask, and the input ids on the CPU (the copy head's). */
  readonly forward: { readonly logitMask?: tf.Tensor3D; readonly ids: Int32Array };
  /** A per-token field, shifted and right-padded with 0, as [B, T-1]. */
  field(values: PerToken | undefined, name: string): tf.Tensor2D | undefined;
  dispose(): void;
}

const shift = (model: Gpt, tokens: readonly (readonly number[])[], allowed: AllowedLists | undefined): Shifted => {
  if (tokens.length === 0) throw new RangeError("a training batch needs at least one row");
  const longest = Math.max(...tokens.map((row) => row.length));
  if (longest < 2) throw new RangeError("training rows need at least two tokens");
  if (longest > model.config.contextLength) {
    throw new RangeError(`a row of ${longest} tokens exceeds the model's contextLength ${model.config.contextLength}`);
  }
  const rows = tokens.length;
  const width = longest - 1;
  const inputIds = new Int32Array(rows * width);
  const targetIds = new Int32Array(rows * width);
  tokens.forEach((row, b) => {
    for (let t = 0; t + 1 < row.length; t++) {
      inputIds[b * width + t] = row[t];
      targetIds[b * width + t] = row[t + 1];
    }
  });
  const owned: tf.Tensor[] = [];
  const own = <T extends tf.Tensor>(tensor: T): T => {
    owned.push(tensor);
    return tensor;
  };
  const logitMask = allowed
    ? allowedLogitMask(
        allowed.map((row) => row.slice(1)),
        width,
        model.config.vocabSize,
      )
    : null;
  if (logitMask) owned.push(logitMask);
  return {
    rows,
    width,
    inputs: own(tf.tensor2d(inputIds, [rows, width], "int32")),
    targets: own(tf.tensor2d(targetIds, [rows, width], "int32")),
    logitMask,
    forward: { ...(logitMask ? { logitMask } : {}), ids: inputIds },
    field(values, name) {
      if (values === undefined) return undefined;
      if (values.length !== rows) throw new RangeError(`${name} has ${values.length} rows, tokens has ${rows}`);
      const out = new Float32Array(rows * width);
      values.forEach((row, b) => {
        if (row.length !== tokens[b].length) {
          throw new RangeError(`${name} row ${b} has ${row.length} values for ${tokens[b].length} tokens`);
        }
        for (let t = 1; t < row.length; t++) out[b * width + t - 1] = row[t];
      });
      return own(tf.tensor2d(out, [rows, width]));
    },
    dispose: () => {
      for (const tensor of owned) tensor.dispose();
    },
  };
};

const checkMask = (mask: PerToken): number => {
  let count = 0;
  mask.forEach((row, b) => {
    if (row.length > 0 && row[0] !== 0) {
      throw new RangeError(`lossMask row ${b}: token 0 has no distribution to score; its mask must be 0`);
    }
    for (let t = 0; t < row.length; t++) count += row[t];
  });
  return count;
};

/**
 * (A - mean) / (std + 1e-8) over the masked tokens (the population std). Two passes: the spread is summed
 * around the mean, not taken as mean(A^2) - mean^2, which cancels to 0 (and whitened advantages of 1e8)
 * once the advantages share an offset large beside their spread (1e9 +- 1).
 */
const whiten = (advantages: PerToken, mask: PerToken): number[][] => {
  let sum = 0;
  let count = 0;
  advantages.forEach((row, b) => {
    for (let t = 0; t < row.length; t++) {
      if (mask[b][t] === 0) continue;
      sum += row[t];
      count += 1;
    }
  });
  const mean = count > 0 ? sum / count : 0;
  let squares = 0;
  advantages.forEach((row, b) => {
    for (let t = 0; t < row.length; t++) if (mask[b][t] !== 0) squares += (row[t] - mean) ** 2;
  });
  const std = count > 0 ? Math.sqrt(squares / count) : 0;
  return advantages.map((row) => Array.from(row, (a) => (a - mean) / (std + 1e-8)));
};

const variablesOf = (model: Gpt): tf.Variable[] => [...model.parameters.values()];

/** Gradients by parameter name, leaving out parameters the loss does not reach. */
const namedGrads = (model: Gpt, grads: tf.NamedTensorMap): Map<string, tf.Tensor> => {
  const out = new Map<string, tf.Tensor>();
  for (const [name, variable] of model.parameters) {
    const grad = grads[variable.name];
    if (grad) out.set(name, grad);
  }
  return out;
};

// ---------------------------------------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------------------------------------

const METRIC_NAMES = ["policyLoss", "valueLoss", "entropy", "kl", "approxKl", "clipfrac"] as const;

/** What a pass budget depends on: the model's layers and width. */
type ModelSize = { readonly config: Pick<GptConfig, "layers" | "width"> };

/**
 * Padded tokens per forward pass. A pass holds the activations of all its tokens (and attention's, per
 * token times the row length), and tfjs-backend-wasm's heap cannot grow past 4 GiB: a batch of 64 episodes
 * of 320 tokens at width 128 (2 layers) came close and some batches died with "memory access out of
 * bounds"; at width 256 and 4 layers, 8,192 tokens in one pass aborted. Larger batches are cut into
 * slices whose gradients are summed (the same update). The default budget is 8,192 tokens for 2 layers
 * of width 128 and shrinks in proportion to layers x width.
 */
/** `budget` tokens for 2 layers of width 128, in proportion to layers x width for other models (at least `least`). */
const scaledTokensPerPass = (model: ModelSize, budget: number, least: number): number =>
  Math.max(least, Math.floor((budget * 2 * 128) / (model.config.layers * model.config.width)));

const defaultTokensPerPass = (model: ModelSize): number => scaledTokensPerPass(model, 8192, 256);

/**
 * What one more forward/backward pass costs, in the units of `passSlices`' cost model (one unit: a token's
 * work outside attention). Measured on wasm (2 layers, width 128): a pass of one row took 15-45 ms more
 * than a 16th of a pass of 16 rows of the same length, about 150 units.
 */
const PASS_OVERHEAD = 150;

/** Row indices cut in their order into slices of at most `budget` tokens padded to the batch's longest row. */
export const passSlicesInOrder = (tokens: readonly (readonly number[])[], budget: number): number[][] => {
  const width = Math.max(1, ...tokens.map((row) => row.length));
  const rowsPerPass = Math.max(1, Math.floor(budget / width));
  const slices: number[][] = [];
  for (let i = 0; i < tokens.length; i += rowsPerPass)
    slices.push(Array.from({ length: Math.min(rowsPerPass, tokens.length - i) }, (_, k) => i + k));
  return slices;
};

/** Backends that run on a GPU, where a batch goes through in as few passes as its memory allows. */
const GPU_BACKENDS: ReadonlySet<string> = new Set(["webgpu", "webgl"]);

/**
 * Padded tokens per pass on a GPU backend for a model of 2 layers of width 128 (hopqa's); larger models get
 * fewer in proportion to layers x width, as on wasm, so that a pass's activations stay about the same size.
 * Each pass there costs a round of kernel launches, new pipelines for a new row length and a read back that
 * waits for the queue, while padding costs little: on an H200 a hopqa RL update's learner took 1.7-1.9x less
 * time in one pass per minibatch than in passes cut by length (docs/gpu.md).
 */
export const GPU_TOKENS_PER_PASS = 32_768;

/**
 * How a batch is cut into passes when the caller does not say: on wasm and cpu, `defaultTokensPerPass`
 * grouped by length; on a GPU backend (`backend`, default the current one), rows in their order padded to the
 * longest, GPU_TOKENS_PER_PASS tokens a pass for hopqa's model, fewer for larger ones (one pass for most
 * minibatches).
 */
export const defaultPassing = (
  model: ModelSize,
  backend: string = tf.getBackend(),
): { readonly tokensPerPass: number; readonly passes: PassGrouping } =>
  GPU_BACKENDS.has(backend)
    ? { tokensPerPass: scaledTokensPerPass(model, GPU_TOKENS_PER_PASS, 1024), passes: "in-order" }
    : { tokensPerPass: defaultTokensPerPass(model), passes: "by-length" };

/** The passes of a batch for `model`, grouped as asked (`defaultPassing` for what is not). */
const slicesFor = (
  model: Gpt,
  tokens: readonly (readonly number[])[],
  options: { readonly tokensPerPass?: number; readonly passes?: PassGrouping },
): number[][] => {
  const defaults = defaultPassing(model);
  const budget = options.tokensPerPass ?? defaults.tokensPerPass;
  return (options.passes ?? defaults.passes) === "in-order"
    ? passSlicesInOrder(tokens, budget)
    : passSlices(tokens, budget, { modelWidth: model.config.width });
};

/**
 * Row indices cut into passes of at most `budget` padded tokens (one row at least), each pass padded to
 * its own longest row. Rows are grouped by length (longest first), and the cut points minimise the padded
 * work plus `overhead` per pass, so that short rows are not padded to the batch's longest. A pass of
 * `rows` rows padded to `w` tokens costs rows x w x (1 + w / d), d the model's width: attention's share
 * grows with the length, and on wasm, where its batched matMuls are slow, a step's time per token grew
 * from 0.51 ms at 150 tokens to 0.93 ms at 360 (width 128), which this fits. The gradient is the same
 * whatever the grouping: every pass's loss is already divided by the whole batch's normaliser.
 */
export const passSlices = (
  tokens: readonly (readonly number[])[],
  budget: number,
  options: { readonly overhead?: number; readonly modelWidth?: number } = {},
): number[][] => {
  const { overhead = PASS_OVERHEAD, modelWidth = 128 } = options;
  const order = tokens.map((_, i) => i).sort((a, b) => tokens[b].length - tokens[a].length || a - b);
  const n = order.length;
  const width = (k: number) => Math.max(1, tokens[order[k]].length);
  const rowCost = (w: number) => w * (1 + w / modelWidth);
  // best[i]: the cheapest cut of the i longest rows; from[i]: where its last pass starts.
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(n + 1);
  best[0] = 0;
  for (let i = 1; i <= n; i++) {
    for (let j = i - 1; j >= 0; j--) {
      const rows = i - j;
      const w = width(j);
      if (rows > 1 && rows * w > budget) break;
      const cost = best[j] + overhead + rows * rowCost(w);
      if (cost < best[i]) {
        best[i] = cost;
        from[i] = j;
      }
    }
  }
  const slices: number[][] = [];
  for (let i = n; i > 0; i = from[i]) slices.unshift(order.slice(from[i], i).sort((a, b) => a - b));
  return slices;
};

const pickRows = <T>(values: readonly T[] | undefined, rows: readonly number[]): T[] | undefined =>
  values === undefined ? undefined : rows.map((i) => values[i]);

/** A slice's forward options with its rows' position offsets, where the batch has any. */
const withOffsets = <F extends object>(
  forward: F,
  batch: { readonly positionOffsets?: readonly number[] },
  rows: readonly number[],
): F | (F & { positionOffsets: number[] }) => {
  const offsets = pickRows(batch.positionOffsets, rows);
  return offsets ? { ...forward, positionOffsets: offsets } : forward;
};

const sumMask = (mask: PerToken, rows: readonly number[]): number => {
  let total = 0;
  for (const b of rows) for (let t = 0; t < mask[b].length; t++) total += mask[b][t];
  return total;
};

/** A slice's loss and, optionally, metrics to read back once its gradients are taken. */
interface SliceLoss {
  readonly loss: tf.Scalar;
  readonly metrics?: tf.Tensor1D;
}

/**
 * Gradients summed over slices: `sliceLoss(rows)` builds one slice's loss (already divided by the whole
 * batch's normaliser, so the slices' losses add up to the batch's) and optional metrics, summed too. Tensors
 * a slice disposes are safe to dispose: the tape keeps its own copies of what the backward pass needs.
 * Values are read back asynchronously: WebGPU under Node has no synchronous read (docs/gpu.md).
 */
const accumulate = async (
  model: Gpt,
  slices: readonly number[][],
  sliceLoss: (rows: readonly number[]) => SliceLoss,
): Promise<{ loss: number; metrics: Float64Array; grads: Map<string, tf.Tensor>; dispose: () => void }> => {
  const summed = new Map<string, tf.Tensor>();
  let loss = 0;
  let metricSums = new Float64Array(0);
  for (const rows of slices) {
    let metrics: tf.Tensor1D | undefined;
    const { value, grads } = tf.variableGrads(() => {
      const out = sliceLoss(rows);
      metrics = out.metrics ? tf.keep(out.metrics) : undefined;
      return out.loss;
    }, variablesOf(model));
    loss += (await value.data())[0];
    value.dispose();
    if (metrics) {
      const values = await metrics.data();
      metrics.dispose();
      if (metricSums.length === 0) metricSums = new Float64Array(values.length);
      for (let i = 0; i < values.length; i++) metricSums[i] += values[i];
    }
    for (const [name, grad] of namedGrads(model, grads)) {
      const before = summed.get(name);
      summed.set(name, before ? tf.add(before, grad) : grad);
      if (before) {
        before.dispose();
        grad.dispose();
      }
    }
  }
  return {
    loss,
    metrics: metricSums,
    grads: summed,
    dispose: () => {
      for (const grad of summed.values()) grad.dispose();
    },
  };
};

/**
 * One gradient update of `model` on the batch (in slices of `tokensPerPass` tokens whose gradients are summed).
 * Throws a RangeError on an empty batch or a row longer than the model's context.
 */
export const trainStep = async (model: Gpt, batch: TrainBatch, options: TrainStepOptions): Promise<TrainStepResult> => {
  const tokens = checkMask(batch.lossMask);
  const lossConfig = ppoLossConfig(options);
  const advantages = options.normalizeAdvantages ? whiten(batch.advantages, batch.lossMask) : batch.advantages;
  const slices = slicesFor(model, batch.tokens, options);
  const normalizer = sumMask(batch.lossMask, slices.flat());
  const valueNormalizer = batch.valueMask ? sumMask(batch.valueMask, slices.flat()) : undefined;
  const accumulated = await accumulate(model, slices, (rows) => {
    const shifted = shift(model, pickRows(batch.tokens, rows)!, pickRows(batch.allowed, rows));
    try {
      const field = (values: PerToken | undefined, name: string) => shifted.field(pickRows(values, rows), name);
      const returns = field(batch.returns, "returns");
      const stats = model.tokenStats(shifted.inputs, shifted.targets, withOffsets(shifted.forward, batch, rows));
      const out = ppoLoss(
        {
          logprobs: stats.logprobs,
          oldLogprobs: field(batch.logprobs, "logprobs")!,
          advantages: field(advantages, "advantages")!,
          mask: field(batch.lossMask, "lossMask")!,
          entropy: stats.entropy,
          refLogprobs: field(batch.refLogprobs, "refLogprobs"),
          values: returns ? stats.values : undefined,
          oldValues: field(batch.oldValues, "oldValues"),
          returns,
          normalizer,
          ...(batch.valueMask
            ? { valueMask: field(batch.valueMask, "valueMask")!, valueNormalizer: valueNormalizer! }
            : {}),
        },
        lossConfig,
      );
      // Each metric is a token mean with the batch's normaliser: the slices' values add up.
      return { loss: out.loss, metrics: tf.stack(METRIC_NAMES.map((name) => out[name])) as tf.Tensor1D };
    } finally {
      shifted.dispose();
    }
  });
  try {
    const loss = accumulated.loss;
    const named = Object.fromEntries(METRIC_NAMES.map((name, i) => [name, accumulated.metrics[i]])) as Record<
      (typeof METRIC_NAMES)[number],
      number
    >;
    const report = (skipped: boolean, gradNorm: number, reason?: string): TrainStepResult => ({
      skipped,
      ...(reason === undefined ? {} : { reason }),
      loss,
      ...named,
      gradNorm,
      tokens,
    });
    if (!Number.isFinite(loss)) return report(true, Number.NaN, `loss is ${loss}`);
    const outcome = await options.optimizer.apply(accumulated.grads, options);
    return outcome.applied ? report(false, outcome.gradNorm) : report(true, outcome.gradNorm, outcome.reason);
  } finally {
    accumulated.dispose();
  }
};

/** Behaviour cloning: minimise -log pi(a_t|s_t) over the masked tokens. */
export const supervisedStep = async (
  model: Gpt,
  batch: SupervisedBatch,
  options: AdamWOverrides & {
    readonly optimizer: AdamW;
    readonly tokensPerPass?: number;
    readonly passes?: PassGrouping;
  },
): Promise<SupervisedStepResult> => {
  const tokens = checkMask(batch.lossMask);
  const slices = slicesFor(model, batch.tokens, options);
  const normalizer = sumMask(batch.lossMask, slices.flat());
  const accumulated = await accumulate(model, slices, (rows) => {
    const shifted = shift(model, pickRows(batch.tokens, rows)!, pickRows(batch.allowed, rows));
    try {
      const mask = shifted.field(pickRows(batch.lossMask, rows), "lossMask")!;
      const stats = model.tokenStats(shifted.inputs, shifted.targets, withOffsets(shifted.forward, batch, rows));
      return { loss: crossEntropyLoss(stats.logprobs, mask, normalizer) };
    } finally {
      shifted.dispose();
    }
  });
  try {
    const loss = accumulated.loss;
    if (!Number.isFinite(loss)) return { skipped: true, reason: `loss is ${loss}`, loss, gradNorm: Number.NaN, tokens };
    const outcome = await options.optimizer.apply(accumulated.grads, options);
    return outcome.applied
      ? { skipped: false, loss, gradNorm: outcome.gradNorm, tokens }
      : { skipped: true, reason: outcome.reason, loss, gradNorm: outcome.gradNorm, tokens };
  } finally {
    accumulated.dispose();
  }
};

/** What scoreTokens returns: per row, per token, the model's logprob, value and entropy. */
export interface TokenScores {
  /** Per row, per token t: log pi(token_t | tokens_<t) (0 at t = 0). */
  readonly logprobs: Float32Array[];
  /** Per row, per token t: V of the state before token t (0 at t = 0). */
  readonly values: Float32Array[];
  /** Per row, per token t: entropy of the distribution that produced token t (0 at t = 0). */
  readonly entropy: Float32Array[];
}

/**
 * Scores every token without training: the critic's values for GAE (V_old), a frozen reference's
 * logprobs for KL, or a check that training reproduces the sampler's logprobs.
 */
export const scoreTokens = async (
  model: Gpt,
  tokens: readonly (readonly number[])[],
  allowed?: AllowedLists,
  tokensPerPass?: number,
  passes?: PassGrouping,
  positionOffsets?: readonly number[],
): Promise<TokenScores> => {
  const out: { logprobs: Float32Array[]; values: Float32Array[]; entropy: Float32Array[] } = {
    logprobs: new Array(tokens.length),
    values: new Array(tokens.length),
    entropy: new Array(tokens.length),
  };
  for (const rows of slicesFor(model, tokens, { tokensPerPass, passes })) {
    const sliceTokens = pickRows(tokens, rows)!;
    const shifted = shift(model, sliceTokens, pickRows(allowed, rows));
    try {
      const [logprobs, values, entropy] = tf.tidy(() => {
        const stats = model.tokenStats(
          shifted.inputs,
          shifted.targets,
          withOffsets(shifted.forward, { positionOffsets }, rows),
        );
        return [stats.logprobs, stats.values, stats.entropy];
      });
      const unshift = async (tensor: tf.Tensor2D, into: Float32Array[]) => {
        const flat = await tensor.data();
        tensor.dispose();
        sliceTokens.forEach((row, b) => {
          const values = new Float32Array(row.length);
          for (let t = 1; t < row.length; t++) values[t] = flat[b * shifted.width + t - 1];
          into[rows[b]] = values;
        });
      };
      await unshift(logprobs, out.logprobs);
      await unshift(values, out.values);
      await unshift(entropy, out.entropy);
    } finally {
      shifted.dispose();
    }
  }
  return out;
};

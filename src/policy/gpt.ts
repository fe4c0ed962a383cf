/**
 * A GPT-style causal transformer with a scalar value head, on tfjs-core ops and variables.
 *
 *   x_0 = E[token] + P[position]                     learned position embeddings (or ALiBi, below)
 *   x_{l+1} = x_l + Attn(LN(x_l)),  then  + MLP(LN(.))  pre-LayerNorm blocks
 *   logits = LN_f(x_L) E^T   (tied)  or  LN_f(x_L) W_head
 *   value  = LN_f(x_L) w_v + b_v                     one scalar per position, for PPO
 *
 * With `copy` on, a pointer head lets the model copy from its context: position t scores every earlier
 * slot s < t (q_t . k_s over the final hidden states), and one softmax runs jointly over the vocabulary
 * logits and these copy scores; choosing slot s emits the token that followed it (id[s + 1]). The token's
 * probability is its vocabulary share plus the shares of every slot it followed, and the model returns
 * log p in place of logits (a normalised distribution, so every sampler and loss works unchanged). Copying
 * a name from a retrieved passage then needs one attention pattern ("the slot after `studio is`"), not an
 * attention pattern plus a value path that carries the name's identity to the output.
 *
 * With `positions: "alibi"` there is no P: each head h adds -m_h * (t - s) to the score of query t on key
 * s (slopes m_h = 2^(-8(h+1)/heads), Press et al.'s ALiBi). Nothing then depends on where a sequence sits,
 * only on distances, so a model trained on short episodes meets no untrained position in a longer one.
 *
 * With `attention: "turn-local"` a slot sees, besides the causal rule, only the prompt and the slots of its own
 * turn and of the turn before it. A turn starts at each id of `turnStarts` (the first token of every policy
 * action, e.g. `<search>` and `<answer>`) and runs through the observation that answers it; the prompt is every
 * slot before the first such id. Segments come from the ids alone (segment 0 the prompt, k the k-th turn), so the
 * full forward, the KV cache and the copy head (which may copy only from slots it sees) apply the same rule.
 * No slot attends to a turn before the previous one, so none reads directly how many turns came before it (with
 * L layers it still hears of L turns back, through the previous turn's hidden states).
 *
 * No dropout: RL needs the logprobs of the sampling pass and of the training pass to agree exactly.
 *
 * Speed on wasm: every projection is a plain 2-D matMul on [B*T, in] x [in, out], with a
 * gradient that transposes explicitly (matMul's own gradient uses transpose flags, measured 10-40x slower
 * there). Embeddings are gathers whose gradient is a segment sum. Log-probabilities and entropies come
 * from the vectorised Softmax kernel, not from elementwise exp/log over [B*T, V]. Attention uses batched
 * 3-D matMuls, whose speed on wasm does not depend on the transpose flags. ReLU by default (tanh is slow).
 *
 * Row layout: a row may start with `leftPad[b]` pad slots; its real tokens get positions 0, 1, ... and
 * pad slots are masked out as keys. A row's outputs therefore do not depend on its padding or on the
 * other rows of the batch (up to float summation order). The outputs *at* pad slots are meaningless (every
 * key they could see is masked): never read or train them.
 */
import * as tf from "@tensorflow/tfjs-core";
import { allKeys, checkBooleans, checkKnownKeys, shownValue, UsageError } from "../kernel/errors.ts";
import { Rng } from "../kernel/prng.ts";
import { registerGradients } from "./gradients.ts";

/** The model's shape and initialisation; gptConfig fills the defaults (DEFAULT_GPT_CONFIG) and checks it. */
export interface GptConfig {
  /** Number of token ids (the tokenizer's size). */
  readonly vocabSize: number;
  /** Longest sequence the position embeddings cover. */
  readonly contextLength: number;
  /** Transformer blocks. */
  readonly layers: number;
  /** Attention heads per block. */
  readonly heads: number;
  /** Model width d; must be a multiple of `heads`. */
  readonly width: number;
  /** MLP hidden width = mlpRatio * width. */
  readonly mlpRatio: number;
  /** relu is the default: tanh (gelu) measured several times slower per element on wasm. */
  readonly activation: "relu" | "gelu";
  /** Output projection shares the token embedding matrix. */
  readonly tiedEmbeddings: boolean;
  /** Standard deviation of the initial weights (residual projections are scaled by 1/sqrt(2 layers)). */
  readonly initStd: number;
  readonly layerNormEps: number;
  /** A pointer head that copies tokens from the context (see the top of this file); absent = off. */
  readonly copy?: boolean;
  /** Learned absolute position embeddings (absent: the default) or ALiBi's distance biases. */
  readonly positions?: "learned" | "alibi";
  /** Which earlier slots a slot attends to: all (absent: the default) or turn-local (see the top of this file). */
  readonly attention?: "full" | "turn-local";
  /** With turn-local attention: the ids that start a turn (the first token of each policy action). */
  readonly turnStarts?: readonly number[];
}

/** The defaults gptConfig fills in: a 2-layer, 4-head, width-64 GPT over 512 ids and 128 positions. */
export const DEFAULT_GPT_CONFIG: GptConfig = {
  vocabSize: 512,
  contextLength: 128,
  layers: 2,
  heads: 4,
  width: 64,
  mlpRatio: 4,
  activation: "relu",
  tiedEmbeddings: true,
  initStd: 0.02,
  layerNormEps: 1e-5,
};

/** Every field of a GptConfig, for refusing a misspelt one. */
const GPT_CONFIG_KEYS = allKeys<GptConfig>()([
  "vocabSize",
  "contextLength",
  "layers",
  "heads",
  "width",
  "mlpRatio",
  "activation",
  "tiedEmbeddings",
  "initStd",
  "layerNormEps",
  "copy",
  "positions",
  "attention",
  "turnStarts",
]);

/** A complete, checked config from overrides of the defaults. */
export const gptConfig = (overrides: Partial<GptConfig> = {}): GptConfig => {
  // A misspelt field (`new Gpt({ widht: 32 }, seed)`) was dropped without a word: the model took the default width.
  checkKnownKeys("GPT config", overrides, GPT_CONFIG_KEYS);
  const config = { ...DEFAULT_GPT_CONFIG, ...overrides };
  const positiveInts = ["vocabSize", "contextLength", "layers", "heads", "width", "mlpRatio"] as const;
  for (const key of positiveInts) {
    if (!Number.isInteger(config[key]) || config[key] < 1) {
      throw new RangeError(`GPT config: ${key} must be a positive integer, got ${shownValue(config[key])}`);
    }
  }
  if (config.width % config.heads !== 0) {
    throw new RangeError(`GPT config: width ${config.width} is not a multiple of heads ${config.heads}`);
  }
  if (config.activation !== "relu" && config.activation !== "gelu") {
    throw new RangeError(`GPT config: activation must be "relu" or "gelu", got ${shownValue(config.activation)}`);
  }
  checkBooleans(config, ["copy"], (rule, value) => new RangeError(`GPT config: ${rule}, got ${shownValue(value)}`));
  if (config.positions !== undefined && config.positions !== "learned" && config.positions !== "alibi")
    throw new RangeError(`GPT config: positions must be "learned" or "alibi", got ${shownValue(config.positions)}`);
  if (config.attention !== undefined && config.attention !== "full" && config.attention !== "turn-local")
    throw new RangeError(`GPT config: attention must be "full" or "turn-local", got ${shownValue(config.attention)}`);
  if (config.attention === "turn-local") {
    const starts = config.turnStarts;
    if (!Array.isArray(starts) || starts.length === 0)
      throw new RangeError("GPT config: turn-local attention needs turnStarts, the ids that start a turn (none given)");
    const bad = starts.find((id) => !Number.isInteger(id) || id < 0 || id >= config.vocabSize);
    if (bad !== undefined)
      throw new RangeError(`GPT config: turnStarts id ${bad} is not a token id in [0, ${config.vocabSize})`);
  } else if (config.turnStarts !== undefined)
    throw new RangeError('GPT config: turnStarts applies only with attention "turn-local"');
  return config;
};

/** Additive logit mask value: exp() of it underflows to exactly 0, and 0 * it stays finite (unlike -inf). */
const MASKED = -1e9;

// ---------------------------------------------------------------------------------------------------------
// Parameters and their deterministic initialisation
// ---------------------------------------------------------------------------------------------------------

type Init = { readonly kind: "normal"; readonly std: number } | { readonly kind: "zeros" | "ones" };

/** Standard normal draws by Box-Muller from the seeded stream. */
const normals = (rng: Rng, count: number, std: number): Float32Array => {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(1 - rng.float()));
    const angle = 2 * Math.PI * rng.float();
    out[i] = std * radius * Math.cos(angle);
    if (i + 1 < count) out[i + 1] = std * radius * Math.sin(angle);
  }
  return out;
};

/** Named trainable variables, in creation order. Each is seeded by `${seed}:${name}`. */
export class ParameterStore {
  readonly variables = new Map<string, tf.Variable>();
  constructor(readonly seed: string) {}

  create(name: string, shape: readonly number[], init: Init): tf.Variable {
    if (this.variables.has(name)) throw new Error(`parameter ${name} is defined twice`);
    const size = shape.reduce((a, b) => a * b, 1);
    const values =
      init.kind === "normal"
        ? normals(Rng.fromSeed(`${this.seed}:${name}`), size, init.std)
        : new Float32Array(size).fill(init.kind === "ones" ? 1 : 0);
    // Unnamed: tfjs names must be unique per process, and two models may coexist.
    const initial = tf.tensor(values, [...shape], "float32");
    const variable = tf.variable(initial, true);
    initial.dispose();
    this.variables.set(name, variable);
    return variable;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------------------------------------

/**
 * x [N, in] times w [in, out]. On wasm and cpu the gradient uses explicit transposes and plain matMuls;
 * elsewhere tfjs's own gradient (transpose flags are free on GPUs).
 */
const plainGradMatMul = tf.customGrad(((x: tf.Tensor2D, w: tf.Tensor2D, save: tf.GradSaveFunc) => {
  save([x, w]);
  return {
    value: tf.matMul(x, w),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [xs, ws] = saved as tf.Tensor2D[];
      return [tf.matMul(dy, tf.transpose(ws)), tf.matMul(tf.transpose(xs), dy)];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (x: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor2D;

/** Set while decoding: no gradient will be taken, so the custom-gradient wrappers are skipped. */
let gradientFree = false;

const withoutGradients = <T>(run: () => T): T => {
  const before = gradientFree;
  gradientFree = true;
  try {
    return run();
  } finally {
    gradientFree = before;
  }
};

const matMul2d = (x: tf.Tensor2D, w: tf.Tensor2D): tf.Tensor2D => {
  const backend = tf.getBackend();
  return !gradientFree && (backend === "wasm" || backend === "cpu") ? plainGradMatMul(x, w) : tf.matMul(x, w);
};

/**
 * Rows of `table` [R, d] picked by `ids` [N]. The gradient is a segment sum into the table (a JS kernel
 * on wasm, see backend.ts): far cheaper than oneHot x matMul, whose gradient transposes an [N, R] matrix.
 */
const embedRows = (table: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D => {
  if (gradientFree) return tf.gather(table, ids);
  const rows = table.shape[0];
  const lookup = tf.customGrad(((t: tf.Tensor2D, save: tf.GradSaveFunc) => {
    save([ids]);
    return {
      value: tf.gather(t, ids),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => tf.unsortedSegmentSum(dy, saved[0] as tf.Tensor1D, rows),
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (t: tf.Tensor2D) => tf.Tensor2D;
  return lookup(table);
};

/**
 * Per row of logits z [N, V] and one-hot targets [N, V]: [log p(target), entropy] as [N, 2], with
 * p = softmax(z). Written to avoid elementwise exp/log over [N, V] (scalar and slow on wasm; its Softmax
 * kernel is vectorised):
 *
 *   log Z = max(z) - log(max(p))     (max(p) >= 1/V, so the log is safe)
 *   log p(t) = z_t - log Z,   H = log Z - E_p[z]
 *   d log p(t)/dz = onehot(t) - p,   dH/dz = -p (z - E_p[z])
 */
const logprobAndEntropy = tf.customGrad(((z: tf.Tensor2D, hot: tf.Tensor2D, save: tf.GradSaveFunc) => {
  const p = tf.softmax(z);
  const logZ = tf.sub(tf.max(z, 1), tf.log(tf.max(p, 1)));
  const expectedZ = tf.sum(tf.mul(p, z), 1);
  const logprob = tf.sub(tf.sum(tf.mul(z, hot), 1), logZ);
  const entropy = tf.sub(logZ, expectedZ);
  save([p, z, hot, expectedZ]);
  return {
    value: tf.stack([logprob, entropy], 1),
    gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
      const [ps, zs, hots, ez] = saved as tf.Tensor2D[];
      const gLogprob = tf.slice(dy, [0, 0], [-1, 1]);
      const gEntropy = tf.slice(dy, [0, 1], [-1, 1]);
      const dLogprob = tf.mul(gLogprob, tf.sub(hots, ps));
      const dEntropy = tf.mul(gEntropy, tf.mul(ps, tf.sub(zs, tf.reshape(ez, [-1, 1]))));
      return [tf.sub(dLogprob, dEntropy), tf.zerosLike(hots)];
    },
  };
}) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (z: tf.Tensor2D, hot: tf.Tensor2D) => tf.Tensor2D;

/** Added to probabilities before their log: log(0) would be -Infinity (and NaN in 0 * log 0). */
const COPY_EPS = 1e-30;

/**
 * The copy head's output. z [N, V] vocabulary logits, c [N, S] copy scores (masked slots at MASKED),
 * `seg` [N * S] int32: the flat index n * V + id of the token that slot s emits. One softmax q over the
 * V + S entries; p(v) = q_z(v) + sum of q_c(s) over slots s that emit v; returns log p [N, V].
 *
 * The normalisers come from each part's own softmax (log Z = max(u) - log(max(softmax(u)))), so no
 * elementwise exp runs over [N, V] (slow on wasm) and no concat/split. Gradient, with r = g / p:
 *   dz = q_z (r - k),  dc = q_c (r[seg] - k),  k = sum(q_z r) + sum(q_c r[seg])   (per row)
 */
const copyMixture = (z: tf.Tensor2D, c: tf.Tensor2D, seg: tf.Tensor1D): tf.Tensor2D => {
  const [rows, vocab] = z.shape;
  const slots = c.shape[1];
  const op = tf.customGrad(((zIn: tf.Tensor2D, cIn: tf.Tensor2D, save: tf.GradSaveFunc) => {
    const logNormaliser = (u: tf.Tensor2D, p: tf.Tensor2D) => tf.sub(tf.max(u, 1), tf.log(tf.max(p, 1)));
    const pz = tf.softmax(zIn);
    const pc = tf.softmax(cIn);
    const logZz = logNormaliser(zIn, pz);
    const logZc = logNormaliser(cIn, pc);
    const top = tf.maximum(logZz, logZc);
    const logZ = tf.add(top, tf.log(tf.add(tf.exp(tf.sub(logZz, top)), tf.exp(tf.sub(logZc, top)))));
    const qz = tf.mul(pz, tf.reshape(tf.exp(tf.sub(logZz, logZ)), [rows, 1]));
    const qc = tf.mul(pc, tf.reshape(tf.exp(tf.sub(logZc, logZ)), [rows, 1]));
    const copied = tf.reshape(tf.unsortedSegmentSum(tf.reshape(qc, [-1]), seg, rows * vocab), [rows, vocab]);
    const p = tf.add(tf.add(qz, copied), COPY_EPS);
    save([qz, qc, p, seg]);
    return {
      value: tf.log(p),
      gradFunc: (dy: tf.Tensor2D, saved: tf.Tensor[]) => {
        const [sqz, sqc, sp] = saved as tf.Tensor2D[];
        const r = tf.div(dy, sp);
        const rc = tf.reshape(tf.gather(tf.reshape(r, [-1]), saved[3] as tf.Tensor1D), [rows, slots]);
        const k = tf.reshape(tf.add(tf.sum(tf.mul(sqz, r), 1), tf.sum(tf.mul(sqc, rc), 1)), [rows, 1]);
        return [tf.mul(sqz, tf.sub(r, k)), tf.mul(sqc, tf.sub(rc, k))];
      },
    };
  }) as unknown as Parameters<typeof tf.customGrad>[0]) as unknown as (z: tf.Tensor2D, c: tf.Tensor2D) => tf.Tensor2D;
  return op(z, c);
};

/**
 * The copy head's inputs for query rows over key slots: the additive mask [Q, S] and the flat segment ids
 * [Q * S] of `copyMixture`. `allowed(q, s)` says whether query row q may copy from slot s; `emits(q, s)` is
 * the id slot s emits for row q (ignored where not allowed).
 */
const copyTargets = (
  queries: number,
  slots: number,
  vocab: number,
  allowed: (q: number, s: number) => boolean,
  emits: (q: number, s: number) => number,
): { mask: tf.Tensor2D; seg: tf.Tensor1D } => {
  const mask = new Float32Array(queries * slots);
  const seg = new Int32Array(queries * slots);
  for (let q = 0; q < queries; q++) {
    for (let s = 0; s < slots; s++) {
      const i = q * slots + s;
      if (allowed(q, s)) seg[i] = q * vocab + emits(q, s);
      else {
        mask[i] = MASKED;
        seg[i] = q * vocab;
      }
    }
  }
  return { mask: tf.tensor2d(mask, [queries, slots]), seg: tf.tensor1d(seg, "int32") };
};

class Linear {
  readonly weight: tf.Variable;
  readonly bias: tf.Variable | null;
  constructor(store: ParameterStore, name: string, inputs: number, outputs: number, std: number, bias = true) {
    this.weight = store.create(
      `${name}.weight`,
      [inputs, outputs],
      std === 0 ? { kind: "zeros" } : { kind: "normal", std },
    );
    this.bias = bias ? store.create(`${name}.bias`, [outputs], { kind: "zeros" }) : null;
  }

  apply(x: tf.Tensor2D): tf.Tensor2D {
    const y = matMul2d(x, this.weight as tf.Tensor2D);
    return this.bias === null ? y : tf.add(y, this.bias);
  }
}

class LayerNorm {
  readonly gain: tf.Variable;
  readonly bias: tf.Variable;
  constructor(
    store: ParameterStore,
    name: string,
    width: number,
    readonly eps: number,
  ) {
    this.gain = store.create(`${name}.gain`, [width], { kind: "ones" });
    this.bias = store.create(`${name}.bias`, [width], { kind: "zeros" });
  }

  apply(x: tf.Tensor2D): tf.Tensor2D {
    const { mean, variance } = tf.moments(x, 1, true);
    const normalised = tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, this.eps)));
    return tf.add(tf.mul(normalised, this.gain), this.bias);
  }
}

/** Keys and values of one layer for every slot seen so far: [B, heads, S, headWidth]. */
export interface LayerCache {
  readonly keys: tf.Tensor4D;
  readonly values: tf.Tensor4D;
}

class CausalSelfAttention {
  readonly query: Linear;
  readonly key: Linear;
  readonly value: Linear;
  readonly proj: Linear;
  constructor(
    store: ParameterStore,
    name: string,
    readonly config: GptConfig,
  ) {
    const { width, initStd, layers } = config;
    // Three projections rather than one split in three: wasm's SplitV (and its Concat gradient) is slow.
    this.query = new Linear(store, `${name}.query`, width, width, initStd);
    this.key = new Linear(store, `${name}.key`, width, width, initStd);
    this.value = new Linear(store, `${name}.value`, width, width, initStd);
    this.proj = new Linear(store, `${name}.proj`, width, width, initStd / Math.sqrt(2 * layers));
  }

  /**
   * x [B*T, d] for T new slots; `mask` is additive, broadcastable to [B, heads, T, S] where S = past + T.
   * Returns the output [B*T, d] and this layer's keys and values over all S slots.
   */
  apply(x: tf.Tensor2D, batch: number, mask: tf.Tensor, past?: LayerCache): { y: tf.Tensor2D; cache: LayerCache } {
    const { width, heads } = this.config;
    const headWidth = width / heads;
    const time = x.shape[0] / batch;
    const [q, k, v] = [this.query, this.key, this.value].map((projection) =>
      tf.transpose(tf.reshape(projection.apply(x), [batch, time, heads, headWidth]), [0, 2, 1, 3]),
    ) as tf.Tensor4D[];
    const keys = past ? tf.concat([past.keys, k], 2) : k;
    const values = past ? tf.concat([past.values, v], 2) : v;
    const slots = keys.shape[2];
    // Each step's [B, heads, T, S] input is freed as soon as the next exists when no gradient will be taken
    // (decoding): otherwise a prefill holds four of them per layer until it ends (see attentionPeakBytes).
    const step = <T extends tf.Tensor>(inputs: tf.Tensor[], output: T): T => {
      if (gradientFree) for (const input of inputs) input.dispose();
      return output;
    };
    const raw = tf.matMul(
      tf.reshape(q, [batch * heads, time, headWidth]),
      tf.reshape(keys, [batch * heads, slots, headWidth]),
      false,
      true,
    );
    const scores = step([raw], tf.mul(raw, 1 / Math.sqrt(headWidth)));
    const shaped = tf.reshape(scores, [batch, heads, time, slots]);
    const masked = step([scores, shaped], tf.add(shaped, mask));
    const weights = step([masked], tf.softmax(masked));
    const flat = tf.reshape(weights, [batch * heads, time, slots]);
    const mixed = step([weights, flat], tf.matMul(flat, tf.reshape(values, [batch * heads, slots, headWidth])));
    const merged = tf.reshape(tf.transpose(tf.reshape(mixed, [batch, heads, time, headWidth]), [0, 2, 1, 3]), [
      batch * time,
      width,
    ]);
    return { y: this.proj.apply(merged as tf.Tensor2D), cache: { keys, values } };
  }
}

/** GPT-2's tanh approximation of GELU, with x*x*x (pow is slow on wasm). */
const gelu = (x: tf.Tensor2D): tf.Tensor2D => {
  const cubic = tf.mul(tf.mul(tf.mul(x, x), x), 0.044715);
  const inner = tf.mul(tf.add(x, cubic), Math.sqrt(2 / Math.PI));
  return tf.mul(tf.mul(x, 0.5), tf.add(tf.tanh(inner), 1));
};

class Mlp {
  readonly fc: Linear;
  readonly proj: Linear;
  constructor(
    store: ParameterStore,
    name: string,
    readonly config: GptConfig,
  ) {
    const { width, mlpRatio, initStd, layers } = config;
    this.fc = new Linear(store, `${name}.fc`, width, mlpRatio * width, initStd);
    this.proj = new Linear(store, `${name}.proj`, mlpRatio * width, width, initStd / Math.sqrt(2 * layers));
  }

  apply(x: tf.Tensor2D): tf.Tensor2D {
    const hidden = this.fc.apply(x);
    return this.proj.apply(this.config.activation === "gelu" ? gelu(hidden) : tf.relu(hidden));
  }
}

class Block {
  readonly ln1: LayerNorm;
  readonly attn: CausalSelfAttention;
  readonly ln2: LayerNorm;
  readonly mlp: Mlp;
  constructor(store: ParameterStore, name: string, config: GptConfig) {
    this.ln1 = new LayerNorm(store, `${name}.ln1`, config.width, config.layerNormEps);
    this.attn = new CausalSelfAttention(store, `${name}.attn`, config);
    this.ln2 = new LayerNorm(store, `${name}.ln2`, config.width, config.layerNormEps);
    this.mlp = new Mlp(store, `${name}.mlp`, config);
  }

  apply(x: tf.Tensor2D, batch: number, mask: tf.Tensor, past?: LayerCache): { x: tf.Tensor2D; cache: LayerCache } {
    const attended = this.attn.apply(this.ln1.apply(x), batch, mask, past);
    const mid: tf.Tensor2D = tf.add(x, attended.y);
    return { x: tf.add(mid, this.mlp.apply(this.ln2.apply(mid))), cache: attended.cache };
  }
}

/**
 * A block's output. When no gradient will be taken (decoding), its intermediates are freed as it returns
 * rather than when the whole pass ends: a prefill would otherwise hold every layer's at once.
 */
const applyBlock = (
  block: Block,
  x: tf.Tensor2D,
  batch: number,
  mask: tf.Tensor,
  past?: LayerCache,
): { x: tf.Tensor2D; cache: LayerCache } => {
  if (!gradientFree) return block.apply(x, batch, mask, past);
  const [y, keys, values] = tf.tidy(() => {
    const out = block.apply(x, batch, mask, past);
    return [out.x, out.cache.keys, out.cache.values];
  });
  return { x: y as tf.Tensor2D, cache: { keys: keys as tf.Tensor4D, values: values as tf.Tensor4D } };
};

// ---------------------------------------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------------------------------------

/** Per-token results of scoring targets, each [B, T]. */
export interface TokenStats {
  /** log p(target_t | inputs_<=t) under the (optionally masked) distribution at temperature 1. */
  readonly logprobs: tf.Tensor2D;
  /** Entropy of that same distribution. */
  readonly entropy: tf.Tensor2D;
  /** Value head on the state inputs_<=t, i.e. before target_t is emitted. */
  readonly values: tf.Tensor2D;
}

export interface ForwardOptions {
  /** Pad slots at the start of each row (default none): masked as keys, real tokens start at position 0. */
  readonly leftPad?: readonly number[];
  /**
   * Training only (randomized positions, Ruoss et al. 2023): each row's real tokens start at this position
   * instead of 0, so every learned position embedding is trained on every kind of content. Unpadded rows
   * only; a slot past contextLength - 1 (right padding, never scored) is clamped. Ignored with ALiBi.
   */
  readonly positionOffsets?: readonly number[];
  /**
   * The ids of `tokens`, row-major, on the CPU. The copy head needs them to know what each slot would
   * copy; without them it reads the tensor back synchronously, which WebGPU under Node cannot do.
   */
  readonly ids?: ArrayLike<number>;
}

/** The KV cache of a batch being decoded. Owned by the caller: `disposeCache` it when done. */
export interface KvCache {
  readonly layers: readonly LayerCache[];
  readonly leftPad: readonly number[];
  /** Slots filled so far (pad slots included). */
  readonly slots: number;
  /** The output projection [d, V], transposed once per decode (transposes are slow on wasm). */
  readonly outputWeights: tf.Tensor2D;
  /** With the copy head: its keys for every slot [B, S, dc], and each row's ids slot by slot (pads included). */
  readonly copy?: { readonly keys: tf.Tensor3D; readonly ids: readonly (readonly number[])[] };
  /** With turn-local attention: each row's segment slot by slot (pads included, as 0). */
  readonly segments?: readonly (readonly number[])[];
}

/** The copy head's query and key projections (final hidden state to dc = width / heads). */
interface CopyHead {
  readonly query: Linear;
  readonly key: Linear;
  readonly width: number;
}

/** The ids of a token tensor, read synchronously: what the copy head does when the caller gives none. */
const readIds = (tokens: tf.Tensor2D): ArrayLike<number> => {
  try {
    return tokens.dataSync();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `the copy head could not read its input ids back on backend "${tf.getBackend()}" (${reason}); pass them as options.ids`,
    );
  }
};

/**
 * The policy's model: a small decoder-only transformer with a value head (and optionally a copy head), its weights
 * initialised from `seed`. Call `dispose` to free its tensors.
 */
export class Gpt {
  readonly config: GptConfig;
  readonly store: ParameterStore;
  readonly tokenEmbedding: tf.Variable;
  /** Null with ALiBi. */
  readonly positionEmbedding: tf.Variable | null;
  /** ALiBi's slope per head; null with learned positions. */
  readonly slopes: readonly number[] | null;
  readonly blocks: readonly Block[];
  readonly lnF: LayerNorm;
  readonly head: tf.Variable | null;
  readonly valueHead: Linear;
  readonly copyHead: CopyHead | null;
  /** With turn-local attention: the ids that start a turn; null with full attention. */
  readonly turnStarts: ReadonlySet<number> | null;

  constructor(config: Partial<GptConfig>, seed: string) {
    this.config = gptConfig(config);
    // Without a backend, tfjs failed at the first weight with "No backend found in registry.", naming neither
    // this class nor what to do: train, sft and loadPolicy start one themselves, a model built by hand does not.
    if (tf.engine().backendNames().length === 0)
      throw new UsageError({
        detail:
          'new Gpt: no TensorFlow.js backend is set up; first `await initBackend()` (from "agent-r1-ts/learn"; initBackend("wasm") or "cpu" to choose one), as train, sft and loadPolicy do themselves',
      });
    registerGradients();
    const { vocabSize, contextLength, width, layers, initStd, tiedEmbeddings, layerNormEps } = this.config;
    this.store = new ParameterStore(seed);
    const store = this.store;
    this.tokenEmbedding = store.create("wte", [vocabSize, width], { kind: "normal", std: initStd });
    const alibi = this.config.positions === "alibi";
    this.positionEmbedding = alibi
      ? null
      : store.create("wpe", [contextLength, width], { kind: "normal", std: initStd });
    this.slopes = alibi
      ? Array.from({ length: this.config.heads }, (_, h) => 2 ** ((-8 * (h + 1)) / this.config.heads))
      : null;
    this.blocks = Array.from({ length: layers }, (_, i) => new Block(store, `h.${i}`, this.config));
    this.lnF = new LayerNorm(store, "lnf", width, layerNormEps);
    this.head = tiedEmbeddings ? null : store.create("head", [width, vocabSize], { kind: "normal", std: initStd });
    this.valueHead = new Linear(store, "value", width, 1, 0);
    // Created last, so a model without the copy head initialises exactly as before it existed.
    const copyWidth = width / this.config.heads;
    this.copyHead = this.config.copy
      ? {
          query: new Linear(store, "copy.query", width, copyWidth, initStd, false),
          key: new Linear(store, "copy.key", width, copyWidth, initStd, false),
          width: copyWidth,
        }
      : null;
    this.turnStarts = this.config.attention === "turn-local" ? new Set(this.config.turnStarts) : null;
  }

  /** Trainable variables by name, in a fixed order. */
  get parameters(): ReadonlyMap<string, tf.Variable> {
    return this.store.variables;
  }

  /** Trainable numbers in the model. */
  parameterCount(): number {
    let count = 0;
    for (const variable of this.store.variables.values()) count += variable.size;
    return count;
  }

  /** Frees the model's tensors; the model cannot be used after. */
  dispose(): void {
    for (const variable of this.store.variables.values()) variable.dispose();
  }

  // --- training-time passes -----------------------------------------------------------------------------

  /** Logits [B, T, V] for every position of `tokens` [B, T] (int32). */
  logits(tokens: tf.Tensor2D, options: ForwardOptions = {}): tf.Tensor3D {
    return tf.tidy(() => {
      const [batch, time] = tokens.shape;
      const { hidden, segments } = this.trunk(tokens, options.leftPad, undefined, options.ids);
      return tf.reshape(this.outputs(hidden, tokens, options, segments), [batch, time, this.config.vocabSize]);
    });
  }

  /**
   * Scores `targets` [B, T] given `inputs` [B, T] (usually targets = inputs shifted left by one). The
   * additive `logitMask` [B, T, V] (0 allowed, MASKED forbidden) applies constrained decoding's masks.
   */
  tokenStats(
    inputs: tf.Tensor2D,
    targets: tf.Tensor2D,
    options: ForwardOptions & { readonly logitMask?: tf.Tensor3D } = {},
  ): TokenStats {
    return tf.tidy(() => {
      const [batch, time] = inputs.shape;
      const vocab = this.config.vocabSize;
      const { hidden, segments } = this.trunk(inputs, options.leftPad, options.positionOffsets, options.ids);
      let logits = this.outputs(hidden, inputs, options, segments);
      if (options.logitMask) logits = tf.add(logits, tf.reshape(options.logitMask, [batch * time, vocab]));
      const stats = logprobAndEntropy(logits, floatOneHot(tf.reshape(targets, [-1]) as tf.Tensor1D, vocab));
      const column = (i: number) => tf.reshape(tf.slice(stats, [0, i], [-1, 1]), [batch, time]) as tf.Tensor2D;
      return {
        logprobs: column(0),
        entropy: column(1),
        values: tf.reshape(this.valueHead.apply(hidden), [batch, time]) as tf.Tensor2D,
      };
    });
  }

  // --- incremental decoding -----------------------------------------------------------------------------

  /**
   * Runs the left-padded contexts [B][*] through the model and returns the next-token logits [B, V] and
   * the KV cache. Every context must be non-empty.
   */
  prefill(contexts: readonly (readonly number[])[]): { logits: tf.Tensor2D; cache: KvCache } {
    const longest = Math.max(...contexts.map((c) => c.length));
    if (contexts.length === 0 || contexts.some((c) => c.length === 0)) {
      throw new RangeError("prefill needs at least one row and a non-empty context in every row");
    }
    if (longest > this.config.contextLength) {
      throw new RangeError(`a context of ${longest} tokens exceeds contextLength ${this.config.contextLength}`);
    }
    const leftPad = contexts.map((c) => longest - c.length);
    const ids = new Int32Array(contexts.length * longest);
    contexts.forEach((context, b) => {
      ids.set(context, b * longest + leftPad[b]);
    });
    let layers: LayerCache[] = [];
    let copyKeys: tf.Tensor3D | null = null;
    let segments: number[][] | undefined;
    const batch = contexts.length;
    // A copy the cache owns (for an untied head, a clone sharing the variable's data).
    const outputWeights = tf.keep(this.head ? tf.clone(this.head as tf.Tensor2D) : this.outputWeights());
    const logits = withoutGradients(() =>
      tf.tidy(() => {
        const tokens = tf.tensor2d(ids, [batch, longest], "int32");
        const trunk = this.trunk(tokens, leftPad, undefined, ids);
        const { hidden, caches } = trunk;
        segments = trunk.segments;
        layers = caches.map((layer) => ({ keys: tf.keep(layer.keys), values: tf.keep(layer.values) }));
        const last = tf.reshape(tf.slice(tf.reshape(hidden, [batch, longest, -1]), [0, longest - 1, 0], [-1, 1, -1]), [
          batch,
          -1,
        ]) as tf.Tensor2D;
        const vocabLogits = tf.matMul(last, outputWeights) as tf.Tensor2D;
        if (!this.copyHead) return vocabLogits;
        const keys = tf.reshape(this.copyHead.key.apply(hidden), [batch, longest, this.copyHead.width]) as tf.Tensor3D;
        copyKeys = tf.keep(keys);
        // The last slot is the query itself: what follows it is what we are predicting.
        const rows = segments;
        const sees = rows ? (b: number, s: number) => seesTurn(rows[b][longest - 1], rows[b][s]) : undefined;
        return this.copyStep(last, vocabLogits, keys, leftPad, (b, s) => ids[b * longest + s + 1], longest - 1, sees);
      }),
    );
    const copy = copyKeys
      ? {
          keys: copyKeys as tf.Tensor3D,
          ids: contexts.map((_, b) => Array.from(ids.subarray(b * longest, (b + 1) * longest))),
        }
      : undefined;
    return {
      logits,
      cache: {
        layers,
        leftPad,
        slots: longest,
        outputWeights,
        ...(copy ? { copy } : {}),
        ...(segments ? { segments } : {}),
      },
    };
  }

  /**
   * Feeds one token per row and returns the next logits [B, V] and the extended cache. The old cache's
   * tensors are disposed (the new one shares nothing with it). A row already at contextLength keeps its
   * last position: its logits mean nothing (a finished row riding along); callers check bounds first.
   */
  decode(cache: KvCache, tokens: readonly number[]): { logits: tf.Tensor2D; cache: KvCache } {
    const batch = cache.leftPad.length;
    if (tokens.length !== batch) throw new RangeError(`decode got ${tokens.length} tokens for ${batch} rows`);
    const last = this.config.contextLength - 1;
    const positions = cache.leftPad.map((pad) => Math.min(cache.slots - pad, last));
    const layers: LayerCache[] = [];
    const ids = cache.copy?.ids.map((row, b) => [...row, tokens[b]]);
    const starts = this.turnStarts;
    if (starts && !cache.segments) throw new RangeError("decode: a turn-local model's cache has no segments");
    const segments =
      starts && cache.segments
        ? cache.segments.map((row, b) => [...row, (row[row.length - 1] ?? 0) + (starts.has(tokens[b]) ? 1 : 0)])
        : undefined;
    let copyKeys: tf.Tensor3D | null = null;
    const logits = withoutGradients(() =>
      tf.tidy(() => {
        let x = this.embed(tf.tensor1d([...tokens], "int32"), positions);
        const padMask = tf.tensor4d(keyPadMask(cache.leftPad, cache.slots + 1, 1), [batch, 1, 1, cache.slots + 1]);
        const causal = this.slopes
          ? tf.add(padMask, alibiCausalMask(this.slopes, cache.slots, 1, cache.slots + 1))
          : padMask;
        const mask = segments ? tf.add(causal, turnMask(segments, cache.slots, 1, cache.slots + 1)) : causal;
        this.blocks.forEach((block, i) => {
          const out = applyBlock(block, x, batch, mask, cache.layers[i]);
          x = out.x;
          layers.push({ keys: tf.keep(out.cache.keys), values: tf.keep(out.cache.values) });
        });
        const hidden = this.lnF.apply(x);
        const vocabLogits = tf.matMul(hidden, cache.outputWeights) as tf.Tensor2D;
        if (!this.copyHead || !cache.copy || !ids) return vocabLogits;
        const fresh = tf.reshape(this.copyHead.key.apply(hidden), [batch, 1, this.copyHead.width]);
        const keys = tf.concat([cache.copy.keys, fresh], 1) as tf.Tensor3D;
        copyKeys = tf.keep(keys);
        const sees = segments
          ? (b: number, s: number) => seesTurn(segments[b][cache.slots], segments[b][s])
          : undefined;
        return this.copyStep(hidden, vocabLogits, keys, cache.leftPad, (b, s) => ids[b][s + 1], cache.slots, sees);
      }),
    );
    disposeLayers(cache);
    const copy = copyKeys && ids ? { keys: copyKeys as tf.Tensor3D, ids } : undefined;
    return {
      logits,
      cache: { ...cache, layers, slots: cache.slots + 1, ...(copy ? { copy } : {}), ...(segments ? { segments } : {}) },
    };
  }

  // --- internals ----------------------------------------------------------------------------------------

  /**
   * Final-LayerNormed hidden states [B*T, d] and each layer's keys and values; with turn-local attention, each
   * row's segments (from `ids`, the tokens' ids row-major, else read back from the tensor).
   */
  private trunk(
    tokens: tf.Tensor2D,
    leftPad?: readonly number[],
    positionOffsets?: readonly number[],
    ids?: ArrayLike<number>,
  ): { hidden: tf.Tensor2D; caches: LayerCache[]; segments?: number[][] } {
    const [batch, time] = tokens.shape;
    if (time > this.config.contextLength) {
      throw new RangeError(`sequence of ${time} tokens exceeds contextLength ${this.config.contextLength}`);
    }
    const padded = leftPad?.some((p) => p > 0) ?? false;
    let x: tf.Tensor2D;
    const offset = this.positionEmbedding !== null && (positionOffsets?.some((o) => o > 0) ?? false);
    if (offset && padded) throw new RangeError("positionOffsets are for unpadded (training) rows only");
    if (offset && positionOffsets?.length !== batch)
      throw new RangeError(`positionOffsets has ${positionOffsets?.length} rows, tokens has ${batch}`);
    if (padded || offset) {
      // A row's real tokens from position 0 (after its left pad), or from its offset; a right-pad slot past
      // the table's end (never scored) takes the last position.
      const last = this.config.contextLength - 1;
      const positions = new Int32Array(batch * time);
      for (let b = 0; b < batch; b++) {
        const pad = (padded && leftPad?.[b]) || 0;
        const start = (offset && positionOffsets?.[b]) || 0;
        for (let t = 0; t < time; t++) positions[b * time + t] = Math.min(last, Math.max(0, t - pad) + start);
      }
      x = this.embed(tf.reshape(tokens, [-1]) as tf.Tensor1D, positions);
    } else {
      const tokenPart = embedRows(this.tokenEmbedding as tf.Tensor2D, tf.reshape(tokens, [-1]) as tf.Tensor1D);
      x = this.positionEmbedding
        ? tf.reshape(
            tf.add(
              tf.reshape(tokenPart, [batch, time, this.config.width]),
              tf.slice(this.positionEmbedding, [0, 0], [time, -1]),
            ),
            [batch * time, this.config.width],
          )
        : tokenPart;
    }
    const causal = this.slopes ? alibiCausalMask(this.slopes, 0, time, time) : causalMask(time);
    const unturned =
      padded && leftPad ? tf.add(causal, tf.tensor4d(keyPadMask(leftPad, time, 1), [batch, 1, 1, time])) : causal;
    let segments: number[][] | undefined;
    if (this.turnStarts) {
      if (ids && ids.length !== batch * time)
        throw new RangeError(`ids has ${ids.length} values for tokens of shape [${batch}, ${time}]`);
      const known = ids ?? readIds(tokens);
      const starts = this.turnStarts;
      segments = Array.from({ length: batch }, (_, b) =>
        rowSegments(known, b * time, time, (padded && leftPad?.[b]) || 0, starts),
      );
    }
    const mask = segments ? tf.add(unturned, turnMask(segments, 0, time, time)) : unturned;
    const caches: LayerCache[] = [];
    for (const block of this.blocks) {
      const out = applyBlock(block, x, batch, mask);
      x = out.x;
      caches.push(out.cache);
    }
    return { hidden: this.lnF.apply(x), caches, ...(segments ? { segments } : {}) };
  }

  /**
   * Output logits [B*T, V] for hidden [B*T, d] of `tokens` [B, T]: the vocabulary logits, or with the copy
   * head log p of the mixture (position t may copy from slots leftPad <= s < t).
   */
  private outputs(
    hidden: tf.Tensor2D,
    tokens: tf.Tensor2D,
    options: ForwardOptions,
    segments?: readonly (readonly number[])[],
  ): tf.Tensor2D {
    const vocabLogits = this.project(hidden);
    if (!this.copyHead) return vocabLogits;
    const [batch, time] = tokens.shape;
    const vocab = this.config.vocabSize;
    const { leftPad } = options;
    if (options.ids && options.ids.length !== batch * time)
      throw new RangeError(`ids has ${options.ids.length} values for tokens of shape [${batch}, ${time}]`);
    const ids = options.ids ?? readIds(tokens);
    const head = this.copyHead;
    const queries = tf.reshape(head.query.apply(hidden), [batch, time, head.width]);
    const keys = tf.reshape(head.key.apply(hidden), [batch, time, head.width]);
    const scores = tf.reshape(tf.mul(tf.matMul(queries, keys, false, true), 1 / Math.sqrt(head.width)), [
      batch * time,
      time,
    ]);
    const { mask, seg } = copyTargets(
      batch * time,
      time,
      vocab,
      (row, s) => {
        const b = Math.floor(row / time);
        const t = row % time;
        return s < t && s >= (leftPad?.[b] ?? 0) && (!segments || seesTurn(segments[b][t], segments[b][s]));
      },
      (row, s) => ids[Math.floor(row / time) * time + s + 1],
    );
    return copyMixture(vocabLogits, tf.add(scores, mask), seg);
  }

  /**
   * One decoding position per row: hidden [B, d], its vocabulary logits [B, V], the copy keys of every
   * slot [B, S, dc]; row b may copy from slots leftPad[b] <= s < `before`, emitting `emits(b, s)`.
   */
  private copyStep(
    hidden: tf.Tensor2D,
    vocabLogits: tf.Tensor2D,
    keys: tf.Tensor3D,
    leftPad: readonly number[],
    emits: (b: number, s: number) => number,
    before: number,
    sees?: (b: number, s: number) => boolean,
  ): tf.Tensor2D {
    const head = this.copyHead as CopyHead;
    const [batch, slots] = keys.shape;
    const query = tf.reshape(head.query.apply(hidden), [batch, 1, head.width]);
    const scores = tf.reshape(tf.mul(tf.matMul(query, keys, false, true), 1 / Math.sqrt(head.width)), [batch, slots]);
    const { mask, seg } = copyTargets(
      batch,
      slots,
      this.config.vocabSize,
      (b, s) => s < before && s >= leftPad[b] && (!sees || sees(b, s)),
      emits,
    );
    return copyMixture(vocabLogits, tf.add(scores, mask) as tf.Tensor2D, seg);
  }

  /** Token + position embeddings [N, d] from ids [N] and positions [N] (unused, and not uploaded, with ALiBi). */
  private embed(ids: tf.Tensor1D, positions: Int32Array | readonly number[]): tf.Tensor2D {
    const tokenPart = embedRows(this.tokenEmbedding as tf.Tensor2D, ids);
    if (!this.positionEmbedding) return tokenPart;
    return tf.add(
      tokenPart,
      embedRows(this.positionEmbedding as tf.Tensor2D, tf.tensor1d(positions as number[], "int32")),
    );
  }

  /** The output projection [d, V]. */
  private outputWeights(): tf.Tensor2D {
    return (this.head ?? tf.transpose(this.tokenEmbedding)) as tf.Tensor2D;
  }

  /** Hidden [N, d] to logits [N, V]. */
  private project(hidden: tf.Tensor2D): tf.Tensor2D {
    return matMul2d(hidden, this.outputWeights());
  }
}

/**
 * One-hot rows as float32. Cast from int32: wasm's OneHot kernel ignores the dtype argument and writes
 * integer bit patterns into a float32 tensor (tfjs 4.22).
 */
const floatOneHot = (ids: tf.Tensor1D, depth: number): tf.Tensor2D =>
  tf.cast(tf.oneHot(ids, depth), "float32") as tf.Tensor2D;

const disposeLayers = (cache: KvCache): void => {
  for (const layer of cache.layers) {
    layer.keys.dispose();
    layer.values.dispose();
  }
  cache.copy?.keys.dispose();
};

export const disposeCache = (cache: KvCache): void => {
  disposeLayers(cache);
  cache.outputWeights.dispose();
};

/** Additive causal mask [1, 1, T, T]: query t sees keys 0..t. */
const causalMask = (time: number): tf.Tensor4D => {
  const values = new Float32Array(time * time);
  for (let i = 0; i < time; i++) for (let j = i + 1; j < time; j++) values[i * time + j] = MASKED;
  return tf.tensor4d(values, [1, 1, time, time]);
};

/**
 * ALiBi's causal mask [1, heads, queries, slots]: query i sits at slot first + i, scores key slot s with
 * -slope * (first + i - s), and cannot see keys after it (one tensor in place of causalMask plus a bias).
 * Distances are slot differences, which left padding does not change.
 */
const alibiCausalMask = (slopes: readonly number[], first: number, queries: number, slots: number): tf.Tensor4D => {
  const values = new Float32Array(slopes.length * queries * slots);
  slopes.forEach((slope, h) => {
    for (let i = 0; i < queries; i++)
      for (let s = 0; s < slots; s++)
        values[(h * queries + i) * slots + s] = s > first + i ? MASKED : -slope * (first + i - s);
  });
  return tf.tensor4d(values, [1, slopes.length, queries, slots]);
};

/**
 * A row's segment per slot (the row's ids at offset .. offset + length): 0 before `start` (its left pad) and in
 * the prompt, then k from the k-th id of `starts` on.
 */
const rowSegments = (
  ids: ArrayLike<number>,
  offset: number,
  length: number,
  start: number,
  starts: ReadonlySet<number>,
): number[] => {
  const out = new Array<number>(length).fill(0);
  let segment = 0;
  for (let t = start; t < length; t++) {
    if (starts.has(ids[offset + t])) segment++;
    out[t] = segment;
  }
  return out;
};

/** Turn-local attention (the causal rule apart): a slot of segment `query` sees the prompt, its turn and the one before. */
const seesTurn = (query: number, key: number): boolean => key === 0 || key >= query - 1;

/**
 * Turn-local attention's additive mask [B, 1, queries, slots]: query i of row b sits at slot first + i and cannot
 * see an earlier slot that `seesTurn` rules out (later slots are the causal mask's).
 */
const turnMask = (
  segments: readonly (readonly number[])[],
  first: number,
  queries: number,
  slots: number,
): tf.Tensor4D => {
  const values = new Float32Array(segments.length * queries * slots);
  segments.forEach((row, b) => {
    for (let i = 0; i < queries; i++) {
      const query = row[first + i];
      const base = (b * queries + i) * slots;
      for (let s = 0; s <= first + i && s < slots; s++) if (!seesTurn(query, row[s])) values[base + s] = MASKED;
    }
  });
  return tf.tensor4d(values, [segments.length, 1, queries, slots]);
};

/** Additive mask over key slots [B, 1, queries, S]: a row's first leftPad[b] slots are masked. */
const keyPadMask = (leftPad: readonly number[], slots: number, queries: number): Float32Array => {
  const values = new Float32Array(leftPad.length * queries * slots);
  leftPad.forEach((pad, b) => {
    for (let q = 0; q < queries; q++) values.fill(MASKED, (b * queries + q) * slots, (b * queries + q) * slots + pad);
  });
  return values;
};

/**
 * The additive logit mask [B, T, V] for per-token allowed lists (null or missing = unconstrained), or
 * null when nothing is constrained.
 */
export const allowedLogitMask = (
  allowed: readonly (readonly (readonly number[] | null | undefined)[] | undefined)[],
  time: number,
  vocab: number,
): tf.Tensor3D | null => {
  if (!allowed.some((row) => row?.some((list) => list != null))) return null;
  const values = new Float32Array(allowed.length * time * vocab);
  allowed.forEach((row, b) => {
    for (let t = 0; t < time; t++) {
      const list = row?.[t];
      if (list == null) continue;
      const offset = (b * time + t) * vocab;
      values.fill(MASKED, offset, offset + vocab);
      for (const id of list) {
        if (!Number.isInteger(id) || id < 0 || id >= vocab) throw new RangeError(`allowed token id ${id} out of range`);
        values[offset + id] = 0;
      }
    }
  });
  return tf.tensor3d(values, [allowed.length, time, vocab]);
};

/**
 * AdamW (Loshchilov & Hutter 2019: Adam with decoupled weight decay) and global gradient-norm clipping;
 * tfjs ships Adam only. For each parameter p with gradient g, at step t (counting from 1):
 *
 *   g <- g * min(1, maxGradNorm / ||all g||_2)         global clipping, over every gradient together
 *   m <- b1 m + (1 - b1) g
 *   v <- b2 v + (1 - b2) g^2
 *   p <- p - lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) - lr wd p
 *
 * Weight decay applies to matrices only by default (not to biases and LayerNorm gains), as in nanoGPT.
 * A gradient that is NaN or infinite anywhere skips the whole update: nothing changes, t included. So does a
 * gradient that is 0 everywhere (its global norm is exactly 0): an update with nothing to learn from, such as a
 * GRPO batch whose every group tied (every advantage 0) with no KL, entropy or value term. Plain AdamW would
 * still move the weights there, by the momentum of earlier steps and by weight decay, and count the step in
 * the bias correction; here it is not taken. (A KL or entropy term, or a critic, gives such a batch a
 * gradient: it is applied as any other.)
 *
 * `state()` and `restore()` carry t and the moments through a checkpoint, so a resumed run continues
 * exactly as an uninterrupted one.
 */
import * as tf from "@tensorflow/tfjs-core";
import { shownValue, UsageError } from "../kernel/errors.ts";
import type { OptimizerState } from "../policy/checkpoint.ts";
import { LR_RULE } from "./config.ts";

export interface AdamWConfig {
  readonly lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  /** Clip the global gradient norm to this (null: no clipping). */
  readonly maxGradNorm: number | null;
}

const DEFAULT_ADAMW: AdamWConfig = {
  lr: 3e-4,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0.01,
  maxGradNorm: 1.0,
};

/** Per-step overrides (a learning-rate schedule, a different clip). */
export type AdamWOverrides = Partial<Pick<AdamWConfig, "lr" | "weightDecay" | "maxGradNorm">>;

/**
 * Whether an update was applied. Not applied: a gradient norm that is not finite, or one of exactly 0 (reason
 * `ZERO_GRADIENT`); nothing changed then, the step count included.
 */
export type StepOutcome =
  | { readonly applied: true; readonly gradNorm: number }
  | { readonly applied: false; readonly gradNorm: number; readonly reason: string };

/** ||g||_2 over all the gradients together (reads one number back, asynchronously: WebGPU needs it). */
const globalGradNorm = async (grads: Iterable<tf.Tensor>): Promise<number> => {
  const list = [...grads];
  if (list.length === 0) return 0;
  // Added two at a time rather than with addN: a kernel with one buffer per input exceeds WebGPU's limit
  // of storage buffers per shader stage (8 by default) for a model's 40-odd gradients.
  const norm = tf.tidy(() => tf.sqrt(list.map((g) => tf.sum(tf.square(g))).reduce((a, b) => tf.add(a, b))));
  try {
    return (await norm.data())[0];
  } finally {
    norm.dispose();
  }
};

/** The reason of an update not applied because its gradient is 0 everywhere (`StepOutcome`). */
export const ZERO_GRADIENT = "the gradient is 0 everywhere: nothing to learn from";

const decayMatrices = (_name: string, variable: tf.Variable): boolean => variable.rank >= 2;

/**
 * Refuses, as a UsageError naming the field, what train's config and the CLI refuse (a learning rate of 0, a
 * negative weight decay) and what would make every step NaN (betas outside [0, 1), eps <= 0).
 */
const checkAdamWConfig = (config: AdamWConfig) => {
  const wrong = (rule: string, value: unknown) =>
    new UsageError({ detail: `AdamW: ${rule}, got ${shownValue(value)}` });
  const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
  if (!finite(config.lr) || config.lr <= 0) throw wrong(LR_RULE, config.lr);
  for (const key of ["beta1", "beta2"] as const)
    if (!finite(config[key]) || config[key] < 0 || config[key] >= 1)
      throw wrong(`${key} must be a number >= 0 and < 1`, config[key]);
  if (!finite(config.eps) || config.eps <= 0) throw wrong("eps must be a finite number > 0", config.eps);
  if (!finite(config.weightDecay) || config.weightDecay < 0)
    throw wrong("weightDecay must be a finite number >= 0", config.weightDecay);
  if (config.maxGradNorm !== null && (!finite(config.maxGradNorm) || config.maxGradNorm < 0))
    throw wrong("maxGradNorm must be a finite number >= 0, or null for no clipping", config.maxGradNorm);
};

/**
 * The optimizer of `params` (AdamW with global gradient-norm clipping; defaults lr 3e-4, weight decay 0.01 on
 * matrices, clip 1.0). A wrong config (a learning rate of 0, say) is a UsageError naming the field. Call
 * `dispose` to free its moments.
 */
export class AdamW {
  readonly config: AdamWConfig;
  /** Updates applied so far (t of the bias correction). */
  step = 0;
  private readonly moments = new Map<string, { readonly m: tf.Variable; readonly v: tf.Variable }>();

  constructor(
    /** The variables it updates, by name. */
    readonly params: ReadonlyMap<string, tf.Variable>,
    config: Partial<AdamWConfig> = {},
    /** Which parameters get weight decay (default: matrices, not biases or gains). */
    readonly decays: (name: string, variable: tf.Variable) => boolean = decayMatrices,
  ) {
    const given = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
    this.config = { ...DEFAULT_ADAMW, ...given };
    checkAdamWConfig(this.config);
    const zeros = (like: tf.Variable) => {
      const initial = tf.zerosLike(like);
      const variable = tf.variable(initial, false);
      initial.dispose();
      return variable;
    };
    for (const [name, variable] of params) this.moments.set(name, { m: zeros(variable), v: zeros(variable) });
  }

  /**
   * One update from gradients by parameter name (a parameter without a gradient is left alone). Returns
   * the global norm before clipping, or why nothing was applied.
   */
  async apply(grads: ReadonlyMap<string, tf.Tensor>, overrides: AdamWOverrides = {}): Promise<StepOutcome> {
    const lr = overrides.lr ?? this.config.lr;
    const weightDecay = overrides.weightDecay ?? this.config.weightDecay;
    const maxGradNorm = overrides.maxGradNorm === undefined ? this.config.maxGradNorm : overrides.maxGradNorm;
    const { beta1, beta2, eps } = this.config;
    for (const name of grads.keys()) {
      if (!this.params.has(name)) throw new Error(`AdamW: gradient for unknown parameter ${name}`);
    }
    const gradNorm = await globalGradNorm(grads.values());
    if (!Number.isFinite(gradNorm)) return { applied: false, gradNorm, reason: `gradient norm is ${gradNorm}` };
    if (gradNorm === 0) return { applied: false, gradNorm, reason: ZERO_GRADIENT };
    const scale = maxGradNorm !== null && gradNorm > maxGradNorm ? maxGradNorm / (gradNorm + 1e-6) : 1;
    const t = this.step + 1;
    const correction1 = 1 - beta1 ** t;
    const correction2 = 1 - beta2 ** t;
    tf.tidy(() => {
      for (const [name, grad] of grads) {
        const param = this.params.get(name)!;
        const { m, v } = this.moments.get(name)!;
        const g = scale === 1 ? grad : tf.mul(grad, scale);
        m.assign(tf.add(tf.mul(m, beta1), tf.mul(g, 1 - beta1)));
        v.assign(tf.add(tf.mul(v, beta2), tf.mul(tf.square(g), 1 - beta2)));
        const adam = tf.div(tf.div(m, correction1), tf.add(tf.sqrt(tf.div(v, correction2)), eps));
        const decay = weightDecay !== 0 && this.decays(name, param) ? tf.mul(param, weightDecay) : null;
        param.assign(tf.sub(param, tf.mul(decay ? tf.add(adam, decay) : adam, lr)));
      }
    });
    this.step = t;
    return { applied: true, gradNorm };
  }

  /** t and a copy of every moment, by parameter name. */
  async state(): Promise<OptimizerState> {
    const moments = new Map<string, { m: Float32Array; v: Float32Array }>();
    for (const [name, { m, v }] of this.moments)
      moments.set(name, { m: new Float32Array(await m.data()), v: new Float32Array(await v.data()) });
    return { step: this.step, moments };
  }

  /**
   * Sets t and the moments from a saved state. Everything is checked first (a moment for every parameter,
   * of its size, and nothing else): a state that does not fit throws a RangeError and changes nothing.
   */
  restore(state: OptimizerState): void {
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new RangeError(`AdamW: step must be an integer >= 0, got ${state.step}`);
    for (const name of state.moments.keys())
      if (!this.params.has(name)) throw new RangeError(`AdamW: saved moments for unknown parameter ${name}`);
    for (const [name, param] of this.params) {
      const saved = state.moments.get(name);
      if (!saved) throw new RangeError(`AdamW: no saved moments for parameter ${name}`);
      if (saved.m.length !== param.size || saved.v.length !== param.size)
        throw new RangeError(
          `AdamW: moments of ${name} hold ${saved.m.length} and ${saved.v.length} values, the parameter ${param.size}`,
        );
    }
    for (const [name, { m, v }] of this.moments) {
      const saved = state.moments.get(name)!;
      tf.tidy(() => {
        m.assign(tf.tensor(saved.m, m.shape, "float32"));
        v.assign(tf.tensor(saved.v, v.shape, "float32"));
      });
    }
    this.step = state.step;
  }

  /** Frees the moment tensors. */
  dispose(): void {
    for (const { m, v } of this.moments.values()) {
      m.dispose();
      v.dispose();
    }
    this.moments.clear();
  }
}

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
 * A gradient that is NaN or infinite anywhere skips the whole update: nothing changes, t included.
 */
import * as tf from "@tensorflow/tfjs-core";

export interface AdamWConfig {
  readonly lr: number;
  readonly beta1: number;
  readonly beta2: number;
  readonly eps: number;
  readonly weightDecay: number;
  /** Clip the global gradient norm to this (null: no clipping). */
  readonly maxGradNorm: number | null;
}

export const DEFAULT_ADAMW: AdamWConfig = {
  lr: 3e-4,
  beta1: 0.9,
  beta2: 0.999,
  eps: 1e-8,
  weightDecay: 0.01,
  maxGradNorm: 1.0,
};

/** Per-step overrides (a learning-rate schedule, a different clip). */
export type AdamWOverrides = Partial<Pick<AdamWConfig, "lr" | "weightDecay" | "maxGradNorm">>;

export type StepOutcome =
  | { readonly applied: true; readonly gradNorm: number }
  | { readonly applied: false; readonly gradNorm: number; readonly reason: string };

/** ||g||_2 over all the gradients together (reads one number back). */
export const globalGradNorm = (grads: Iterable<tf.Tensor>): number => {
  const list = [...grads];
  if (list.length === 0) return 0;
  return tf.tidy(() => tf.sqrt(tf.addN(list.map((g) => tf.sum(tf.square(g))))).dataSync()[0]);
};

const decayMatrices = (_name: string, variable: tf.Variable): boolean => variable.rank >= 2;

export class AdamW {
  readonly config: AdamWConfig;
  /** Updates applied so far (t of the bias correction). */
  step = 0;
  private readonly moments = new Map<string, { readonly m: tf.Variable; readonly v: tf.Variable }>();

  constructor(
    readonly params: ReadonlyMap<string, tf.Variable>,
    config: Partial<AdamWConfig> = {},
    readonly decays: (name: string, variable: tf.Variable) => boolean = decayMatrices,
  ) {
    const given = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
    this.config = { ...DEFAULT_ADAMW, ...given };
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
  apply(grads: ReadonlyMap<string, tf.Tensor>, overrides: AdamWOverrides = {}): StepOutcome {
    const lr = overrides.lr ?? this.config.lr;
    const weightDecay = overrides.weightDecay ?? this.config.weightDecay;
    const maxGradNorm = overrides.maxGradNorm === undefined ? this.config.maxGradNorm : overrides.maxGradNorm;
    const { beta1, beta2, eps } = this.config;
    for (const name of grads.keys()) {
      if (!this.params.has(name)) throw new Error(`AdamW: gradient for unknown parameter ${name}`);
    }
    const gradNorm = globalGradNorm(grads.values());
    if (!Number.isFinite(gradNorm)) return { applied: false, gradNorm, reason: `gradient norm is ${gradNorm}` };
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

  dispose(): void {
    for (const { m, v } of this.moments.values()) {
      m.dispose();
      v.dispose();
    }
    this.moments.clear();
  }
}

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
import type { OptimizerState } from "../policy/checkpoint.ts";
export interface AdamWConfig {
    readonly lr: number;
    readonly beta1: number;
    readonly beta2: number;
    readonly eps: number;
    readonly weightDecay: number;
    /** Clip the global gradient norm to this (null: no clipping). */
    readonly maxGradNorm: number | null;
}
/** Per-step overrides (a learning-rate schedule, a different clip). */
export type AdamWOverrides = Partial<Pick<AdamWConfig, "lr" | "weightDecay" | "maxGradNorm">>;
/**
 * Whether an update was applied. Not applied: a gradient norm that is not finite, or one of exactly 0 (reason
 * `ZERO_GRADIENT`); nothing changed then, the step count included.
 */
export type StepOutcome = {
    readonly applied: true;
    readonly gradNorm: number;
} | {
    readonly applied: false;
    readonly gradNorm: number;
    readonly reason: string;
};
/** The reason of an update not applied because its gradient is 0 everywhere (`StepOutcome`). */
export declare const ZERO_GRADIENT = "the gradient is 0 everywhere: nothing to learn from";
/**
 * The optimizer of `params` (AdamW with global gradient-norm clipping; defaults lr 3e-4, weight decay 0.01 on
 * matrices, clip 1.0). A wrong config (a learning rate of 0, say) is a UsageError naming the field. Call
 * `dispose` to free its moments.
 */
export declare class AdamW {
    /** The variables it updates, by name. */
    readonly params: ReadonlyMap<string, tf.Variable>;
    /** Which parameters get weight decay (default: matrices, not biases or gains). */
    readonly decays: (name: string, variable: tf.Variable) => boolean;
    readonly config: AdamWConfig;
    /** Updates applied so far (t of the bias correction). */
    step: number;
    private readonly moments;
    constructor(
    /** The variables it updates, by name. */
    params: ReadonlyMap<string, tf.Variable>, config?: Partial<AdamWConfig>, 
    /** Which parameters get weight decay (default: matrices, not biases or gains). */
    decays?: (name: string, variable: tf.Variable) => boolean);
    /**
     * One update from gradients by parameter name (a parameter without a gradient is left alone). Returns
     * the global norm before clipping, or why nothing was applied.
     */
    apply(grads: ReadonlyMap<string, tf.Tensor>, overrides?: AdamWOverrides): Promise<StepOutcome>;
    /** t and a copy of every moment, by parameter name. */
    state(): Promise<OptimizerState>;
    /**
     * Sets t and the moments from a saved state. Everything is checked first (a moment for every parameter,
     * of its size, and nothing else): a state that does not fit throws a RangeError and changes nothing.
     */
    restore(state: OptimizerState): void;
    /** Frees the moment tensors. */
    dispose(): void;
}

/**
 * PPO's losses (Schulman et al. 2017), token-level, averaged over the loss mask m (1 on action tokens):
 *
 *   r_t        = exp(log pi(a_t|s_t) - log pi_old(a_t|s_t))       ratio against the *recorded* logprobs
 *   L_clip     = mean_m[ max(-A_t r_t, -A_t clip(r_t, 1 - eps, 1 + eps)) ]
 *   L_value    = mean_m[ 0.5 max((V_t - R_t)^2, (V_old + clip(V_t - V_old, -eps_v, eps_v) - R_t)^2) ]
 *   KL to a frozen reference, with d_t = log pi_ref - log pi:
 *     k1 = -d_t                         (= log pi - log pi_ref)
 *     k2 = d_t^2 / 2
 *     k3 = exp(d_t) - d_t - 1           (Schulman's unbiased, non-negative estimator; past d_t = 20 its
 *                                        tangent there, so that it cannot overflow: see K3_LINEAR_FROM)
 *   L = L_clip + c_v L_value - c_H mean_m[H_t] + c_kl mean_m[k_t]
 *
 * As a loss term on tokens sampled from pi, the three pull differently (Schulman 2020; Tang & Munos 2025):
 * k1 and k3 estimate KL(pi || ref) without bias, but k1's expected gradient is zero (on policy,
 * E[grad log pi] = 0: it adds noise, no pull), and k3's is the gradient of the *reverse* KL(ref || pi)
 * (GRPO's choice, DeepSeekMath); k2's value is biased, and its expected gradient is exactly that of
 * KL(pi || ref). REINFORCE++ puts k1 in the reward instead (reinforce-pp.ts), where it is no loss term.
 *
 * mean_m[x] = sum(m x) / max(sum(m), 1). Log-ratios on masked tokens are replaced by 0 *before* the
 * exponential (tf.where), so a padding token with a wild logprob can neither overflow nor send a gradient.
 *
 * Metrics follow CleanRL's names: approx_kl = mean_m[(r - 1) - log r], clipfrac = mean_m[|r - 1| > eps].
 */
import * as tf from "@tensorflow/tfjs-core";
/**
 * Estimator of the KL to the reference policy (Schulman's k1, k2, k3); with d = log pi_ref - log pi per token:
 * k1 = -d, k2 = d^2 / 2, k3 = exp(d) - 1 - d.
 */
export type KlKind = "k1" | "k2" | "k3";
/** The weights and clip ranges of ppoLoss; a missing field takes its default. */
export interface PpoLossConfig {
    /** Ratio clip range eps. */
    readonly clipEps: number;
    /** Value clip range eps_v (null: unclipped value loss). */
    readonly valueClipEps: number | null;
    /** c_v, the value loss weight. */
    readonly valueCoef: number;
    /** c_H, the entropy bonus weight. */
    readonly entropyCoef: number;
    /** c_kl, the weight of the KL penalty to the reference policy (0: off). */
    readonly klCoef: number;
    readonly klKind: KlKind;
}
/** Per-token inputs, each [B, T] (or any common shape). */
export interface PpoLossInputs {
    /** log pi(a_t|s_t) under the current parameters (differentiated). */
    readonly logprobs: tf.Tensor;
    /** The logprobs recorded when the tokens were sampled. */
    readonly oldLogprobs: tf.Tensor;
    readonly advantages: tf.Tensor;
    /** 1 on tokens that count, 0 elsewhere. */
    readonly mask: tf.Tensor;
    /** Entropy of pi(.|s_t) (differentiated), for the entropy bonus. */
    readonly entropy?: tf.Tensor;
    /** log pi_ref(a_t|s_t) of a frozen reference, for the KL penalty. */
    readonly refLogprobs?: tf.Tensor;
    /** V(s_t) now (differentiated), the value before sampling (V_old) and the return target R_t. */
    readonly values?: tf.Tensor;
    readonly oldValues?: tf.Tensor;
    readonly returns?: tf.Tensor;
    /**
     * The denominator of every token mean, when this is one slice of a larger batch (gradient
     * accumulation): the mask's sum over the whole batch. Default: this mask's own sum.
     */
    readonly normalizer?: number;
    /** The value loss's own mask and denominator, where the return targets cover other tokens (default: `mask`). */
    readonly valueMask?: tf.Tensor;
    readonly valueNormalizer?: number;
}
/** Scalars; `loss` is the one to differentiate. */
export interface PpoLossOutput {
    readonly loss: tf.Scalar;
    readonly policyLoss: tf.Scalar;
    readonly valueLoss: tf.Scalar;
    readonly entropy: tf.Scalar;
    readonly kl: tf.Scalar;
    readonly approxKl: tf.Scalar;
    readonly clipfrac: tf.Scalar;
}
/** L_value; clipped around the old values when they and `clipEps` are given. */
export declare const clippedValueLoss: (values: tf.Tensor, returns: tf.Tensor, mask: tf.Tensor, oldValues?: tf.Tensor, clipEps?: number | null, normalizer?: number) => tf.Scalar;
/**
 * Where k3 leaves its exponential: past d = K3_LINEAR_FROM it goes on as its tangent there. exp(d) overflows
 * float32 past d = 88.7 (a token the policy now gives e^-88 of the probability the reference gives it: an
 * observation token under --no-loss-mask, say), which made the loss Infinity and skipped every such update.
 * 20 is where verl clamps d; a tangent rather than a clamp keeps the pull on those tokens (a clamp's gradient
 * there is 0).
 */
export declare const K3_LINEAR_FROM = 20;
/**
 * Per-token KL estimate to the reference, given d = log pi_ref - log pi (0 on masked tokens); k3 goes on
 * linearly past d = K3_LINEAR_FROM rather than overflow.
 */
export declare const klEstimate: (refMinusLogp: tf.Tensor, kind: KlKind) => tf.Tensor;
/** The defaults overridden by every key of `overrides` that is not undefined. */
export declare const ppoLossConfig: (overrides?: Partial<PpoLossConfig>) => PpoLossConfig;
/**
 * The clipped PPO objective with value, entropy and KL terms, each a mean over the masked tokens (or divided by
 * `inputs.normalizer`), as tensors.
 */
export declare const ppoLoss: (inputs: PpoLossInputs, config?: Partial<PpoLossConfig>) => PpoLossOutput;
/** Behaviour cloning: -mean_m[log pi(a_t|s_t)]. */
export declare const crossEntropyLoss: (logprobs: tf.Tensor, mask: tf.Tensor, normalizer?: number) => tf.Scalar;

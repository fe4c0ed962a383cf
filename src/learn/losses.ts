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

const DEFAULT_PPO_LOSS: PpoLossConfig = {
  clipEps: 0.2,
  valueClipEps: 0.2,
  valueCoef: 0.5,
  entropyCoef: 0,
  klCoef: 0,
  klKind: "k3",
};

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

/** sum(mask * x) / max(sum(mask), 1); with `normalizer`, sum(mask * x) / max(normalizer, 1). */
const maskedMean = (x: tf.Tensor, mask: tf.Tensor, normalizer?: number): tf.Scalar =>
  tf.div(tf.sum(tf.mul(x, mask)), normalizer === undefined ? tf.maximum(tf.sum(mask), 1) : Math.max(normalizer, 1));

/** a - b on tokens where mask is on, exactly 0 elsewhere (and no gradient flows there). */
const maskedDifference = (a: tf.Tensor, b: tf.Tensor, on: tf.Tensor): tf.Tensor => {
  const difference = tf.sub(a, b);
  return tf.where(on, difference, tf.zeros(difference.shape));
};

/**
 * min(max(x, lo), hi), as tf.clipByValue computes it (the same values and gradient) but on every backend:
 * tfjs-backend-wasm's clipByValue returns garbage (3.6e-41) when lo and hi differ but round to the same
 * float32, as 1 - eps and 1 + eps do for a clip range eps below 3e-8.
 */
const clip = (x: tf.Tensor, lo: number, hi: number): tf.Tensor => tf.minimum(tf.maximum(x, lo), hi);

/** L_clip and its metrics. */
const clippedSurrogate = (
  logRatio: tf.Tensor,
  advantages: tf.Tensor,
  mask: tf.Tensor,
  clipEps: number,
  normalizer?: number,
): { loss: tf.Scalar; approxKl: tf.Scalar; clipfrac: tf.Scalar } => {
  const ratio = tf.exp(logRatio);
  // Past a log ratio of 88, exp() overflows float32, and 0 * Infinity made the gradient NaN (the update
  // skipped) where it is 0. So the log ratio is capped one nat above log(1 + eps) before exp() wherever that
  // changes nothing: in the clipped term (clip(r) is 1 + eps past the cap either way), and in the unclipped
  // one where A >= 0 (the objective there is -A min(r, 1 + eps); past the cap the clipped term wins the max
  // exactly, as it did, with gradient 0). Where A < 0 the loss grows with r, and r is not capped.
  const capped = tf.minimum(logRatio, Math.log1p(clipEps) + 1);
  const unclipped = tf.mul(tf.neg(advantages), tf.exp(tf.where(tf.greaterEqual(advantages, 0), capped, logRatio)));
  const clipped = tf.mul(tf.neg(advantages), clip(tf.exp(capped), 1 - clipEps, 1 + clipEps));
  return {
    loss: maskedMean(tf.maximum(unclipped, clipped), mask, normalizer),
    approxKl: maskedMean(tf.sub(tf.sub(ratio, 1), logRatio), mask, normalizer),
    clipfrac: maskedMean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), clipEps), "float32"), mask, normalizer),
  };
};

/** L_value; clipped around the old values when they and `clipEps` are given. */
export const clippedValueLoss = (
  values: tf.Tensor,
  returns: tf.Tensor,
  mask: tf.Tensor,
  oldValues?: tf.Tensor,
  clipEps: number | null = null,
  normalizer?: number,
): tf.Scalar => {
  const unclipped = tf.square(tf.sub(values, returns));
  if (oldValues === undefined || clipEps === null) return tf.mul(maskedMean(unclipped, mask, normalizer), 0.5);
  const clippedValues = tf.add(oldValues, clip(tf.sub(values, oldValues), -clipEps, clipEps));
  const clipped = tf.square(tf.sub(clippedValues, returns));
  return tf.mul(maskedMean(tf.maximum(unclipped, clipped), mask, normalizer), 0.5);
};

/**
 * Where k3 leaves its exponential: past d = K3_LINEAR_FROM it goes on as its tangent there. exp(d) overflows
 * float32 past d = 88.7 (a token the policy now gives e^-88 of the probability the reference gives it: an
 * observation token under --no-loss-mask, say), which made the loss Infinity and skipped every such update.
 * 20 is where verl clamps d; a tangent rather than a clamp keeps the pull on those tokens (a clamp's gradient
 * there is 0).
 */
export const K3_LINEAR_FROM = 20;

/**
 * k3 = exp(d) - d - 1 up to d = D (K3_LINEAR_FROM), then its tangent at D:
 * k3(D) + (exp(D) - 1)(d - D). Continuous with its derivative, convex, and finite for every finite d.
 */
const k3 = (d: tf.Tensor): tf.Tensor => {
  const below = tf.minimum(d, K3_LINEAR_FROM);
  const exact = tf.sub(tf.sub(tf.exp(below), below), 1);
  // Past D: the slope exp(D) - 1 times how far past (0 below D, where `exact` is the whole of it).
  const past = tf.relu(tf.sub(d, K3_LINEAR_FROM));
  return tf.add(exact, tf.mul(past, Math.exp(K3_LINEAR_FROM) - 1));
};

/**
 * Per-token KL estimate to the reference, given d = log pi_ref - log pi (0 on masked tokens); k3 goes on
 * linearly past d = K3_LINEAR_FROM rather than overflow.
 */
export const klEstimate = (refMinusLogp: tf.Tensor, kind: KlKind): tf.Tensor =>
  kind === "k1" ? tf.neg(refMinusLogp) : kind === "k2" ? tf.mul(tf.square(refMinusLogp), 0.5) : k3(refMinusLogp);

/** The defaults overridden by every key of `overrides` that is not undefined. */
export const ppoLossConfig = (overrides: Partial<PpoLossConfig> = {}): PpoLossConfig => ({
  clipEps: overrides.clipEps ?? DEFAULT_PPO_LOSS.clipEps,
  valueClipEps: overrides.valueClipEps === undefined ? DEFAULT_PPO_LOSS.valueClipEps : overrides.valueClipEps,
  valueCoef: overrides.valueCoef ?? DEFAULT_PPO_LOSS.valueCoef,
  entropyCoef: overrides.entropyCoef ?? DEFAULT_PPO_LOSS.entropyCoef,
  klCoef: overrides.klCoef ?? DEFAULT_PPO_LOSS.klCoef,
  klKind: overrides.klKind ?? DEFAULT_PPO_LOSS.klKind,
});

/**
 * The clipped PPO objective with value, entropy and KL terms, each a mean over the masked tokens (or divided by
 * `inputs.normalizer`), as tensors.
 */
export const ppoLoss = (inputs: PpoLossInputs, config: Partial<PpoLossConfig> = {}): PpoLossOutput => {
  const c = ppoLossConfig(config);
  const { mask, normalizer } = inputs;
  const on = tf.greater(mask, 0);
  const zero = tf.scalar(0);
  const surrogate = clippedSurrogate(
    maskedDifference(inputs.logprobs, inputs.oldLogprobs, on),
    inputs.advantages,
    mask,
    c.clipEps,
    normalizer,
  );
  const valueLoss =
    inputs.values && inputs.returns
      ? clippedValueLoss(
          inputs.values,
          inputs.returns,
          inputs.valueMask ?? mask,
          inputs.oldValues,
          c.valueClipEps,
          inputs.valueMask ? inputs.valueNormalizer : normalizer,
        )
      : zero;
  const entropy = inputs.entropy ? maskedMean(inputs.entropy, mask, normalizer) : zero;
  const kl = inputs.refLogprobs
    ? maskedMean(klEstimate(maskedDifference(inputs.refLogprobs, inputs.logprobs, on), c.klKind), mask, normalizer)
    : zero;
  let loss = surrogate.loss;
  if (c.valueCoef !== 0 && inputs.values && inputs.returns) loss = tf.add(loss, tf.mul(valueLoss, c.valueCoef));
  if (c.entropyCoef !== 0 && inputs.entropy) loss = tf.sub(loss, tf.mul(entropy, c.entropyCoef));
  if (c.klCoef !== 0 && inputs.refLogprobs) loss = tf.add(loss, tf.mul(kl, c.klCoef));
  return {
    loss,
    policyLoss: surrogate.loss,
    valueLoss,
    entropy,
    kl,
    approxKl: surrogate.approxKl,
    clipfrac: surrogate.clipfrac,
  };
};

/** Behaviour cloning: -mean_m[log pi(a_t|s_t)]. */
export const crossEntropyLoss = (logprobs: tf.Tensor, mask: tf.Tensor, normalizer?: number): tf.Scalar =>
  tf.neg(maskedMean(logprobs, mask, normalizer));

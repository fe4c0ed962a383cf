/*
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
import { type Gpt, type GptConfig } from "../policy/gpt.ts";
import type { AdamW, AdamWOverrides } from "./adamw.ts";
import { type PpoLossConfig } from "./losses.ts";
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
/** What a pass budget depends on: the model's layers and width. */
type ModelSize = {
    readonly config: Pick<GptConfig, "layers" | "width">;
};
/** Row indices cut in their order into slices of at most `budget` tokens padded to the batch's longest row. */
export declare const passSlicesInOrder: (tokens: readonly (readonly number[])[], budget: number) => number[][];
/**
 * Padded tokens per pass on a GPU backend for a model of 2 layers of width 128 (hopqa's); larger models get
 * fewer in proportion to layers x width, as on wasm, so that a pass's activations stay about the same size.
 * Each pass there costs a round of kernel launches, new pipelines for a new row length and a read back that
 * waits for the queue, while padding costs little: on an H200 a hopqa RL update's learner took 1.7-1.9x less
 * time in one pass per minibatch than in passes cut by length (docs/gpu.md).
 */
export declare const GPU_TOKENS_PER_PASS = 32768;
/**
 * How a batch is cut into passes when the caller does not say: on wasm and cpu, `defaultTokensPerPass`
 * grouped by length; on a GPU backend (`backend`, default the current one), rows in their order padded to the
 * longest, GPU_TOKENS_PER_PASS tokens a pass for hopqa's model, fewer for larger ones (one pass for most
 * minibatches).
 */
export declare const defaultPassing: (model: ModelSize, backend?: string) => {
    readonly tokensPerPass: number;
    readonly passes: PassGrouping;
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
export declare const passSlices: (tokens: readonly (readonly number[])[], budget: number, options?: {
    readonly overhead?: number;
    readonly modelWidth?: number;
}) => number[][];
/**
 * One gradient update of `model` on the batch (in slices of `tokensPerPass` tokens whose gradients are summed).
 * Throws a RangeError on an empty batch or a row longer than the model's context.
 */
export declare const trainStep: (model: Gpt, batch: TrainBatch, options: TrainStepOptions) => Promise<TrainStepResult>;
/** Behaviour cloning: minimise -log pi(a_t|s_t) over the masked tokens. */
export declare const supervisedStep: (model: Gpt, batch: SupervisedBatch, options: AdamWOverrides & {
    readonly optimizer: AdamW;
    readonly tokensPerPass?: number;
    readonly passes?: PassGrouping;
}) => Promise<SupervisedStepResult>;
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
export declare const scoreTokens: (model: Gpt, tokens: readonly (readonly number[])[], allowed?: AllowedLists, tokensPerPass?: number, passes?: PassGrouping, positionOffsets?: readonly number[]) => Promise<TokenScores>;
export {};

/*
 * Batched sampling with a KV cache. Each row brings its own context, seed and settings; the model runs
 * once per step for the whole batch, and token choice happens per row in float64 on the CPU.
 *
 * Independence: a row's randomness is Rng.fromSeed(row.seed) alone (one uniform draw per sampled
 * token), and its logits do not depend on the other rows (see gpt.ts, left padding), so a row samples
 * the same tokens alone or in any batch.
 *
 * Per step, for a row:
 *   1. allowed = allowedNext(tokens so far) (null: every id); other logits are masked to -inf;
 *   2. logprob = log softmax(masked logits) at temperature 1, reported for the chosen token;
 *   3. greedy: the highest logit (lowest id on ties). Otherwise softmax(masked logits / temperature),
 *      cut to the top-p nucleus (most likely first, ties by id), one inverse-CDF draw.
 *
 * Which temperature the logprobs refer to: always 1, whatever the sampling temperature and top-p. That is
 * the distribution the learner recomputes (gpt.tokenStats under the same allowed mask), so PPO's ratio
 * exp(logp_new - logp_recorded) compares like with like. Sampling at another temperature or with top-p < 1
 * makes the data off-policy with respect to those logprobs; sample at temperature 1, top-p 1 for exact
 * on-policy ratios.
 */
import { Rng } from "../kernel/prng.ts";
import { type Gpt } from "./gpt.ts";
/** Constrained decoding: the ids allowed after the tokens sampled so far in this action, or null for all. */
export type AllowedNext = (prefix: readonly number[]) => readonly number[] | null;
export interface SampleRow {
    /** Token context (non-empty); context.length + maxNewTokens must fit the model's contextLength. */
    readonly context: readonly number[];
    /** The only randomness this row uses. */
    readonly seed: string;
    readonly maxNewTokens: number;
    /** Default 1. 0 means greedy. */
    readonly temperature?: number;
    /** Nucleus: keep the most likely tokens up to this total probability. Default 1 (off). */
    readonly topP?: number;
    /** Sampling one of these ends the row; the stop token is part of the result. */
    readonly stopTokens?: readonly number[];
    /** Argmax instead of sampling (evaluation, ReMax's baseline rollout). Uses no randomness. */
    readonly greedy?: boolean;
    readonly allowedNext?: AllowedNext;
}
export interface SampleResult {
    readonly tokens: number[];
    /** Per token: log p(token) under the masked distribution at temperature 1. */
    readonly logprobs: number[];
    /** Per token: the sorted allowed ids, or null where unconstrained. Absent when the row had no allowedNext. */
    readonly allowed?: (number[] | null)[];
    /** "stop": a stop token was sampled; "length": maxNewTokens reached. */
    readonly finish: "stop" | "length";
}
/** One row's choice from its logits. */
interface Choice {
    readonly token: number;
    readonly logprob: number;
    readonly allowed: number[] | null;
}
/** Picks one token from `logits` (length V) for a row. */
export declare const chooseToken: (logits: ArrayLike<number>, row: Pick<SampleRow, "temperature" | "topP" | "greedy">, rng: Rng, allowed: number[] | null) => Choice;
/**
 * Bytes one attention-score tensor of a prefill may take ([rows, heads, T, T] float32, T the longest context of
 * the rows). A prefill keeps a few such tensors alive at once (scores, their softmax, the mask), and tfjs's wasm
 * heap is bounded: 64 rows of warehouse's 704-token contexts (about 500 MB a tensor) aborted every episode of
 * `eval --episodes 100` with wasm's `Aborted()`, while 40 rows (about 320 MB) ran; 256 MB makes groups of 32
 * there (that eval: 32 s, no abort) and keeps 64 rows of hopqa's 384 tokens (151 MB) in one batch. Batches above
 * this are sampled in consecutive groups of rows; a row samples the same tokens in any group (rows are
 * independent).
 */
export declare const PREFILL_SCORE_BYTES: number;
/** Splits rows into consecutive groups whose prefill attention scores stay within `budget` bytes each. */
export declare const prefillGroups: <Row extends {
    readonly context: readonly number[];
}>(rows: readonly Row[], heads: number, budget?: number) => Row[][];
/**
 * Samples every row to its stop token or maxNewTokens. Rows whose prefill would pass `prefillBytes` (default
 * PREFILL_SCORE_BYTES) are sampled in consecutive groups, one after the other.
 */
export declare const sample: (model: Gpt, rows: readonly SampleRow[], options?: {
    readonly prefillBytes?: number;
}) => Promise<SampleResult[]>;
export {};

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
import { type Gpt, type GptConfig } from "./gpt.ts";
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
 * How many [rows, heads, T, T] attention-score tensors a prefill holds at its peak (measured with tf.profile:
 * about 6 for 2 and for 4 layers; gpt.ts frees each layer's scores before the next layer runs). Before it did,
 * every layer's four stayed alive until the prefill ended: 21 at 2 layers, 41 at 4. The old budget (256 MB of
 * one score tensor) then made groups of 113 rows of hopqa's 384-token contexts, whose prefill passed wasm's
 * 4 GiB heap (100 rows of 370 tokens already grew it to 3.4 GiB; 1.2 GiB now) and aborted every episode of a
 * turn-local model's `eval --episodes 300` on 4-hop questions with "memory access out of bounds".
 */
export declare const PREFILL_SCORE_COPIES = 6;
/**
 * Estimated peak bytes a prefill takes per row whose batch's longest context is `longest` tokens: the score
 * tensors (PREFILL_SCORE_COPIES of heads x T x T), the KV cache of every layer (2 x layers x T x width) and a
 * block's activations (about (mlpRatio + 8) x T x width), float32.
 */
export declare const prefillRowBytes: (config: Pick<GptConfig, "heads" | "layers" | "width" | "mlpRatio">, longest: number) => number;
/**
 * Bytes a prefill's rows may take together (by prefillRowBytes). tfjs's wasm heap is bounded (4 GiB, and an
 * allocation past it aborts every row of the batch); 2 GiB leaves room for the model and the heap's
 * fragmentation, keeps 100 rows of hopqa's 384 tokens (16.5 MiB a row on its default model) in one batch, and
 * makes groups of 40 of warehouse's 704. Batches above it are sampled in consecutive groups of rows; a row
 * samples the same tokens in any group (rows are independent).
 */
export declare const PREFILL_BYTES: number;
/** Splits rows into consecutive groups whose prefill stays within `budget` bytes (by prefillRowBytes) each. */
export declare const prefillGroups: <Row extends {
    readonly context: readonly number[];
}>(rows: readonly Row[], config: Pick<GptConfig, "heads" | "layers" | "width" | "mlpRatio">, budget?: number) => Row[][];
/**
 * Samples every row to its stop token or maxNewTokens. Rows whose prefill would pass `prefillBytes` (default
 * PREFILL_BYTES, by prefillRowBytes) are sampled in consecutive groups, one after the other.
 */
export declare const sample: (model: Gpt, rows: readonly SampleRow[], options?: {
    readonly prefillBytes?: number;
}) => Promise<SampleResult[]>;
export {};

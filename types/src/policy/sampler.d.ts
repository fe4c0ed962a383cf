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
/** Samples every row to its stop token or maxNewTokens. */
export declare const sample: (model: Gpt, rows: readonly SampleRow[]) => Promise<SampleResult[]>;
export {};

/*
 * The GPT as a Policy: every request of a call goes into one batched sampler call, each row with its own
 * seed (so an action never depends on the batch it shared). Contexts longer than the model allows are
 * cut from the front: the last contextLength - maxNewTokens tokens are kept, so the prompt and the whole
 * action fit the position embeddings.
 *
 * `version` is bumped by the learner after each update; an action carries the version current when
 * act() was called.
 */
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, PolicyAction, PolicyRequest } from "../runtime/policy.ts";
import type { Gpt } from "./gpt.ts";
import { type AllowedNext } from "./sampler.ts";
/** How TransformerPolicy samples actions. */
export interface SamplingConfig {
    /** Sampling temperature (logprobs are always reported at temperature 1; see sampler.ts). */
    readonly temperature: number;
    /** Nucleus sampling: draw from the smallest set of tokens whose probability reaches this (1: all). */
    readonly topP: number;
    /** Most tokens one action takes; a longer one is cut (and so comes out malformed). */
    readonly maxNewTokens: number;
    /** Ids that end an action (included in it). Default: the tokenizer's <eos>. */
    readonly stopTokens: readonly number[];
    /** Argmax decoding, for evaluation and ReMax baselines. */
    readonly greedy: boolean;
}
/** Constrained decoding: the allowed next ids, and (when known) how many tokens the longest legal action takes. */
export type Constraint = AllowedNext & {
    readonly longest?: number;
};
export interface TransformerPolicyOptions {
    readonly id: string;
    readonly model: Gpt;
    readonly tokenizer: Tokenizer;
    readonly version?: number;
    readonly sampling?: Partial<SamplingConfig>;
    /** Constrained decoding: per request, a callback giving the allowed next ids (or null: unconstrained). */
    readonly constrain?: (request: PolicyRequest) => Constraint | null | undefined;
}
/**
 * A Policy that samples from a Gpt (defaults: temperature 1, topP 1, maxNewTokens 32, stop at <eos>). Throws a
 * RangeError when the tokenizer has more ids than the model, or maxNewTokens leaves no room for a context.
 */
export declare class TransformerPolicy implements Policy {
    readonly id: string;
    readonly tokenizer: Tokenizer;
    readonly model: Gpt;
    readonly sampling: SamplingConfig;
    /** Constrained decoding's allowed next ids per request; absent: unconstrained. */
    readonly constrain?: (request: PolicyRequest) => Constraint | null | undefined;
    /** Bumped by the learner after each update. */
    version: number;
    constructor(options: TransformerPolicyOptions);
    /**
     * The request's context, cut to fit. No token is ever invented (an empty context is an error): the
     * learner must see exactly the tokens the sampler saw.
     */
    private contextOf;
    act(requests: readonly PolicyRequest[]): Promise<readonly PolicyAction[]>;
}

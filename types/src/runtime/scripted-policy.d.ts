/**
 * A policy written as a function from the request to the action's text: experts, baselines, test
 * doubles. The text is encoded with the tokenizer; its ids are what the journal records.
 */
import { Rng } from "../kernel/prng.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, PolicyRequest } from "./policy.ts";
export interface ScriptedChoice {
    readonly text: string;
    /** Log-probability of the whole action under the script (0 for a deterministic script). */
    readonly logprob?: number;
}
export declare const scriptedPolicy: (id: string, tokenizer: Tokenizer, decide: (request: PolicyRequest, rng: Rng) => string | ScriptedChoice | PromiseLike<string | ScriptedChoice>) => Policy;

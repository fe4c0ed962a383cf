/**
 * A policy written as a function from the request to the action's text: experts, baselines, test
 * doubles. The text is encoded with the tokenizer; its ids are what the journal records.
 */
import type { Json } from "effect/Schema";
import { Rng } from "../kernel/prng.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, PolicyCallOptions, PolicyRequest } from "./policy.ts";
/** A scripted action with its probability, for scripts that draw at random. */
export interface ScriptedChoice {
    readonly text: string;
    /** Log-probability of the whole action under the script (0 for a deterministic script). */
    readonly logprob?: number;
}
/** What a scripted policy's function is given: the policy's request, with the task typed as the environment's. */
export type ScriptedRequest<Task = Json> = Omit<PolicyRequest, "task"> & {
    readonly task: Task;
};
/**
 * `scriptedPolicy<Task>(...)` types `request.task` as the environment's tasks (the runtime passes the task
 * its environment drew; the type is the author's word for it, as for `legalActions`).
 */
export declare const scriptedPolicy: <Task = Json>(id: string, tokenizer: Tokenizer, decide: (request: ScriptedRequest<Task>, rng: Rng, options: PolicyCallOptions) => string | ScriptedChoice | PromiseLike<string | ScriptedChoice>) => Policy;

/*
 * Constrained decoding from an environment's legal actions.
 *
 * An environment declares, for the state a request shows, the complete action texts it would accept
 * (`EnvDefinition.legalActions`). They are encoded exactly as a policy's action is (the text's ids, then
 * `<eos>`) into a prefix tree; at each sampled token the sampler may only pick a child of the node the
 * tokens so far lead to, so every action sampled under the constraint is one of the declared texts. The
 * allowed ids of every token are recorded with the action (agent.acted.allowed) and training scores the
 * action under the same lists, so PPO's ratio stays exact.
 *
 * `allowedForAction` walks a recorded action (e.g. an expert's demonstration) through the same tree, so
 * behaviour cloning can learn under the mask the sampler will later use.
 */
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { type EnvDefinition, type LegalView } from "../runtime/env.ts";
import type { PolicyRequest } from "../runtime/policy.ts";
import type { AllowedNext } from "./sampler.ts";
/** A prefix tree over token sequences. */
export declare class ActionTrie {
    private readonly root;
    /** Distinct legal action token sequences. */
    size: number;
    /** Tokens in the longest one. */
    longest: number;
    constructor(sequences: Iterable<readonly number[]>);
    private add;
    /** The ids that may follow `prefix` (sorted), or undefined when `prefix` leaves the tree. */
    allowedAfter(prefix: readonly number[]): number[] | undefined;
    /** Whether `tokens` is a whole legal action. */
    has(tokens: readonly number[]): boolean;
}
/** The token ids of an action text as a policy emits it: the encoded text, then `<eos>` when there is one. */
export declare const actionTokens: (tokenizer: Tokenizer, text: string) => number[];
/**
 * `--constrained` (`constrained: true` from code: loadPolicy, sft, a train config) needs an environment that
 * declares its legal actions; anything else is a UsageError, which names both spellings (loadPolicy from code said
 * only "--constrained", a flag it does not take).
 */
export declare const requireLegalActions: (env: EnvDefinition) => void;
/**
 * The legal actions an environment declares for a state (null: no constraint there), its `legalActions`' result
 * checked: a throw is said as legalActions' (its stack kept, for the line), and so is a result that is no list of
 * texts. (An empty list, or a malformed text in it, is the constrained sampler's to refuse: legalTrie.)
 */
export declare const legalActionsOf: (env: EnvDefinition, view: LegalView) => readonly string[] | null;
/** The tree of the legal actions an environment declares for a state, or null when it declares none. */
export declare const legalTrie: (env: EnvDefinition, view: LegalView) => ActionTrie | null;
/** A constraint that also says how many tokens its longest legal action takes. */
export type LegalNext = AllowedNext & {
    readonly longest: number;
};
/**
 * The sampler's constraint for a request: the legal actions' tree, walked along the tokens sampled so
 * far. Null when the environment declares nothing for this state.
 */
export declare const constrainTo: (env: EnvDefinition) => (request: PolicyRequest) => LegalNext | null;
/**
 * Per token of a recorded action, the ids the constrained sampler would have allowed; undefined when the
 * action is not one of the legal ones (it then stays unconstrained) or the state declares none.
 */
export declare const allowedForAction: (trie: ActionTrie | null, tokens: readonly number[]) => number[][] | undefined;

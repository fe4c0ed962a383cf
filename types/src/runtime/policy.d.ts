/**
 * The Policy contract: asynchronous and batched. A policy returns token ids (the truth), the text decoded
 * from them, per-token logprobs and the version that produced them. It must sample each row with the
 * row's own seed, so an action never depends on which other episodes shared the batch.
 */
import type { Json } from "effect/Schema";
import type { Tokenizer } from "../kernel/tokenizer.ts";
/**
 * One entry of an episode's history: an observation of the environment or an action of the agent, as text and tokens.
 */
export interface Turn {
    readonly role: "observation" | "action";
    readonly text: string;
    readonly tokens: readonly number[];
}
/** One row of a policy's batch: the episode's state at the turn to act in. */
export interface PolicyRequest {
    readonly episode: string;
    readonly turn: number;
    /** This turn's seed; the only randomness a policy may use for this row. */
    readonly seed: string;
    /** The episode's task, a copy of its own for this request (changing it changes nothing else). */
    readonly task: Json;
    /** The whole history so far, in order: the prompt observation, then actions and observations. */
    readonly history: readonly Turn[];
    /** The token context: the exact concatenation of every turn's tokens. */
    readonly context: readonly number[];
}
/** A policy's answer to one request: the sampled token ids (the truth), their text and per-token logprobs. */
export interface PolicyAction {
    readonly tokens: readonly number[];
    readonly text: string;
    /**
     * Log-probability of each token under the policy that sampled it, one per token: the learner's importance ratio is
     * taken against these.
     */
    readonly logprobs: readonly number[];
    /** The policy version that produced this action. */
    readonly version: number;
    /** Per sampled token, the ids that were allowed (constrained decoding), or null when unconstrained. */
    readonly allowed?: readonly (readonly number[] | null)[];
}
/** Samples the agent's actions, a batch of requests at a time, one action per request in the same order. */
export interface Policy {
    readonly id: string;
    /** The current version; a learner bumps it after each update. */
    readonly version: number;
    readonly tokenizer: Tokenizer;
    /**
     * One action per request, in order; each row sampled with its own seed only. `options.signal` aborts when the
     * call outlives `timeoutMs` (pass it on to `fetch` or a client's cancel); a policy may ignore it.
     */
    act(requests: readonly PolicyRequest[], options?: PolicyCallOptions): Promise<readonly PolicyAction[]>;
    /**
     * Most milliseconds one `act` call may take (an integer from 1 to 2147483647). A call that has not answered by
     * then fails like a call that throws: its rows are asked again alone, `retryConcurrency` at a time, each with this
     * limit, and the episodes whose own row times out abort (`aborted: policy ID failed: policy ID's act() did not answer
     * within N ms`). So a batch of B rows takes at most (1 + ceil(B / retryConcurrency)) x timeoutMs: 2 x timeoutMs when
     * B <= retryConcurrency.
     * Default: no limit, so an API request that never comes back holds its episodes, and every episode waiting
     * for the same PolicyActor, for ever.
     */
    readonly timeoutMs?: number;
    /**
     * Most rows of a failed call (one that threw, answered in the wrong shape or outlived `timeoutMs`) asked again at a
     * time, each alone: a positive integer, default 8. Each row's call starts as another settles, so a rate-limited API
     * that refused a batch (a 429) gets at most this many calls at once, not a batch's worth; a higher value shortens
     * the wait when every row hangs (see `timeoutMs`).
     */
    readonly retryConcurrency?: number;
}
/** What `PolicyActor` gives each `act` call. */
export interface PolicyCallOptions {
    /** Aborts, with a TimeoutError as its reason, when the call outlives the policy's `timeoutMs`. */
    readonly signal: AbortSignal;
}

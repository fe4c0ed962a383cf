/*
 * The shared policy actor: one mailbox for every concurrent episode. Requests that arrive while the
 * policy is busy (or within the same event-loop turn) are answered by one batched `act` call, at most
 * `maxBatch` rows at a time. Rows are independent (each carries its own seed), so batching changes
 * throughput, not what is sampled: only the last digits of a GPT's logprobs (about 1e-6: a row padded to a
 * longer neighbour is summed in another float order), and a token only where a draw falls that close to a
 * boundary. Which rows meet in a batch is itself deterministic unless tools take varying time. Independence
 * holds for failures too: when a batched call throws or outlives the policy's
 * timeoutMs, each of its rows is asked again alone (at most the policy's retryConcurrency at a time, default 8), so
 * only the episodes whose own row fails are aborted, and a batch of B rows takes at most
 * (1 + ceil(B / retryConcurrency)) x timeoutMs: 2 x timeoutMs for a batch no larger than retryConcurrency.
 */
import type { Policy, PolicyAction, PolicyRequest } from "./policy.ts";
/** What is wrong with a value given as a Policy, or undefined for one that has its parts. */
export declare const notAPolicy: (policy: unknown) => string | undefined;
export declare const policyCallsInFlight: () => readonly string[];
/**
 * Batches concurrent episodes' requests into `act` calls of at most `maxBatch` rows (default 64): give one to
 * runEpisode or rollout. Throws a RangeError on a maxBatch that is not a positive integer.
 */
export declare class PolicyActor {
    readonly policy: Policy;
    /** Most rows in one `act` call. */
    readonly maxBatch: number;
    private queue;
    private scheduled;
    private running;
    /** Batches answered so far and rows in them: batching efficiency is rows / batches. */
    batches: number;
    /** Rows answered so far. */
    rows: number;
    constructor(policy: Policy, 
    /** Most rows in one `act` call. */
    maxBatch?: number);
    /** Queues one request; it is answered in the next batch, and rejects only when its own row fails. */
    request(request: PolicyRequest): Promise<PolicyAction>;
    private schedule;
    private flush;
    /** One `act` call for these rows: resolves them all, or returns what it threw (rejecting none). */
    private answer;
}

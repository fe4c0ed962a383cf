/**
 * Replay: fold an episode's recorded inputs (the agent's actions, the tools' results) through the
 * environment machine's pure functions `initialTransition` / `transition`. No tool and no policy is
 * called: the machine's tool invocations are matched to recorded calls and answered with the recorded
 * results, in the recorded order. Every derived event is re-derived by the same code the live runtime
 * uses; with `verify`, each one must equal the record, or a NonDeterminismError names the episode, the
 * seq, both versions and the usual cause. A journal of another environment id is refused, verifying or not,
 * with an EnvMismatchError (re-rewarding takes a variant of the environment that keeps its id).
 */
import type { EpisodeEvent, EventBody, RewardBody } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { EnvDefinition } from "../runtime/env.ts";
export interface ReplayOptions {
    /** Compare every re-derived event with the record (default true). Off: derive afresh (re-reward). */
    readonly verify?: boolean;
    /** Tokenizer for observation tokens; defaults to the environment's when its id matches the record's. */
    readonly tokenizer?: Tokenizer;
    /** Named in error messages. */
    readonly file?: string;
}
export interface ReplayResult {
    readonly episode: string;
    /** The replayed stream: recorded inputs and re-derived events, in order, without envelopes. */
    readonly events: readonly EventBody[];
    /** The replayed stream's rewards (re-derived ones, when not verifying), in order. */
    readonly rewards: readonly RewardBody[];
    readonly return: number;
    readonly reason: string;
    readonly turns: number;
    /** Whether observation tokens were checked (false when the record's tokenizer was not available). */
    readonly tokensVerified: boolean;
}
export declare const replayEpisode: (recorded: readonly EpisodeEvent[], env: EnvDefinition, options?: ReplayOptions) => ReplayResult;

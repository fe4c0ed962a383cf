/*
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
import { type EnvDefinition } from "../runtime/env.ts";
/** Options of replayEpisode. */
export interface ReplayOptions {
    /** Compare every re-derived event with the record (default true). Off: derive afresh (re-reward). */
    readonly verify?: boolean;
    /** Tokenizer for observation tokens; defaults to the environment's when its id matches the record's. */
    readonly tokenizer?: Tokenizer;
    /** Named in error messages. */
    readonly file?: string;
}
/** An episode replayed: its stream, rewards and ending as the machine derives them now. */
export interface ReplayResult {
    readonly episode: string;
    /** The replayed stream: recorded inputs and re-derived events, in order, without envelopes. */
    readonly events: readonly EventBody[];
    /** The replayed stream's rewards (re-derived ones, when not verifying), in order. */
    readonly rewards: readonly RewardBody[];
    /** Sum of the rewards. */
    readonly return: number;
    /** Why the episode ended (the `episode.ended` reason). */
    readonly reason: string;
    readonly turns: number;
    /** Whether observation tokens were checked (false when the record's tokenizer was not available). */
    readonly tokensVerified: boolean;
}
/**
 * Replays one episode's recorded events through `env`'s machine without calling tools or a policy. Throws
 * EnvMismatchError when the journal is of another environment id, and, when verifying, NonDeterminismError at the
 * first derived event that differs from the record.
 */
export declare const replayEpisode: (recorded: readonly EpisodeEvent[], env: EnvDefinition, options?: ReplayOptions) => ReplayResult;

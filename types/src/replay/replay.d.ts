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
    /**
     * Where the environment's code threw ("file:line:column", as a live run's record says it), for an episode that
     * ended in an environment error replay threw again. Found by the replay, not read from the journal: a journal
     * keeps the message only (a line is not behaviour, and paths differ between machines).
     */
    readonly thrownAt?: string;
}
/**
 * Replays one episode's recorded events through `env`'s machine without calling tools or a policy. Throws
 * EnvMismatchError when the journal is of another environment id, and, when verifying, NonDeterminismError at the
 * first derived event that differs from the record.
 */
export declare const replayEpisode: (recorded: readonly EpisodeEvent[], env: EnvDefinition, options?: ReplayOptions) => ReplayResult;
/** Whether an event is the end of an episode the environment aborted (its code threw, or it broke the protocol). */
export declare const endsInEnvError: (event: EpisodeEvent | undefined) => boolean;
/**
 * An environment error whose message names its line already: an observe(), reward() or end() given a bad value is
 * placed where it was written ("(reward() at envs/shop.ts:31:9)"), so replaying the episode would find no more.
 */
export declare const envErrorPlaced: (event: EpisodeEvent | undefined) => boolean;
/**
 * Where the environment's code threw ("file:line:column"), for a journal that ends in an environment error: the
 * journal keeps the message, not the line, so the episode is replayed (verifying) against `env` to throw it again.
 * Undefined for any other end, for an error the framework raised itself (its message says what), and for a journal
 * that does not replay with `env` (another version, an impure environment): no line is better than a wrong one.
 */
export declare const envErrorThrownAt: (events: readonly EpisodeEvent[], env: EnvDefinition) => string | undefined;

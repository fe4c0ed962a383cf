/*
 * Journal -> training sequences, token-in/token-out.
 *
 * Append layout (the paper's): one sequence per episode,
 *   tokens = prompt ++ a_0 ++ o_1 ++ a_1 ++ o_2 ++ ... ++ a_T [++ o_{T+1}]
 * the exact concatenation of the recorded ids (never decoded and re-encoded: that drift cost Python
 * frameworks whole runs). Step layout (Agent-R1 v0.1.0's step-level MDP): one sequence per turn t whose
 * prompt is the context before a_t and whose response is a_t alone.
 *
 * Reward placement: a process reward of turn t sits on the last token of a_t, the outcome reward on the
 * last action token of the episode. A reward whose action has no token (empty action, or no such turn)
 * cannot be placed: it is dropped and counted in `droppedRewards`.
 */
import type { EpisodeEvent } from "../kernel/events.ts";
/** Token span [start, end) of one action inside its sequence. */
export interface ActionSpan {
    readonly turn: number;
    readonly start: number;
    readonly end: number;
}
/**
 * An episode as the learner sees it: one token sequence with per-token masks, logprobs and rewards (or, in the step
 * layout, one sequence per action).
 */
export interface Sequence {
    readonly episode: string;
    /** Episodes of one group are compared with each other (GRPO, RLOO, ...): same task, same group. */
    readonly group: string;
    /** Step layout only: the turn whose action is this sequence's response. */
    readonly turn?: number;
    readonly tokens: readonly number[];
    /** Tokens before the response: the prompt (append) or the whole context before the action (step). */
    readonly promptLength: number;
    /** 1 on tokens the policy sampled, 0 on prompt and observation tokens: the loss and advantage mask. */
    readonly actionMask: readonly number[];
    /** 1 on every token after the prompt (actions and observations); the "no mask" ablations use it. */
    readonly responseMask: readonly number[];
    /** Recorded logprob of each sampled token; 0 where not sampled. */
    readonly logprobs: readonly number[];
    /** Policy version that sampled each token; -1 where not sampled. */
    readonly versions: readonly number[];
    /** Constrained decoding: ids allowed at each sampled token; null where unconstrained or not sampled. */
    readonly allowed: readonly (readonly number[] | null)[];
    /** Per-token reward r_t (process rewards already weighted); non-zero only on action tokens. */
    readonly rewards: readonly number[];
    /** Sum of the placed process rewards, unweighted. Step layout: the whole episode's. */
    readonly processReturn: number;
    /** Sum of the placed outcome rewards. Step layout: the whole episode's. */
    readonly outcomeReturn: number;
    /**
     * R = processRewardWeight * processReturn + outcomeReturn. In the append layout it equals sum(rewards).
     * In the step layout every step carries its episode's R (so sequence-level estimators give all steps
     * of an episode one advantage) while `rewards` holds only this step's share.
     */
    readonly totalReturn: number;
    readonly turns: readonly ActionSpan[];
    readonly metrics: Readonly<Record<string, number>>;
    /** Reward events that could not be placed on an action token (episode-wide). */
    readonly droppedRewards: number;
    /** Set by `fitToContext` on an episode cut to the model's context: its length in tokens before the cut. */
    readonly cutFrom?: number;
}
/** Options of episodeToSequence. */
export interface TrajectoryOptions {
    /** Weight of process rewards in `rewards` and `totalReturn`; 0 turns them off. Default 1. */
    readonly processRewardWeight?: number;
    /** Longest sequence accepted; a longer one is an error, never silently truncated. Default unbounded. */
    readonly maxTokens?: number;
    /** Group id. Default hashValue(task) of episode.started, so G episodes of one task share a group. */
    readonly group?: string;
}
declare const EpisodeTooLongError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "EpisodeTooLongError";
} & Readonly<A>;
/** An episode (or step) longer than the model's context: the trainer drops it, cloning refuses it. */
export declare class EpisodeTooLongError extends EpisodeTooLongError_base<{
    /** What was too long (an episode, or one step of one), for the message. */
    readonly what: string;
    readonly tokens: number;
    /** The model's context length. */
    readonly maxTokens: number;
}> {
    get message(): string;
}
/** One sequence per episode: prompt, actions and observations, in journal order. */
export declare const episodeToSequence: (events: readonly EpisodeEvent[], options?: TrajectoryOptions) => Sequence;
/**
 * An append-layout episode cut to a model's context, for training, instead of leaving it out. A policy
 * samples an action from a context cut at the front once the episode no longer fits (the last
 * contextLength - maxNewTokens tokens, `TransformerPolicy`), and the learner, which scores the sequence from
 * its start, must see the context each token was sampled from: so the sequence keeps the actions whose
 * sampler saw the whole episode before them (start + max(maxNewTokens, length) <= contextLength) and ends
 * after the last of them. The journal does not record a request's budget: under constrained decoding a
 * legal action longer than maxNewTokens raised it for that request (cutting its context sooner), so pass
 * the largest budget the run sampled with to be exact; the trainer passes its configured one. The rewards of the turns cut away move onto the last action token kept, so the
 * episode's return (`totalReturn`, the sum of `rewards`) is unchanged: a runaway episode that overflows the
 * context still pays for what it did. Returns the sequence itself when it fits, and undefined when not even
 * its first action was sampled from the whole context (nothing left to train on).
 */
export declare const fitToContext: (sequence: Sequence, contextLength: number, maxNewTokens: number) => Sequence | undefined;
/**
 * One sequence per turn t: prompt = every token before a_t (prompt, earlier actions, observations),
 * response = a_t. Only a_t is masked as sampled. `rewards` holds the rewards placed on a_t (its process
 * reward, and the outcome if a_t holds the episode's last action token), so chaining the steps of an
 * episode in turn order gives the same reward stream as the append layout (step-level GAE does that).
 * The returns (processReturn, outcomeReturn, totalReturn) are the episode's, shared by all its steps.
 */
export declare const episodeToSteps: (events: readonly EpisodeEvent[], options?: TrajectoryOptions) => Sequence[];
export {};

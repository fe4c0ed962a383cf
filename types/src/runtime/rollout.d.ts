/*
 * The rollout runner: N episodes from a run seed, at most `concurrency` at a time, all sharing one
 * batching policy actor. Episode i has seed `${seed}:${i}`; with groups of G, episodes g*G..g*G+G-1 share
 * the task drawn from `${seed}:task${g}` (GRPO's groups). Completed episodes come out on `episodes`;
 * every event of every episode is on `events`, once the journal has appended it.
 *
 * One run: the first subscription to either stream starts it, and every subscription to either stream
 * shares it (a second subscription never runs the episodes again into the same journal). Both streams
 * complete when every episode has ended, and both error with the run's error.
 */
import type { Json } from "effect/Schema";
import { Observable } from "rxjs";
import type { Journal } from "../journal/journal.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EnvDefinition } from "./env.ts";
import { type EpisodeRecord } from "./episode.ts";
import type { PolicyActor } from "./policy-actor.ts";
/** Options of rollout; `Task` is the environment's task type (its records' `task` has it). */
export interface RolloutOptions<Task extends Json = Json> {
    readonly env: EnvDefinition<Task>;
    readonly policy: PolicyActor;
    readonly journal: Journal;
    /** The run's seed: episode i's seed is `${seed}:${i}`. */
    readonly seed: string;
    /** Episodes to run, from index `start`. */
    readonly episodes: number;
    /** Episodes running at once (default 16). Bounds memory and the policy actor's queue. */
    readonly concurrency?: number;
    /** Episodes per task (default 1). */
    readonly groupSize?: number;
    /** First episode index (to continue a run). */
    readonly start?: number;
    /** Tasks by group index; defaults to the environment's `task(seed)`. */
    readonly task?: (group: number, seed: string) => Task;
    /** Episode indices not to run (journaled already: a resumed recording). Every other index keeps its seed and task. */
    readonly skip?: (index: number) => boolean;
    /**
     * Cancels the run: no further episode starts, and every running one ends at once, journaled as aborted
     * (`aborted: stopped: REASON`, with its tool calls' signals aborted) and emitted on `episodes`; then both
     * streams complete. (Unsubscribing only stops new episodes: running ones finish into the journal.)
     */
    readonly signal?: AbortSignal;
}
/**
 * One run, seen through two streams. The first subscription to either starts the run; every later one
 * joins it (nothing runs twice) and sees what comes after it subscribed, then the completion or the error.
 * Subscribe to both in the same synchronous step (before any `await`) to see every item of both: no item
 * is emitted during a subscription. When every subscriber has unsubscribed, no further episode starts
 * (running ones finish into the journal) and both streams complete; to stop running episodes too, abort
 * the rollout's `signal`.
 */
export interface Rollout<Task extends Json = Json> {
    /** Completed episodes, in completion order; completes when the last one has ended. */
    readonly episodes: Observable<EpisodeRecord<Task>>;
    /**
     * Every event of every episode, each after the journal appended it (write-ahead; on disk at once only
     * with durability "event"); an episode's events all come before its record on `episodes`. Completes
     * when every episode has ended.
     */
    readonly events: Observable<EpisodeEvent>;
}
/** The seed episode `index`'s task is drawn from: its group's (groups of `groupSize` consecutive episodes share a task). */
export declare const taskSeedOf: (seed: string, index: number, groupSize: number) => string;
/**
 * `env.task(seed)` drawn `draws` more times must give `task` (as journaled) each time: an EnvProtocolError says
 * so when it does not (a task drawn with Math.random or the clock), since the same seed must give the same
 * episodes. What a draw throws is thrown (the caller says whose draw failed).
 */
export declare const checkTaskDrawnAgain: (env: EnvDefinition, seed: string, task: Json, draws: number) => void;
/**
 * Runs `episodes` episodes of `env` into `journal` (see Rollout for when it starts and how to stop it). Throws a
 * RangeError when episodes is not a whole number >= 0, or concurrency or groupSize not a positive integer.
 */
export declare const rollout: {
    /** The records' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
    <Task extends Json>(options: RolloutOptions<Task>): Rollout<Task>;
    /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
    (options: RolloutOptions): Rollout;
};

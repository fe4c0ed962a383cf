/**
 * One episode, live: the environment machine and the agent run as XState actors (the agent asks the shared
 * policy actor, at most one request in flight); every input and every derived event is appended to the journal before any consumer
 * sees it (write-ahead). Inputs (the agent's actions, tool results) are appended before they are delivered
 * to the machine.
 */
import type { Json } from "effect/Schema";
import type { Journal } from "../journal/journal.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { type EnvDefinition } from "./env.ts";
import type { PolicyActor } from "./policy-actor.ts";
/** Options of runEpisode; `Task` is the environment's task type (its record's `task` has it). */
export interface EpisodeOptions<Task extends Json = Json> {
    readonly env: EnvDefinition<Task>;
    readonly policy: PolicyActor;
    readonly journal: Journal;
    /** The episode's seed; turn t's policy seed is `${seed}:${t}`. */
    readonly seed: string;
    /** The task; drawn from the seed when absent. */
    readonly task?: Task;
    /** Defaults to an id derived from the seed. */
    readonly episode?: string;
    /** Receives every event after it is in the journal. */
    readonly onEvent?: (event: EpisodeEvent) => void;
    /**
     * Stops the episode when it aborts: it ends at once, journaled as aborted (`aborted: stopped: REASON`),
     * its tool calls' signals abort, and its promise resolves with that record.
     */
    readonly signal?: AbortSignal;
}
/**
 * A finished episode: its journaled events and its ending (the `episode.ended` event's reason, return, turns and
 * metrics). `Task` is its environment's task type: runEpisode, rollout, collect and evaluate give the records of an
 * `EnvDefinition<Task>` (from `defineEnv`) that type; code that takes the records of any environment keeps the
 * default, JSON.
 */
export interface EpisodeRecord<Task extends Json = Json> {
    readonly episode: string;
    readonly seed: string;
    readonly task: Task;
    readonly events: readonly EpisodeEvent[];
    /** Why the episode ended ("aborted: ..." when it was aborted). */
    readonly reason: string;
    /** Sum of the episode's rewards, process and outcome. */
    readonly return: number;
    readonly turns: number;
    /** The environment's metrics at the end (exact match, F1, success...). */
    readonly metrics: Readonly<Record<string, number>>;
    /**
     * Where the environment's code threw, for an episode it aborted ("file:line:column"; not journaled,
     * since a line number is not behaviour: an edit that moves it must not break replay).
     */
    readonly thrownAt?: string;
}
/**
 * Said wherever a success rate is shown while only some of the `ended` episodes (those not aborted)
 * reported a `success` metric: the rate is of those (record, train and eval say it the same way).
 * Undefined when all of them, or none, reported it.
 */
export declare const successOfSome: (reported: number, ended: number) => string | undefined;
/**
 * The episodes whose end reported a `success` metric outside [0, 1] (`end(..., { success: 100 })`): success is read
 * as a rate, so their mean is none. Journals keep them as they are (old ones must replay); the summaries warn.
 */
export interface SuccessOutOfRange {
    /** How many episodes reported one. */
    readonly episodes: number;
    /** The first of them (as they came), and its success. */
    readonly episode: string;
    readonly success: number;
}
/** `seen`, with one more episode counted if its end's `success` metric is outside [0, 1]. */
export declare const countSuccessOutOfRange: (seen: SuccessOutOfRange | undefined, ended: {
    readonly episode: string;
    readonly metrics: Readonly<Record<string, number>>;
}) => SuccessOutOfRange | undefined;
/**
 * The `success` metrics of episodes as they end (record's, across a --resume): the rate among those that
 * reported one, how many did, and those outside [0, 1] (countSuccessOutOfRange).
 */
export declare class SuccessTally {
    private sum;
    /** How many episodes' ends reported `success`. */
    reported: number;
    outOfRange: SuccessOutOfRange | undefined;
    add(ended: {
        readonly episode: string;
        readonly metrics: Readonly<Record<string, number>>;
    }): void;
    /** The mean success of the episodes that reported one; null when none did. */
    get rate(): number | null;
}
/**
 * Said wherever a success rate is shown while some episode's `success` was outside [0, 1] (record, train and
 * eval say it the same way): the rate shown is no rate.
 */
export declare const successOutOfRangeNote: (out: SuccessOutOfRange, episodes: number) => string;
/**
 * The parts an episode needs, checked up front: from plain JavaScript a missing part failed later as
 * "cannot read properties of undefined". `caller` names the function in the message.
 */
export declare const checkEpisodeParts: (caller: string, options: {
    readonly env?: unknown;
    readonly policy?: unknown;
    readonly journal?: unknown;
    readonly seed?: unknown;
    readonly signal?: unknown;
}) => void;
/** The runtime's turn limit of an environment without `maxTurns`: an episode that takes more actions is aborted. */
export declare const DEFAULT_MAX_TURNS = 64;
/**
 * Runs one episode live, journaling every event before anything sees it. An environment that throws or breaks the
 * protocol ends the episode as aborted (a record, not a rejection); the promise rejects when the journal fails.
 */
export declare const runEpisode: {
    /** The record's `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
    <Task extends Json>(options: EpisodeOptions<Task>): Promise<EpisodeRecord<Task>>;
    /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): a JSON task. */
    (options: EpisodeOptions): Promise<EpisodeRecord>;
};

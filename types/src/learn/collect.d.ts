/**
 * Runs a batch of episodes with a policy and hands them to the learner the way the design asks: every
 * episode is journaled, read back from the journal (schema, seq, hash chain) and replay-verified before
 * it becomes a trajectory. Episodes come back in seed order, whatever order they finished in.
 */
import type { Json } from "effect/Schema";
import type { Durability } from "../journal/journal.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
/**
 * Options of collect: what to run (env, policy, seed, episodes in groups of `groupSize`) and where to journal it.
 * `Task` is the environment's task type (its records' `task` has it).
 */
export interface CollectOptions<Task extends Json = Json> {
    readonly env: EnvDefinition<Task>;
    readonly policy: Policy;
    readonly seed: string;
    readonly episodes: number;
    /** Episodes per task (default 1); GRPO and RLOO compare the episodes of one group. */
    readonly groupSize?: number;
    /** Folder for the journals; in memory when absent. */
    readonly dir?: string;
    /** Durability of the journals in `dir` (default "episode"). */
    readonly durability?: Durability;
    readonly concurrency?: number;
    /** Re-derive every event through the environment before use (default true). */
    readonly verify?: boolean;
    /** Called as each episode ends (progress display). */
    readonly onEpisode?: (record: EpisodeRecord<Task>) => void;
    /**
     * Called with every event of every episode once the journal has appended it (progress display while episodes
     * run: an `agent.acted` per action); an episode's events all come before its `onEpisode`.
     */
    readonly onEvent?: (event: EpisodeEvent) => void;
    /**
     * Stops the batch (your own loop's Ctrl-C, a deadline): no further episode starts, the running ones end at once,
     * journaled as `aborted: stopped: REASON`, and collect returns the episodes that started (fewer than
     * `episodes`: check `signal.aborted` before training on them), each read back and verified like the others.
     */
    readonly signal?: AbortSignal;
}
/** One collected episode: its record, and its events as read back and verified. */
export interface Collected<Task extends Json = Json> {
    readonly record: EpisodeRecord<Task>;
    /** The episode as read back from the journal. */
    readonly events: readonly EpisodeEvent[];
}
/**
 * Runs `episodes` episodes, journals them, reads each back and (by default) replay-verifies it; returns them in seed
 * order.
 */
export declare const collect: {
    /** The records' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
    <Task extends Json>(options: CollectOptions<Task>): Promise<Collected<Task>[]>;
    /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
    (options: CollectOptions): Promise<Collected[]>;
};

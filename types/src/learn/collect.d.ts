/*
 * Runs a batch of episodes with a policy and hands them to the learner the way the design asks: every
 * episode is journaled, read back from the journal (schema, seq, hash chain) and replay-verified before
 * it becomes a trajectory. Episodes come back in seed order, whatever order they finished in.
 */
import type { Durability } from "../journal/journal.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
/** Options of collect: what to run (env, policy, seed, episodes in groups of `groupSize`) and where to journal it. */
export interface CollectOptions {
    readonly env: EnvDefinition;
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
    readonly onEpisode?: (record: EpisodeRecord) => void;
}
/** One collected episode: its record, and its events as read back and verified. */
export interface Collected {
    readonly record: EpisodeRecord;
    /** The episode as read back from the journal. */
    readonly events: readonly EpisodeEvent[];
}
/**
 * Runs `episodes` episodes, journals them, reads each back and (by default) replay-verifies it; returns them in seed
 * order.
 */
export declare const collect: (options: CollectOptions) => Promise<Collected[]>;

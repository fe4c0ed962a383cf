/**
 * Runs a batch of episodes with a policy and hands them to the learner the way the design asks: every
 * episode is journaled, read back from the journal (schema, seq, hash chain) and replay-verified before
 * it becomes a trajectory. Episodes come back in seed order, whatever order they finished in.
 */
import type { Json } from "effect/Schema";
import { lastValueFrom, tap, toArray } from "rxjs";
import type { Durability, Journal } from "../journal/journal.ts";
import { JsonlJournal } from "../journal/jsonl.ts";
import { MemoryJournal } from "../journal/memory.ts";
import { allKeys, checkKnownKeys, shownValue } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { replayEpisode } from "../replay/replay.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { notAPolicy, PolicyActor } from "../runtime/policy-actor.ts";
import { rollout } from "../runtime/rollout.ts";

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

/** Every option collect reads (any other is a misspelling, refused by name). */
const COLLECT_OPTIONS = allKeys<CollectOptions>()([
  "env",
  "policy",
  "seed",
  "episodes",
  "groupSize",
  "dir",
  "durability",
  "concurrency",
  "verify",
  "onEpisode",
  "onEvent",
  "signal",
]);

/** One collected episode: its record, and its events as read back and verified. */
export interface Collected<Task extends Json = Json> {
  readonly record: EpisodeRecord<Task>;
  /** The episode as read back from the journal. */
  readonly events: readonly EpisodeEvent[];
}

const indexOf = (seed: string) => Number(seed.slice(seed.lastIndexOf(":") + 1));

/**
 * Runs `episodes` episodes, journals them, reads each back and (by default) replay-verifies it; returns them in seed
 * order.
 */
export const collect: {
  /** The records' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
  <Task extends Json>(options: CollectOptions<Task>): Promise<Collected<Task>[]>;
  /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
  (options: CollectOptions): Promise<Collected[]>;
} = async <Task extends Json>(options: CollectOptions<Task>): Promise<Collected<Task>[]> => {
  checkKnownKeys("collect", options, COLLECT_OPTIONS);
  const notPolicy = notAPolicy(options.policy);
  if (notPolicy)
    throw new TypeError(`collect: policy must be a Policy ({ id, version, tokenizer, act }): ${notPolicy}`);
  // Checked as collect's, before anything is made: they were said as rollout's ("rollout: groupSize must be ..."),
  // and episodes left out as "PolicyActor: maxBatch must be a positive integer, got NaN".
  for (const [name, value, least] of [
    ["episodes", options.episodes, 0],
    ["groupSize", options.groupSize, 1],
    ["concurrency", options.concurrency, 1],
  ] as const)
    if ((name === "episodes" || value !== undefined) && !(Number.isInteger(value) && (value as number) >= least))
      throw new RangeError(
        `collect: ${name} must be ${least === 0 ? "a natural number" : "a positive integer"}${name === "episodes" ? "" : " (or left out)"}, got ${shownValue(value)}`,
      );
  if (options.onEvent !== undefined && typeof options.onEvent !== "function")
    throw new TypeError(
      `collect: onEvent must be a function of an event (or left out), got ${shownValue(options.onEvent)}`,
    );
  const journal: Journal = options.dir
    ? new JsonlJournal(options.dir, options.durability ?? "episode")
    : new MemoryJournal();
  const run = rollout({
    env: options.env,
    // One batch per turn: every running episode's request goes into one call.
    policy: new PolicyActor(options.policy, Math.max(1, options.concurrency ?? options.episodes)),
    journal,
    seed: options.seed,
    episodes: options.episodes,
    groupSize: options.groupSize,
    concurrency: options.concurrency ?? options.episodes,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // Subscribed in the same step as the episodes below (Rollout: no event is missed); the run's error, if any, is
  // the episodes' rejection.
  const watching = options.onEvent ? run.events.subscribe({ next: options.onEvent, error: () => {} }) : undefined;
  const records = (
    await lastValueFrom(
      run.episodes.pipe(
        tap((r) => options.onEpisode?.(r)),
        toArray(),
      ),
    ).finally(() => watching?.unsubscribe())
  ).sort((a, b) => indexOf(a.seed) - indexOf(b.seed));
  const out: Collected<Task>[] = [];
  for (const record of records) {
    const events = await journal.read(record.episode);
    if (options.verify ?? true)
      replayEpisode(
        events,
        options.env,
        journal instanceof JsonlJournal ? { file: journal.fileOf(record.episode) } : {},
      );
    out.push({ record, events });
  }
  return out;
};

/**
 * The rollout runner: N episodes from a run seed, at most `concurrency` at a time, all sharing one
 * batching policy actor. Episode i has seed `${seed}:${i}`; with groups of G, episodes g*G..g*G+G-1 share
 * the task drawn from `${seed}:task${g}` (GRPO's groups). Completed episodes come out as an Observable;
 * every event of every episode is on `events`, after the journal has it.
 */
import type { Json } from "effect/Schema";
import { defer, mergeMap, type Observable, range, Subject } from "rxjs";
import type { Journal } from "../journal/journal.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { splitSeed } from "../kernel/prng.ts";
import type { EnvDefinition } from "./env.ts";
import { type EpisodeRecord, runEpisode } from "./episode.ts";
import type { PolicyActor } from "./policy-actor.ts";

export interface RolloutOptions {
  readonly env: EnvDefinition;
  readonly policy: PolicyActor;
  readonly journal: Journal;
  readonly seed: string;
  readonly episodes: number;
  /** Episodes running at once (default 16). Bounds memory and the policy actor's queue. */
  readonly concurrency?: number;
  /** Episodes per task (default 1). */
  readonly groupSize?: number;
  /** First episode index (to continue a run). */
  readonly start?: number;
  /** Tasks by group index; defaults to the environment's `task(seed)`. */
  readonly task?: (group: number, seed: string) => Json;
}

export interface Rollout {
  /** Completed episodes, in completion order. Cold: subscribing starts the run. */
  readonly episodes: Observable<EpisodeRecord>;
  /** Every journaled event of every episode (hot; subscribe before `episodes`). */
  readonly events: Observable<EpisodeEvent>;
}

export const rollout = (options: RolloutOptions): Rollout => {
  const concurrency = options.concurrency ?? 16;
  const groupSize = options.groupSize ?? 1;
  const start = options.start ?? 0;
  if (!Number.isInteger(options.episodes) || options.episodes < 0)
    throw new RangeError(`episodes must be a natural number, got ${options.episodes}`);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  if (!Number.isInteger(groupSize) || groupSize < 1)
    throw new RangeError(`groupSize must be a positive integer, got ${groupSize}`);
  const events = new Subject<EpisodeEvent>();
  const episodes = range(start, options.episodes).pipe(
    mergeMap((index) => {
      const group = Math.floor(index / groupSize);
      const taskSeed = splitSeed(options.seed, `task${group}`);
      const task = options.task ? options.task(group, taskSeed) : options.env.task(taskSeed);
      return defer(() =>
        runEpisode({
          env: options.env,
          policy: options.policy,
          journal: options.journal,
          seed: splitSeed(options.seed, index),
          task,
          onEvent: (event) => events.next(event),
        }),
      );
    }, concurrency),
  );
  return { episodes, events: events.asObservable() };
};

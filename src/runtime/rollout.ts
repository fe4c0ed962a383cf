/**
 * The rollout runner: N episodes from a run seed, at most `concurrency` at a time, all sharing one
 * batching policy actor. Episode i has seed `${seed}:${i}`; with groups of G, episodes g*G..g*G+G-1 share
 * the task drawn from `${seed}:task${g}` (GRPO's groups). Completed episodes come out on `episodes`;
 * every event of every episode is on `events`, once the journal has appended it.
 *
 * One run: the first subscription to either stream starts it, and every subscription to either stream
 * shares it (a second subscription never runs the episodes again into the same journal). Both streams
 * complete when every episode has ended, and both error with the run's error.
 */
import { setMaxListeners } from "node:events";
import type { Json } from "effect/Schema";
import { defer, merge, Observable, of, repeat, Subject, Subscription, takeWhile } from "rxjs";
import type { Journal } from "../journal/journal.ts";
import { followAbort } from "../kernel/abort.ts";
import { asJournaled, canonicalJson } from "../kernel/canonical.ts";
import {
  allKeys,
  checkKnownKeys,
  EnvProtocolError,
  messageOf,
  shownValue,
  thrownFrom,
  UsageError,
} from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { splitSeed } from "../kernel/prng.ts";
import type { EnvDefinition } from "./env.ts";
import { checkEpisodeParts, type EpisodeRecord, runEpisode } from "./episode.ts";
import { isHalted } from "./halt.ts";
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

/** The keys of RolloutOptions. */
const ROLLOUT_OPTIONS = allKeys<RolloutOptions>()([
  "env",
  "policy",
  "journal",
  "seed",
  "episodes",
  "concurrency",
  "groupSize",
  "start",
  "task",
  "skip",
  "signal",
]);

/** The seed episode `index`'s task is drawn from: its group's (groups of `groupSize` consecutive episodes share a task). */
export const taskSeedOf = (seed: string, index: number, groupSize: number): string =>
  splitSeed(seed, `task${Math.floor(index / groupSize)}`);

/** Groups whose task is drawn twice, to catch a task that is not a function of its seed. */
const TASK_PURITY_CHECKS = 8;
const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}...` : text);

/**
 * `env.task(seed)` drawn `draws` more times must give `task` (as journaled) each time: an EnvProtocolError says
 * so when it does not (a task drawn with Math.random or the clock), since the same seed must give the same
 * episodes. What a draw throws is thrown (the caller says whose draw failed).
 */
export const checkTaskDrawnAgain = (env: EnvDefinition, seed: string, task: Json, draws: number): void => {
  const drawn = canonicalJson(task);
  let again = drawn;
  for (let draw = 0; draw < draws && again === drawn; draw++) again = canonicalJson(env.task(seed));
  if (again !== drawn)
    throw new EnvProtocolError({
      env: env.id,
      detail: `task(${JSON.stringify(seed)}) gave two different tasks for one seed (${clip(drawn)}, then ${clip(again)}): a task must be a pure function of its seed (draw from an Rng seeded with it, not Math.random or the clock), or the same seed will not give the same episodes`,
    });
};

/**
 * Runs `episodes` episodes of `env` into `journal` (see Rollout for when it starts and how to stop it). Throws a
 * RangeError when episodes is not a whole number >= 0, or concurrency or groupSize not a positive integer.
 */
export const rollout: {
  /** The records' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
  <Task extends Json>(options: RolloutOptions<Task>): Rollout<Task>;
  /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
  (options: RolloutOptions): Rollout;
} = <Task extends Json>(options: RolloutOptions<Task>): Rollout<Task> => {
  checkKnownKeys("rollout", options, ROLLOUT_OPTIONS);
  const concurrency = options.concurrency ?? 16;
  const groupSize = options.groupSize ?? 1;
  const start = options.start ?? 0;
  checkEpisodeParts("rollout", options);
  // Values said as shownValue says them: "got 3" hid that the 3 was the string "3" (which made `start: "2"` run
  // twenty episodes, "2" + 2 being "22"); `start` and the callbacks failed deep inside, or not at all.
  if (!Number.isInteger(options.episodes) || options.episodes < 0)
    throw new RangeError(`rollout: episodes must be a natural number, got ${shownValue(options.episodes)}`);
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new RangeError(`rollout: concurrency must be a positive integer, got ${shownValue(concurrency)}`);
  if (!Number.isInteger(groupSize) || groupSize < 1)
    throw new RangeError(`rollout: groupSize must be a positive integer, got ${shownValue(groupSize)}`);
  if (!Number.isInteger(start) || start < 0)
    throw new RangeError(
      `rollout: start must be a natural number (the first episode's index), got ${shownValue(start)}`,
    );
  for (const name of ["task", "skip"] as const)
    if (options[name] !== undefined && typeof options[name] !== "function")
      throw new TypeError(
        `rollout: ${name} must be a function (${name === "task" ? "(group, seed) => task" : "(index) => boolean"}), got ${shownValue(options[name])}`,
      );
  // Each running episode listens on the signal until it ends: more than 10 at once made Node warn of a leak
  // ("MaxListenersExceededWarning: ... 11 abort listeners added to [AbortSignal]", or "[EventTarget]" for an
  // object shaped as an AbortSignal, a polyfill's, whose listeners the rollout cannot unlimit). So the episodes
  // listen on a signal of the rollout's own, which follows the caller's (of any shape) with one listener, added
  // when the run starts and removed once the run is over and its last episode has ended (also on an error).
  const caller = options.signal;
  const owned = caller ? new AbortController() : undefined;
  const signal = owned?.signal;
  if (signal) setMaxListeners(0, signal);
  /** Removes the listener on the caller's signal, while the rollout follows it. */
  let stopFollowing: (() => void) | undefined;
  const startFollowing = () => {
    if (owned) stopFollowing = followAbort(caller, owned);
  };
  /** Episodes started and not yet settled: an abandoned run's keep running, and still hear the caller's signal. */
  let unsettled = 0;
  const stopFollowingIfOver = () => {
    if (!stopFollowing || state !== "over" || unsettled > 0) return;
    stopFollowing();
    stopFollowing = undefined;
  };
  const events = new Subject<EpisodeEvent>();
  const episodes = new Subject<EpisodeRecord<Task>>();
  /** Episode `index` of the run: its task drawn and checked, then the episode itself. */
  const episodeAt = (index: number): Observable<EpisodeRecord<Task>> => {
    const group = Math.floor(index / groupSize);
    const taskSeed = taskSeedOf(options.seed, index, groupSize);
    let drawn: Task;
    try {
      drawn = options.task ? options.task(group, taskSeed) : options.env.task(taskSeed);
    } catch (cause) {
      // The environment's (or the caller's) task generator is broken: say whose, for which seed, and where.
      const at = thrownFrom(cause);
      throw new EnvProtocolError({
        env: options.env.id,
        detail: `${options.task ? "the rollout's task" : "task"}(${JSON.stringify(taskSeed)}) threw for episode ${index}: ${messageOf(cause)}${at ? ` (thrown at ${at})` : ""}; episodes already ended are kept`,
      });
    }
    // The journal keeps the task as JSON and replay starts from that: a Date or a Set would replay as something
    // else, so it is refused; a field that is undefined is dropped, live as on replay (runEpisode starts from it).
    const journaled = asJournaled(drawn, "task");
    if (journaled.problem !== undefined)
      throw new EnvProtocolError({
        env: options.env.id,
        detail: `${options.task ? "the rollout's task" : "task"}(${JSON.stringify(taskSeed)}) returned a value that is not plain JSON: ${journaled.problem}; a task is journaled as JSON and replayed from it`,
      });
    const task = journaled.value;
    // The same seed must give the same task, or a run cannot be redone from its seed: the first few groups'
    // tasks are drawn twice and compared (a task drawn with Math.random or the clock differs).
    // The first task is drawn three more times, so a short run (one episode) is checked too.
    if (!options.task && index % groupSize === 0 && index - start < TASK_PURITY_CHECKS * groupSize)
      checkTaskDrawnAgain(options.env, taskSeed, task, index === start ? 3 : 1);
    return defer(() => {
      unsettled += 1;
      const settled = () => {
        unsettled -= 1;
        stopFollowingIfOver();
      };
      const episode = runEpisode({
        env: options.env,
        policy: options.policy,
        journal: options.journal,
        seed: splitSeed(options.seed, index),
        task,
        onEvent: (event) => events.next(event),
        ...(signal ? { signal } : {}),
      });
      episode.then(settled, settled);
      return episode;
    });
  };
  // Episodes are claimed one at a time by `concurrency` lanes, each starting the next when its last ends: no
  // queue of indices is built up front (millions of episodes take no memory before they run).
  const end = start + options.episodes;
  let next = start;
  const claim = (): number | undefined => {
    // A halted process (a stopped record: halt.ts) starts none either.
    if (signal?.aborted || isHalted()) return undefined;
    while (next < end && options.skip?.(next)) next += 1;
    return next < end ? next++ : undefined;
  };
  const lane = defer(() => {
    const index = claim();
    return index === undefined ? of(undefined) : episodeAt(index);
  }).pipe(
    repeat(),
    takeWhile((record): record is EpisodeRecord<Task> => record !== undefined),
  );
  const run = merge(...Array.from({ length: Math.max(1, Math.min(concurrency, options.episodes)) }, () => lane));

  // The run: not started, running, or over (ended, failed, or abandoned by every subscriber).
  let state: "idle" | "running" | "over" = "idle";
  const running = new Subscription();
  let subscribers = 0;
  // `events` settles first: whoever awaits `episodes` finds `events` settled too.
  const complete = () => {
    state = "over";
    stopFollowingIfOver();
    events.complete();
    episodes.complete();
  };
  const fail = (cause: unknown) => {
    state = "over";
    stopFollowingIfOver();
    events.error(cause);
    episodes.error(cause);
  };
  const begin = () => {
    if (state !== "idle") return;
    state = "running";
    startFollowing();
    running.add(
      run.subscribe({
        next: (record) => episodes.next(record),
        error: fail,
        complete,
      }),
    );
  };
  /** Every subscriber left: no further episode starts (running ones finish into the journal). */
  const abandon = () => {
    if (state !== "running") return;
    complete();
    running.unsubscribe();
  };
  /**
   * A stream of the shared run: subscribes to its subject, then starts the run if nobody has. Once the run has
   * completed, a new subscriber is told so, as an error: it would get no value and complete at once, silently
   * (`events` collected after `await`ing `episodes` came out empty; a failed run's error still reaches it).
   */
  const shared = <T>(subject: Subject<T>, name: "episodes" | "events") =>
    new Observable<T>((subscriber) => {
      if (state === "over" && !subject.hasError) {
        const other = name === "events" ? "episodes" : "events";
        subscriber.error(
          new UsageError({
            detail: `rollout: ${name} was subscribed after the run had ended, so it would carry nothing: the run is shared by episodes and events and runs once; subscribe to both in the same step, before any await (merge them, or subscribe to ${name} before collecting ${other})`,
          }),
        );
        return;
      }
      subscribers += 1;
      const subscription = subject.subscribe(subscriber);
      begin();
      return () => {
        subscription.unsubscribe();
        subscribers -= 1;
        if (subscribers === 0) abandon();
      };
    });
  return { episodes: shared(episodes, "episodes"), events: shared(events, "events") };
};

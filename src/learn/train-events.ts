/**
 * train() as an RxJS Observable: the run's progress as typed events (the greedy evaluations, each sampled episode,
 * each update), then `done` with the result. Each subscription starts a run; unsubscribing stops it as its
 * `signal` would (the update under way finishes, its checkpoint is written, the folder is unlocked).
 */

import type { Json } from "effect/Schema";
import { Observable } from "rxjs";
import { followAbort, isAbortSignalShaped } from "../kernel/abort.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import { type TrainOptions, type TrainResult, train, type UpdateMetrics } from "./trainer.ts";

/** One step of a run, as trainEvents emits it; `Task` is the environment's task type. */
export type TrainEvent<Task extends Json = Json> =
  /** A greedy evaluation begins (`before` the first update, `after` the last), with its episodes and turn limit. */
  | {
      readonly type: "eval.started";
      readonly phase: "before" | "after";
      readonly episodes: number;
      readonly maxTurns: number;
    }
  /** An episode of a greedy evaluation ended. */
  | { readonly type: "eval.episode"; readonly phase: "before" | "after"; readonly record: EpisodeRecord<Task> }
  /** The updates begin (after any warm start and the evaluation before). */
  | { readonly type: "updates.started" }
  /** An episode an update samples ended: `sampled` of the update's `of`. */
  | { readonly type: "episode"; readonly record: EpisodeRecord<Task>; readonly sampled: number; readonly of: number }
  /** An update was applied (its checkpoint written when the run's `checkpointEvery` says so). */
  | { readonly type: "update"; readonly metrics: UpdateMetrics }
  /**
   * A line the run says (its warm start's stages, the backend, notes and warnings), in order among the events; also
   * given to `options.log`, or written to stderr when there is none. The warm start, before the first evaluation,
   * is heard so (no progress bars are drawn).
   */
  | { readonly type: "log"; readonly line: string }
  /** The run ended (run to `config.steps`, or stopped: `result.stopped`); the Observable completes after it. */
  | { readonly type: "done"; readonly result: TrainResult };

/** The callbacks trainEvents turns into events (given anyway, each is called before its event is emitted). */
type EventCallbacks = "onEvalStart" | "onEvalEpisode" | "onUpdatesStart" | "onEpisode" | "onUpdate" | "log";

/**
 * A run of `train(options)` as an Observable of its events, `done` last; a failure (a refused config, a folder
 * that holds a run) is the Observable's error, as train's rejection. Cold: each subscription starts a run of its
 * own. Unsubscribing stops the run cleanly, like aborting `options.signal`, but does not wait for it: to know
 * when its last checkpoint is written, abort a signal of your own and await `done` instead.
 */
export const trainEvents: {
  /** The records' `task` has the environment's task type. */
  <Task extends Json>(options: TrainOptions<Task>): Observable<TrainEvent<Task>>;
  /** An environment whose parts disagree on the task's type: JSON tasks. */
  (options: TrainOptions): Observable<TrainEvent>;
} = <Task extends Json>(options: TrainOptions<Task>): Observable<TrainEvent<Task>> =>
  new Observable<TrainEvent<Task>>((subscriber) => {
    const unsubscribed = new AbortController();
    // The run hears one signal: its own, aborted on unsubscribing or when the caller's aborts (any object shaped as
    // an AbortSignal is followed); a signal that is none (from plain JavaScript) goes to train, whose refusal names it.
    const caller = options?.signal;
    const followed = isAbortSignalShaped(caller);
    const signal = caller === undefined || followed ? unsubscribed.signal : caller;
    const stopFollowing = followAbort(followed ? caller : undefined, unsubscribed);
    const emit = (event: TrainEvent<Task>) => {
      if (!subscriber.closed) subscriber.next(event);
    };
    const given: Pick<TrainOptions<Task>, EventCallbacks> = options ?? {};
    train<Task>({
      ...options,
      signal,
      // A log that is no function (from plain JavaScript) goes to train as it is, whose refusal names it.
      ...(given.log !== undefined && typeof given.log !== "function"
        ? {}
        : {
            log: (line: string) => {
              if (given.log) given.log(line);
              else process.stderr.write(`${line}\n`);
              emit({ type: "log", line });
            },
          }),
      onEvalStart: (phase, episodes, maxTurns) => {
        given.onEvalStart?.(phase, episodes, maxTurns);
        emit({ type: "eval.started", phase, episodes, maxTurns });
      },
      onEvalEpisode: (phase, record) => {
        given.onEvalEpisode?.(phase, record);
        emit({ type: "eval.episode", phase, record });
      },
      onUpdatesStart: () => {
        given.onUpdatesStart?.();
        emit({ type: "updates.started" });
      },
      onEpisode: (record, sampled, of) => {
        given.onEpisode?.(record, sampled, of);
        emit({ type: "episode", record, sampled, of });
      },
      onUpdate: (metrics) => {
        given.onUpdate?.(metrics);
        emit({ type: "update", metrics });
      },
    }).then(
      (result) => {
        stopFollowing();
        emit({ type: "done", result });
        subscriber.complete();
      },
      (cause: unknown) => {
        stopFollowing();
        subscriber.error(cause);
      },
    );
    return () => {
      stopFollowing();
      unsubscribed.abort(new Error("trainEvents: unsubscribed"));
    };
  });

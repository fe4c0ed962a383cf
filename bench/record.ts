/**
 * Recorded `lookup` episodes for the benchmarks: run once through the full runtime into a MemoryJournal,
 * then reused as (a) the expert's action scripts for the bare-machine baseline, (b) realistic journal
 * bytes, (c) replay input.
 */
import type { Json } from "effect/Schema";
import { lastValueFrom, reduce, toArray } from "rxjs";
import { lookupEnv } from "../actors/lookup/env.ts";
import { expertPolicy } from "../actors/lookup/policies.ts";
import { type EpisodeEvent, type EventBody, type Journal, MemoryJournal, PolicyActor } from "../src/index.ts";
import { EpisodeChain } from "../src/journal/stamp.ts";
import type { EpisodeRecord } from "../src/runtime/episode.ts";
import { rollout } from "../src/runtime/rollout.ts";

export const RUN_SEED = "bench";

/** Episodes `start`..`start + episodes - 1` of the run (the same episodes whatever the slicing). */
const lookupRollout = (journal: Journal, episodes: number, concurrency: number, start = 0) =>
  rollout({
    env: lookupEnv,
    policy: new PolicyActor(expertPolicy()),
    journal,
    seed: RUN_SEED,
    episodes,
    concurrency,
    start,
  });

/** Every episode of a rollout of the lookup expert, through the full runtime. */
export const runLookup = (journal: Journal, episodes: number, concurrency: number) =>
  lastValueFrom(lookupRollout(journal, episodes, concurrency).episodes.pipe(toArray()));

/**
 * The same rollout, keeping nothing: only the number of agent actions (steps) survives each episode, as
 * in the bare baseline (holding every record would grow the heap and bill major GCs to the runtime).
 */
export const countLookupSteps = (journal: Journal, episodes: number, concurrency: number, start = 0) =>
  lastValueFrom(
    lookupRollout(journal, episodes, concurrency, start).episodes.pipe(reduce((steps, r) => steps + r.turns, 0)),
  );

export interface ActionScript {
  readonly task: Json;
  readonly seed: string;
  readonly actions: readonly { turn: number; text: string; tokens: readonly number[] }[];
}

export const scriptsOf = (records: readonly EpisodeRecord[]): ActionScript[] =>
  records.map((r) => ({
    task: r.task,
    seed: r.seed,
    actions: r.events.flatMap((e) =>
      e.type === "agent.acted" ? [{ turn: e.turn, text: e.text, tokens: e.tokens }] : [],
    ),
  }));

/** Episodes come out in completion order; this sorts them back into index order (seed `bench:<i>`). */
export const recordLookup = async (episodes: number, concurrency: number) => {
  const records = await runLookup(new MemoryJournal(), episodes, concurrency);
  const indexOf = (r: EpisodeRecord) => Number(r.seed.slice(RUN_SEED.length + 1));
  return records.sort((a, b) => indexOf(a) - indexOf(b));
};

const bodyOf = (event: EpisodeEvent): { body: EventBody; meta: EpisodeEvent["meta"] } => {
  const { v: _v, episode: _e, seq: _s, prev: _p, digest: _d, meta, ...body } = event;
  return { body: body as EventBody, meta };
};

/** The same events stamped into a new episode id: a fresh, valid hash chain with realistic bytes. */
export const restamp = (events: readonly EpisodeEvent[], episode: string): EpisodeEvent[] => {
  const chain = new EpisodeChain(episode);
  return events.map((event) => {
    const { body, meta } = bodyOf(event);
    return chain.stamp(body, meta);
  });
};

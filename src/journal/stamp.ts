/**
 * The envelope of an event (`v`, `episode`, `seq`, `prev`) and the hash chain that links events.
 */
import { hashEvent, hashValue } from "../kernel/canonical.ts";
import { type EpisodeEvent, EVENT_FORMAT_VERSION, type EventBody, GENESIS } from "../kernel/events.ts";

/** Stamps bodies into one episode's chain: contiguous seq from 0, `prev` = hash of the previous event. */
export class EpisodeChain {
  private seq = 0;
  private prev: string = GENESIS;

  constructor(readonly episode: string) {}

  get nextSeq(): number {
    return this.seq;
  }

  stamp(body: EventBody, meta?: { at?: number }): EpisodeEvent {
    const event: Record<string, unknown> = {
      v: EVENT_FORMAT_VERSION,
      episode: this.episode,
      seq: this.seq,
      prev: this.prev,
      ...body,
    };
    // hashEvent copies the event without `digest` and `meta`: a body without them is hashed as it is.
    const digest = "digest" in body || "meta" in body ? hashEvent(event) : hashValue(event);
    this.prev = digest;
    this.seq += 1;
    // Set in place, in the order `{ ...event, digest, ...(meta ? { meta } : {}) }` would give them.
    event.digest = digest;
    if (meta) event.meta = meta;
    return event as unknown as EpisodeEvent;
  }
}

/** Episode ids become file names: keep them to a safe alphabet. */
const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const isEpisodeId = (episode: string): boolean => EPISODE_ID.test(episode);

export const assertEpisodeId = (episode: string): void => {
  if (!isEpisodeId(episode))
    throw new RangeError(
      `episode id ${JSON.stringify(episode)} is not allowed: use letters, digits, '.', '_' and '-' (at most 128, not starting with a symbol)`,
    );
};

/** An episode id derived from a seed ("7:3" -> "ep-7-3"). */
export const episodeIdOf = (seed: string): string => {
  const id = `ep-${seed.replace(/[^A-Za-z0-9._-]/g, "-")}`;
  assertEpisodeId(id);
  return id;
};

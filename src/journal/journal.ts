/**
 * The Journal contract: one append-only stream per episode, asynchronous so that a networked store
 * (NATS JetStream, later) fits behind the same interface. An append states the seq it expects, so a
 * stale or duplicate writer is refused instead of forking the stream.
 */
import type { EpisodeEvent } from "../kernel/events.ts";

/** When appended events reach the disk: fsync after every event, once at the end of each episode, or never. */
export type Durability = "event" | "episode" | "none";
export const DURABILITIES: readonly Durability[] = ["event", "episode", "none"];

/**
 * The open stream of one episode, from `Journal.create`: the runtime appends each event in seq order, then closes it.
 */
export interface EpisodeWriter {
  readonly episode: string;
  /** Appends an event whose envelope is already stamped; refuses an event whose seq is not the next one. */
  append(event: EpisodeEvent): Promise<void>;
  /** Makes every appended event durable now, whatever the durability policy. */
  flush(): Promise<void>;
  /** Flushes (fsync unless durability is "none") and releases the stream. */
  close(): Promise<void>;
}

/**
 * Where episodes are recorded: one append-only, validated event stream per episode id. JsonlJournal (files) and
 * MemoryJournal implement it.
 */
export interface Journal {
  /** Where this journal lives, for messages. */
  readonly location: string;
  /** Starts a new episode stream; refuses an episode that already exists. */
  create(episode: string): Promise<EpisodeWriter>;
  /** Every event of an episode, validated (schema, seq, hash chain); throws JournalError otherwise. */
  read(episode: string): Promise<EpisodeEvent[]>;
  /** The episodes this journal holds, sorted. */
  episodes(): Promise<string[]>;
}

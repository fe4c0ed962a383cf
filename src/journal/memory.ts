/** In-memory journal: for tests and for runs that need no files. Same contract and validation as on disk. */
import { JournalConflictError, JournalError, JournalExistsError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EpisodeWriter, Journal } from "./journal.ts";
import { assertEpisodeId } from "./stamp.ts";
import { StreamValidator, validatedEvents } from "./validate.ts";

/**
 * A Journal held in memory (location "memory"); read returns copies, so later changes to them do not reach the
 * stream.
 */
export class MemoryJournal implements Journal {
  readonly location = "memory";
  private readonly streams = new Map<string, EpisodeEvent[]>();

  async create(episode: string): Promise<EpisodeWriter> {
    assertEpisodeId(episode);
    if (this.streams.has(episode)) throw new JournalExistsError({ episode, file: `memory:${episode}` });
    const events: EpisodeEvent[] = [];
    this.streams.set(episode, events);
    return {
      episode,
      append: async (event) => {
        if (event.seq !== events.length)
          throw new JournalConflictError({ episode, expectedSeq: event.seq, actualSeq: events.length });
        events.push(event);
      },
      flush: async () => {},
      close: async () => {},
    };
  }

  async read(episode: string): Promise<EpisodeEvent[]> {
    const events = this.streams.get(episode);
    const file = `memory:${episode}`;
    if (!events) throw new JournalError({ problem: "unreadable", file, line: 0, detail: "no such episode" });
    if (events.length === 0) throw new JournalError({ problem: "empty", file, line: 0, detail: "no events" });
    const validator = new StreamValidator(file);
    return validatedEvents(events.map((event) => validator.acceptValue(structuredClone(event))));
  }

  async episodes(): Promise<string[]> {
    return [...this.streams.keys()].sort();
  }
}

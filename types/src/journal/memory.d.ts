/* In-memory journal: for tests and for runs that need no files. Same contract and validation as on disk. */
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EpisodeWriter, Journal } from "./journal.ts";
/**
 * A Journal held in memory (location "memory"); read returns copies, so later changes to them do not reach the
 * stream.
 */
export declare class MemoryJournal implements Journal {
    readonly location = "memory";
    private readonly streams;
    create(episode: string): Promise<EpisodeWriter>;
    read(episode: string): Promise<EpisodeEvent[]>;
    episodes(): Promise<string[]>;
}

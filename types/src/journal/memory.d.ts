import type { EpisodeEvent } from "../kernel/events.ts";
import type { EpisodeWriter, Journal } from "./journal.ts";
export declare class MemoryJournal implements Journal {
    readonly location = "memory";
    private readonly streams;
    create(episode: string): Promise<EpisodeWriter>;
    read(episode: string): Promise<EpisodeEvent[]>;
    episodes(): Promise<string[]>;
}

/*
 * The envelope of an event (`v`, `episode`, `seq`, `prev`) and the hash chain that links events.
 */
import { type EpisodeEvent, type EventBody } from "../kernel/events.ts";
/** Stamps bodies into one episode's chain: contiguous seq from 0, `prev` = hash of the previous event. */
export declare class EpisodeChain {
    readonly episode: string;
    private seq;
    private prev;
    constructor(episode: string);
    get nextSeq(): number;
    stamp(body: EventBody, meta?: {
        at?: number;
    }): EpisodeEvent;
}
export declare const isEpisodeId: (episode: string) => boolean;
export declare const assertEpisodeId: (episode: string) => void;
/** An episode id derived from a seed ("7:3" -> "ep-7-3"). */
export declare const episodeIdOf: (seed: string) => string;

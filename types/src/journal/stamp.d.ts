/*
 * The envelope of an event (`v`, `episode`, `seq`, `prev`) and the hash chain that links events.
 */
import { type EpisodeEvent, type EventBody } from "../kernel/events.ts";
/** The longest line a journal may hold (the event and its newline), in bytes. */
export declare const MAX_LINE_BYTES: number;
/** Most bytes of an event's body as canonical JSON: a journal line holds it with its envelope and digest. */
export declare const MAX_BODY_BYTES: number;
/**
 * The limit, as an event too long is told it: the body's own, and the line's with what the body leaves to the
 * envelope (a body of 16,775,000 bytes, under the line's 16,777,216, was told only the line's).
 */
export declare const BODY_LIMIT_TEXT = "an event's body holds at most 16773120 (a journal line 16777216, its envelope and digest included)";
/**
 * Why a derived event's body (its canonical JSON, `json`) cannot be journaled for its length, or undefined. Cheap
 * unless the text is long: its bytes are counted only when 3 per character could pass the limit.
 */
export declare const tooLongToRecord: (body: EventBody, json: string) => string | undefined;
/**
 * Bytes an action's event surely takes as JSON when that is more than a body holds, found without tokenizing,
 * decoding or serialising it (undefined otherwise, and at once for an action of usual size): its text takes at
 * least its UTF-8 bytes and two quotes, and each of its `numbers` (token ids, log-probabilities, allowed ids) at
 * least a digit and a comma. A runaway generation of 20 MB is refused in milliseconds, not after seconds of
 * tokenizer work on text that could never be journaled.
 */
export declare const surelyTooLongToJournal: (text: string, numbers?: number) => number | undefined;
/**
 * An action its policy refused to make for its length (scriptedPolicy, before encoding its text): the episode ends
 * as for one the runtime refuses, `policy ID returned an action too long to journal: DETAIL`.
 */
export declare class ActionTooLongError extends RangeError {
    /** Its size and the limit, as the episode's end says them. */
    readonly detail: string;
    constructor(message: string, 
    /** Its size and the limit, as the episode's end says them. */
    detail: string);
}
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

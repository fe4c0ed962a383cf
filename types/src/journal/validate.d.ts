/*
 * Validation of a recorded stream, one line at a time: JSON, schema, version, episode, seq, hash chain and
 * order. Used by every reader, so a violation is never skipped and always names file, line and seq.
 */
import { type EpisodeEvent } from "../kernel/events.ts";
/**
 * Text from a damaged file, safe to print on a terminal: control characters (and bytes that were not UTF-8,
 * decoded as U+FFFD) written as escapes, cut at `max` characters. Binary junk is not echoed raw.
 */
export declare const printable: (text: string, max?: number) => string;
/** Marks `events` as validated by a reader (every line checked), and returns it. */
export declare const validatedEvents: <T extends readonly EpisodeEvent[]>(events: T) => T;
/**
 * Checks events that no reader validated (a file parsed by hand with JSON.parse, events built in code) against the
 * event schema, before replay or the learner reads them: a field of the wrong type (`"value": "0.1"`) was read as a
 * divergence with a hint of impure code, or summed into a return as text ("NaN01"). Names the event by its index.
 */
export declare const checkGivenEvents: (events: readonly unknown[], fn: string) => void;
export declare class StreamValidator {
    readonly file: string;
    private line;
    private prevHash;
    private episode;
    private ended;
    private count;
    /** Whether the line being checked holds U+FFFD, what bytes that are not UTF-8 decode to. */
    private replacement;
    constructor(file: string);
    get events(): number;
    private fail;
    /** Validates the next line (without its newline) and returns the decoded event. */
    acceptLine(text: string): EpisodeEvent;
    /** Validates the next event, already parsed (in-memory journals). */
    acceptValue(raw: unknown): EpisodeEvent;
    private accept;
}

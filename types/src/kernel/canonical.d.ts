/*
 * Canonical JSON (RFC 8785, key-order independent) and the hashes built on it. Everything that is hashed
 * or compared on replay goes through here, so two equal values always hash equal.
 */
/**
 * RFC 8785 canonical JSON of a plain JSON value (sorted keys, fixed number format). Throws on NaN,
 * Infinity, bigint, a function, a cycle or a lone surrogate.
 */
export declare const canonicalJson: (value: unknown) => string;
/** 128-bit hex digest of a string. */
export declare const digest: (text: string) => string;
/** Hash of a value's canonical JSON (128-bit hex): two equal values always hash equal, whatever their key order. */
export declare const hashValue: (value: unknown) => string;
/** Hash of an event (its `digest`, and the next event's `prev`): canonical JSON without `digest` and `meta`. */
export declare const hashEvent: (event: object) => string;
/**
 * Where `value` stops being plain JSON (undefined when it is all plain): a Set, Map, Date, class instance,
 * function, bigint or non-finite number would be hashed as something else ({} or a string) or not at all,
 * so two different states could hash equal. Object properties that are undefined are allowed (JSON drops them;
 * `asJournaled` drops them too, for a value replayed from its JSON); an undefined array item is not (JSON makes it null).
 */
export declare const notPlainJson: (value: unknown, path?: string) => string | undefined;
/**
 * notPlainJson and notUnicode in one walk: where `value` is not plain JSON, or holds text that is not Unicode (what
 * a journal line must hold: a machine's context, a task), or undefined.
 */
export declare const notJournalable: (value: unknown, path?: string) => string | undefined;
/**
 * Where `value` (plain JSON) holds a string or key that is not Unicode: a lone UTF-16 surrogate (say from a
 * `text.slice(0, 3)` that cuts an emoji in two), which no journal line can hold (RFC 8785 refuses it), or undefined.
 */
export declare const notUnicode: (value: unknown, path?: string) => string | undefined;
/**
 * A value as its journal keeps it (a task, replayed from its JSON): the value itself when it is plain JSON with no
 * undefined object field and no -0 (the common case: no copy), a copy without those fields and with 0 for -0 when it
 * has some (JSON drops them, so `"hint" in task` would be true live and false on replay, and writes -0 as 0, so
 * `(-0).toLocaleString()` would say "-0" live and "0" on replay), or the problem (as notPlainJson says it) when JSON
 * would change it rather than drop a field: an undefined array item, NaN, a Date, a cycle; or text JSON cannot
 * journal, a lone surrogate.
 */
export declare const asJournaled: <T>(value: T, path?: string) => {
    readonly value: T;
    readonly problem?: undefined;
} | {
    readonly problem: string;
};
/**
 * A JSON file's text, without the byte order mark an editor may put first: JSON.parse refuses one, so a
 * reader that skips what it cannot parse would take the file as absent.
 */
export declare const readJsonText: (file: string) => string;
/**
 * A run's metrics.jsonl as text, read as readJsonText reads (a byte order mark would cost the first update);
 * a folder of that name is said with its path (Node's EISDIR names none). Train and plot read it this way.
 */
export declare const readMetricsText: (file: string) => string;
/**
 * JSON.parse's message with the line and column of its "at position N" (Node 20 gives only the offset, no
 * help in a file edited by hand), on one line.
 */
export declare const jsonSyntaxError: (cause: unknown, text: string) => string;

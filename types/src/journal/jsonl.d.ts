/*
 * The embedded default store: one JSONL file per episode (`<dir>/<episode>.jsonl`), one event per line.
 *
 * Appends are buffered in order and written with the durability policy: "event" writes and fsyncs every
 * event before append resolves; "episode" writes as the buffer fills and fsyncs on close; "none" never
 * fsyncs. With "event" and "episode", the folder entry of a new file is made durable too (fsync of the
 * folder), so an episode whose close returned survives a machine crash. A crash can leave a torn last
 * line; readers report it and `repairJournalFile` truncates it.
 *
 * Lines are at most MAX_LINE_BYTES long, on both sides: the writer refuses a longer event and readers
 * refuse a longer line, so reading never holds more than one line of one file in memory.
 */
import { type EpisodeEvent } from "../kernel/events.ts";
import { type Durability, type EpisodeWriter, type Journal } from "./journal.ts";
import { MAX_LINE_BYTES } from "./stamp.ts";
export declare const JOURNAL_SUFFIX = ".jsonl";
export { MAX_LINE_BYTES };
declare class JsonlEpisodeWriter implements EpisodeWriter {
    readonly episode: string;
    readonly file: string;
    private readonly durability;
    private buffer;
    private buffered;
    private nextSeq;
    private fd;
    private closed;
    private entryDurable;
    constructor(episode: string, file: string, durability: Durability);
    /** O_EXCL: never overwrite an existing episode (nor follow a link planted at its name). */
    private openFile;
    private syncEntry;
    append(event: EpisodeEvent): Promise<void>;
    /** Synchronous append, used by the runtime's write-ahead sink on its hot path. */
    appendSync(event: EpisodeEvent): void;
    private writeBuffer;
    flush(): Promise<void>;
    close(): Promise<void>;
    closeSync(): void;
}
/**
 * The journal on disk: `<location>/<episode>.jsonl`, one event per line. The folder is created if missing; durability
 * defaults to "episode" (fsync at close). Throws a TypeError on an unknown durability.
 */
export declare class JsonlJournal implements Journal {
    readonly location: string;
    readonly durability: Durability;
    constructor(location: string, durability?: Durability);
    /** The file that holds this episode's stream; throws a RangeError on an episode id that is not a safe file name. */
    fileOf(episode: string): string;
    create(episode: string): Promise<EpisodeWriter>;
    /** `create` without the promise; throws JournalExistsError when the episode's file already exists. */
    createSync(episode: string): JsonlEpisodeWriter;
    read(episode: string): Promise<EpisodeEvent[]>;
    episodes(): Promise<string[]>;
}
export type { JsonlEpisodeWriter };
/**
 * A file's first line (a journal's episode.started), without reading the rest; undefined for an empty file.
 * Only a plain file is opened (a named pipe would block, /dev/zero never ends); anything else, an unreadable
 * file and a line past MAX_LINE_BYTES throw a JournalError. A byte-order mark is dropped.
 */
export declare const firstLineOf: (file: string) => string | undefined;
/**
 * The environment a journal was recorded in, from its first line (episode.started), without reading the rest;
 * undefined for a file that cannot be read or does not start so (whatever reads it next says what is wrong).
 */
export declare const recordedEnvOf: (file: string) => {
    readonly id: string;
    readonly version: string;
    readonly tokenizer?: string;
    /** The options of the configured variant it was recorded on (absent: the environment as defined, or an older journal). */
    readonly options?: Readonly<Record<string, string>>;
} | undefined;
/**
 * Streams the validated events of one journal file, in bounded memory. Throws JournalError at the first
 * violation, after yielding every event before it.
 */
export declare function streamJournalFile(file: string): AsyncGenerator<EpisodeEvent>;
/**
 * Every event of one journal file, validated as `streamJournalFile` validates them; throws JournalError on the first
 * problem.
 */
export declare const readJournalFile: (file: string) => Promise<EpisodeEvent[]>;
/** Files that end in .jsonl but are no journals (a run's per-update metrics), and folders that hold none. */
export declare const NOT_JOURNAL_FILES: ReadonlySet<string>;
export declare const NOT_JOURNAL_FOLDERS: ReadonlySet<string>;
/**
 * Journal files under a path: the file itself, or every *.jsonl in a folder (and its subfolders with recursive:
 * true), sorted; a run's metrics.jsonl and the files of checkpoints/, plots/ and hidden folders are left out.
 */
export declare const journalFilesAt: (path: string, options?: {
    readonly recursive?: boolean;
}) => Promise<string[]>;
/** What `repairJournalFile` did to a file whose last line was torn. */
export interface RepairReport {
    readonly file: string;
    /** The valid events left in the file. */
    readonly keptEvents: number;
    readonly removedBytes: number;
    /** The removed bytes (the torn line), as text; "" when only a newline was added. */
    readonly removedText: string;
    /** The last event was whole and valid but lacked its newline: the newline was added, nothing removed. */
    readonly addedNewline?: boolean;
}
/**
 * Truncates a torn last line (or blank lines after the last event), keeping every valid event before it; a
 * file left with no event is removed.
 * Refuses (throws JournalError) when the damage is anything but a crash artefact: a changed or reordered
 * line in the middle, or a last line that is not the beginning of the next event (truncating there would
 * drop data that a crash did not produce). Only changes regular files named *.jsonl, never through a
 * link, and makes the change durable.
 */
export declare const repairJournalFile: (file: string) => Promise<RepairReport | undefined>;

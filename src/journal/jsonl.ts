/**
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
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  writeSync,
} from "node:fs";
import { lstat, open, readdir, rm, stat } from "node:fs/promises";
import { basename, dirname, join, sep } from "node:path";
import {
  JournalConflictError,
  JournalError,
  JournalExistsError,
  shownValue,
  UsageError,
  writingFile,
  writingFileAsync,
} from "../kernel/errors.ts";
import { type EpisodeEvent, EVENT_FORMAT_VERSION, GENESIS } from "../kernel/events.ts";
import { makeFolders } from "../kernel/folders.ts";
import { DURABILITIES, type Durability, type EpisodeWriter, type Journal } from "./journal.ts";
import { assertEpisodeId, MAX_LINE_BYTES } from "./stamp.ts";
import { StreamValidator, validatedEvents } from "./validate.ts";

const BUFFER_LIMIT = 64 * 1024;
export const JOURNAL_SUFFIX = ".jsonl";
export { MAX_LINE_BYTES };

/** fsync of a folder: makes the entries of files created in it durable. */
const syncDir = (dir: string): void => {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/**
 * writeSync may write less than asked (a full disk, a signal): loop, so a line is never left half-written.
 * Its error names `file` (a full disk said "write" and no more).
 */
const writeAll = (fd: number, text: string, file: string): void => {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  writingFile(file, () => {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
  });
};

class JsonlEpisodeWriter implements EpisodeWriter {
  private buffer: string[] = [];
  private buffered = 0;
  private nextSeq = 0;
  private fd: number | undefined;
  private closed = false;
  private entryDurable = false;

  constructor(
    readonly episode: string,
    readonly file: string,
    private readonly durability: Durability,
  ) {
    if (durability === "event") {
      this.openFile();
      // "event": the first append is acknowledged as durable, so the file's folder entry must be durable first.
      this.syncEntry();
    } else if (existsSync(file)) throw new JournalExistsError({ episode, file });
    // "episode" and "none" open the file at the first write: creating a file costs more than a whole
    // short episode's appends, and a crash before that write loses nothing those policies promise.
  }

  /** O_EXCL: never overwrite an existing episode (nor follow a link planted at its name). */
  private openFile(): number {
    if (this.fd !== undefined) return this.fd;
    try {
      this.fd = openSync(
        this.file,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND,
        0o644,
      );
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST")
        throw new JournalExistsError({ episode: this.episode, file: this.file });
      throw cause;
    }
    return this.fd;
  }

  private syncEntry(): void {
    if (this.entryDurable) return;
    syncDir(dirname(this.file));
    this.entryDurable = true;
  }

  async append(event: EpisodeEvent): Promise<void> {
    this.appendSync(event);
  }

  /** Synchronous append, used by the runtime's write-ahead sink on its hot path. */
  appendSync(event: EpisodeEvent): void {
    if (this.closed) throw new Error(`journal of episode ${this.episode} is closed`);
    if (event.seq !== this.nextSeq)
      throw new JournalConflictError({
        episode: this.episode,
        expectedSeq: event.seq,
        actualSeq: this.nextSeq,
      });
    const line = `${JSON.stringify(event)}\n`;
    // A UTF-16 unit is at most 3 bytes of UTF-8: count bytes only for lines that might be too long.
    if (line.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(line) > MAX_LINE_BYTES)
      throw new RangeError(
        `event seq ${event.seq} (${event.type}) of episode ${this.episode} is ${Buffer.byteLength(line)} bytes as JSON; a journal line holds at most ${MAX_LINE_BYTES} bytes${event.type === "tool.returned" ? " (cut large tool results with maxResultChars)" : ""}`,
      );
    this.nextSeq += 1;
    if (this.durability === "event") {
      const fd = this.openFile();
      writeAll(fd, line, this.file);
      writingFile(this.file, () => fsyncSync(fd));
      return;
    }
    this.buffer.push(line);
    this.buffered += line.length;
    if (this.buffered >= BUFFER_LIMIT) this.writeBuffer();
  }

  private writeBuffer(): void {
    if (this.closed || this.buffer.length === 0) return;
    const fd = this.openFile();
    const text = this.buffer.join("");
    this.buffer = [];
    this.buffered = 0;
    writeAll(fd, text, this.file);
  }

  async flush(): Promise<void> {
    this.writeBuffer();
    const fd = this.fd;
    if (fd === undefined) return;
    writingFile(this.file, () => fsyncSync(fd));
    this.syncEntry();
  }

  async close(): Promise<void> {
    this.closeSync();
  }

  closeSync(): void {
    if (this.closed) return;
    try {
      this.writeBuffer();
      const fd = this.fd;
      if (fd !== undefined && this.durability !== "none") {
        writingFile(this.file, () => fsyncSync(fd));
        this.syncEntry();
      }
    } finally {
      this.closed = true;
      if (this.fd !== undefined) closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

/**
 * The journal on disk: `<location>/<episode>.jsonl`, one event per line. The folder is created if missing; durability
 * defaults to "episode" (fsync at close). Throws a TypeError on an unknown durability.
 */
export class JsonlJournal implements Journal {
  constructor(
    readonly location: string,
    readonly durability: Durability = "episode",
  ) {
    // Node's own words named neither the journal nor the folder: 'The "paths[0]" argument must be of type string'.
    if (typeof location !== "string" || location === "")
      throw new TypeError(
        `JsonlJournal: the first argument must be the folder its journals go to (a path), got ${location === "" ? '""' : shownValue(location)}`,
      );
    if (!DURABILITIES.includes(durability))
      throw new TypeError(
        `JsonlJournal: durability ${JSON.stringify(durability)} is not one of ${DURABILITIES.map((d) => `"${d}"`).join(", ")}`,
      );
    try {
      makeFolders(location);
    } catch (cause) {
      // Node's words ("EEXIST: file already exists, mkdir ...") named no journal, and a file there reads as a folder.
      const code = (cause as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTDIR") throw cause;
      throw new UsageError({
        detail: `the journal folder ${location} ${code === "EEXIST" ? "is a file, not a folder" : "goes through a file (a part of the path is a file, not a folder)"}; give a folder for the journals (a new one, or one of journals)`,
      });
    }
    // Make the folder entry itself durable once.
    if (durability !== "none") syncDir(location);
  }

  /** The file that holds this episode's stream; throws a RangeError on an episode id that is not a safe file name. */
  fileOf(episode: string): string {
    assertEpisodeId(episode);
    return join(this.location, `${episode}${JOURNAL_SUFFIX}`);
  }

  async create(episode: string): Promise<EpisodeWriter> {
    return this.createSync(episode);
  }

  /** `create` without the promise; throws JournalExistsError when the episode's file already exists. */
  createSync(episode: string): JsonlEpisodeWriter {
    return new JsonlEpisodeWriter(episode, this.fileOf(episode), this.durability);
  }

  async read(episode: string): Promise<EpisodeEvent[]> {
    return readJournalFile(this.fileOf(episode));
  }

  async episodes(): Promise<string[]> {
    return readdirSync(this.location)
      .filter((name) => name.endsWith(JOURNAL_SUFFIX))
      .map((name) => name.slice(0, -JOURNAL_SUFFIX.length))
      .sort();
  }
}

export type { JsonlEpisodeWriter };

const CHUNK = 256 * 1024;

type Line =
  /** A complete line (without its newline), its 1-based number and its byte offset. */
  | { readonly complete: true; readonly text: string; readonly line: number; readonly start: number }
  /** The bytes after the last newline: a torn write, when there are any. */
  | { readonly complete: false; readonly bytes: Buffer; readonly line: number; readonly start: number };

const openForReading = (file: string, noFollow: boolean): number => {
  try {
    return openSync(file, noFollow ? constants.O_RDONLY | constants.O_NOFOLLOW : constants.O_RDONLY);
  } catch (cause) {
    throw new JournalError({ problem: "unreadable", file, line: 0, detail: (cause as Error).message });
  }
};

/** Read buffers, reused from file to file (each reader holds its own while it reads). */
const spareBuffers: Buffer[] = [];

/**
 * The lines of a file, read in chunks, in memory bounded by MAX_LINE_BYTES. Reads are synchronous: a
 * journal is a local file, and a folder of small files is read several times faster without a round trip
 * to the thread pool per call.
 */
function* linesOf(file: string, noFollow = false): Generator<Line> {
  const fd = openForReading(file, noFollow);
  const buffer = spareBuffers.pop() ?? Buffer.allocUnsafe(CHUNK);
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let pendingStart = 0;
    let position = 0;
    let line = 0;
    const tooLong = () =>
      new JournalError({
        problem: "parse",
        file,
        line: line + 1,
        detail: `the line is longer than ${MAX_LINE_BYTES} bytes, the most a journal line holds: this is not a journal, or it is damaged`,
      });
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      let from = 0;
      for (;;) {
        const nl = chunk.indexOf(10, from);
        if (nl === -1) break;
        if (pendingBytes + nl - from + 1 > MAX_LINE_BYTES) throw tooLong();
        line += 1;
        const text =
          pending.length === 0
            ? chunk.toString("utf8", from, nl)
            : Buffer.concat([...pending, chunk.subarray(from, nl)]).toString("utf8");
        yield { complete: true, text, line, start: pendingStart };
        pending = [];
        pendingBytes = 0;
        pendingStart = position + nl + 1;
        from = nl + 1;
      }
      if (from < bytesRead) {
        pendingBytes += bytesRead - from;
        if (pendingBytes >= MAX_LINE_BYTES) throw tooLong();
        pending.push(Buffer.from(chunk.subarray(from)));
      }
      position += bytesRead;
    }
    if (pending.length > 0)
      yield { complete: false, bytes: Buffer.concat(pending), line: line + 1, start: pendingStart };
  } finally {
    closeSync(fd);
    if (spareBuffers.length < 4) spareBuffers.push(buffer);
  }
}

/**
 * A file's first line (a journal's episode.started), without reading the rest; undefined for an empty file.
 * Only a plain file is opened (a named pipe would block, /dev/zero never ends); anything else, an unreadable
 * file and a line past MAX_LINE_BYTES throw a JournalError. A byte-order mark is dropped.
 */
export const firstLineOf = (file: string): string | undefined => {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file);
  } catch (cause) {
    throw new JournalError({ problem: "unreadable", file, line: 0, detail: (cause as Error).message });
  }
  if (!stat.isFile()) throw new JournalError({ problem: "unreadable", file, line: 0, detail: "not a plain file" });
  for (const item of linesOf(file))
    return (item.complete ? item.text : item.bytes.toString("utf8")).replace(/^\uFEFF/, "");
  return undefined;
};

/**
 * The environment a journal was recorded in, from its first line (episode.started), without reading the rest;
 * undefined for a file that cannot be read or does not start so (whatever reads it next says what is wrong).
 */
export const recordedEnvOf = (
  file: string,
):
  | {
      readonly id: string;
      readonly version: string;
      readonly tokenizer?: string;
      /** The options of the configured variant it was recorded on (absent: the environment as defined, or an older journal). */
      readonly options?: Readonly<Record<string, string>>;
    }
  | undefined => {
  try {
    const { env, tokenizer } = JSON.parse(firstLineOf(file) ?? "") as {
      env?: { id?: unknown; version?: unknown; options?: unknown };
      tokenizer?: unknown;
    };
    const options = env?.options;
    const strings =
      typeof options === "object" &&
      options !== null &&
      !Array.isArray(options) &&
      Object.values(options).every((value) => typeof value === "string");
    return typeof env?.id === "string" && typeof env.version === "string"
      ? {
          id: env.id,
          version: env.version,
          ...(typeof tokenizer === "string" ? { tokenizer } : {}),
          ...(strings ? { options: options as Record<string, string> } : {}),
        }
      : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Streams the validated events of one journal file, in bounded memory. Throws JournalError at the first
 * violation, after yielding every event before it.
 */
export async function* streamJournalFile(file: string): AsyncGenerator<EpisodeEvent> {
  const validator = new StreamValidator(file);
  let last: EpisodeEvent | undefined;
  for (const item of linesOf(file)) {
    if (!item.complete) {
      // A whole, valid last event missing only its newline (an editor strips it) is read, not reported torn.
      const whole = wholeLastEvent(validator, item.bytes);
      if (whole) {
        yield whole;
        break;
      }
      // Only the start of the next event is what a cut write leaves, and only that is what --repair removes:
      // other bytes there are a parse problem, not a torn tail (`repairable` is false, as --repair decides).
      const cut = isTornWrite(item.bytes, nextLineStart(file, last));
      throw new JournalError({
        problem: cut ? "torn-tail" : "parse",
        file,
        line: item.line,
        detail: cut
          ? `the last line is incomplete (${item.bytes.length} bytes without a newline): a write was cut off; run \`npx agent-r1 replay --repair ${file}\` to truncate it`
          : `the last line is incomplete (${item.bytes.length} bytes without a newline) and is not the start of event seq ${last ? last.seq + 1 : 0}, so no cut write left it: the file was changed after it was written (--repair does not remove it; delete those bytes by hand if they are junk)`,
      });
    }
    last = validator.acceptLine(item.text);
    yield last;
  }
  if (validator.events === 0)
    throw new JournalError({
      problem: "empty",
      file,
      line: 0,
      // Created, then a crash before its first write: --repair removes it (it holds nothing to keep).
      detail: file.endsWith(JOURNAL_SUFFIX)
        ? `the file holds no event (a journal created and never written: a crash before its first write); run \`npx agent-r1 replay --repair ${file}\` to remove it`
        : "the file holds no event",
    });
}

/**
 * Every event of one journal file, validated as `streamJournalFile` validates them; throws JournalError on the first
 * problem.
 */
export const readJournalFile = async (file: string): Promise<EpisodeEvent[]> => {
  const events: EpisodeEvent[] = [];
  for await (const event of streamJournalFile(file)) events.push(event);
  return validatedEvents(events);
};

/** Files that end in .jsonl but are no journals (a run's per-update metrics), and folders that hold none. */
export const NOT_JOURNAL_FILES: ReadonlySet<string> = new Set(["metrics.jsonl"]);
export const NOT_JOURNAL_FOLDERS: ReadonlySet<string> = new Set(["checkpoints", "plots", "node_modules"]);

/**
 * Journal files under a path: the file itself, or every *.jsonl in a folder (and its subfolders with recursive:
 * true), sorted; a run's metrics.jsonl and the files of checkpoints/, plots/ and hidden folders are left out.
 */

export const journalFilesAt = async (
  path: string,
  options: { readonly recursive?: boolean } = {},
): Promise<string[]> => {
  const info = await stat(path).catch((cause: NodeJS.ErrnoException) => {
    throw new JournalError({ problem: "unreadable", file: path, line: 0, detail: cause.message });
  });
  if (!info.isDirectory()) return [path];
  // recursive: a run folder's episodes/ holds one folder per update (u00000, u00001, ...). A run's metrics.jsonl
  // and what lies in its checkpoints/ are no journals (listed, reading them threw a schema error).
  const names = (await readdir(path, { recursive: options.recursive === true }))
    .filter((name) => {
      const parts = name.split(sep);
      return (
        name.endsWith(JOURNAL_SUFFIX) &&
        !NOT_JOURNAL_FILES.has(parts.at(-1) ?? "") &&
        !parts.slice(0, -1).some((folder) => NOT_JOURNAL_FOLDERS.has(folder) || folder.startsWith("."))
      );
    })
    .sort();
  return names.map((name) => join(path, name));
};

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
 * The bytes after the last newline as an event, when they are one whole valid event that continues the chain
 * (only the newline is missing); undefined when they are not (a cut write, or junk).
 */
const wholeLastEvent = (validator: StreamValidator, tail: Buffer): EpisodeEvent | undefined => {
  if (tail.includes(0) || tail[tail.length - 1] !== 0x7d /* } */) return undefined;
  try {
    return validator.acceptLine(tail.toString("utf8"));
  } catch (cause) {
    if (cause instanceof JournalError) return undefined;
    throw cause;
  }
};

/**
 * How the next event's line begins, as the writer writes it: `{"v":1,"episode":...,"seq":n,"prev":...,`.
 * Without a complete event, the episode is the file's name.
 */
const nextLineStart = (file: string, last: EpisodeEvent | undefined): Buffer => {
  const episode = last?.episode ?? basename(file, JOURNAL_SUFFIX);
  const seq = last ? last.seq + 1 : 0;
  const prev = last?.digest ?? GENESIS;
  return Buffer.from(
    `{"v":${EVENT_FORMAT_VERSION},"episode":${JSON.stringify(episode)},"seq":${seq},"prev":${JSON.stringify(prev)},`,
  );
};

/**
 * Whether the bytes after the last newline are what a crash leaves: the beginning of the next event's
 * line, cut anywhere, possibly followed by NUL bytes (blocks a file system allocated but never wrote).
 */
const isTornWrite = (tail: Buffer, expected: Buffer): boolean => {
  let end = tail.length;
  while (end > 0 && tail[end - 1] === 0) end -= 1;
  const n = Math.min(end, expected.length);
  return tail.subarray(0, n).equals(expected.subarray(0, n));
};

const syncDirOf = async (file: string): Promise<void> => {
  const handle = await open(dirname(file), "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** Cuts the file to `length` bytes and syncs it (never through a link). */
const truncateSynced = async (file: string, length: number): Promise<void> => {
  const handle = await open(file, constants.O_WRONLY | constants.O_NOFOLLOW);
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/** The file's bytes from `start` on, when they are only whitespace (at most 64 KiB of it); otherwise undefined. */
const blanksFrom = async (file: string, start: number): Promise<string | undefined> => {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const size = (await handle.stat()).size;
    if (size - start > 65_536) return undefined;
    const tail = Buffer.alloc(size - start);
    await handle.read(tail, 0, tail.length, start);
    const text = tail.toString("utf8");
    return /^\s*$/.test(text) ? text : undefined;
  } finally {
    await handle.close();
  }
};

/**
 * Truncates a torn last line (or blank lines after the last event), keeping every valid event before it; a
 * file left with no event is removed.
 * Refuses (throws JournalError) when the damage is anything but a crash artefact: a changed or reordered
 * line in the middle, or a last line that is not the beginning of the next event (truncating there would
 * drop data that a crash did not produce). Only changes regular files named *.jsonl, never through a
 * link, and makes the change durable.
 */
export const repairJournalFile = async (file: string): Promise<RepairReport | undefined> => {
  const refuse = (detail: string): never => {
    throw new JournalError({ problem: "unreadable", file, line: 0, detail });
  };
  if (!file.endsWith(JOURNAL_SUFFIX)) refuse(`repair changes only journal files (*${JOURNAL_SUFFIX})`);
  const info = await lstat(file).catch((cause: NodeJS.ErrnoException) => refuse(cause.message));
  if (!info.isFile())
    refuse(
      `not a regular file (${info.isSymbolicLink() ? "a symbolic link" : "a special file"}): repair never follows links out of the run folder`,
    );
  const validator = new StreamValidator(file);
  let last: EpisodeEvent | undefined;
  let validBytes = 0;
  for (const item of linesOf(file, true)) {
    if (item.complete && item.text.trim() === "" && validator.events > 0) {
      // Blank lines after the last event (an editor's or a script's `echo >>`): no event is lost by removing
      // them. A blank line with an event after it is damage in the middle, refused below as before.
      const blankTail = await blanksFrom(file, item.start);
      if (blankTail !== undefined) {
        await truncateSynced(file, item.start);
        return { file, keptEvents: validator.events, removedBytes: blankTail.length, removedText: blankTail };
      }
    }
    if (item.complete) {
      last = validator.acceptLine(item.text);
      validBytes = item.start + Buffer.byteLength(item.text) + 1;
      continue;
    }
    const eventsBefore = validator.events;
    if (wholeLastEvent(validator, item.bytes)) {
      const handle = await open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
      try {
        await writingFileAsync(file, async () => {
          await handle.write("\n");
          await handle.sync();
        });
      } finally {
        await handle.close();
      }
      return { file, keptEvents: eventsBefore + 1, removedBytes: 0, removedText: "", addedNewline: true };
    }
    const expected = nextLineStart(file, last);
    if (!isTornWrite(item.bytes, expected))
      throw new JournalError({
        problem: "parse",
        file,
        line: item.line,
        detail: `the last line is incomplete but is not the beginning of event seq ${last ? last.seq + 1 : 0} (${JSON.stringify(expected.toString("utf8", 0, 60))}...): not a crash artefact, so nothing is truncated`,
      });
    const removedText = item.bytes.toString("utf8");
    if (validBytes === 0) {
      await rm(file);
      await syncDirOf(file);
      return { file, keptEvents: 0, removedBytes: item.bytes.length, removedText };
    }
    await truncateSynced(file, validBytes);
    return { file, keptEvents: validator.events, removedBytes: item.bytes.length, removedText };
  }
  if (validator.events === 0) {
    // Created but never written (a crash before the first write): nothing to keep.
    await rm(file);
    await syncDirOf(file);
    return { file, keptEvents: 0, removedBytes: 0, removedText: "(empty file removed)" };
  }
  return undefined;
};

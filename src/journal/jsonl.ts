/**
 * The embedded default store: one JSONL file per episode (`<dir>/<episode>.jsonl`), one event per line.
 *
 * Appends are buffered in order and written with the durability policy: "event" writes and fsyncs every
 * event before append resolves; "episode" writes as the buffer fills and fsyncs on close; "none" never
 * fsyncs. A crash can leave a torn last line; readers report it and `repairJournalFile` truncates it.
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, readdirSync, writeSync } from "node:fs";
import { open, readdir, rm, stat, truncate } from "node:fs/promises";
import { join } from "node:path";
import { JournalConflictError, JournalError, JournalExistsError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { Durability, EpisodeWriter, Journal } from "./journal.ts";
import { assertEpisodeId } from "./stamp.ts";
import { StreamValidator } from "./validate.ts";

const BUFFER_LIMIT = 64 * 1024;
export const JOURNAL_SUFFIX = ".jsonl";

class JsonlEpisodeWriter implements EpisodeWriter {
  private buffer: string[] = [];
  private buffered = 0;
  private nextSeq = 0;
  private fd: number | undefined;

  constructor(
    readonly episode: string,
    readonly file: string,
    private readonly durability: Durability,
  ) {
    // O_EXCL: never overwrite an existing episode.
    try {
      this.fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND, 0o644);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST") throw new JournalExistsError({ episode, file });
      throw cause;
    }
  }

  async append(event: EpisodeEvent): Promise<void> {
    this.appendSync(event);
  }

  /** Synchronous append, used by the runtime's write-ahead sink on its hot path. */
  appendSync(event: EpisodeEvent): void {
    if (this.fd === undefined) throw new Error(`journal of episode ${this.episode} is closed`);
    if (event.seq !== this.nextSeq)
      throw new JournalConflictError({
        episode: this.episode,
        expectedSeq: event.seq,
        actualSeq: this.nextSeq,
      });
    const line = `${JSON.stringify(event)}\n`;
    this.nextSeq += 1;
    if (this.durability === "event") {
      writeSync(this.fd, line);
      fsyncSync(this.fd);
      return;
    }
    this.buffer.push(line);
    this.buffered += line.length;
    if (this.buffered >= BUFFER_LIMIT) this.writeBuffer();
  }

  private writeBuffer(): void {
    if (this.fd === undefined || this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join(""));
    this.buffer = [];
    this.buffered = 0;
  }

  async flush(): Promise<void> {
    this.writeBuffer();
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  async close(): Promise<void> {
    this.closeSync();
  }

  closeSync(): void {
    if (this.fd === undefined) return;
    this.writeBuffer();
    if (this.durability !== "none") fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = undefined;
  }
}

export class JsonlJournal implements Journal {
  constructor(
    readonly location: string,
    readonly durability: Durability = "episode",
  ) {
    mkdirSync(location, { recursive: true });
    if (durability !== "none") {
      // Make the folder entry itself durable once.
      const dirFd = openSync(location, "r");
      fsyncSync(dirFd);
      closeSync(dirFd);
    }
  }

  fileOf(episode: string): string {
    assertEpisodeId(episode);
    return join(this.location, `${episode}${JOURNAL_SUFFIX}`);
  }

  async create(episode: string): Promise<JsonlEpisodeWriter> {
    return this.createSync(episode);
  }

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

/** Lines of a file with their byte offsets, read in chunks; the last item tells whether it ended with "\n". */
async function* linesOf(file: string): AsyncGenerator<{ text: string; start: number; complete: boolean }> {
  const handle = await open(file, "r").catch((cause: NodeJS.ErrnoException) => {
    throw new JournalError({ problem: "unreadable", file, line: 0, detail: cause.message });
  });
  try {
    const buffer = Buffer.alloc(CHUNK);
    let pending: Buffer[] = [];
    let pendingStart = 0;
    let position = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
      if (bytesRead === 0) break;
      let from = 0;
      for (;;) {
        const nl = buffer.indexOf(10, from);
        if (nl === -1 || nl >= bytesRead) break;
        pending.push(buffer.subarray(from, nl));
        const text = Buffer.concat(pending).toString("utf8");
        yield { text, start: pendingStart, complete: true };
        pending = [];
        pendingStart = position + nl + 1;
        from = nl + 1;
      }
      if (from < bytesRead) pending.push(Buffer.from(buffer.subarray(from, bytesRead)));
      position += bytesRead;
    }
    if (pending.length > 0)
      yield { text: Buffer.concat(pending).toString("utf8"), start: pendingStart, complete: false };
  } finally {
    await handle.close();
  }
}

/**
 * Streams the validated events of one journal file, in bounded memory. Throws JournalError at the first
 * violation, after yielding every event before it.
 */
export async function* streamJournalFile(file: string): AsyncGenerator<EpisodeEvent> {
  const validator = new StreamValidator(file);
  let line = 0;
  for await (const { text, complete } of linesOf(file)) {
    line += 1;
    if (!complete)
      throw new JournalError({
        problem: "torn-tail",
        file,
        line,
        detail: `the last line is incomplete (${Buffer.byteLength(text)} bytes without a newline): a write was cut off; run \`agent-r1 replay --repair ${file}\` to truncate it`,
      });
    yield validator.acceptLine(text);
  }
  if (validator.events === 0)
    throw new JournalError({ problem: "empty", file, line: 0, detail: "the file holds no event" });
}

export const readJournalFile = async (file: string): Promise<EpisodeEvent[]> => {
  const events: EpisodeEvent[] = [];
  for await (const event of streamJournalFile(file)) events.push(event);
  return events;
};

/** Journal files under a path: the file itself, or every *.jsonl in a folder (not recursive), sorted. */
export const journalFilesAt = async (path: string): Promise<string[]> => {
  const info = await stat(path).catch((cause: NodeJS.ErrnoException) => {
    throw new JournalError({ problem: "unreadable", file: path, line: 0, detail: cause.message });
  });
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((name) => name.endsWith(JOURNAL_SUFFIX)).sort();
  return names.map((name) => join(path, name));
};

export interface RepairReport {
  readonly file: string;
  readonly keptEvents: number;
  readonly removedBytes: number;
  readonly removedText: string;
}

/**
 * Truncates a torn last line, keeping every valid event before it (an empty file is removed). Refuses (rethrows the JournalError)
 * when the damage is anything but a torn tail: a changed or reordered line in the middle is not a crash
 * artefact and truncating there would drop valid events.
 */
export const repairJournalFile = async (file: string): Promise<RepairReport | undefined> => {
  const validator = new StreamValidator(file);
  let validBytes = 0;
  let lines = 0;
  for await (const { text, start, complete } of linesOf(file)) {
    if (!complete) {
      await truncate(file, validBytes);
      return { file, keptEvents: validator.events, removedBytes: Buffer.byteLength(text), removedText: text };
    }
    validator.acceptLine(text);
    validBytes = start + Buffer.byteLength(text) + 1;
    lines += 1;
  }
  if (lines === 0) {
    // Created but never written (a crash before the first write): nothing to keep.
    await rm(file);
    return { file, keptEvents: 0, removedBytes: 0, removedText: "(empty file removed)" };
  }
  return undefined;
};

/**
 * Validation of a recorded stream, one line at a time: JSON, schema, version, episode, seq, hash chain and
 * order. Used by every reader, so a violation is never skipped and always names file, line and seq.
 */
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { hashEvent } from "../kernel/canonical.ts";
import { JournalError, type JournalProblem, shownValue } from "../kernel/errors.ts";
import {
  type EpisodeEvent,
  EpisodeEvent as EpisodeEventSchema,
  EVENT_FORMAT_VERSION,
  GENESIS,
} from "../kernel/events.ts";
import { isEpisodeId } from "./stamp.ts";

const decodeEvent = Schema.decodeUnknownResult(EpisodeEventSchema, { onExcessProperty: "error" });

const seqOf = (value: unknown): number | undefined =>
  typeof value === "object" && value !== null && typeof (value as { seq?: unknown }).seq === "number"
    ? (value as { seq: number }).seq
    : undefined;

/**
 * Text from a damaged file, safe to print on a terminal: control characters (and bytes that were not UTF-8,
 * decoded as U+FFFD) written as escapes, cut at `max` characters. Binary junk is not echoed raw.
 */
export const printable = (text: string, max = 300): string => {
  const cut = text.length > max ? `${text.slice(0, max)}...` : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters to escape is the point
  return cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069\ufeff\ufffd]/g, (c) => {
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\x${code.toString(16).padStart(2, "0")}`;
  });
};

const firstLine = (text: string) => printable(text.split("\n")[0], 160);

/** Deepest nesting an event may have. Deeper JSON is refused before any recursive code (decoding, hashing) sees it. */
const MAX_EVENT_DEPTH = 256;

/** Whether a parsed JSON value nests deeper than `limit` (iterative: no stack overflow on hostile input). */
const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  if (typeof value !== "object" || value === null) return false;
  const items: object[] = [value];
  const depths: number[] = [1];
  while (items.length > 0) {
    const item = items.pop()!;
    const depth = depths.pop()!;
    if (depth > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === "object" && child !== null) {
        items.push(child);
        depths.push(depth + 1);
      }
  }
  return false;
};

/** A reader's refusal of an event nested deeper than MAX_EVENT_DEPTH. */
const TOO_DEEP = `the event nests deeper than ${MAX_EVENT_DEPTH} levels; no writer of this build produces that`;

/** What the runtime checks of an action before it enters the journal, checked again when it comes back. */
const actionProblem = (event: EpisodeEvent): string | undefined => {
  if (event.type !== "agent.acted") return undefined;
  if (event.logprobs.length !== event.tokens.length)
    return `${event.logprobs.length} logprobs for ${event.tokens.length} tokens`;
  if (event.allowed !== undefined && event.allowed.length !== event.tokens.length)
    return `${event.allowed.length} allowed lists for ${event.tokens.length} tokens`;
  if (!event.logprobs.every((l) => l <= 1e-6)) return "a logprob is above 0";
  return undefined;
};

/**
 * Event arrays a reader validated (readJournalFile, a journal's read, a finished episode's record), each with its
 * events as they were then: replay and the learner take such an array as it is while it still holds those same
 * events, one for one. An array changed since (an event replaced, added, removed or moved: its type allows that)
 * is checked again. Its events' fields are readonly, nested arrays too, so changing one in place takes a cast.
 */
const validatedStreams = new WeakMap<readonly unknown[], readonly unknown[]>();

/** Marks `events` as validated by a reader (every line checked), and returns it. */
export const validatedEvents = <T extends readonly EpisodeEvent[]>(events: T): T => {
  validatedStreams.set(events, events.slice());
  return events;
};

/** Whether `events` was marked validated and still holds the very events it held then (a pointer per event). */
const stillValidated = (events: readonly unknown[]): boolean => {
  const validated = validatedStreams.get(events);
  if (validated === undefined || validated.length !== events.length) return false;
  for (let i = 0; i < events.length; i++) if (events[i] !== validated[i]) return false;
  return true;
};

/**
 * Checks events that no reader validated (a file parsed by hand with JSON.parse, events built in code) against the
 * event schema, before replay or the learner reads them: a field of the wrong type (`"value": "0.1"`) was read as a
 * divergence with a hint of impure code, or summed into a return as text ("NaN01"). Names the event by its index.
 */
export const checkGivenEvents = (events: readonly unknown[], fn: string): void => {
  if (!Array.isArray(events)) {
    // rollout's records carry their events: `replayEpisode(episodes[0], env)` is an easy slip for `(episodes[0].events, env)`.
    const record =
      typeof events === "object" && events !== null && Array.isArray((events as { events?: unknown }).events);
    throw new TypeError(
      `${fn}: the events must be an array, got ${record ? "an episode's record: give its events (record.events), or read its journal (await journal.read(record.episode))" : shownValue(events)}`,
    );
  }
  // Replayed, none read as a divergence: "recorded: episode.started / replayed: no episode.started first".
  if (events.length === 0)
    throw new JournalError({
      problem: "order",
      file: `${fn}'s events`,
      line: 0,
      detail:
        "none given: an episode's events begin with episode.started (an empty journal, or a filter that kept none?)",
    });
  if (stillValidated(events)) return;
  /** The stream so far, as a reader keeps it: the episode of its first event, and whether it has ended. */
  let episode: string | undefined;
  let ended = false;
  events.forEach((raw, index) => {
    const refused = (problem: JournalProblem, detail: string, seq: number | undefined) =>
      new JournalError({ problem, file: `${fn}'s event ${index}`, line: 0, seq, detail });
    // As a reader refuses it: a deeper event would overflow the stack of the hashing and comparing after it.
    if (nestsDeeperThan(raw, MAX_EVENT_DEPTH)) throw refused("schema", TOO_DEEP, seqOf(raw));
    const decoded = decodeEvent(raw);
    if (Result.isFailure(decoded))
      throw refused(
        "schema",
        `${String(decoded.failure.message ?? decoded.failure).replace(/\s*\n\s*/g, " ")} (read a journal with readJournalFile or a Journal's read, which check every line)`,
        seqOf(raw),
      );
    const event = decoded.success;
    const action = actionProblem(event);
    if (action) throw refused("schema", action, event.seq);
    if (index === 0 && event.type !== "episode.started")
      throw refused("order", `no episode.started first: found ${event.type}`, event.seq);
    // What a reader refuses too: an event after the end was summed into the return, and replay blamed impure code.
    if (ended) throw refused("order", `event ${event.type} after episode.ended`, event.seq);
    if (index > 0 && event.type === "episode.started")
      throw refused("order", "a second episode.started in one stream", event.seq);
    if (episode !== undefined && event.episode !== episode)
      throw refused("episode", `event of episode ${event.episode} in the stream of episode ${episode}`, event.seq);
    if (event.seq !== index)
      throw refused(
        "sequence",
        `seq ${event.seq} where seq ${index} belongs: an event is missing, repeated or out of order`,
        event.seq,
      );
    episode = event.episode;
    ended = event.type === "episode.ended";
  });
  validatedEvents(events as readonly EpisodeEvent[]);
};

export class StreamValidator {
  private line = 0;
  private prevHash: string = GENESIS;
  private episode: string | undefined;
  private ended = false;
  private count = 0;
  /** Whether the line being checked holds U+FFFD, what bytes that are not UTF-8 decode to. */
  private replacement = false;

  constructor(readonly file: string) {}

  get events(): number {
    return this.count;
  }

  private fail(problem: JournalProblem, detail: string, seq?: number): never {
    throw new JournalError({ problem, file: this.file, line: this.line, seq, detail });
  }

  /** Validates the next line (without its newline) and returns the decoded event. */
  acceptLine(text: string): EpisodeEvent {
    this.line += 1;
    this.replacement = text.includes("\uFFFD");
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      this.fail(
        "parse",
        text.trim() === ""
          ? "a blank line where an event belongs (a journal has one event per line, none blank; blank lines after the last event are removed by `npx agent-r1 replay --repair FILE`)"
          : text.startsWith("\uFEFF")
            ? `the line starts with a byte order mark (U+FEFF, bytes EF BB BF), which some editors add on saving; a journal is UTF-8 without one: remove those 3 bytes (the digests do not cover them), e.g. \`perl -i -pe 's/^\\xEF\\xBB\\xBF// if $. == ${this.line}' FILE\``
            : this.line === 1 && text.startsWith("\u001f\uFFFD")
              ? "the file is gzip-compressed (it starts with the gzip bytes 1F 8B), not a journal's text: decompress it first, e.g. `gunzip -c FILE > EPISODE.jsonl`"
              : `not valid JSON (${printable((cause as Error).message, 120)}): ${firstLine(text)}`,
      );
    }
    return this.accept(raw);
  }

  /** Validates the next event, already parsed (in-memory journals). */
  acceptValue(raw: unknown): EpisodeEvent {
    this.line += 1;
    this.replacement = false;
    return this.accept(raw);
  }

  private accept(raw: unknown): EpisodeEvent {
    const seq = seqOf(raw);
    if (nestsDeeperThan(raw, MAX_EVENT_DEPTH)) this.fail("schema", TOO_DEEP, seq);
    // JSON that is no event at all (null, a list, a number) or an object without a format version: said as such,
    // not as "event format version undefined", which sent a reader looking for a journal of another build.
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      this.fail(
        "schema",
        `the line is ${shownValue(raw)}, not an event (a JSON object with v, seq, type, episode, ...)`,
        seq,
      );
    if (!Object.hasOwn(raw, "v"))
      this.fail(
        "schema",
        `the line is an object without an event format version (field v), not an event of a journal; its fields: ${Object.keys(raw).slice(0, 8).join(", ") || "none"}`,
        seq,
      );
    const version = (raw as { v?: unknown }).v;
    if (version !== EVENT_FORMAT_VERSION)
      this.fail(
        "version",
        `event format version ${JSON.stringify(version)}; this build reads version ${EVENT_FORMAT_VERSION}`,
        seq,
      );
    const decoded = decodeEvent(raw);
    if (Result.isFailure(decoded))
      this.fail("schema", String(decoded.failure.message ?? decoded.failure).replace(/\s*\n\s*/g, " "), seq);
    const event = decoded.success;
    const action = actionProblem(event);
    if (action) this.fail("schema", action, event.seq);
    if (this.ended) this.fail("order", `event ${event.type} after episode.ended`, event.seq);
    if (this.count === 0 && event.type !== "episode.started")
      this.fail("order", `the first event must be episode.started, found ${event.type}`, event.seq);
    if (this.count > 0 && event.type === "episode.started")
      this.fail("order", "a second episode.started in one stream", event.seq);
    if (this.episode === undefined && !isEpisodeId(event.episode))
      this.fail(
        "episode",
        `episode id ${JSON.stringify(event.episode.slice(0, 140))} is not a safe file name (letters, digits, '.', '_', '-'; at most 128)`,
        event.seq,
      );
    if (this.episode !== undefined && event.episode !== this.episode)
      this.fail("episode", `event of episode ${event.episode} in the stream of episode ${this.episode}`, event.seq);
    if (event.seq !== this.count)
      this.fail(
        "sequence",
        `expected seq ${this.count}, found seq ${event.seq}: ${
          event.seq > this.count
            ? "a line before this one was removed, or lines were reordered"
            : "a line was duplicated, or lines were reordered"
        }`,
        event.seq,
      );
    // Hash what was written, not what was decoded, so no edit can hide behind decoding.
    const digest = hashEvent(raw as { meta?: unknown });
    if (digest !== event.digest)
      this.fail(
        "digest",
        `the line's content hashes to ${digest}, not to its recorded digest ${event.digest}: the line was edited${
          this.replacement
            ? " (it holds U+FFFD, which bytes that are not UTF-8 read as: was the file saved in another encoding, such as Latin-1 or Windows-1252?)"
            : ""
        }`,
        event.seq,
      );
    if (event.prev !== this.prevHash)
      this.fail(
        "chain",
        `prev is ${event.prev} but the previous event's digest is ${this.prevHash}: a line before this one was removed, duplicated or reordered`,
        event.seq,
      );
    this.episode = event.episode;
    this.prevHash = digest;
    this.ended = event.type === "episode.ended";
    this.count += 1;
    return event;
  }
}

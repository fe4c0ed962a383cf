/**
 * Validation of a recorded stream, one line at a time: JSON, schema, version, episode, seq, hash chain and
 * order. Used by every reader, so a violation is never skipped and always names file, line and seq.
 */
import { Result, Schema } from "effect";
import { hashEvent } from "../kernel/canonical.ts";
import { JournalError, type JournalProblem } from "../kernel/errors.ts";
import {
  type EpisodeEvent,
  EpisodeEvent as EpisodeEventSchema,
  EVENT_FORMAT_VERSION,
  GENESIS,
} from "../kernel/events.ts";

const decodeEvent = Schema.decodeUnknownResult(EpisodeEventSchema, { onExcessProperty: "error" });

const seqOf = (value: unknown): number | undefined =>
  typeof value === "object" && value !== null && typeof (value as { seq?: unknown }).seq === "number"
    ? (value as { seq: number }).seq
    : undefined;

const firstLine = (text: string) => text.split("\n")[0].slice(0, 300);

export class StreamValidator {
  private line = 0;
  private prevHash: string = GENESIS;
  private episode: string | undefined;
  private ended = false;
  private count = 0;

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
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (cause) {
      this.fail("parse", `not valid JSON (${(cause as Error).message}): ${firstLine(text)}`);
    }
    return this.accept(raw);
  }

  /** Validates the next event, already parsed (in-memory journals). */
  acceptValue(raw: unknown): EpisodeEvent {
    this.line += 1;
    return this.accept(raw);
  }

  private accept(raw: unknown): EpisodeEvent {
    const seq = seqOf(raw);
    const version = typeof raw === "object" && raw !== null ? (raw as { v?: unknown }).v : undefined;
    if (version !== EVENT_FORMAT_VERSION)
      this.fail(
        "version",
        `event format version ${JSON.stringify(version)}; this build reads version ${EVENT_FORMAT_VERSION}`,
        seq,
      );
    const decoded = decodeEvent(raw);
    if (Result.isFailure(decoded)) this.fail("schema", String(decoded.failure.message ?? decoded.failure), seq);
    const event = decoded.success;
    if (this.ended) this.fail("order", `event ${event.type} after episode.ended`, event.seq);
    if (this.count === 0 && event.type !== "episode.started")
      this.fail("order", `the first event must be episode.started, found ${event.type}`, event.seq);
    if (this.count > 0 && event.type === "episode.started")
      this.fail("order", "a second episode.started in one stream", event.seq);
    if (this.episode !== undefined && event.episode !== this.episode)
      this.fail("episode", `event of episode ${event.episode} in the stream of episode ${this.episode}`, event.seq);
    if (event.seq !== this.count)
      this.fail("sequence", `expected seq ${this.count}, found seq ${event.seq}`, event.seq);
    // Hash what was written, not what was decoded, so no edit can hide behind decoding.
    const digest = hashEvent(raw as { meta?: unknown });
    if (digest !== event.digest)
      this.fail(
        "digest",
        `the line's content hashes to ${digest}, not to its recorded digest ${event.digest}: the line was edited`,
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

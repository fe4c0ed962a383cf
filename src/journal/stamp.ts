/**
 * The envelope of an event (`v`, `episode`, `seq`, `prev`) and the hash chain that links events.
 */
import { canonicalJson, digest as digestOf } from "../kernel/canonical.ts";
import { type EpisodeEvent, EVENT_FORMAT_VERSION, type EventBody, GENESIS } from "../kernel/events.ts";

/** The longest line a journal may hold (the event and its newline), in bytes. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

/** Most bytes of an event's body as canonical JSON: a journal line holds it with its envelope and digest. */
export const MAX_BODY_BYTES = MAX_LINE_BYTES - 4096;

/**
 * The limit, as an event too long is told it: the body's own, and the line's with what the body leaves to the
 * envelope (a body of 16,775,000 bytes, under the line's 16,777,216, was told only the line's).
 */
export const BODY_LIMIT_TEXT = `an event's body holds at most ${MAX_BODY_BYTES} (a journal line ${MAX_LINE_BYTES}, its envelope and digest included)`;

/**
 * The events the environment's machine derives (what replay derives again): one too long for a journal line (an
 * observation of 20 MB) ends its episode as "could not record", as one that is not Unicode does, live and in
 * replay alike, instead of failing the journal and with it the whole run. Inputs are checked where they enter.
 */
const DERIVED = new Set<string>(["env.observed", "reward.assigned", "env.transitioned", "tool.called"]);

/**
 * Why a derived event's body (its canonical JSON, `json`) cannot be journaled for its length, or undefined. Cheap
 * unless the text is long: its bytes are counted only when 3 per character could pass the limit.
 */
export const tooLongToRecord = (body: EventBody, json: string): string | undefined => {
  if (!DERIVED.has(body.type) || json.length * 3 <= MAX_BODY_BYTES) return undefined;
  const bytes = Buffer.byteLength(json);
  return bytes <= MAX_BODY_BYTES ? undefined : `it is ${bytes} bytes as JSON; ${BODY_LIMIT_TEXT}`;
};

/**
 * Bytes an action's event surely takes as JSON when that is more than a body holds, found without tokenizing,
 * decoding or serialising it (undefined otherwise, and at once for an action of usual size): its text takes at
 * least its UTF-8 bytes and two quotes, and each of its `numbers` (token ids, log-probabilities, allowed ids) at
 * least a digit and a comma. A runaway generation of 20 MB is refused in milliseconds, not after seconds of
 * tokenizer work on text that could never be journaled.
 */
export const surelyTooLongToJournal = (text: string, numbers = 0): number | undefined => {
  if (text.length * 3 + numbers * 24 <= MAX_BODY_BYTES) return undefined;
  const bytes = Buffer.byteLength(text) + 2 + numbers * 2;
  return bytes > MAX_BODY_BYTES ? bytes : undefined;
};

/**
 * An action its policy refused to make for its length (scriptedPolicy, before encoding its text): the episode ends
 * as for one the runtime refuses, `policy ID returned an action too long to journal: DETAIL`.
 */
export class ActionTooLongError extends RangeError {
  constructor(
    message: string,
    /** Its size and the limit, as the episode's end says them. */
    readonly detail: string,
  ) {
    super(message);
    this.name = "ActionTooLongError";
  }
}

/** Stamps bodies into one episode's chain: contiguous seq from 0, `prev` = hash of the previous event. */
export class EpisodeChain {
  private seq = 0;
  private prev: string = GENESIS;

  constructor(readonly episode: string) {}

  get nextSeq(): number {
    return this.seq;
  }

  stamp(body: EventBody, meta?: { at?: number }): EpisodeEvent {
    const event: Record<string, unknown> = {
      v: EVENT_FORMAT_VERSION,
      episode: this.episode,
      seq: this.seq,
      prev: this.prev,
      ...body,
    };
    // Hashed without `digest` and `meta` (as hashEvent does): a body without them is hashed as it is.
    let hashed: object = event;
    if ("digest" in body || "meta" in body) {
      const { meta: _meta, digest: _digest, ...rest } = event;
      hashed = rest;
    }
    const text = canonicalJson(hashed);
    // The envelope adds little: a body too long shows in the event's text, and only then is measured alone.
    if (text.length * 3 > MAX_BODY_BYTES && DERIVED.has(body.type)) {
      const problem = tooLongToRecord(body, canonicalJson(body));
      if (problem) throw new RangeError(problem);
    }
    const digest = digestOf(text);
    this.prev = digest;
    this.seq += 1;
    // Set in place, in the order `{ ...event, digest, ...(meta ? { meta } : {}) }` would give them.
    event.digest = digest;
    if (meta) event.meta = meta;
    return event as unknown as EpisodeEvent;
  }
}

/** Episode ids become file names: keep them to a safe alphabet. */
const EPISODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export const isEpisodeId = (episode: string): boolean => EPISODE_ID.test(episode);

export const assertEpisodeId = (episode: string): void => {
  if (!isEpisodeId(episode))
    throw new RangeError(
      `episode id ${JSON.stringify(episode)} is not allowed: use letters, digits, '.', '_' and '-' (at most 128, not starting with a symbol)`,
    );
};

/** An episode id derived from a seed ("7:3" -> "ep-7-3"). */
export const episodeIdOf = (seed: string): string => {
  const id = `ep-${seed.replace(/[^A-Za-z0-9._-]/g, "-")}`;
  assertEpisodeId(id);
  return id;
};

/**
 * Word-level tokenizer with a byte fallback: any string encodes, and decoding gives it back exactly.
 *
 * Ids: 0..255 are raw UTF-8 bytes (used for pieces outside the vocabulary), then the special tokens, then
 * the vocabulary's words. Text is cut into pieces: runs of letters/digits, single spaces, newlines and
 * single other characters. A piece in the vocabulary is one token; any other piece is spelled in bytes.
 * A vocabulary word that spans several pieces (a tag such as `<search>`) is matched whole, before that cut.
 */
import { digest } from "./canonical.ts";
import { checkKnownKeys, shownValue } from "./errors.ts";

/** Turns text into token ids and back; policies and the environment's observations share one per environment. */
export interface Tokenizer {
  /** Names this exact vocabulary; recorded in every episode so replay can check observation tokens. */
  readonly id: string;
  /** Number of ids: every id is in [0, size). */
  readonly size: number;
  encode(text: string): number[];
  /** The text of these ids (WordTokenizer throws a RangeError on an id outside [0, size)). */
  decode(ids: readonly number[]): string;
  /** Id of a special token or vocabulary word, or undefined. */
  idOf(piece: string): number | undefined;
}

const BYTE_TOKENS = 256;
/** Special tokens every tokenizer has, in id order after the bytes. */
export const SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<obs>", "<act>"] as const;
/** In implicit-space mode: marks two words written together (`a,b`), where a space is otherwise implied. */
const GLUE = "<glue>";

/** Options of WordTokenizer. */
export interface WordTokenizerOptions {
  /**
   * `explicit` (default): a space is a token. `implicit`: one space between two vocabulary words costs no
   * token (texts written as space-separated words take about half the tokens), words written together
   * get a `<glue>` token; decoding still gives any text back exactly.
   */
  readonly spaces?: "explicit" | "implicit";
}

const PIECE = /[\p{L}\p{N}_]+|\n| |[^\p{L}\p{N}_\n ]/gu;

/**
 * The word-level tokenizer with a byte fallback: ids 0..255 are bytes, then SPECIAL_TOKENS (and `<glue>` with
 * implicit spaces), space, newline, then `words` in the order given. Any text encodes and decodes back exactly.
 */
export class WordTokenizer implements Tokenizer {
  readonly id: string;
  readonly size: number;
  private readonly ids = new Map<string, number>();
  private readonly pieces: string[] = [];
  private readonly encoder = new TextEncoder();
  // ignoreBOM: a U+FEFF in text is text (the default decoder drops one at the start of every run of bytes).
  private readonly decoder = new TextDecoder("utf-8", { ignoreBOM: true });

  readonly spaces: "explicit" | "implicit";
  /** Cuts text into pieces: multi-piece vocabulary words first (longest first), then PIECE. */
  private readonly cutter: RegExp;
  /** Ids of vocabulary words (not bytes, specials, space or newline): the pieces an implicit space joins. */
  private readonly wordIds = new Set<number>();

  constructor(
    readonly words: readonly string[],
    options: WordTokenizerOptions = {},
  ) {
    // A misspelt key (`{ space: "implicit" }`) or value (`spaces: "none"`) was taken as the default, explicit
    // spaces: every episode silently twice as long in tokens as the option asked.
    checkKnownKeys("WordTokenizer", options, ["spaces"]);
    if (options.spaces !== undefined && options.spaces !== "explicit" && options.spaces !== "implicit")
      throw new RangeError(
        `WordTokenizer: spaces must be "explicit" (a space is a token; the default) or "implicit" (one space between two words is free), got ${shownValue(options.spaces)}`,
      );
    this.spaces = options.spaces ?? "explicit";
    const specials: string[] = [...SPECIAL_TOKENS, ...(this.spaces === "implicit" ? [GLUE] : [])];
    for (const piece of [...specials, " ", "\n", ...words]) {
      if (this.ids.has(piece)) continue;
      this.ids.set(piece, BYTE_TOKENS + this.pieces.length);
      this.pieces.push(piece);
    }
    this.size = BYTE_TOKENS + this.pieces.length;
    // Escapes only the syntax characters: under the u flag, an escaped "-" (or any other) is a SyntaxError.
    const escapeRegex = (w: string) => w.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
    // A word spelt like a special token ("<act>" for a tool named act) is not cut whole: its id is the
    // special's, which decodes to no text. It is spelt from smaller pieces instead.
    const whole = words
      .filter((w) => w.length > 0 && w.match(PIECE)?.[0] !== w && !specials.includes(w))
      .sort((a, b) => b.length - a.length);
    this.cutter =
      whole.length === 0 ? PIECE : new RegExp(`${whole.map(escapeRegex).join("|")}|${PIECE.source}`, PIECE.flags);
    for (const [piece, id] of this.ids)
      if (!specials.includes(piece) && piece !== " " && piece !== "\n") this.wordIds.add(id);
    // The explicit mode keeps its v1 ids: recorded journals and checkpoints stay valid.
    const version = this.spaces === "implicit" ? "words-v2-implicit" : "words-v1";
    this.id = `${version}:${digest(JSON.stringify(this.pieces)).slice(0, 16)}`;
  }

  /** A tokenizer whose vocabulary is every word piece found in the given texts, sorted. */
  static fromCorpus(texts: Iterable<string>, options: WordTokenizerOptions = {}): WordTokenizer {
    // A string is iterable too: taken as a list, each character was a text of its own, and the vocabulary came
    // out as characters (every word spelt at a token per character), without a word.
    if (
      typeof texts === "string" ||
      typeof (texts as { [Symbol.iterator]?: unknown })?.[Symbol.iterator] !== "function"
    )
      throw new TypeError(
        `WordTokenizer.fromCorpus: texts must be a list of texts (an array of strings, or another iterable of them), got ${typeof texts === "string" ? "one string: wrap it in an array, [text] (taken as a list, each of its characters would be a text)" : shownValue(texts)}`,
      );
    const words = new Set<string>();
    let index = 0;
    for (const text of texts) {
      if (typeof text !== "string")
        throw new TypeError(
          `WordTokenizer.fromCorpus: texts[${index}] is ${shownValue(text)}, not a string (flatten nested lists: [...a, ...b])`,
        );
      for (const [piece] of text.matchAll(PIECE)) words.add(piece);
      index++;
    }
    return new WordTokenizer([...words].sort(), options);
  }

  idOf(piece: string): number | undefined {
    return this.ids.get(piece);
  }

  encode(text: string): number[] {
    const out: number[] = [];
    if (this.spaces === "implicit") return this.encodeImplicit(text);
    for (const [piece] of text.matchAll(this.cutter)) {
      const id = this.ids.get(piece);
      if (id !== undefined) out.push(id);
      else for (const byte of this.encoder.encode(piece)) out.push(byte);
    }
    return out;
  }

  private encodeImplicit(text: string): number[] {
    const pieces = Array.from(text.matchAll(this.cutter), (m) => m[0]);
    const isWord = (piece: string | undefined) => {
      const id = piece === undefined ? undefined : this.ids.get(piece);
      return id !== undefined && this.wordIds.has(id);
    };
    const glue = this.ids.get(GLUE) as number;
    const out: number[] = [];
    let lastWasWord = false;
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i];
      // A single space between two words is implied.
      if (piece === " " && isWord(pieces[i - 1]) && isWord(pieces[i + 1])) {
        out.push(this.ids.get(pieces[++i]) as number);
        lastWasWord = true;
        continue;
      }
      const id = this.ids.get(piece);
      if (id !== undefined) {
        const word = this.wordIds.has(id);
        if (word && lastWasWord) out.push(glue);
        out.push(id);
        lastWasWord = word;
      } else {
        for (const byte of this.encoder.encode(piece)) out.push(byte);
        lastWasWord = false;
      }
    }
    return out;
  }

  /**
   * The pieces these ids spell byte by byte that take more than one token (a word outside the vocabulary,
   * `answer` as 6 byte tokens), in order: what a model must learn to spell, and what a corpus that missed a
   * word of the environment's actions or observations costs. A one-byte piece (`<` as its byte) costs what a
   * word does and is left out.
   */
  spelledOut(ids: readonly number[]): string[] {
    const out: string[] = [];
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 1)
        // Bytes that are no UTF-8 (a sampled byte token's junk) decode to U+FFFD: no word a corpus could hold.
        for (const [piece] of this.decoder.decode(new Uint8Array(bytes)).matchAll(PIECE))
          if (this.encoder.encode(piece).length > 1 && !piece.includes("\uFFFD")) out.push(piece);
      bytes = [];
    };
    for (const id of ids) {
      if (Number.isInteger(id) && id >= 0 && id < BYTE_TOKENS) bytes.push(id);
      else flush();
    }
    flush();
    return out;
  }

  decode(ids: readonly number[]): string {
    let text = "";
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) text += this.decoder.decode(new Uint8Array(bytes));
      bytes = [];
    };
    const implicit = this.spaces === "implicit";
    let previous = -1;
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.size)
        throw new RangeError(`token id ${id} is not in [0, ${this.size})`);
      if (id < BYTE_TOKENS) bytes.push(id);
      else {
        flush();
        const piece = this.pieces[id - BYTE_TOKENS];
        // Two words in a row had a space between them (implicit mode).
        if (implicit && this.wordIds.has(id) && this.wordIds.has(previous)) text += " ";
        // Special tokens mark structure; they carry no text.
        // (In explicit mode "<glue>" is no special: a vocabulary word of that spelling is text.)
        if (!(SPECIAL_TOKENS as readonly string[]).includes(piece) && !(implicit && piece === GLUE)) text += piece;
      }
      previous = id;
    }
    flush();
    return text;
  }
}

/**
 * Word-level tokenizer with a byte fallback: any string encodes, and decoding gives it back exactly.
 *
 * Ids: 0..255 are raw UTF-8 bytes (used for pieces outside the vocabulary), then the special tokens, then
 * the vocabulary's words. Text is cut into pieces: runs of letters/digits, single spaces, newlines and
 * single other characters. A piece in the vocabulary is one token; any other piece is spelled in bytes.
 */
import { digest } from "./canonical.ts";

export interface Tokenizer {
  /** Names this exact vocabulary; recorded in every episode so replay can check observation tokens. */
  readonly id: string;
  readonly size: number;
  encode(text: string): number[];
  decode(ids: readonly number[]): string;
  /** Id of a special token or vocabulary word, or undefined. */
  idOf(piece: string): number | undefined;
}

const BYTE_TOKENS = 256;
/** Special tokens every tokenizer has, in id order after the bytes. */
export const SPECIAL_TOKENS = ["<pad>", "<bos>", "<eos>", "<obs>", "<act>"] as const;

const PIECE = /[\p{L}\p{N}_]+|\n| |[^\p{L}\p{N}_\n ]/gu;

export class WordTokenizer implements Tokenizer {
  readonly id: string;
  readonly size: number;
  private readonly ids = new Map<string, number>();
  private readonly pieces: string[] = [];
  private readonly encoder = new TextEncoder();
  private readonly decoder = new TextDecoder();

  constructor(readonly words: readonly string[]) {
    for (const piece of [...SPECIAL_TOKENS, " ", "\n", ...words]) {
      if (this.ids.has(piece)) continue;
      this.ids.set(piece, BYTE_TOKENS + this.pieces.length);
      this.pieces.push(piece);
    }
    this.size = BYTE_TOKENS + this.pieces.length;
    this.id = `words-v1:${digest(JSON.stringify(this.pieces)).slice(0, 16)}`;
  }

  /** A tokenizer whose vocabulary is every word piece found in the given texts, sorted. */
  static fromCorpus(texts: Iterable<string>): WordTokenizer {
    const words = new Set<string>();
    for (const text of texts) for (const [piece] of text.matchAll(PIECE)) words.add(piece);
    return new WordTokenizer([...words].sort());
  }

  idOf(piece: string): number | undefined {
    return this.ids.get(piece);
  }

  encode(text: string): number[] {
    const out: number[] = [];
    for (const [piece] of text.matchAll(PIECE)) {
      const id = this.ids.get(piece);
      if (id !== undefined) out.push(id);
      else for (const byte of this.encoder.encode(piece)) out.push(byte);
    }
    return out;
  }

  decode(ids: readonly number[]): string {
    let text = "";
    let bytes: number[] = [];
    const flush = () => {
      if (bytes.length > 0) text += this.decoder.decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.size)
        throw new RangeError(`token id ${id} is not in [0, ${this.size})`);
      if (id < BYTE_TOKENS) bytes.push(id);
      else {
        flush();
        const piece = this.pieces[id - BYTE_TOKENS];
        // Special tokens mark structure; they carry no text.
        if (!(SPECIAL_TOKENS as readonly string[]).includes(piece)) text += piece;
      }
    }
    flush();
    return text;
  }
}

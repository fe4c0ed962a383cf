/*
 * Word-level tokenizer with a byte fallback: any string encodes, and decoding gives it back exactly.
 *
 * Ids: 0..255 are raw UTF-8 bytes (used for pieces outside the vocabulary), then the special tokens, then
 * the vocabulary's words. Text is cut into pieces: runs of letters/digits, single spaces, newlines and
 * single other characters. A piece in the vocabulary is one token; any other piece is spelled in bytes.
 * A vocabulary word that spans several pieces (a tag such as `<search>`) is matched whole, before that cut.
 */
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
/** Special tokens every tokenizer has, in id order after the bytes. */
export declare const SPECIAL_TOKENS: readonly ["<pad>", "<bos>", "<eos>", "<obs>", "<act>"];
/** Options of WordTokenizer. */
export interface WordTokenizerOptions {
    /**
     * `explicit` (default): a space is a token. `implicit`: one space between two vocabulary words costs no
     * token (texts written as space-separated words take about half the tokens), words written together
     * get a `<glue>` token; decoding still gives any text back exactly.
     */
    readonly spaces?: "explicit" | "implicit";
}
/**
 * The word-level tokenizer with a byte fallback: ids 0..255 are bytes, then SPECIAL_TOKENS (and `<glue>` with
 * implicit spaces), space, newline, then `words` in the order given. Any text encodes and decodes back exactly.
 */
export declare class WordTokenizer implements Tokenizer {
    readonly words: readonly string[];
    readonly id: string;
    readonly size: number;
    private readonly ids;
    private readonly pieces;
    private readonly encoder;
    private readonly decoder;
    readonly spaces: "explicit" | "implicit";
    /** Cuts text into pieces: multi-piece vocabulary words first (longest first), then PIECE. */
    private readonly cutter;
    /** Ids of vocabulary words (not bytes, specials, space or newline): the pieces an implicit space joins. */
    private readonly wordIds;
    constructor(words: readonly string[], options?: WordTokenizerOptions);
    /** A tokenizer whose vocabulary is every word piece found in the given texts, sorted. */
    static fromCorpus(texts: Iterable<string>, options?: WordTokenizerOptions): WordTokenizer;
    idOf(piece: string): number | undefined;
    encode(text: string): number[];
    private encodeImplicit;
    /**
     * The pieces these ids spell byte by byte that take more than one token (a word outside the vocabulary,
     * `answer` as 6 byte tokens), in order: what a model must learn to spell, and what a corpus that missed a
     * word of the environment's actions or observations costs. A one-byte piece (`<` as its byte) costs what a
     * word does and is left out.
     */
    spelledOut(ids: readonly number[]): string[];
    decode(ids: readonly number[]): string;
}

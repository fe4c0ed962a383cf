/*
 * `hopqa`: answer a multi-hop question about a synthetic world through a BM25 `search` tool.
 *
 * Actions: `<search>query</search>` or `<answer>text</answer>`. Rewards (the defaults; see `HopqaRewards`):
 * - process +0.2 the first time a passage on the question's gold path is retrieved (once per passage:
 *   searching more cannot farm it), -0.05 per search, -0.1 for repeating a query (and no gold reward; the
 *   same words in any order repeat it, see `queryKey`), -0.1 for a failed search, -0.1 for a malformed action;
 * - outcome 1 for an exact-match answer that appeared in some search result, else 0: a right guess of an
 *   entity the agent never saw earns nothing (it is still counted in the `em` metric).
 * Metrics at the end: em, f1, success (= em), grounded, searches, recall of gold passages.
 */
import { type EnvDefinition, type LegalView, Schema, type ToolResult, WordTokenizer } from "../../src/index.ts";
import { type EntityType, type HopqaTask, type Relation, type Split, type Wording } from "./world.ts";
/** Turns per episode: enough for 4 searches and an answer, plus one slip. */
export declare const MAX_TURNS = 6;
/** Passages per search (top-k). */
export declare const DEFAULT_TOP_K = 2;
/**
 * Tokens (of the hopqa `tokenizer`) of each passage shown in an observation; the rest is cut with "…". Every world's
 * passage is vocabulary words between single spaces, one token each, and at most 28 of them: none is cut.
 */
export declare const PASSAGE_TOKENS = 40;
/** @deprecated The budget is counted in tokens: PASSAGE_TOKENS (the same 40; a world passage's word is one token). */
export declare const PASSAGE_WORDS = 40;
/**
 * `search(query)`: BM25 over the passages of a world, returning the raw top-k passages. The agent writes
 * `<search>query</search>`; the environment adds which world and how many passages when it calls it.
 */
export declare const searchTool: import("../../src/index.ts").Tool<Schema.Struct<{
    readonly query: Schema.String;
    readonly world: Schema.optionalKey<Schema.String>;
    readonly k: Schema.optionalKey<Schema.Int>;
}>>;
/** The process rewards of the machine (outcome rewards are fixed: 1 for a grounded exact match, else 0). */
export interface HopqaRewards {
    /** The first retrieval of each passage on the gold path (default +0.2). */
    readonly goldPassage: number;
    /** Every search (default -0.05). */
    readonly searchCost: number;
    /** A repeated query, its words in any order (default -0.1, and no gold reward). */
    readonly repeated: number;
    /** A failed search (default -0.1). */
    readonly toolFailure: number;
    /** A malformed action (default -0.1). */
    readonly malformed: number;
}
/** The rewards the environment gives unless createHopqaEnv is told others. */
export declare const DEFAULT_REWARDS: HopqaRewards;
/**
 * Lower case, every character that is not a letter or a digit read as a space (inside a name too: `ada-berg` is
 * `ada berg`), single spaces: how answers and queries are compared. Articles are kept, unlike SQuAD's normalisation:
 * `the ada berg` does not match `ada berg` (no entity name holds an article).
 */
export declare const normalize: (text: string) => string;
/**
 * How queries are compared for the repeat penalty: normalised, words sorted. BM25 scores a query as a bag of
 * words, so `born ada berg` returns what `ada berg born` did; it is the same query, and costs the repeat
 * penalty (it cost only the search's -0.05 before). A doubled word is not a repeat: it changes the scores.
 */
export declare const queryKey: (query: string) => string;
/** 1 when the prediction equals the gold answer after `normalize`, else 0. */
export declare const exactMatch: (prediction: string, gold: string) => number;
/** Token-level F1 between the normalised prediction and the gold answer (SQuAD style). */
export declare const f1Score: (prediction: string, gold: string) => number;
/** Whether the answer occurs, as whole words, in what the agent was shown. */
export declare const grounded: (answer: string, observed: string) => boolean;
/** The observation for a search result: numbered passages, each cut to PASSAGE_TOKENS tokens. */
export declare const describeResult: (result: ToolResult) => string;
/** A word every passage about an entity of a type has (and few others do): a query's fallback. */
export declare const TYPE_WORD: Readonly<Record<EntityType, string>>;
/**
 * The queries worth trying for one hop (the entity and the relation to follow), best first: the entity
 * with the relation's word, then fallbacks for when BM25 ranks another passage first.
 */
export declare const hopQueries: (entity: string, type: EntityType, relation: Relation) => string[];
/**
 * Which searches constrained decoding allows (the `legal` option): `types`, any relation that applies to the
 * entity's type; `relations` ("grammar v2" of docs/hopqa.md), only a relation of the question not yet used.
 */
export declare const LEGAL_GRAMMARS: readonly ["types", "relations"];
/** One of LEGAL_GRAMMARS. */
export type LegalGrammar = (typeof LEGAL_GRAMMARS)[number];
/** The benchmark's grammar: every shipped table and checkpoint was made under it. */
export declare const DEFAULT_LEGAL: LegalGrammar;
/**
 * Constrained decoding's legal actions: a search for an entity seen so far (in the question or a result)
 * with the word of a relation that applies to it (the forms of `hopQueries`; none already made), or an answer naming an
 * entity some result showed, of the type the question asks for. The machine accepts any other action too
 * (and penalises or scores it); these are the ones a sensible agent picks from.
 *
 * Under the `relations` grammar (`legal=relations`) a search must also follow one of the question's relations not
 * yet used (unusedRelations), or retry an (entity, relation) pair already searched, which uses none (a search that
 * missed its passage can be tried in another form); a bare entity name is no legal search; and while a relation is
 * unused and a search is left, no answer is legal: the agent answers once every relation of the question is searched.
 */
export declare const legalActions: ({ task, history }: LegalView<HopqaTask>, grammar?: LegalGrammar) => string[];
/**
 * The question's relations (sorted by name) less one per distinct (entity, relation) pair the actions searched: a
 * retry of a pair uses none. What the `relations` grammar lets the agent search next.
 */
export declare const unusedRelations: (task: HopqaTask, actions: readonly string[]) => Relation[];
/** Which progress note a search's observation ends with (the `left` option): none, or the question's unsearched phrases. */
export declare const LEFT_NOTES: readonly ["none", "phrases"];
/** One of LEFT_NOTES. */
export type LeftNote = (typeof LEFT_NOTES)[number];
/** The benchmark's observations: results only. */
export declare const DEFAULT_LEFT: LeftNote;
/**
 * The note `left=phrases` adds after a search's results: the question's phrases of the hops not yet searched
 * (hopsLeft), in the question's order, as its wording writes them (`search for : 's employer 's birthplace .`, or
 * `search for : none .` once every hop is searched). What the question says, less what was searched: the next
 * hop is always the first phrase, at every chain length.
 */
export declare const leftNote: (task: HopqaTask, queries: readonly string[]) => string;
/**
 * The hopqa tokenizer: VOCABULARY as words, with implicit spaces. Every world and every hopqa checkpoint of the
 * default wording share it.
 */
export declare const tokenizer: WordTokenizer;
/**
 * The tokenizer of a wording's environments: `tokenizer` for the default (outer) one; the possessive one has the
 * possessive phrases' words (vocabularyOf), so a checkpoint of one wording does not load under the other.
 */
export declare const tokenizerOf: (wording: Wording) => WordTokenizer;
/** Which worlds and questions an environment draws tasks from. */
export interface HopqaOptions {
    /** Which questions: train, test (held-out 2-3 hop) or ood (4-hop). */
    readonly split: Split;
    /** World seeds, as an inclusive integer range: each task picks one. */
    readonly worlds: readonly [number, number];
    /** Passages per search (default 2). */
    readonly topK: number;
    /**
     * The process rewards (default DEFAULT_REWARDS). Other rewards keep the id "hopqa": a journal recorded with
     * one set verifies only against that set (against another, replay with verify: false re-rewards it).
     */
    readonly rewards: HopqaRewards;
    /** How questions word their relations (default DEFAULT_WORDING, "outer"; see WORDINGS). */
    readonly wording?: Wording;
    /** Which searches constrained decoding allows (default DEFAULT_LEGAL, "types"; see LEGAL_GRAMMARS). */
    readonly legal?: LegalGrammar;
    /** What a search's observation adds after its results (default DEFAULT_LEFT, "none"; see LEFT_NOTES, leftNote). */
    readonly left?: LeftNote;
}
/** Training draws from worlds 1-1000; evaluation on new worlds uses seeds from 1,000,001 up. */
export declare const TRAIN_WORLDS: readonly [number, number];
/** World seeds training never draws from: the "new worlds" evaluation columns. */
export declare const NEW_WORLDS: readonly [number, number];
/** The train split of worlds 1-1000, top-2 search, DEFAULT_REWARDS, the outer wording, the types grammar. */
export declare const DEFAULT_OPTIONS: HopqaOptions;
/** The keys parseOptions reads (hopqa's `optionKeys`). */
export declare const OPTION_KEYS: readonly ["split", "world-seed", "worlds", "top-k", "wording", "legal", "left"];
/**
 * Parses `worlds=a-b` / `world-seed=S`, `split=...`, `top-k=K`, `wording=outer|possessive`, `legal=types|relations`,
 * `left=none|phrases` (the CLI's `--env hopqa?split=test&...`).
 */
export declare const parseOptions: (options: Readonly<Record<string, string>>, base?: HopqaOptions) => HopqaOptions;
/** Draws the task of a seed: a world from the range, then a question of the split. */
export declare const drawTask: (options: HopqaOptions) => (seed: string) => HopqaTask;
/**
 * A hopqa environment drawing tasks as `options` say; without the scripted policies and `configure` that `hopqa`
 * adds.
 */
export declare const createHopqaEnv: (options?: HopqaOptions) => EnvDefinition<HopqaTask>;

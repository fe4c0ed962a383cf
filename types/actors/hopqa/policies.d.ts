/**
 * Scripted policies for `hopqa`:
 * - `expert`: reads the world graph; per hop it searches `<entity> <relation keyword>` (or a fallback
 *   query when that misses the gold passage), then answers. Its demonstrations feed the warm start.
 * - `lazy`: the expert's weaker twin, a demonstrator that is often wrong in a way it cannot see: per hop it
 *   searches the bare entity name whenever that happens to retrieve the gold passage (it reads the world
 *   graph, so it knows), and the expert's query otherwise. A policy cloned from it cannot know when the bare
 *   name works (about 2 hops in 3), so it learns to search bare names, and misses the passage the rest of
 *   the time: a weak warm start whose gap is a choice (which query) that RL can find.
 * - `careless`: the expert with a habit that costs it turns: per hop, with probability 0.7 it first searches
 *   the entity with the word of another of its relations (director for studio, born for works, ...), then
 *   with the right one. It always answers right (it slips only while the turn limit leaves room), but a
 *   policy cloned from it slips on most hops, runs out of turns on longer chains, and must learn from
 *   reward to search the right relation first: a weak warm start whose gap is a choice RL can see.
 * - `hasty`: the expert with a habit that makes it wrong: on most questions (HASTE_RATE, decided by a hash of
 *   the task) it answers one hop early, naming the first entity of the asked type that its last results
 *   showed (where one was shown; otherwise it goes on like the expert). It reads every passage right; it
 *   just stops searching too soon. A policy cloned from it stops early on most questions: a weak warm start
 *   whose gap is one decision per episode (answer now, or search once more) that the outcome reward sees.
 * - `sloppy`: the expert with a habit that makes it wrong at the very end: it searches the whole chain like the
 *   expert, then on a share of the questions (SLOPPY_RATE, a hash of the task) names the wrong entity: the first
 *   one of the asked type that its latest results showed, other than the answer. A policy cloned from it reads
 *   the chain as well as the expert's clone but answers with a coin it cannot see: a weak warm start whose gap is
 *   the last choice of every episode (which entity to name), the same choice at every chain length.
 * - `rag`: naive RAG, the paper's baseline: one search with the whole question, then an answer: the first
 *   entity of the answer's type in the results.
 * - `random`: random queries and answers, for tests.
 */
import { type Tokenizer } from "../../src/index.ts";
import { type HopqaTask, type Relation } from "./world.ts";
/** The expert's queries for a task: per hop, the first candidate whose top-k holds the gold passage. */
export declare const expertQueries: (task: HopqaTask) => string[];
/** The lazy demonstrator's queries: the bare entity name where it retrieves the gold passage. */
export declare const lazyQueries: (task: HopqaTask) => string[];
/** The relation the careless demonstrator searches by mistake: another relation of the same entity type. */
export declare const CONFUSED: Readonly<Partial<Record<Relation, Relation>>>;
/** How often the careless demonstrator slips on a hop whose relation has a confusable twin. */
export declare const SLIP_RATE = 0.7;
/**
 * The careless demonstrator's queries: the expert's, each preceded (with probability SLIP_RATE, decided by
 * a hash of the task and hop, so the same task always gets the same episode) by the entity with a confused
 * relation's word. It slips only while the turn limit leaves room for the whole chain and the answer, and a
 * slip never repeats a query.
 */
export declare const carelessQueries: (task: HopqaTask) => string[];
/**
 * The expert demonstrator (see the top of this file): right on every question, its demonstrations feed the warm
 * start. Every scripted policy here encodes its actions with `words` (default the hopqa `tokenizer`; an
 * environment of another wording passes its own, tokenizerOf).
 */
export declare const expertPolicy: (words?: Tokenizer) => import("../../src/index.ts").Policy;
/** How often the hasty demonstrator answers one hop early (where its results showed a candidate). */
export declare const HASTE_RATE = 0.7;
/** Whether the hasty demonstrator stops early on a task (a hash of the task, so the same task always does). */
export declare const hastyOn: (task: HopqaTask, rate?: number) => boolean;
/**
 * The hasty demonstrator's early answer, given what it was shown: the entity of the asked type named first in
 * the latest result that names one (other than the right answer), or undefined when no result named one.
 */
export declare const hastyAnswer: (task: HopqaTask, results: readonly string[]) => string | undefined;
/**
 * The hasty demonstrator; `rate` is the share of questions it answers early on (HASTE_RATE by default). Its
 * id names any other rate (`hopqa-hasty@0.5` for half-hasty), so a journal says which demonstrator wrote it.
 */
export declare const hastyPolicy: (rate?: number, words?: Tokenizer) => import("../../src/index.ts").Policy;
/** How often the sloppy demonstrator names a wrong entity at the end (where its results showed one). */
export declare const SLOPPY_RATE = 0.8;
/** Whether the sloppy demonstrator answers wrong on a task (a hash of the task, so the same task always does). */
export declare const sloppyOn: (task: HopqaTask, rate?: number) => boolean;
/**
 * The sloppy demonstrator; `rate` is the share of questions it answers wrong on (SLOPPY_RATE by default; its id
 * names any other rate, `hopqa-sloppy@0.5`). It searches as the expert does; its wrong answer is hastyAnswer's
 * choice after the whole chain: the first entity of the asked type in the latest result that names one.
 */
export declare const sloppyPolicy: (rate?: number, words?: Tokenizer) => import("../../src/index.ts").Policy;
/** The lazy demonstrator: searches bare entity names where that happens to work (see the top of this file). */
export declare const lazyPolicy: (words?: Tokenizer) => import("../../src/index.ts").Policy;
/** The careless demonstrator: often searches a confused relation first (see the top of this file). */
export declare const carelessPolicy: (words?: Tokenizer) => import("../../src/index.ts").Policy;
/**
 * Naive RAG, the paper's baseline: one search with the whole question, then the first entity of the answer's type.
 */
export declare const ragPolicy: (words?: Tokenizer) => import("../../src/index.ts").Policy;
/** Random queries and answers, for tests. */
export declare const randomPolicy: (words?: Tokenizer) => import("../../src/index.ts").Policy;

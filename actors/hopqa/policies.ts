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
import { formatAnswer, formatCall, type PolicyRequest, type Rng, type Tokenizer } from "../../src/index.ts";
import { scriptedPolicy } from "../../src/runtime/scripted-policy.ts";
import { DEFAULT_TOP_K, hopQueries, MAX_TURNS, searchTool, tokenizer } from "./env.ts";
import { worldOf } from "./search.ts";
import { fnv1a, type HopqaTask, NAME_POOLS, questionText, RELATIONS, type Relation, solveQuestion } from "./world.ts";

const search = (query: string) => formatCall(searchTool, { query });
const actionsSoFar = (request: PolicyRequest) => request.history.filter((t) => t.role === "action").length;

/** The expert's queries for a task: per hop, the first candidate whose top-k holds the gold passage. */
export const expertQueries = (task: HopqaTask): string[] => {
  const indexed = worldOf(task.world);
  const solved = solveQuestion(indexed.world, task);
  const k = Number(task.topK ?? DEFAULT_TOP_K);
  return task.chain.map((relation, hop) => {
    const entity = solved.path[hop];
    const candidates = hopQueries(entity, RELATIONS[relation as Relation].from, relation as Relation);
    return candidates.find((q) => indexed.search(q, k).some((p) => p.id === solved.gold[hop])) ?? candidates[0];
  });
};

/** The lazy demonstrator's queries: the bare entity name where it retrieves the gold passage. */
export const lazyQueries = (task: HopqaTask): string[] => {
  const indexed = worldOf(task.world);
  const solved = solveQuestion(indexed.world, task);
  const k = Number(task.topK ?? DEFAULT_TOP_K);
  return expertQueries(task).map((query, hop) =>
    indexed.search(solved.path[hop], k).some((p) => p.id === solved.gold[hop]) ? solved.path[hop] : query,
  );
};

/** The relation the careless demonstrator searches by mistake: another relation of the same entity type. */
export const CONFUSED: Readonly<Partial<Record<Relation, Relation>>> = {
  director: "studio",
  studio: "director",
  birthplace: "employer",
  employer: "mentor",
  mentor: "birthplace",
  headquarters: "founder",
  founder: "headquarters",
};
/** How often the careless demonstrator slips on a hop whose relation has a confusable twin. */
export const SLIP_RATE = 0.7;

/**
 * The careless demonstrator's queries: the expert's, each preceded (with probability SLIP_RATE, decided by
 * a hash of the task and hop, so the same task always gets the same episode) by the entity with a confused
 * relation's word. It slips only while the turn limit leaves room for the whole chain and the answer, and a
 * slip never repeats a query.
 */
export const carelessQueries = (task: HopqaTask): string[] => {
  const solved = solveQuestion(worldOf(task.world).world, task);
  const right = expertQueries(task);
  let spare = MAX_TURNS - 1 - right.length;
  const out: string[] = [];
  const identity = JSON.stringify([task.world, task.start, task.chain, task.phrasing]);
  task.chain.forEach((relation, hop) => {
    const confused = CONFUSED[relation as Relation];
    const slip = confused && `${solved.path[hop]} ${RELATIONS[confused].keyword}`;
    if (
      slip &&
      spare > 0 &&
      !out.includes(slip) &&
      !right.includes(slip) &&
      fnv1a(`careless:${identity}:${hop}`) / 2 ** 32 < SLIP_RATE
    ) {
      out.push(slip);
      spare--;
    }
    out.push(right[hop]);
  });
  return out;
};

const scriptedExpert = (id: string, queriesOf: (task: HopqaTask) => string[], words: Tokenizer) =>
  scriptedPolicy<HopqaTask>(id, words, (request) => {
    const task = request.task;
    const queries = queriesOf(task);
    const done = actionsSoFar(request);
    if (done < queries.length) return search(queries[done]);
    return formatAnswer(solveQuestion(worldOf(task.world).world, task).answer);
  });

/**
 * The expert demonstrator (see the top of this file): right on every question, its demonstrations feed the warm
 * start. Every scripted policy here encodes its actions with `words` (default the hopqa `tokenizer`; an
 * environment of another wording passes its own, tokenizerOf).
 */
export const expertPolicy = (words: Tokenizer = tokenizer) => scriptedExpert("hopqa-expert", expertQueries, words);

/** How often the hasty demonstrator answers one hop early (where its results showed a candidate). */
export const HASTE_RATE = 0.7;

/** Whether a demonstrator's habit `habit` takes a task: a hash of the two below `rate`, so the same task always is. */
const habitOn = (habit: string, task: HopqaTask, rate: number): boolean =>
  fnv1a(`${habit}:${JSON.stringify([task.world, task.start, task.chain, task.phrasing])}`) / 2 ** 32 < rate;

/** Whether the hasty demonstrator stops early on a task (a hash of the task, so the same task always does). */
export const hastyOn = (task: HopqaTask, rate = HASTE_RATE): boolean => habitOn("hasty", task, rate);

/**
 * The hasty demonstrator's early answer, given what it was shown: the entity of the asked type named first in
 * the latest result that names one (other than the right answer), or undefined when no result named one.
 */
export const hastyAnswer = (task: HopqaTask, results: readonly string[]): string | undefined => {
  const world = worldOf(task.world).world;
  const asked = RELATIONS[task.chain.at(-1) as Relation].to;
  const right = solveQuestion(world, task).answer;
  for (const text of [...results].reverse()) {
    const name = firstOfType(task, text, asked, right);
    if (name !== undefined) return name;
  }
  return undefined;
};

/**
 * The hasty demonstrator; `rate` is the share of questions it answers early on (HASTE_RATE by default). Its
 * id names any other rate (`hopqa-hasty@0.5` for half-hasty), so a journal says which demonstrator wrote it.
 */
export const hastyPolicy = (rate = HASTE_RATE, words: Tokenizer = tokenizer) =>
  scriptedPolicy<HopqaTask>(rate === HASTE_RATE ? "hopqa-hasty" : `hopqa-hasty@${rate}`, words, (request) => {
    const task = request.task;
    const queries = expertQueries(task);
    const done = actionsSoFar(request);
    if (done === queries.length - 1 && hastyOn(task, rate)) {
      const results = request.history.filter((t) => t.role === "observation").map((t) => t.text);
      const early = hastyAnswer(task, results.slice(1));
      if (early !== undefined) return formatAnswer(early);
    }
    if (done < queries.length) return search(queries[done]);
    return formatAnswer(solveQuestion(worldOf(task.world).world, task).answer);
  });
/** How often the sloppy demonstrator names a wrong entity at the end (where its results showed one). */
export const SLOPPY_RATE = 0.8;

/** Whether the sloppy demonstrator answers wrong on a task (a hash of the task, so the same task always does). */
export const sloppyOn = (task: HopqaTask, rate = SLOPPY_RATE): boolean => habitOn("sloppy", task, rate);

/**
 * The sloppy demonstrator; `rate` is the share of questions it answers wrong on (SLOPPY_RATE by default; its id
 * names any other rate, `hopqa-sloppy@0.5`). It searches as the expert does; its wrong answer is hastyAnswer's
 * choice after the whole chain: the first entity of the asked type in the latest result that names one.
 */
export const sloppyPolicy = (rate = SLOPPY_RATE, words: Tokenizer = tokenizer) =>
  scriptedPolicy<HopqaTask>(rate === SLOPPY_RATE ? "hopqa-sloppy" : `hopqa-sloppy@${rate}`, words, (request) => {
    const task = request.task;
    const queries = expertQueries(task);
    const done = actionsSoFar(request);
    if (done < queries.length) return search(queries[done]);
    if (sloppyOn(task, rate)) {
      const results = request.history.filter((t) => t.role === "observation").map((t) => t.text);
      const wrong = hastyAnswer(task, results.slice(1));
      if (wrong !== undefined) return formatAnswer(wrong);
    }
    return formatAnswer(solveQuestion(worldOf(task.world).world, task).answer);
  });

/** The lazy demonstrator: searches bare entity names where that happens to work (see the top of this file). */
export const lazyPolicy = (words: Tokenizer = tokenizer) => scriptedExpert("hopqa-lazy", lazyQueries, words);
/** The careless demonstrator: often searches a confused relation first (see the top of this file). */
export const carelessPolicy = (words: Tokenizer = tokenizer) =>
  scriptedExpert("hopqa-careless", carelessQueries, words);

/** The first entity of a type named in a text (by position), other than the excluded one. */
const firstOfType = (task: HopqaTask, text: string, type: string, exclude: string): string | undefined => {
  let best: { at: number; name: string } | undefined;
  for (const e of worldOf(task.world).world.entities) {
    if (e.type !== type || e.name === exclude) continue;
    const at = ` ${text} `.indexOf(` ${e.name} `);
    if (at >= 0 && (best === undefined || at < best.at)) best = { at, name: e.name };
  }
  return best?.name;
};

/**
 * Naive RAG, the paper's baseline: one search with the whole question, then the first entity of the answer's type.
 */
export const ragPolicy = (words: Tokenizer = tokenizer) =>
  scriptedPolicy<HopqaTask>("hopqa-rag", words, (request) => {
    const task = request.task;
    if (actionsSoFar(request) === 0) return search(questionText(task));
    const last = request.history.at(-1);
    const type = RELATIONS[task.chain.at(-1) as Relation].to;
    return formatAnswer(firstOfType(task, last?.text ?? "", type, task.start) ?? "unknown");
  });

const WORDS = [...NAME_POOLS.city, ...NAME_POOLS.film, "born", "director", "the", "of"];

/** Random queries and answers, for tests. */
export const randomPolicy = (words: Tokenizer = tokenizer) =>
  scriptedPolicy<HopqaTask>("hopqa-random", words, (_request, rng: Rng) => {
    const roll = rng.float();
    const words = Array.from({ length: rng.int(1, 4) }, () => rng.pick(WORDS)).join(" ");
    if (roll < 0.5) return search(words);
    if (roll < 0.8) return formatAnswer(words);
    return words;
  });

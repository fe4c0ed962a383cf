/**
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
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  defineTool,
  type EnvDefinition,
  type EnvInput,
  end,
  formatAnswer,
  formatCall,
  type LegalView,
  observe,
  parseAction,
  Rng,
  reward,
  Schema,
  type ToolResult,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { closestName, didYouMean } from "../../src/kernel/errors.ts";
import { worldOf } from "./search.ts";
import {
  DEFAULT_WORDING,
  drawQuestion,
  type Entity,
  type EntityType,
  fnv1a,
  type HopqaTask,
  PHRASES_OF,
  questionText,
  RELATION_NAMES,
  RELATIONS,
  type Relation,
  SPLITS,
  type Split,
  solveQuestion,
  VOCABULARY,
  vocabularyOf,
  WORDINGS,
  type Wording,
  type World,
  wordingOf,
} from "./world.ts";

/** Turns per episode: enough for 4 searches and an answer, plus one slip. */
export const MAX_TURNS = 6;
/** Passages per search (top-k). */
export const DEFAULT_TOP_K = 2;
/**
 * Tokens (of the hopqa `tokenizer`) of each passage shown in an observation; the rest is cut with "…". Every world's
 * passage is vocabulary words between single spaces, one token each, and at most 28 of them: none is cut.
 */
export const PASSAGE_TOKENS = 40;
/** @deprecated The budget is counted in tokens: PASSAGE_TOKENS (the same 40; a world passage's word is one token). */
export const PASSAGE_WORDS = PASSAGE_TOKENS;

/**
 * `search(query)`: BM25 over the passages of a world, returning the raw top-k passages. The agent writes
 * `<search>query</search>`; the environment adds which world and how many passages when it calls it.
 */
export const searchTool = defineTool({
  name: "search",
  description: "BM25 search over the world's passages; returns the top-k passages with their ids.",
  parameters: Schema.Struct({
    query: Schema.String,
    world: Schema.optionalKey(Schema.String),
    k: Schema.optionalKey(Schema.Int),
  }),
  timeoutMs: 2000,
  execute: ({ query, world, k }) => {
    if (world === undefined) throw new Error("search needs a world: the hopqa environment passes it");
    return worldOf(world)
      .search(query, Math.max(1, Math.min(k ?? DEFAULT_TOP_K, 10)))
      .map((p) => ({ id: p.id, text: p.text }));
  },
});
const tools = { search: searchTool };

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
export const DEFAULT_REWARDS: HopqaRewards = {
  goldPassage: 0.2,
  searchCost: -0.05,
  repeated: -0.1,
  toolFailure: -0.1,
  malformed: -0.1,
};

interface Context {
  task: HopqaTask;
  topK: number;
  turn: number;
  queries: string[];
  /** Passage ids seen so far, and the text of every observation (for grounding the answer). */
  seen: number[];
  observed: string;
  pending: string;
  feedback: string;
  /** The last search's process reward and its reason, computed once when its result arrives. */
  process: [number, string];
  /** The answer's scores, computed once when the agent answers. */
  scored: Outcome | null;
}

/**
 * Lower case, every character that is not a letter or a digit read as a space (inside a name too: `ada-berg` is
 * `ada berg`), single spaces: how answers and queries are compared. Articles are kept, unlike SQuAD's normalisation:
 * `the ada berg` does not match `ada berg` (no entity name holds an article).
 */
export const normalize = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .split(/\s+/)
    .filter(Boolean)
    .join(" ");

/**
 * How queries are compared for the repeat penalty: normalised, words sorted. BM25 scores a query as a bag of
 * words, so `born ada berg` returns what `ada berg born` did; it is the same query, and costs the repeat
 * penalty (it cost only the search's -0.05 before). A doubled word is not a repeat: it changes the scores.
 */
export const queryKey = (query: string): string => normalize(query).split(" ").sort().join(" ");

/** 1 when the prediction equals the gold answer after `normalize`, else 0. */
export const exactMatch = (prediction: string, gold: string): number =>
  normalize(prediction) === normalize(gold) ? 1 : 0;

/** Token-level F1 between the normalised prediction and the gold answer (SQuAD style). */
export const f1Score = (prediction: string, gold: string): number => {
  const p = normalize(prediction).split(" ").filter(Boolean);
  const g = normalize(gold).split(" ").filter(Boolean);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const w of g) counts.set(w, (counts.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of p) {
    const n = counts.get(w) ?? 0;
    if (n > 0) {
      common++;
      counts.set(w, n - 1);
    }
  }
  if (common === 0) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
};

/** Whether the answer occurs, as whole words, in what the agent was shown. */
export const grounded = (answer: string, observed: string): boolean => {
  const a = normalize(answer);
  return a.length > 0 && ` ${normalize(observed)} `.includes(` ${a} `);
};

// Counted in tokens, not in space-separated words: punctuation written without spaces, a word outside the
// vocabulary (spelled out a character at a time) or a tab are each more tokens than words.
const cutTokens = (text: string, budget: number) => {
  const ids = tokenizer.encode(text);
  return ids.length <= budget ? text : `${tokenizer.decode(ids.slice(0, budget)).trimEnd()} …`;
};

/** The observation for a search result: numbered passages, each cut to PASSAGE_TOKENS tokens. */
export const describeResult = (result: ToolResult): string => {
  if (!result.ok) return `error : search failed ( ${result.error.kind} ) .`;
  const passages = Array.isArray(result.content) ? (result.content as { text?: unknown }[]) : [];
  if (passages.length === 0) return "results : none .";
  return `results : ${passages.map((p, i) => `[ ${i + 1} ] ${cutTokens(String(p.text), PASSAGE_TOKENS)}`).join(" ")}`;
};

const idsOf = (result: ToolResult): number[] =>
  result.ok && Array.isArray(result.content)
    ? (result.content as { id?: unknown }[]).map((p) => Number(p.id)).filter(Number.isInteger)
    : [];

const parsed = (text: string) => parseAction(text, tools);
const answerText = (text: string) => {
  const action = parsed(text);
  return action.kind === "answer" ? action.text : "";
};
const queryText = (text: string) => {
  const action = parsed(text);
  return action.kind === "call" ? String((action.args as { query: string }).query) : "";
};

/** A word every passage about an entity of a type has (and few others do): a query's fallback. */
export const TYPE_WORD: Readonly<Record<EntityType, string>> = {
  film: "film",
  city: "city",
  company: "company",
  country: "whose",
  person: "was",
};

/**
 * The queries worth trying for one hop (the entity and the relation to follow), best first: the entity
 * with the relation's word, then fallbacks for when BM25 ranks another passage first.
 */
export const hopQueries = (entity: string, type: EntityType, relation: Relation): string[] => {
  const keyword = RELATIONS[relation].keyword;
  const last = entity.split(" ").at(-1) as string;
  return [
    `${entity} ${keyword}`,
    `${entity} ${TYPE_WORD[type]} ${keyword}`,
    `${entity} ${entity} ${keyword}`,
    `${entity} ${last} ${keyword}`,
    entity,
    `${entity} ${keyword} ${keyword}`,
  ];
};

/** The world's entities named in a text (whole words), in the world's order. */
const entitiesIn = (world: World, text: string): Entity[] => {
  const padded = ` ${text} `;
  return world.entities.filter((e) => padded.includes(` ${e.name} `));
};

/**
 * Which searches constrained decoding allows (the `legal` option): `types`, any relation that applies to the
 * entity's type; `relations` ("grammar v2" of docs/hopqa.md), only a relation of the question not yet used.
 */
export const LEGAL_GRAMMARS = ["types", "relations"] as const;
/** One of LEGAL_GRAMMARS. */
export type LegalGrammar = (typeof LEGAL_GRAMMARS)[number];
/** The benchmark's grammar: every shipped table and checkpoint was made under it. */
export const DEFAULT_LEGAL: LegalGrammar = "types";

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
export const legalActions = (
  { task, history }: LegalView<HopqaTask>,
  grammar: LegalGrammar = DEFAULT_LEGAL,
): string[] => {
  const world = worldOf(task.world).world;
  const observations = history.filter((t) => t.role === "observation").map((t) => t.text);
  const named = entitiesIn(world, observations.join(" \n "));
  const inResults = entitiesIn(world, observations.slice(1).join(" \n "));
  // A query already made (in any word order) returns the same results again (and costs a repeat penalty): never legal twice.
  const actions = history.filter((t) => t.role === "action").map((t) => t.text);
  const made = new Set(actions.map((text) => queryKey(queryText(text))));
  // The (entity, relation) pairs searched, read once: what is left of the question and what may be retried.
  const pairs = grammar === "relations" ? pairsOf(task, actions) : null;
  const remaining = pairs === null ? null : relationsLeft(task, pairs);
  const tried = new Set(pairs);
  const searches = new Set<string>();
  for (const entity of named)
    for (const relation of RELATION_NAMES)
      if (
        RELATIONS[relation].from === entity.type &&
        (remaining === null || remaining.includes(relation) || tried.has(`${entity.name}|${relation}`))
      )
        for (const query of hopQueries(entity.name, entity.type, relation)) {
          if (remaining !== null && query === entity.name) continue;
          if (!made.has(queryKey(query))) searches.add(formatCall(searchTool, { query }));
        }
  if (remaining !== null && remaining.length > 0 && searches.size > 0) return [...searches];
  // The question says what kind of thing it asks for ("name the city where ..."): answers are of that type.
  const asked = RELATIONS[task.chain.at(-1) as Relation].to;
  return [...searches, ...inResults.filter((e) => e.type === asked).map((e) => formatAnswer(e.name))];
};

/** "entity|relation" for each search: the first entity of the world the query names, the relation whose word it has. */
const pairsOf = (task: HopqaTask, actions: readonly string[]): string[] => pairsOfQueries(task, actions.map(queryText));

/** pairsOf from the queries themselves (the machine keeps its queries, not the actions). */
const pairsOfQueries = (task: HopqaTask, queries: readonly string[]): string[] => {
  const world = worldOf(task.world).world;
  const pairs: string[] = [];
  for (const query of queries) {
    const words = new Set(query.split(/\s+/));
    const entity = entitiesIn(world, query)[0];
    if (entity === undefined) continue;
    for (const relation of RELATION_NAMES)
      if (words.has(RELATIONS[relation].keyword)) pairs.push(`${entity.name}|${relation}`);
  }
  return pairs;
};

/**
 * The question's relations (sorted by name) less one per distinct (entity, relation) pair the actions searched: a
 * retry of a pair uses none. What the `relations` grammar lets the agent search next.
 */
export const unusedRelations = (task: HopqaTask, actions: readonly string[]): Relation[] =>
  relationsLeft(task, pairsOf(task, actions));

/** unusedRelations from the pairs already read (pairsOf). */
const relationsLeft = (task: HopqaTask, pairs: readonly string[]): Relation[] =>
  hopsLeft(task, pairs)
    .map((i) => task.chain[i] as Relation)
    .sort();

/**
 * The question's hops (indexes into its chain) not yet searched, in the question's order: each distinct (entity,
 * relation) pair searched (pairsOf) uses the first unused hop of that relation. What the `relations` grammar and
 * the `left` note both read.
 */
const hopsLeft = (task: HopqaTask, pairs: readonly string[]): number[] => {
  const left = task.chain.map((_, i) => i);
  for (const pair of new Set(pairs)) {
    const relation = pair.split("|")[1];
    const at = left.findIndex((i) => task.chain[i] === relation);
    if (at >= 0) left.splice(at, 1);
  }
  return left;
};

/** Which progress note a search's observation ends with (the `left` option): none, or the question's unsearched phrases. */
export const LEFT_NOTES = ["none", "phrases"] as const;
/** One of LEFT_NOTES. */
export type LeftNote = (typeof LEFT_NOTES)[number];
/** The benchmark's observations: results only. */
export const DEFAULT_LEFT: LeftNote = "none";

/**
 * The note `left=phrases` adds after a search's results: the question's phrases of the hops not yet searched
 * (hopsLeft), in the question's order, as its wording writes them (`search for : 's employer 's birthplace .`, or
 * `search for : none .` once every hop is searched). What the question says, less what was searched: the next
 * hop is always the first phrase, at every chain length.
 */
export const leftNote = (task: HopqaTask, queries: readonly string[]): string => {
  const phrases = PHRASES_OF[wordingOf(task)];
  const left = hopsLeft(task, pairsOfQueries(task, queries)).map((i) =>
    phrases[task.chain[i] as Relation][task.phrasing[i] ?? 0].replace("{x}", "").replace(/\s+/g, " ").trim(),
  );
  return `search for : ${left.length === 0 ? "none" : left.join(" , ")} .`;
};

const goldOf = (task: HopqaTask) => solveQuestion(worldOf(task.world).world, task);

/** Rewards are sums of a few decimals: rounded, so that -0.05 + -0.1 is -0.15 exactly. */
const round = (x: number) => Math.round(x * 1e9) / 1e9;

/** The process reward of a search result, and its reason. */
const searchReward = (context: Context, result: ToolResult, rewards: HopqaRewards): [number, string] => {
  const [value, reason] = searchRewardRaw(context, result, rewards);
  return [round(value), reason];
};
const searchRewardRaw = (context: Context, result: ToolResult, rewards: HopqaRewards): [number, string] => {
  if (!result.ok) return [rewards.searchCost + rewards.toolFailure, "search failed"];
  const key = queryKey(context.pending);
  if (context.queries.some((made) => queryKey(made) === key))
    return [rewards.searchCost + rewards.repeated, "repeated query"];
  const gold = goldOf(context.task).gold;
  const fresh = idsOf(result).filter((id) => gold.includes(id) && !context.seen.includes(id));
  if (fresh.length === 0) return [rewards.searchCost, "search found no new gold passage"];
  return [rewards.searchCost + rewards.goldPassage * fresh.length, `retrieved ${fresh.length} new gold passage(s)`];
};

interface Outcome {
  answer: string;
  em: number;
  f1: number;
  grounded: number;
  recall: number;
}
const scoredOf = (context: Context): Outcome => context.scored as Outcome;

const outcome = (context: Context, text: string): Outcome => {
  const answer = answerText(text);
  const gold = goldOf(context.task);
  const em = exactMatch(answer, gold.answer);
  const isGrounded = grounded(answer, context.observed) ? 1 : 0;
  const recall = gold.gold.filter((id) => context.seen.includes(id)).length / gold.gold.length;
  return { answer, em, f1: f1Score(answer, gold.answer), grounded: isGrounded, recall };
};

const createMachine = (rewards: HopqaRewards) =>
  setup({
    types: {
      context: {} as Context,
      events: {} as AgentActEvent,
      input: {} as EnvInput<HopqaTask>,
    },
    actors: toolActors(tools),
    guards: { outOfTurns: ({ context }) => context.turn >= MAX_TURNS },
  }).createMachine({
    id: "hopqa",
    context: ({ input }) => ({
      task: input.task,
      topK: Number(input.task.topK ?? DEFAULT_TOP_K),
      turn: 0,
      queries: [],
      seen: [],
      observed: "",
      pending: "",
      feedback: "",
      process: [0, ""],
      scored: null,
    }),
    initial: "awaiting",
    entry: observe(({ context }) => `question : ${questionText(context.task)}`),
    states: {
      awaiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => parsed(event.text).kind === "answer",
              target: "done",
              actions: [
                assign({
                  turn: ({ context }) => context.turn + 1,
                  scored: ({ context, event }) => outcome(context, event.text),
                }),
                reward(
                  "outcome",
                  ({ context }) => scoredOf(context).em * scoredOf(context).grounded,
                  ({ context }) => {
                    const o = scoredOf(context);
                    if (o.em === 0) return "wrong answer";
                    return o.grounded
                      ? "correct answer, found by search"
                      : "correct answer never seen in a result: a guess";
                  },
                ),
                end("answered", ({ context }) => {
                  const o = scoredOf(context);
                  return {
                    em: o.em,
                    f1: o.f1,
                    success: o.em,
                    grounded: o.grounded,
                    recall: o.recall,
                    searches: context.queries.length,
                  };
                }),
              ],
            },
            {
              guard: ({ event }) => parsed(event.text).kind === "call",
              target: "searching",
              actions: assign({
                turn: ({ context }) => context.turn + 1,
                pending: ({ event }) => queryText(event.text),
              }),
            },
            {
              target: "checkTurns",
              actions: [
                assign({
                  turn: ({ context }) => context.turn + 1,
                  feedback: () => "error : malformed action . use <search>query</search> or <answer>text</answer> .",
                }),
                reward("process", rewards.malformed, "malformed action"),
              ],
            },
          ],
        },
      },
      searching: {
        invoke: {
          src: "search",
          input: ({ context }: { context: Context }) => ({
            world: context.task.world,
            query: context.pending,
            k: context.topK,
          }),
          onDone: {
            target: "checkTurns",
            actions: [
              // One pass over the result: its reward is judged against what was seen before it.
              assign(({ context, event }) => {
                const result = event.output as ToolResult;
                const queries = [...context.queries, normalize(context.pending)];
                const note = context.task.left === "phrases" ? ` ${leftNote(context.task, queries)}` : "";
                const feedback = `${describeResult(result)}${note}`;
                return {
                  process: searchReward(context, result, rewards),
                  // Kept as normalised, not as queryKey: the context's hash is journaled, and journals recorded
                  // before reordered queries counted as repeats still verify up to such a query.
                  queries,
                  seen: [...context.seen, ...idsOf(result).filter((id) => !context.seen.includes(id))],
                  observed: `${context.observed} ${feedback}`,
                  feedback,
                };
              }),
              reward(
                "process",
                ({ context }) => context.process[0],
                ({ context }) => context.process[1],
              ),
            ],
          },
        },
      },
      checkTurns: {
        always: [
          {
            guard: "outOfTurns",
            target: "done",
            actions: [
              reward("outcome", 0, "turn limit"),
              end("turn-limit", ({ context }) => ({
                em: 0,
                f1: 0,
                success: 0,
                grounded: 0,
                recall:
                  goldOf(context.task).gold.filter((id) => context.seen.includes(id)).length /
                  goldOf(context.task).gold.length,
                searches: context.queries.length,
              })),
            ],
          },
          { target: "awaiting", actions: observe(({ context }) => context.feedback) },
        ],
      },
      done: { type: "final" },
    },
  });

/**
 * The hopqa tokenizer: VOCABULARY as words, with implicit spaces. Every world and every hopqa checkpoint of the
 * default wording share it.
 */
export const tokenizer = new WordTokenizer([...VOCABULARY], { spaces: "implicit" });
const tokenizers: Record<Wording, WordTokenizer> = {
  outer: tokenizer,
  possessive: new WordTokenizer([...vocabularyOf("possessive")], { spaces: "implicit" }),
};
/**
 * The tokenizer of a wording's environments: `tokenizer` for the default (outer) one; the possessive one has the
 * possessive phrases' words (vocabularyOf), so a checkpoint of one wording does not load under the other.
 */
export const tokenizerOf = (wording: Wording): WordTokenizer => tokenizers[wording];

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
export const TRAIN_WORLDS: readonly [number, number] = [1, 1000];
/** World seeds training never draws from: the "new worlds" evaluation columns. */
export const NEW_WORLDS: readonly [number, number] = [1_000_001, 1_000_200];
/** The train split of worlds 1-1000, top-2 search, DEFAULT_REWARDS, the outer wording, the types grammar. */
export const DEFAULT_OPTIONS: HopqaOptions = {
  split: "train",
  worlds: TRAIN_WORLDS,
  topK: DEFAULT_TOP_K,
  rewards: DEFAULT_REWARDS,
  wording: DEFAULT_WORDING,
  legal: DEFAULT_LEGAL,
  left: DEFAULT_LEFT,
};

const machines = new Map<string, ReturnType<typeof createMachine>>();
const machineFor = (rewards: HopqaRewards) => {
  const key = JSON.stringify(rewards);
  let machine = machines.get(key);
  if (!machine) {
    machine = createMachine(rewards);
    machines.set(key, machine);
  }
  return machine;
};

/** An option's value that must be one of `choices`, else a RangeError naming the option, the value and the choices. */
const oneOf = <T extends string>(key: string, value: string, choices: readonly T[]): T => {
  if (!(choices as readonly string[]).includes(value))
    throw new RangeError(
      `hopqa: ${key} must be one of ${choices.join(", ")}, got "${value}"${didYouMean(closestName(value, choices))}`,
    );
  return value as T;
};

/** The keys parseOptions reads (hopqa's `optionKeys`). */
export const OPTION_KEYS = ["split", "world-seed", "worlds", "top-k", "wording", "legal", "left"] as const;

/**
 * Parses `worlds=a-b` / `world-seed=S`, `split=...`, `top-k=K`, `wording=outer|possessive`, `legal=types|relations`,
 * `left=none|phrases` (the CLI's `--env hopqa?split=test&...`).
 */
export const parseOptions = (options: Readonly<Record<string, string>>, base = DEFAULT_OPTIONS): HopqaOptions => {
  let { split, worlds, topK, wording = DEFAULT_WORDING, legal = DEFAULT_LEGAL, left = DEFAULT_LEFT } = base;
  if ("world-seed" in options && "worlds" in options)
    throw new RangeError(
      `hopqa: world-seed and worlds both choose the worlds (got "${options["world-seed"]}" and "${options.worlds}"); give one`,
    );
  for (const [key, value] of Object.entries(options)) {
    if (key === "split") split = oneOf(key, value, SPLITS);
    else if (key === "world-seed" || key === "worlds") {
      const match = /^(\d+)(?:-(\d+))?$/.exec(value);
      const from = Number(match?.[1]);
      const to = Number(match?.[2] ?? match?.[1]);
      if (match && Number.isSafeInteger(from) && Number.isSafeInteger(to) && to < from)
        throw new RangeError(`hopqa: ${key} "${value}" is a range backwards (${from} > ${to}): give ${to}-${from}`);
      if (!match || !Number.isSafeInteger(from) || !Number.isSafeInteger(to))
        throw new RangeError(
          `hopqa: ${key} must be a world number in decimal digits (0 to ${Number.MAX_SAFE_INTEGER}; no sign, point or exponent) or a range a-b of them, got "${value}"`,
        );
      worlds = [from, to];
    } else if (key === "top-k") {
      // Decimal digits only, as world-seed: Number() alone read "0x3", " 3" and "3e0" as 3.
      const k = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isInteger(k) || k < 1 || k > 10)
        throw new RangeError(`hopqa: top-k must be an integer in [1, 10], got "${value}"`);
      topK = k;
    } else if (key === "wording") wording = oneOf(key, value, WORDINGS);
    else if (key === "legal") legal = oneOf(key, value, LEGAL_GRAMMARS);
    else if (key === "left") left = oneOf(key, value, LEFT_NOTES);
    else throw new RangeError(`hopqa: unknown option "${key}"; known: ${OPTION_KEYS.join(", ")}`);
  }
  return { ...base, split, worlds, topK, wording, legal, left };
};

/** Draws the task of a seed: a world from the range, then a question of the split. */
export const drawTask =
  (options: HopqaOptions) =>
  (seed: string): HopqaTask => {
    const [from, to] = options.worlds;
    const span = to - from + 1;
    // A hash of the seed picks the world: its 32 bits for a range of up to 2^32 worlds (every default, table and
    // journal), a draw of the seed's own stream for a wider one, which the hash alone left past its first 2^32
    // worlds unreached (worlds=0-9007199254740991 drew only worlds below 4294967296).
    const offset = span <= 2 ** 32 ? fnv1a(`${seed}:world`) % span : Rng.fromSeed(`${seed}:world`).int(0, span - 1);
    const world = String(from + offset);
    const task = drawQuestion(worldOf(world).world, options.split, seed);
    // Only what differs from the defaults: the benchmark's tasks stay as they were recorded.
    const wording = options.wording ?? DEFAULT_WORDING;
    return {
      ...task,
      ...(options.topK === DEFAULT_TOP_K ? {} : { topK: options.topK }),
      ...(wording === DEFAULT_WORDING ? {} : { wording }),
      ...((options.left ?? DEFAULT_LEFT) === DEFAULT_LEFT ? {} : { left: options.left as LeftNote }),
    };
  };

/**
 * A hopqa environment drawing tasks as `options` say; without the scripted policies and `configure` that `hopqa`
 * adds.
 */
export const createHopqaEnv = (options: HopqaOptions = DEFAULT_OPTIONS): EnvDefinition<HopqaTask> => {
  const wording = options.wording ?? DEFAULT_WORDING;
  const legal = options.legal ?? DEFAULT_LEGAL;
  const left = options.left ?? DEFAULT_LEFT;
  const more = `${wording === DEFAULT_WORDING ? "" : `, ${wording} wording`}${legal === DEFAULT_LEGAL ? "" : `, legal ${legal}`}${left === DEFAULT_LEFT ? "" : `, left ${left}`}`;
  return defineEnv<HopqaTask>({
    id: "hopqa",
    version: "3",
    description: `Multi-hop questions over a synthetic world with a BM25 search tool (split ${options.split}, worlds ${options.worlds.join("-")}, top-${options.topK}${more}).`,
    machine: machineFor(options.rewards),
    tools,
    tokenizer: tokenizerOf(wording),
    task: drawTask(options),
    maxTurns: MAX_TURNS + 2,
    // A 4-hop episode takes up to about 330 tokens; at width 64 the model never learned to copy names (measured:
    // no progress in 600 steps), at 128 it does. The copy head lifts a clone of the same demonstrations
    // from 0.253 to 0.403 average exact match on hopqa v2 (docs/hopqa.md); the experiment's recipe pins its own model.
    model: { width: 128, contextLength: 384, copy: true },
    legalActions: legal === DEFAULT_LEGAL ? legalActions : (view) => legalActions(view, legal),
    // eval's `groups`: exact match by chain length, where 2-3 hop test and 4-hop ood questions differ most.
    taskGroup: (task) => `${task.chain.length} hops`,
  });
};

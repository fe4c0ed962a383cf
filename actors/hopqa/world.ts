/**
 * The hopqa world: a seeded generator of a small synthetic encyclopedia. Entities of five types (people,
 * cities, countries, films, companies) are linked by nine functional relations; every entity has a
 * passage that states its facts and mentions other entities, and distractor passages share words with
 * the questions without stating any fact. Questions compose 2 to 4 relations ("which country is the
 * birthplace of the director of X in ?"), phrased in several ways per relation.
 *
 * Names come from fixed pools (so one tokenizer covers every world); a world's seed decides which names
 * exist and every fact. Another seed gives the same kinds of entities and relations, different facts:
 * a policy that memorised facts fails there, one that searches does not.
 */
import { Rng } from "../../src/index.ts";

/** Every EntityType. */
export const ENTITY_TYPES = ["person", "city", "country", "film", "company"] as const;
/** The five kinds of entities a world holds. */
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Each relation maps an entity of one type to exactly one entity of another. */
export const RELATIONS = {
  director: { from: "film", to: "person", keyword: "director" },
  studio: { from: "film", to: "company", keyword: "studio" },
  birthplace: { from: "person", to: "city", keyword: "born" },
  employer: { from: "person", to: "company", keyword: "works" },
  mentor: { from: "person", to: "person", keyword: "mentor" },
  headquarters: { from: "company", to: "city", keyword: "based" },
  founder: { from: "company", to: "person", keyword: "founded" },
  country: { from: "city", to: "country", keyword: "country" },
  capital: { from: "country", to: "city", keyword: "capital" },
} as const satisfies Record<string, { from: EntityType; to: EntityType; keyword: string }>;
/** One of the nine relations (RELATIONS), each from one entity type to one. */
export type Relation = keyof typeof RELATIONS;
/** Every relation's name, in RELATIONS' order. */
export const RELATION_NAMES = Object.keys(RELATIONS) as Relation[];

/** Noun phrases per relation; `{x}` is the inner phrase. Questions pick one per hop. */
export const PHRASES: Readonly<Record<Relation, readonly string[]>> = {
  director: ["the director of {x}", "the person who directed {x}"],
  studio: ["the studio of {x}", "the company that made {x}"],
  birthplace: ["the birthplace of {x}", "the city where {x} was born"],
  employer: ["the employer of {x}", "the company {x} works for"],
  mentor: ["the mentor of {x}", "the person who trained {x}"],
  headquarters: ["the headquarters of {x}", "the city where {x} is based"],
  founder: ["the founder of {x}", "the person who founded {x}"],
  country: ["the country of {x}", "the country that {x} is in"],
  capital: ["the capital of {x}", "the capital city of {x}"],
};
/** How a question wraps its phrase; `{x}` is the phrase. */
export const QUESTION_FORMS = ["what is {x} ?", "name {x} ."] as const;

/**
 * The possessive wording's noun phrases (`wording=possessive`): the question reads in hop order, start first
 * ("salal nomo 's mentor 's trainer"), where PHRASES read the last hop first ("the person who trained the mentor
 * of salal nomo"). The probe docs/probes/hopqa-possessive-wording.patch put these in place of PHRASES
 * (docs/hopqa.md, "Questions that read innermost-first").
 */
export const POSSESSIVE_PHRASES: Readonly<Record<Relation, readonly string[]>> = {
  director: ["{x} 's director", "{x} 's film director"],
  studio: ["{x} 's studio", "{x} 's maker company"],
  birthplace: ["{x} 's birthplace", "{x} 's city of birth"],
  employer: ["{x} 's employer", "{x} 's company of work"],
  mentor: ["{x} 's mentor", "{x} 's trainer"],
  headquarters: ["{x} 's headquarters", "{x} 's base city"],
  founder: ["{x} 's founder", "{x} 's founding person"],
  country: ["{x} 's country", "{x} 's nation"],
  capital: ["{x} 's capital", "{x} 's capital city"],
};
/** Every Wording: `outer` (PHRASES, the benchmark's) or `possessive` (POSSESSIVE_PHRASES). */
export const WORDINGS = ["outer", "possessive"] as const;
/** How questions word their relations: the `wording` option of the hopqa environment. */
export type Wording = (typeof WORDINGS)[number];
/** The benchmark's wording: every shipped table and checkpoint was made with it. */
export const DEFAULT_WORDING: Wording = "outer";
/** The noun phrases of each wording. */
export const PHRASES_OF: Readonly<Record<Wording, Readonly<Record<Relation, readonly string[]>>>> = {
  outer: PHRASES,
  possessive: POSSESSIVE_PHRASES,
};
/**
 * A task's wording: its `wording` field (set only when it is not DEFAULT_WORDING). A RangeError names any other
 * value (a hand-edited journal's task, say).
 */
export const wordingOf = (task: HopqaTask): Wording => {
  const wording = task.wording ?? DEFAULT_WORDING;
  if (!(WORDINGS as readonly unknown[]).includes(wording))
    throw new RangeError(`hopqa task: wording must be one of ${WORDINGS.join(", ")}, got ${JSON.stringify(wording)}`);
  return wording as Wording;
};

// ---- name pools (fixed: the tokenizer's vocabulary) ----

const SYLLABLES =
  "ba be bo da de di ka ke ko la le li lo ma me mi mo na ne no ra re ri ro sa se so ta te to va ve vi".split(" ");
const ENDINGS = ["n", "r", "s", "l", "th", "x", "m", ""];

const wordPool = (seed: string, count: number, syllables: number, taken: Set<string>): string[] => {
  const rng = Rng.fromSeed(seed);
  const out: string[] = [];
  while (out.length < count) {
    let word = "";
    for (let i = 0; i < syllables; i++) word += rng.pick(SYLLABLES);
    word += rng.pick(ENDINGS);
    if (taken.has(word)) continue;
    taken.add(word);
    out.push(word);
  }
  return out;
};

const taken = new Set<string>();
/**
 * Small pools on purpose: a world draws most of each pool, so worlds share names and differ in facts. With
 * 5x more names (224) the 2-layer GPT did not learn to copy a name from its context within 600 cloning
 * steps; with these 78 it does (docs/hopqa.md).
 */
export const NAME_POOLS = {
  first: wordPool("hopqa-first-v1", 8, 2, taken),
  last: wordPool("hopqa-last-v1", 8, 2, taken),
  city: wordPool("hopqa-city-v1", 20, 3, taken),
  country: wordPool("hopqa-country-v1", 10, 2, taken),
  film: wordPool("hopqa-film-v1", 20, 3, taken),
  company: wordPool("hopqa-company-v1", 12, 2, taken).map((w) => `${w}corp`),
} as const;

// ---- the world ----

/** An entity of a world; `id` is its index in `World.entities`. */
export interface Entity {
  readonly id: number;
  readonly type: EntityType;
  readonly name: string;
}

/** A passage of a world's encyclopedia; `id` is its index in `World.passages`. */
export interface Passage {
  readonly id: number;
  /** The entity the passage is about; -1 for a distractor. */
  readonly about: number;
  readonly text: string;
}

/** How many entities of each type a world has, and how many distractor passages. */
export interface WorldSizes {
  readonly person: number;
  readonly city: number;
  readonly country: number;
  readonly film: number;
  readonly company: number;
  /** Passages that share words with questions but state no fact. */
  readonly distractors: number;
}
/** The sizes of every hopqa world. */
export const DEFAULT_SIZES: WorldSizes = { person: 24, city: 16, country: 8, film: 16, company: 10, distractors: 16 };

/** A generated world: its entities, the facts linking them and its passages. */
export interface World {
  readonly seed: string;
  readonly entities: readonly Entity[];
  /** Entities by their name. */
  readonly byName: ReadonlyMap<string, Entity>;
  /** facts[entity id][relation] = entity id. */
  readonly facts: ReadonlyArray<Readonly<Partial<Record<Relation, number>>>>;
  readonly passages: readonly Passage[];
  /** The passage about each entity, by entity id. */
  readonly passageOf: readonly number[];
}

const checkSizes = (sizes: WorldSizes) => {
  const limits: Record<keyof WorldSizes, number> = {
    person: NAME_POOLS.first.length * NAME_POOLS.last.length,
    city: NAME_POOLS.city.length,
    country: NAME_POOLS.country.length,
    film: NAME_POOLS.film.length,
    company: NAME_POOLS.company.length,
    distractors: 10_000,
  };
  for (const [key, limit] of Object.entries(limits) as [keyof WorldSizes, number][]) {
    const n = sizes[key];
    const min = key === "distractors" ? 0 : 2;
    if (!Number.isInteger(n) || n < min || n > limit)
      throw new RangeError(`hopqa world size ${key} must be an integer in [${min}, ${limit}], got ${n}`);
  }
  if (sizes.city < sizes.country) throw new RangeError("hopqa world needs at least as many cities as countries");
};

/**
 * The world of a seed (the same seed, the same world). Throws a RangeError on sizes outside the name pools or with
 * fewer cities than countries.
 */
export const generateWorld = (seed: string, sizes: WorldSizes = DEFAULT_SIZES): World => {
  checkSizes(sizes);
  const rng = Rng.fromSeed(`hopqa-world:${seed}`);
  const entities: Entity[] = [];
  const add = (type: EntityType, names: readonly string[]) =>
    names.map((name) => {
      const entity = { id: entities.length, type, name };
      entities.push(entity);
      return entity.id;
    });
  const people = rng
    .shuffle(NAME_POOLS.first.flatMap((f) => NAME_POOLS.last.map((l) => `${f} ${l}`)))
    .slice(0, sizes.person);
  // No two people share a first or last name more than needed: names stay distinguishable.
  const ids = {
    person: add("person", people),
    city: add("city", rng.shuffle(NAME_POOLS.city).slice(0, sizes.city)),
    country: add("country", rng.shuffle(NAME_POOLS.country).slice(0, sizes.country)),
    film: add("film", rng.shuffle(NAME_POOLS.film).slice(0, sizes.film)),
    company: add("company", rng.shuffle(NAME_POOLS.company).slice(0, sizes.company)),
  };
  const facts: Partial<Record<Relation, number>>[] = entities.map(() => ({}));
  // Every country gets at least one city; its capital is one of its cities.
  ids.city.forEach((city, i) => {
    facts[city].country = i < ids.country.length ? ids.country[i] : rng.pick(ids.country);
  });
  for (const country of ids.country)
    facts[country].capital = rng.pick(ids.city.filter((c) => facts[c].country === country));
  for (const person of ids.person) {
    facts[person].birthplace = rng.pick(ids.city);
    facts[person].employer = rng.pick(ids.company);
    facts[person].mentor = rng.pick(ids.person.filter((p) => p !== person));
  }
  for (const company of ids.company) {
    facts[company].headquarters = rng.pick(ids.city);
    facts[company].founder = rng.pick(ids.person);
  }
  for (const film of ids.film) {
    facts[film].director = rng.pick(ids.person);
    facts[film].studio = rng.pick(ids.company);
  }
  const name = (id: number) => entities[id].name;
  const of = (id: number, relation: Relation) => name(facts[id][relation] as number);
  const reverse = (relation: Relation, target: number) =>
    entities.filter((e) => facts[e.id][relation] === target).map((e) => e.name);

  const passages: Passage[] = [];
  const passageOf: number[] = [];
  for (const e of entities) {
    const x = e.name;
    let text: string;
    const list = (names: string[]) => names.join(" and ");
    switch (e.type) {
      case "film":
        text = `${x} is a film whose director is ${of(e.id, "director")} and whose studio is ${of(e.id, "studio")} .`;
        break;
      case "person": {
        const directed = reverse("director", e.id).slice(0, 2);
        // Every fact sentence names its subject in full, as a list of facts would. With the surname alone in
        // the second sentence (env version 2), "x mentor" also retrieved the passages of people x trained
        // ("... has the mentor x"), ahead of x's own on 19% of hops, and the 2-layer clone copied the mentor
        // out of the wrong passage: its exact match stopped near 0.6 (docs/hopqa.md).
        text =
          `${x} was born in ${of(e.id, "birthplace")} . ${x} works for ${of(e.id, "employer")} . ` +
          `${x} has the mentor ${of(e.id, "mentor")}${directed.length > 0 ? ` . ${x} directed ${list(directed)}` : ""} .`;
        break;
      }
      case "company": {
        const films = reverse("studio", e.id).slice(0, 2);
        text =
          `${x} is a company based in ${of(e.id, "headquarters")} , founded by ${of(e.id, "founder")}` +
          `${films.length > 0 ? ` , that made ${list(films)}` : ""} .`;
        break;
      }
      case "city": {
        const born = reverse("birthplace", e.id).slice(0, 2);
        text = `${x} is a city in the country ${of(e.id, "country")}${born.length > 0 ? ` , home to ${list(born)}` : ""} .`;
        break;
      }
      case "country":
        text = `${x} is a country whose capital is ${of(e.id, "capital")} .`;
        break;
    }
    passageOf[e.id] = passages.length;
    passages.push({ id: passages.length, about: e.id, text });
  }
  // Distractors: question words and entity names, no facts.
  const DISTRACTORS = [
    (a: string, b: string) => `critics often compare the film ${a} with the film ${b} and ask who the director was .`,
    (a: string, b: string) => `${a} and ${b} were born in the same year and later met the mentor of a studio founder .`,
    (a: string, b: string) => `${a} is sometimes confused with the capital of the country ${b} .`,
    (a: string, b: string) => `a company that made ${a} was once based near ${b} , say old reports .`,
  ];
  const pools: [EntityType, EntityType][] = [
    ["film", "film"],
    ["person", "person"],
    ["city", "country"],
    ["film", "city"],
  ];
  for (let i = 0; i < sizes.distractors; i++) {
    const k = i % DISTRACTORS.length;
    const [ta, tb] = pools[k];
    const a = name(rng.pick(ids[ta]));
    const b = name(rng.pick(ids[tb]));
    passages.push({ id: passages.length, about: -1, text: DISTRACTORS[k](a, b) });
  }
  return { seed, entities, byName: new Map(entities.map((e) => [e.name, e])), facts, passages, passageOf };
};

// ---- questions ----

/** Relation chains of a given length, type-checked, without an immediate return (capital then country). */
export const chainsOf = (hops: number): Relation[][] => {
  const out: Relation[][] = [];
  const grow = (chain: Relation[]) => {
    if (chain.length === hops) {
      out.push(chain);
      return;
    }
    const last = chain.at(-1);
    for (const r of RELATION_NAMES) {
      if (last !== undefined && RELATIONS[last].to !== RELATIONS[r].from) continue;
      if ((last === "capital" && r === "country") || (last === "country" && r === "capital")) continue;
      grow([...chain, r]);
    }
  };
  grow([]);
  return out;
};

/** Which questions: train, test (held-out 2-3 hop questions) or ood (4-hop, chains never trained on). */
export type Split = "train" | "test" | "ood";
/** Every Split. */
export const SPLITS: readonly Split[] = ["train", "test", "ood"];

/**
 * A hopqa task: a question in one world, as plain JSON. The answer is not stored: solveQuestion derives it from the
 * world.
 */
export interface HopqaTask {
  /** The world's seed (generateWorld, worldOf). */
  readonly world: string;
  /** The Split the question was drawn from. */
  readonly split: Split;
  /** The name of the entity the question starts from. */
  readonly start: string;
  /** The relations followed from `start`, in order (2 to 4 of them). */
  readonly chain: readonly string[];
  /** Which phrase per hop, and which question form. */
  readonly phrasing: readonly number[];
  /** Further fields a variant adds (`topK`, `wording` when they are not the default). */
  readonly [field: string]: string | number | readonly string[] | readonly number[];
}

/** FNV-1a of a string's UTF-16 code units: a stable 32-bit hash, the same on every run and platform. */
export const fnv1a = (text: string): number => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
};

/** A stable hash in [0, 1) of a question's identity (start entity and chain): decides train vs test. */
const questionHash = (start: string, chain: readonly string[]): number =>
  fnv1a(`${start}|${chain.join(">")}`) / 2 ** 32;
/** Share of 2-3 hop questions held out for test. */
export const TEST_SHARE = 0.2;
/**
 * The split a question (start entity and relation chain) belongs to: ood at 4 hops, else test for a fixed
 * hash-decided TEST_SHARE of questions, else train.
 */
export const splitOf = (start: string, chain: readonly string[]): Split =>
  chain.length >= 4 ? "ood" : questionHash(start, chain) < TEST_SHARE ? "test" : "train";

const CHAINS: Readonly<Record<Split, Relation[][]>> = {
  train: [...chainsOf(2), ...chainsOf(3)],
  test: [...chainsOf(2), ...chainsOf(3)],
  ood: chainsOf(4),
};

/** Draws a question of a split in a world, deterministically from the seed. */
export const drawQuestion = (world: World, split: Split, seed: string): HopqaTask => {
  const rng = Rng.fromSeed(`${seed}:question`);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const chain = rng.pick(CHAINS[split]);
    const candidates = world.entities.filter((e) => e.type === RELATIONS[chain[0]].from);
    const start = rng.pick(candidates).name;
    if (splitOf(start, chain) !== split) continue;
    const phrasing = [...chain.map((r) => rng.int(0, PHRASES[r].length - 1)), rng.int(0, QUESTION_FORMS.length - 1)];
    return { world: world.seed, split, start, chain, phrasing };
  }
  throw new Error(`no ${split} question found in world ${world.seed}`);
};

/** The question's text, as the agent reads it, in the task's wording (wordingOf). */
export const questionText = (task: HopqaTask): string => {
  const phrases = PHRASES_OF[wordingOf(task)];
  let phrase = task.start;
  task.chain.forEach((r, i) => {
    phrase = phrases[r as Relation][task.phrasing[i] ?? 0].replace("{x}", phrase);
  });
  return QUESTION_FORMS[task.phrasing[task.chain.length] ?? 0].replace("{x}", phrase);
};

/** The entities along the question's path (start first), the gold passages, and the answer. */
export const solveQuestion = (world: World, task: HopqaTask) => {
  const start = world.byName.get(task.start);
  if (!start) throw new RangeError(`entity "${task.start}" does not exist in world ${world.seed}`);
  const path = [start.id];
  for (const r of task.chain) {
    const next = world.facts[path.at(-1) as number][r as Relation];
    if (next === undefined)
      throw new RangeError(`relation ${r} does not apply to ${world.entities[path.at(-1) as number].name}`);
    path.push(next);
  }
  return {
    path: path.map((id) => world.entities[id].name),
    /** The passage stating each hop's fact: the passage of the entity the hop starts from. */
    gold: path.slice(0, -1).map((id) => world.passageOf[id]),
    answer: world.entities[path.at(-1) as number].name,
  };
};

/**
 * Every word a hopqa text of a wording can contain: the vocabulary of that wording's tokenizer. Each wording's
 * own phrases, and no other's: the outer one is the benchmark's vocabulary as it always was (VOCABULARY), the
 * possessive one the vocabulary of the possessive probes' clones.
 */
export const vocabularyOf = (wording: Wording): readonly string[] => {
  const words = new Set<string>();
  const texts = [
    ...Object.values(PHRASES_OF[wording]).flat(),
    ...QUESTION_FORMS,
    ...Object.values(RELATIONS).map((r) => r.keyword),
    "is a film whose the director of studio was born in works for has mentor directed and company based founded by made",
    "city in country home to people include capital critics often compare with ask who were same year later met founder",
    "sometimes confused near , say old reports once results no for error malformed action repeated search query",
    "failed timeout invalid args answer unexpected turn limit empty tool that are : ( ) - [ ] . ? / < > | …",
  ];
  for (const text of texts) for (const w of text.replace(/[{}]/g, " ").split(/\s+/)) if (w) words.add(w);
  for (const pool of Object.values(NAME_POOLS)) for (const w of pool) words.add(w);
  // The action tags, one token each.
  for (const tag of ["<search>", "</search>", "<answer>", "</answer>"]) words.add(tag);
  return [...words].sort();
};
/** Every word a hopqa text of the default (outer) wording can contain: the tokenizer's vocabulary. */
export const VOCABULARY: readonly string[] = vocabularyOf(DEFAULT_WORDING);

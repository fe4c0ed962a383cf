/*
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
/** Every EntityType. */
export declare const ENTITY_TYPES: readonly ["person", "city", "country", "film", "company"];
/** The five kinds of entities a world holds. */
export type EntityType = (typeof ENTITY_TYPES)[number];
/** Each relation maps an entity of one type to exactly one entity of another. */
export declare const RELATIONS: {
    readonly director: {
        readonly from: "film";
        readonly to: "person";
        readonly keyword: "director";
    };
    readonly studio: {
        readonly from: "film";
        readonly to: "company";
        readonly keyword: "studio";
    };
    readonly birthplace: {
        readonly from: "person";
        readonly to: "city";
        readonly keyword: "born";
    };
    readonly employer: {
        readonly from: "person";
        readonly to: "company";
        readonly keyword: "works";
    };
    readonly mentor: {
        readonly from: "person";
        readonly to: "person";
        readonly keyword: "mentor";
    };
    readonly headquarters: {
        readonly from: "company";
        readonly to: "city";
        readonly keyword: "based";
    };
    readonly founder: {
        readonly from: "company";
        readonly to: "person";
        readonly keyword: "founded";
    };
    readonly country: {
        readonly from: "city";
        readonly to: "country";
        readonly keyword: "country";
    };
    readonly capital: {
        readonly from: "country";
        readonly to: "city";
        readonly keyword: "capital";
    };
};
/** One of the nine relations (RELATIONS), each from one entity type to one. */
export type Relation = keyof typeof RELATIONS;
/** Every relation's name, in RELATIONS' order. */
export declare const RELATION_NAMES: Relation[];
/** Noun phrases per relation; `{x}` is the inner phrase. Questions pick one per hop. */
export declare const PHRASES: Readonly<Record<Relation, readonly string[]>>;
/** How a question wraps its phrase; `{x}` is the phrase. */
export declare const QUESTION_FORMS: readonly ["what is {x} ?", "name {x} ."];
/**
 * The possessive wording's noun phrases (`wording=possessive`): the question reads in hop order, start first
 * ("salal nomo 's mentor 's trainer"), where PHRASES read the last hop first ("the person who trained the mentor
 * of salal nomo"). The probe docs/probes/hopqa-possessive-wording.patch put these in place of PHRASES
 * (docs/hopqa.md, "Questions that read innermost-first").
 */
export declare const POSSESSIVE_PHRASES: Readonly<Record<Relation, readonly string[]>>;
/** Every Wording: `outer` (PHRASES, the benchmark's) or `possessive` (POSSESSIVE_PHRASES). */
export declare const WORDINGS: readonly ["outer", "possessive"];
/** How questions word their relations: the `wording` option of the hopqa environment. */
export type Wording = (typeof WORDINGS)[number];
/** The benchmark's wording: every shipped table and checkpoint was made with it. */
export declare const DEFAULT_WORDING: Wording;
/** The noun phrases of each wording. */
export declare const PHRASES_OF: Readonly<Record<Wording, Readonly<Record<Relation, readonly string[]>>>>;
/**
 * A task's wording: its `wording` field (set only when it is not DEFAULT_WORDING). A RangeError names any other
 * value (a hand-edited journal's task, say).
 */
export declare const wordingOf: (task: HopqaTask) => Wording;
/**
 * Small pools on purpose: a world draws most of each pool, so worlds share names and differ in facts. With
 * 5x more names (224) the 2-layer GPT did not learn to copy a name from its context within 600 cloning
 * steps; with these 78 it does (docs/hopqa.md).
 */
export declare const NAME_POOLS: {
    readonly first: string[];
    readonly last: string[];
    readonly city: string[];
    readonly country: string[];
    readonly film: string[];
    readonly company: string[];
};
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
export declare const DEFAULT_SIZES: WorldSizes;
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
/**
 * The world of a seed (the same seed, the same world). Throws a RangeError on sizes outside the name pools or with
 * fewer cities than countries.
 */
export declare const generateWorld: (seed: string, sizes?: WorldSizes) => World;
/** Relation chains of a given length, type-checked, without an immediate return (capital then country). */
export declare const chainsOf: (hops: number) => Relation[][];
/** Which questions: train, test (held-out 2-3 hop questions) or ood (4-hop, chains never trained on). */
export type Split = "train" | "test" | "ood";
/** Every Split. */
export declare const SPLITS: readonly Split[];
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
export declare const fnv1a: (text: string) => number;
/** Share of 2-3 hop questions held out for test. */
export declare const TEST_SHARE = 0.2;
/**
 * The split a question (start entity and relation chain) belongs to: ood at 4 hops, else test for a fixed
 * hash-decided TEST_SHARE of questions, else train.
 */
export declare const splitOf: (start: string, chain: readonly string[]) => Split;
/** Draws a question of a split in a world, deterministically from the seed. */
export declare const drawQuestion: (world: World, split: Split, seed: string) => HopqaTask;
/** The question's text, as the agent reads it, in the task's wording (wordingOf). */
export declare const questionText: (task: HopqaTask) => string;
/** The entities along the question's path (start first), the gold passages, and the answer. */
export declare const solveQuestion: (world: World, task: HopqaTask) => {
    path: string[];
    /** The passage stating each hop's fact: the passage of the entity the hop starts from. */
    gold: number[];
    answer: string;
};
/**
 * Every word a hopqa text of a wording can contain: the vocabulary of that wording's tokenizer. Each wording's
 * own phrases, and no other's: the outer one is the benchmark's vocabulary as it always was (VOCABULARY), the
 * possessive one the vocabulary of the possessive probes' clones.
 */
export declare const vocabularyOf: (wording: Wording) => readonly string[];
/** Every word a hopqa text of the default (outer) wording can contain: the tokenizer's vocabulary. */
export declare const VOCABULARY: readonly string[];

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
export declare const ENTITY_TYPES: readonly ["person", "city", "country", "film", "company"];
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
export type Relation = keyof typeof RELATIONS;
export declare const RELATION_NAMES: Relation[];
/** Noun phrases per relation; `{x}` is the inner phrase. Questions pick one per hop. */
export declare const PHRASES: Readonly<Record<Relation, readonly string[]>>;
export declare const QUESTION_FORMS: readonly ["what is {x} ?", "name {x} ."];
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
export interface Entity {
    readonly id: number;
    readonly type: EntityType;
    readonly name: string;
}
export interface Passage {
    readonly id: number;
    /** The entity the passage is about; -1 for a distractor. */
    readonly about: number;
    readonly text: string;
}
export interface WorldSizes {
    readonly person: number;
    readonly city: number;
    readonly country: number;
    readonly film: number;
    readonly company: number;
    readonly distractors: number;
}
export declare const DEFAULT_SIZES: WorldSizes;
export interface World {
    readonly seed: string;
    readonly entities: readonly Entity[];
    readonly byName: ReadonlyMap<string, Entity>;
    /** facts[entity id][relation] = entity id. */
    readonly facts: ReadonlyArray<Readonly<Partial<Record<Relation, number>>>>;
    readonly passages: readonly Passage[];
    /** The passage about each entity, by entity id. */
    readonly passageOf: readonly number[];
}
export declare const generateWorld: (seed: string, sizes?: WorldSizes) => World;
/** Relation chains of a given length, type-checked, without an immediate return (capital then country). */
export declare const chainsOf: (hops: number) => Relation[][];
export type Split = "train" | "test" | "ood";
export declare const SPLITS: readonly Split[];
export interface HopqaTask {
    readonly world: string;
    readonly split: string;
    readonly start: string;
    readonly chain: readonly string[];
    /** Which phrase per hop, and which question form. */
    readonly phrasing: readonly number[];
    readonly [field: string]: string | number | readonly string[] | readonly number[];
}
/** FNV-1a of a string's UTF-16 code units: a stable 32-bit hash, the same on every run and platform. */
export declare const fnv1a: (text: string) => number;
/** Share of 2-3 hop questions held out for test. */
export declare const TEST_SHARE = 0.2;
export declare const splitOf: (start: string, chain: readonly string[]) => Split;
/** Draws a question of a split in a world, deterministically from the seed. */
export declare const drawQuestion: (world: World, split: Split, seed: string) => HopqaTask;
export declare const questionText: (task: HopqaTask) => string;
/** The entities along the question's path (start first), the gold passages, and the answer. */
export declare const solveQuestion: (world: World, task: HopqaTask) => {
    path: string[];
    /** The passage stating each hop's fact: the passage of the entity the hop starts from. */
    gold: number[];
    answer: string;
};
/** Every word a hopqa text can contain: the tokenizer's vocabulary. */
export declare const VOCABULARY: readonly string[];

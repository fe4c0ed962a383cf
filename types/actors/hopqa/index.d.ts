import type { EnvDefinition, Tokenizer } from "../../src/index.ts";
import { type LeftNote, type LegalGrammar, OPTION_KEYS } from "./env.ts";
import { type HopqaTask, type Split, type Wording } from "./world.ts";
export * from "./env.ts";
export { CONFUSED, carelessPolicy, carelessQueries, expertPolicy, expertQueries, HASTE_RATE, hastyAnswer, hastyOn, hastyPolicy, lazyPolicy, lazyQueries, ragPolicy, randomPolicy, SLIP_RATE, SLOPPY_RATE, sloppyOn, sloppyPolicy, } from "./policies.ts";
export { worldOf } from "./search.ts";
export * from "./world.ts";
/** The scripted policies of a variant, encoding their actions with its tokenizer (its wording's). */
declare const policiesFor: (words: Tokenizer) => {
    expert: () => import("../../src/index.ts").Policy;
    lazy: () => import("../../src/index.ts").Policy;
    careless: () => import("../../src/index.ts").Policy;
    hasty: (rate?: number) => import("../../src/index.ts").Policy;
    /** The hasty demonstrator on half the questions (HASTE_RATE is 0.7): a warm start between hasty and expert. */
    "half-hasty": () => import("../../src/index.ts").Policy;
    /** The expert that names a wrong entity at the end of most questions (SLOPPY_RATE is 0.8). */
    sloppy: (rate?: number) => import("../../src/index.ts").Policy;
    rag: () => import("../../src/index.ts").Policy;
    random: () => import("../../src/index.ts").Policy;
};
/** hopqa's scripted policies, by name (`env.policies.expert()`). */
export type HopqaPolicies = ReturnType<typeof policiesFor>;
/**
 * hopqa or a variant of it: its options in effect and scripted policies by name, and a `configure` that makes
 * another such variant (named, so that `hopqa.configure({ ... }).policies.expert` is typed: the inferred type of
 * a configure returning its own kind was cut to `any` at the first level).
 */
export interface HopqaEnv extends EnvDefinition<HopqaTask> {
    readonly options: {
        readonly split: Split;
        readonly worlds: string;
        readonly "top-k": number;
        readonly wording: Wording;
        readonly legal: LegalGrammar;
        readonly left: LeftNote;
    };
    readonly policies: HopqaPolicies;
    readonly configure: (options: Readonly<Record<string, string>>) => HopqaEnv;
    readonly optionKeys: typeof OPTION_KEYS;
    readonly evaluation: HopqaEnv;
}
/**
 * The hopqa environment (train split, worlds 1-1000) with its scripted policies; `configure` makes variants
 * (`hopqa?split=test&worlds=a-b&top-k=K&wording=possessive&legal=relations`).
 */
export declare const hopqa: HopqaEnv;

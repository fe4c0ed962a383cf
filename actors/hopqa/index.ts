import type { EnvDefinition, Tokenizer } from "../../src/index.ts";
import { remembersVariants } from "../../src/runtime/env.ts";
import {
  createHopqaEnv,
  DEFAULT_LEFT,
  DEFAULT_LEGAL,
  DEFAULT_OPTIONS,
  type LeftNote,
  type LegalGrammar,
  NEW_WORLDS,
  OPTION_KEYS,
  parseOptions,
  tokenizerOf,
} from "./env.ts";
import {
  carelessPolicy,
  expertPolicy,
  hastyPolicy,
  lazyPolicy,
  ragPolicy,
  randomPolicy,
  sloppyPolicy,
} from "./policies.ts";
import { DEFAULT_WORDING, type HopqaTask, type Split, type Wording } from "./world.ts";

export * from "./env.ts";
export {
  CONFUSED,
  carelessPolicy,
  carelessQueries,
  expertPolicy,
  expertQueries,
  HASTE_RATE,
  hastyAnswer,
  hastyOn,
  hastyPolicy,
  lazyPolicy,
  lazyQueries,
  ragPolicy,
  randomPolicy,
  SLIP_RATE,
  SLOPPY_RATE,
  sloppyOn,
  sloppyPolicy,
} from "./policies.ts";
export { worldOf } from "./search.ts";
export * from "./world.ts";

/** The scripted policies of a variant, encoding their actions with its tokenizer (its wording's). */
const policiesFor = (words: Tokenizer) => ({
  expert: () => expertPolicy(words),
  lazy: () => lazyPolicy(words),
  careless: () => carelessPolicy(words),
  hasty: (rate?: number) => hastyPolicy(rate, words),
  /** The hasty demonstrator on half the questions (HASTE_RATE is 0.7): a warm start between hasty and expert. */
  "half-hasty": () => hastyPolicy(0.5, words),
  /** The expert that names a wrong entity at the end of most questions (SLOPPY_RATE is 0.8). */
  sloppy: (rate?: number) => sloppyPolicy(rate, words),
  rag: () => ragPolicy(words),
  random: () => randomPolicy(words),
});

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
 * A hopqa environment drawing from the given options; `configure` makes variants (`--env
 * "hopqa?split=test&world-seed=7"`), and `evaluation` is the held-out variant training reports on:
 * test questions in worlds training never draws from.
 */
const variant = (options = DEFAULT_OPTIONS): HopqaEnv => {
  const env = createHopqaEnv(options);
  // A variant made in code (`hopqa.configure({ legal: "relations" })`) records its options as --env's does.
  return remembersVariants({
    ...env,
    options: {
      split: options.split,
      worlds: `${options.worlds[0]}-${options.worlds[1]}`,
      "top-k": options.topK,
      wording: options.wording ?? DEFAULT_WORDING,
      legal: options.legal ?? DEFAULT_LEGAL,
      left: options.left ?? DEFAULT_LEFT,
    },
    policies: policiesFor(tokenizerOf(options.wording ?? DEFAULT_WORDING)),
    configure: (more: Readonly<Record<string, string>>) => variant(parseOptions(more, options)),
    optionKeys: OPTION_KEYS,
    // A variant itself, so that it says its options (train's eval.json records them, to be evaluated again).
    get evaluation(): HopqaEnv {
      return variant({ ...options, split: "test", worlds: NEW_WORLDS });
    },
  });
};

/**
 * The hopqa environment (train split, worlds 1-1000) with its scripted policies; `configure` makes variants
 * (`hopqa?split=test&worlds=a-b&top-k=K&wording=possessive&legal=relations`).
 */
export const hopqa = variant();

/**
 * `lookup`: find the value of a key in a store, through a `lookup(key)` tool, in one or two hops.
 *
 * Rewards: +0.2 (process) for a well-formed lookup that retrieves a key the task needs, the first time;
 * -0.1 for a malformed action; -0.1 for repeating a lookup; outcome 1 for the right answer, else 0.
 */
import { type LegalView, Schema, WordTokenizer } from "../../src/index.ts";
import { type LookupTask } from "./store.ts";
export declare const MAX_TURNS = 6;
export declare const lookupTool: import("../../src/index.ts").Tool<Schema.Struct<{
    readonly key: Schema.String;
}>>;
/** The reward scheme; the defaults are the environment's. Variants exist to re-reward recorded episodes. */
export interface LookupRewards {
    readonly neededKey: number;
    readonly repeated: number;
    readonly malformed: number;
}
export declare const DEFAULT_REWARDS: LookupRewards;
export declare const tokenizer: WordTokenizer;
/**
 * Constrained decoding's legal actions: a lookup of a key the prompt or a result named, or an answer naming
 * a value some result showed.
 */
export declare const legalActions: ({ history }: LegalView<LookupTask>) => string[];
/** The warm start lookup declares: expert episodes cloned, and cloning epochs (`train` and `npm start`). */
export declare const LOOKUP_WARM_START: {
    readonly episodes: 400;
    readonly epochs: 5;
};
export declare const createLookupEnv: (rewards?: LookupRewards) => import("../../src/index.ts").EnvDefinition<LookupTask> & {
    readonly policies?: Readonly<Record<string, () => import("../../src/index.ts").Policy>> | undefined;
    readonly tools: Readonly<Record<string, import("../../src/index.ts").Tool<Schema.Top>>>;
};
export declare const lookupEnv: import("../../src/index.ts").EnvDefinition<LookupTask> & {
    readonly policies?: Readonly<Record<string, () => import("../../src/index.ts").Policy>> | undefined;
    readonly tools: Readonly<Record<string, import("../../src/index.ts").Tool<Schema.Top>>>;
};

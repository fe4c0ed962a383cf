import type { EnvDefinition, Tokenizer } from "../../src/index.ts";
import { type HopqaTask } from "./world.ts";
export * from "./env.ts";
export { CONFUSED, carelessPolicy, carelessQueries, expertPolicy, expertQueries, HASTE_RATE, hastyAnswer, hastyOn, hastyPolicy, lazyPolicy, lazyQueries, ragPolicy, randomPolicy, SLIP_RATE, SLOPPY_RATE, sloppyOn, sloppyPolicy, } from "./policies.ts";
export { worldOf } from "./search.ts";
export * from "./world.ts";
/**
 * The hopqa environment (train split, worlds 1-1000) with its scripted policies; `configure` makes variants
 * (`hopqa?split=test&worlds=a-b&top-k=K&wording=possessive&legal=relations`).
 */
export declare const hopqa: {
    id: string;
    version: string;
    description: string;
    machine: import("xstate").AnyStateMachine;
    tools: Readonly<Record<string, import("../../src/index.ts").Tool>>;
    tokenizer: Tokenizer;
    task: (seed: string) => HopqaTask;
    maxTurns?: number;
    maxActionTokens?: number;
    model?: {
        readonly layers?: number;
        readonly heads?: number;
        readonly width?: number;
        readonly contextLength?: number;
        readonly copy?: boolean;
        readonly positions?: "learned" | "alibi";
    };
    warmStart?: {
        readonly episodes: number;
        readonly epochs: number;
    };
    legalActions?(view: import("../../src/index.ts").LegalView<HopqaTask>): readonly string[] | null;
    options: {
        split: import("./world.ts").Split;
        worlds: string;
        "top-k": number;
        wording: "outer" | "possessive";
        legal: "relations" | "types";
    };
    policies: {
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
    configure: (more: Readonly<Record<string, string>>) => /*elided*/ any;
    optionKeys: readonly ["split", "world-seed", "worlds", "top-k", "wording", "legal"];
    evaluation: EnvDefinition<HopqaTask>;
};

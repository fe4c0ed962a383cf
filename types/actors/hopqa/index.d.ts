import type { EnvDefinition } from "../../src/index.ts";
import { carelessPolicy, expertPolicy, hastyPolicy, lazyPolicy, ragPolicy, randomPolicy } from "./policies.ts";
import type { HopqaTask } from "./world.ts";
export * from "./env.ts";
export { CONFUSED, carelessPolicy, carelessQueries, expertPolicy, expertQueries, HASTE_RATE, hastyAnswer, hastyOn, hastyPolicy, lazyPolicy, lazyQueries, ragPolicy, randomPolicy, SLIP_RATE, } from "./policies.ts";
export { worldOf } from "./search.ts";
export * from "./world.ts";
/**
 * The hopqa environment (train split, worlds 1-1000) with its scripted policies; `configure` makes variants
 * (`hopqa?split=test&worlds=a-b&top-k=K`).
 */
export declare const hopqa: {
    id: string;
    version: string;
    description: string;
    machine: import("xstate").AnyStateMachine;
    tools: Readonly<Record<string, import("../../src/index.ts").Tool>>;
    tokenizer: import("../../src/index.ts").Tokenizer;
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
    };
    policies: {
        expert: typeof expertPolicy;
        lazy: typeof lazyPolicy;
        careless: typeof carelessPolicy;
        hasty: typeof hastyPolicy;
        /** The hasty demonstrator on half the questions (HASTE_RATE is 0.7): a warm start between hasty and expert. */
        "half-hasty": () => import("../../src/index.ts").Policy;
        rag: typeof ragPolicy;
        random: typeof randomPolicy;
    };
    configure: (more: Readonly<Record<string, string>>) => /*elided*/ any;
    optionKeys: readonly ["split", "world-seed", "worlds", "top-k"];
    evaluation: EnvDefinition<HopqaTask>;
};

import { expertPolicy, randomPolicy } from "./policies.ts";
export { createLookupEnv, DEFAULT_REWARDS, type LookupRewards, lookupEnv, lookupTool, MAX_TURNS, tokenizer, } from "./env.ts";
export { expertPolicy, randomPolicy } from "./policies.ts";
export * from "./store.ts";
export declare const lookup: {
    id: string;
    version: string;
    description: string;
    machine: import("xstate").AnyStateMachine;
    tools: Readonly<Record<string, import("../../src/index.ts").Tool>>;
    tokenizer: import("../../src/index.ts").Tokenizer;
    task: (seed: string) => import("./store.ts").LookupTask;
    maxTurns?: number;
    maxActionTokens?: number;
    configure?: ((options: Readonly<Record<string, string>>) => import("../../src/index.ts").EnvDefinition<import("./store.ts").LookupTask>) | undefined;
    options?: Readonly<Record<string, string | number>>;
    optionKeys?: readonly string[];
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
    legalActions?(view: import("../../src/index.ts").LegalView<import("./store.ts").LookupTask>): readonly string[] | null;
    evaluation?: import("../../src/index.ts").EnvDefinition<import("./store.ts").LookupTask> | undefined;
    taskGroup?(task: import("./store.ts").LookupTask): string;
    policies: {
        expert: typeof expertPolicy;
        random: typeof randomPolicy;
    };
};

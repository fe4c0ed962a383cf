import { expertPolicy, randomPolicy } from "./policies.ts";
export { checkStock, order, REWARDS, tokenizer, warehouseEnv } from "./env.ts";
export { expertPolicy, randomPolicy, SLOPPY_QTY, SLOPPY_RATE, sloppyPolicy } from "./policies.ts";
export * from "./world.ts";
export declare const warehouse: {
    id: string;
    version: string;
    description: string;
    machine: import("xstate").AnyStateMachine;
    tools: Readonly<Record<string, import("../../src/index.ts").Tool>>;
    tokenizer: import("../../src/index.ts").Tokenizer;
    task: (seed: string) => import("./world.ts").WarehouseTask;
    maxTurns?: number;
    maxActionTokens?: number;
    configure?: ((options: Readonly<Record<string, string>>) => import("../../src/index.ts").EnvDefinition<import("./world.ts").WarehouseTask>) | undefined;
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
    legalActions?(view: import("../../src/index.ts").LegalView<import("./world.ts").WarehouseTask>): readonly string[] | null;
    evaluation?: import("../../src/index.ts").EnvDefinition<import("./world.ts").WarehouseTask> | undefined;
    taskGroup?(task: import("./world.ts").WarehouseTask): string;
    policies: {
        expert: typeof expertPolicy;
        sloppy: () => import("../../src/index.ts").Policy;
        random: typeof randomPolicy;
    };
};

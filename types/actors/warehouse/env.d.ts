/*
 * `warehouse`: keep two items in stock for 8 days of random demand, through `check_stock` and `order`.
 * Unlike lookup's store, this world moves on its own: every action takes a day, and after it customers buy
 * (world.ts). The machine's `dayPasses` state is that step; its randomness comes from the episode's seed.
 *
 * Rewards (process, each day): +0.05 for each item that met the day's demand, -0.2 for each that ran out;
 * -0.05 for each order placed; -0.1 for a malformed action (an order of a qty outside 1..20 too). Outcome: the
 * fill rate (demand served / demand).
 */
import { Schema, WordTokenizer } from "../../src/index.ts";
import { type WarehouseTask } from "./world.ts";
export declare const REWARDS: {
    readonly inStock: 0.05;
    readonly stockout: -0.2;
    readonly order: -0.05;
    readonly malformed: -0.1;
};
export declare const checkStock: import("../../src/index.ts").Tool<Schema.Struct<{
    readonly item: Schema.String;
}>>;
export declare const order: import("../../src/index.ts").Tool<Schema.Struct<{
    readonly item: Schema.Literals<readonly ["bolts", "gears"]>;
    readonly qty: Schema.Int;
}>>;
/**
 * Every word the environment and its actions write, and every number it can: stock runs up to the largest
 * start (8) plus an order of MAX_QTY a day (a number outside the vocabulary would cost a token per digit).
 */
export declare const tokenizer: WordTokenizer;
export declare const warehouseEnv: import("../../src/index.ts").EnvDefinition<WarehouseTask> & {
    readonly policies?: Readonly<Record<string, () => import("../../src/index.ts").Policy>> | undefined;
    readonly tools: Readonly<Record<string, import("../../src/index.ts").Tool<Schema.Top>>>;
};

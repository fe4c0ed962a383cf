/*
 * The warehouse world: two items on shelves, orders on their way, and customers who buy every day. The
 * world moves on its own: after each action a day passes (`nextDay`), whatever the agent did. Its
 * randomness, a day's demand, is drawn from the episode's seed and the day alone, so a replay, which
 * reruns the machine on the journal's seed, sees the same days.
 */
export declare const ITEMS: readonly ["bolts", "gears"];
export type Item = (typeof ITEMS)[number];
export declare const isItem: (name: string) => name is Item;
/** Days an episode lasts (one per action), days an order takes to arrive, the most one order may ask for. */
export declare const DAYS = 8;
export declare const DELAY = 2;
export declare const MAX_QTY = 20;
/** A task: the stock on day 0, and each item's mean daily demand (a day's is uniform on 0..2 * mean). */
export type WarehouseTask = {
    readonly start: Readonly<Record<Item, number>>;
    readonly meanDemand: Readonly<Record<Item, number>>;
};
export declare const drawTask: (seed: string) => WarehouseTask;
export type Delivery = {
    readonly item: Item;
    readonly qty: number;
    readonly day: number;
};
/** The world's state: the day, the shelves, the deliveries due, and running totals for the outcome. */
export type World = {
    readonly day: number;
    readonly stock: Readonly<Record<Item, number>>;
    readonly due: readonly Delivery[];
    readonly demanded: number;
    readonly served: number;
};
export declare const openWorld: (task: WarehouseTask) => World;
/** What customers want on `day`: a function of the episode's seed and the day, never of the agent. */
export declare const demandOn: (task: WarehouseTask, seed: string, day: number) => Record<Item, number>;
/** An order placed today, to arrive DELAY days later. */
export declare const placeOrder: (world: World, item: Item, qty: number) => World;
export declare const onOrder: (world: World, item: Item) => number;
/** One day passes: deliveries due arrive, then the day's demand is served from the shelves. */
export declare const nextDay: (world: World, task: WarehouseTask, seed: string) => {
    world: World;
    sold: Record<Item, number>;
    short: Record<Item, number>;
};
/** The outcome: the share of all demand served (1 when there was none). */
export declare const fillRate: (world: World) => number;

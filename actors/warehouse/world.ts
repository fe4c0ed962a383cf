/**
 * The warehouse world: two items on shelves, orders on their way, and customers who buy every day. The
 * world moves on its own: after each action a day passes (`nextDay`), whatever the agent did. Its
 * randomness, a day's demand, is drawn from the episode's seed and the day alone, so a replay, which
 * reruns the machine on the journal's seed, sees the same days.
 */
import { Rng } from "../../src/index.ts";

export const ITEMS = ["bolts", "gears"] as const;
export type Item = (typeof ITEMS)[number];
export const isItem = (name: string): name is Item => (ITEMS as readonly string[]).includes(name);

/** Days an episode lasts (one per action), days an order takes to arrive, the most one order may ask for. */
export const DAYS = 8;
export const DELAY = 2;
export const MAX_QTY = 20;

/** A task: the stock on day 0, and each item's mean daily demand (a day's is uniform on 0..2 * mean). */
export type WarehouseTask = {
  readonly start: Readonly<Record<Item, number>>;
  readonly meanDemand: Readonly<Record<Item, number>>;
};

export const drawTask = (seed: string): WarehouseTask => {
  const rng = Rng.fromSeed(`${seed}:task`);
  return {
    start: { bolts: rng.int(3, 8), gears: rng.int(3, 8) },
    meanDemand: { bolts: rng.int(1, 2), gears: rng.int(1, 2) },
  };
};

export type Delivery = { readonly item: Item; readonly qty: number; readonly day: number };

/** The world's state: the day, the shelves, the deliveries due, and running totals for the outcome. */
export type World = {
  readonly day: number;
  readonly stock: Readonly<Record<Item, number>>;
  readonly due: readonly Delivery[];
  readonly demanded: number;
  readonly served: number;
};

export const openWorld = (task: WarehouseTask): World => ({
  day: 0,
  stock: { ...task.start },
  due: [],
  demanded: 0,
  served: 0,
});

/** What customers want on `day`: a function of the episode's seed and the day, never of the agent. */
export const demandOn = (task: WarehouseTask, seed: string, day: number): Record<Item, number> => {
  const rng = Rng.fromSeed(`${seed}:demand:${day}`);
  return { bolts: rng.int(0, 2 * task.meanDemand.bolts), gears: rng.int(0, 2 * task.meanDemand.gears) };
};

/** An order placed today, to arrive DELAY days later. */
export const placeOrder = (world: World, item: Item, qty: number): World => ({
  ...world,
  due: [...world.due, { item, qty, day: world.day + DELAY }],
});

export const onOrder = (world: World, item: Item): number =>
  world.due.filter((d) => d.item === item).reduce((sum, d) => sum + d.qty, 0);

/** One day passes: deliveries due arrive, then the day's demand is served from the shelves. */
export const nextDay = (
  world: World,
  task: WarehouseTask,
  seed: string,
): { world: World; sold: Record<Item, number>; short: Record<Item, number> } => {
  const stock = { ...world.stock };
  for (const d of world.due) if (d.day <= world.day) stock[d.item] += d.qty;
  const wanted = demandOn(task, seed, world.day);
  const sold = { bolts: 0, gears: 0 };
  const short = { bolts: 0, gears: 0 };
  for (const item of ITEMS) {
    sold[item] = Math.min(wanted[item], stock[item]);
    short[item] = wanted[item] - sold[item];
    stock[item] -= sold[item];
  }
  return {
    world: {
      day: world.day + 1,
      stock,
      due: world.due.filter((d) => d.day > world.day),
      demanded: world.demanded + wanted.bolts + wanted.gears,
      served: world.served + sold.bolts + sold.gears,
    },
    sold,
    short,
  };
};

/** The outcome: the share of all demand served (1 when there was none). */
export const fillRate = (world: World): number => (world.demanded === 0 ? 1 : world.served / world.demanded);

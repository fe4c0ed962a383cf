/**
 * Scripted policies for `warehouse`: an expert that keeps a ledger of what it saw, a sloppy one (the expert
 * with a habit that costs it: most of its orders are of 2), and a random one.
 */
import { formatCall, type ScriptedRequest, scriptedPolicy, type Turn } from "../../src/index.ts";
import { checkStock, order, tokenizer } from "./env.ts";
import { DAYS, DELAY, ITEMS, type Item, isItem, MAX_QTY, type WarehouseTask } from "./world.ts";

/** The expert orders an item when its stock and orders fall below REORDER, up to TARGET (demand is at most 4 a day). */
const REORDER = 10;
const TARGET = 16;

/**
 * Each item's stock plus orders on their way, as the observations tell it: the last stock report (the
 * opening has one of each), plus the orders placed and less the sales reported since.
 */
const positions = (history: readonly Turn[]): Record<Item, number> => {
  const position = { bolts: 0, gears: 0 };
  for (const { role, text } of history) {
    if (role !== "observation") continue;
    for (const [, item, onHand, due] of text.matchAll(/(\w+) : (\d+) on hand , (\d+) on order/g))
      if (isItem(item)) position[item] = Number(onHand) + Number(due);
    for (const [, qty, item] of text.matchAll(/ordered (\d+) (\w+)/g)) if (isItem(item)) position[item] += Number(qty);
    for (const [, item, sold] of text.matchAll(/(\w+) sold (\d+)/g)) if (isItem(item)) position[item] -= Number(sold);
  }
  return position;
};

/** What the expert does given what it was shown: the order it places (item and qty), or the item it checks. */
const expertChoice = (history: readonly Turn[]): { item: Item; qty?: number } => {
  const position = positions(history);
  const low = ITEMS.reduce((a, b) => (position[a] <= position[b] ? a : b));
  const day = history.filter((t) => t.role === "action").length;
  if (position[low] < REORDER && day + DELAY < DAYS)
    return { item: low, qty: Math.min(MAX_QTY, TARGET - position[low]) };
  return { item: low };
};

/** Orders the lowest item when it runs low (while an order can still arrive), else checks its stock. */
export const expertPolicy = () =>
  scriptedPolicy<WarehouseTask>("warehouse-expert", tokenizer, ({ history }: ScriptedRequest<WarehouseTask>) => {
    const { item, qty } = expertChoice(history);
    return qty === undefined ? formatCall(checkStock, { item }) : formatCall(order, { item, qty });
  });

/** How often the sloppy demonstrator orders SLOPPY_QTY instead of what the expert would order. */
export const SLOPPY_RATE = 0.7;
export const SLOPPY_QTY = 2;

/**
 * The sloppy demonstrator: the expert, except that on each order, with probability `rate` (drawn from the
 * turn's seed), it orders SLOPPY_QTY of the item instead of what it needs. Its ledger still counts what it
 * ordered, so it orders again the next day while the item stays low: more orders, later stock, more
 * stock-outs. A clone decoding greedily tends to take the habit (the more frequent choice);
 * sampling still finds the expert's qty on the other 30%, which RL can make the mode. Its id names any other
 * rate (`warehouse-sloppy@0.5`).
 */
export const sloppyPolicy = (rate = SLOPPY_RATE) =>
  scriptedPolicy<WarehouseTask>(
    rate === SLOPPY_RATE ? "warehouse-sloppy" : `warehouse-sloppy@${rate}`,
    tokenizer,
    ({ history }: ScriptedRequest<WarehouseTask>, rng) => {
      const { item, qty } = expertChoice(history);
      if (qty === undefined) return formatCall(checkStock, { item });
      return formatCall(order, { item, qty: rng.float() < rate ? SLOPPY_QTY : qty });
    },
  );

const RANDOM_ACTIONS = [
  ...ITEMS.map((item) => formatCall(checkStock, { item })),
  ...ITEMS.flatMap((item) => [2, 5, 10].map((qty) => formatCall(order, { item, qty }))),
  "hello",
];

export const randomPolicy = () =>
  scriptedPolicy<WarehouseTask>("warehouse-random", tokenizer, (_request, rng) => ({
    text: rng.pick(RANDOM_ACTIONS),
    logprob: -Math.log(RANDOM_ACTIONS.length),
  }));

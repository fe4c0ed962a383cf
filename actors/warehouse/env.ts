/**
 * `warehouse`: keep two items in stock for 8 days of random demand, through `check_stock` and `order`.
 * Unlike lookup's store, this world moves on its own: every action takes a day, and after it customers buy
 * (world.ts). The machine's `dayPasses` state is that step; its randomness comes from the episode's seed.
 *
 * Rewards (process, each day): +0.05 for each item that met the day's demand, -0.2 for each that ran out;
 * -0.05 for each order placed; -0.1 for a malformed action (an order of a qty outside 1..20 too). Outcome: the
 * fill rate (demand served / demand).
 */
import { assign, setup } from "xstate";
import {
  type AgentActEvent,
  callOf,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  formatCall,
  observe,
  reward,
  Schema,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import {
  DAYS,
  DELAY,
  drawTask,
  fillRate,
  ITEMS,
  type Item,
  isItem,
  MAX_QTY,
  nextDay,
  onOrder,
  openWorld,
  placeOrder,
  type WarehouseTask,
  type World,
} from "./world.ts";

export const REWARDS = { inStock: 0.05, stockout: -0.2, order: -0.05, malformed: -0.1 } as const;

// The tools are the catalogue and the order desk. They hold no episode state (a journal records their
// results, and a replay does not rerun them): the shelves are the machine's, which reads them itself.
export const checkStock = defineTool({
  name: "check_stock",
  description: "Says whether the warehouse carries an item; its stock is then reported.",
  parameters: Schema.Struct({ item: Schema.String }),
  execute: ({ item }) => (isItem(item) ? item : null),
});
export const order = defineTool({
  name: "order",
  description: `Orders qty (1..${MAX_QTY}) of an item; it arrives ${DELAY} days later.`,
  // The range is the parameters' own: an order of 0, 25 or 2.5 is a malformed action, as one of an item the
  // warehouse does not carry is. (A tool that throws on it would look like a bug: train says "a tool's code
  // threw ... fix the tool".)
  parameters: Schema.Struct({
    item: Schema.Literals(ITEMS),
    qty: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_QTY })),
  }),
  execute: ({ item, qty }) => ({ item, qty }),
});
const tools = { check_stock: checkStock, order };

interface Context {
  task: WarehouseTask;
  seed: string;
  world: World;
  /** The action's arguments, while its tool runs. */
  item: string;
  qty: number;
  /** What the action got (a stock report, an order's confirmation, an error), shown before the day's sales. */
  note: string;
  /** The last day's sales and shortfalls, per item. */
  sold: Record<Item, number>;
  short: Record<Item, number>;
  orders: number;
  stockouts: number;
}

const checked = (text: string) => callOf<{ item: string }>(text, tools, "check_stock")?.item;
const ordered = (text: string) => callOf<{ item: Item; qty: number }>(text, tools, "order");

const dayReward = (short: Record<Item, number>) =>
  ITEMS.reduce((sum, item) => sum + (short[item] > 0 ? REWARDS.stockout : REWARDS.inStock), 0);
const stockReport = (world: World, item: Item) =>
  `${item} : ${world.stock[item]} on hand , ${onOrder(world, item)} on order .`;
const dayReport = ({ world, sold, short }: Context) =>
  `day ${world.day - 1} : ${ITEMS.map((i) => `${i} sold ${sold[i]}${short[i] > 0 ? ` ( ${short[i]} short )` : ""}`).join(" , ")} .`;

const machine = setup({
  types: { context: {} as Context, events: {} as AgentActEvent, input: {} as EnvInput<WarehouseTask> },
  actors: toolActors(tools),
}).createMachine({
  id: "warehouse",
  context: ({ input }) => ({
    task: input.task,
    // The episode's seed: the world draws each day's demand from it (a replay gets the journal's).
    seed: input.seed,
    world: openWorld(input.task),
    item: "",
    qty: 0,
    note: "",
    sold: { bolts: 0, gears: 0 },
    short: { bolts: 0, gears: 0 },
    orders: 0,
    stockouts: 0,
  }),
  entry: observe(
    ({ context: { world } }) =>
      `day 0 of ${DAYS} , orders arrive ${DELAY} days later . ${ITEMS.map((i) => stockReport(world, i)).join(" ")}`,
  ),
  initial: "waiting",
  states: {
    waiting: {
      on: {
        "agent.act": [
          {
            guard: ({ event }) => checked(event.text) !== undefined,
            target: "checking",
            actions: assign({ item: ({ event }) => checked(event.text) as string }),
          },
          {
            guard: ({ event }) => ordered(event.text) !== undefined,
            target: "ordering",
            actions: assign(({ event }) => ordered(event.text) as { item: Item; qty: number }),
          },
          {
            // A malformed action wastes the day: the world moves on without the agent.
            target: "dayPasses",
            actions: [
              reward("process", REWARDS.malformed, "malformed action"),
              assign({ note: "error : malformed action ." }),
            ],
          },
        ],
      },
    },
    checking: {
      invoke: {
        src: "check_stock",
        input: ({ context }: { context: Context }) => ({ item: context.item }),
        onDone: {
          target: "dayPasses",
          actions: assign({
            note: ({ context: { item, world }, event }) => {
              if (!event.output.ok) return `error : check_stock failed ( ${event.output.error.kind} ) .`;
              if (!isItem(item)) return `no item ${item} .`;
              return stockReport(world, item);
            },
          }),
        },
      },
    },
    ordering: {
      invoke: {
        src: "order",
        input: ({ context }: { context: Context }) => ({ item: context.item, qty: context.qty }),
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: "dayPasses",
            actions: [
              reward("process", REWARDS.order, "order placed"),
              assign(({ context: { world, item, qty, orders } }) => ({
                world: placeOrder(world, item as Item, qty),
                orders: orders + 1,
                note: `ordered ${qty} ${item} , due day ${world.day + DELAY} .`,
              })),
            ],
          },
          {
            // A failed call (an error, a timeout) costs nothing, and orders nothing.
            target: "dayPasses",
            actions: assign({
              note: ({ event }) => `error : order failed ( ${event.output.ok ? "" : event.output.error.kind} ) .`,
            }),
          },
        ],
      },
    },
    // The world's own step, after every action: deliveries due arrive, then customers buy (world.ts).
    dayPasses: {
      entry: [
        assign(({ context }) => {
          const { world, sold, short } = nextDay(context.world, context.task, context.seed);
          return { world, sold, short, stockouts: context.stockouts + ITEMS.filter((i) => short[i] > 0).length };
        }),
        reward(
          "process",
          ({ context }) => dayReward(context.short),
          ({ context }) => (ITEMS.some((i) => context.short[i] > 0) ? "stock-out" : "demand met"),
        ),
      ],
      always: [
        {
          guard: ({ context }) => context.world.day >= DAYS,
          target: "done",
          actions: [
            reward("outcome", ({ context }) => fillRate(context.world), "fill rate"),
            end("closed", ({ context }) => ({
              success: fillRate(context.world) >= 0.9 ? 1 : 0,
              fillRate: fillRate(context.world),
              stockouts: context.stockouts,
              orders: context.orders,
            })),
          ],
        },
        { target: "waiting", actions: observe(({ context }) => `${context.note} ${dayReport(context)}`) },
      ],
    },
    done: { type: "final" },
  },
});

/**
 * Every word the environment and its actions write, and every number it can: stock runs up to the largest
 * start (8) plus an order of MAX_QTY a day (a number outside the vocabulary would cost a token per digit).
 */
export const tokenizer = WordTokenizer.fromCorpus([
  "day of , orders arrive days later . bolts gears : on hand order error malformed action no item ordered",
  "due sold ( ) short failed timeout invalid-args",
  formatCall(checkStock, { item: "bolts" }),
  formatCall(order, { item: "gears", qty: 5 }),
  Array.from({ length: 8 + DAYS * MAX_QTY + 1 }, (_, i) => String(i)).join(" "),
]);

export const warehouseEnv = defineEnv<WarehouseTask>({
  id: "warehouse",
  version: "1",
  description: `Keep two items in stock for ${DAYS} days of random demand; orders arrive ${DELAY} days later.`,
  machine,
  tools,
  tokenizer,
  task: drawTask,
  maxTurns: DAYS + 2,
  // An order takes 22 tokens (`<order>{"item":"gears","qty":12}</order>`), and <eos>.
  maxActionTokens: 24,
  // An expert's episode takes about 460 tokens, a fresh model's (every action cut at 24) about 620: the
  // model's context holds a whole one.
  model: { contextLength: 704 },
  // A fresh policy writes no well-formed order: clone expert episodes first (`train --no-warm-start` skips it).
  warmStart: { episodes: 200, epochs: 3 },
  legalActions: () => [
    ...ITEMS.map((item) => formatCall(checkStock, { item })),
    ...ITEMS.flatMap((item) => Array.from({ length: MAX_QTY }, (_, i) => formatCall(order, { item, qty: i + 1 }))),
  ],
});

/**
 * A travel desk (written from the README alone, as a new user would): search a route's flights with
 * `flights(from, to)`, book one with `book(id)`. The episode ends on a booking of a flight that exists, not
 * on an `<answer>`: its outcome is the booking's. Process rewards: +0.1 for the first search of the task's
 * route, -0.1 for a repeated search, -0.2 for booking a flight that does not exist.
 */
import { setup } from "xstate";
import * as r1 from "../../src/index.ts";

type Flight = { id: string; price: number };
export const CITIES = ["oslo", "rome", "lima"];
const TIMETABLE: Record<string, Flight[]> = {
  "oslo-rome": [
    { id: "f1", price: 200 },
    { id: "f2", price: 180 },
  ],
  "rome-oslo": [{ id: "f3", price: 90 }],
  "oslo-lima": [
    { id: "f4", price: 400 },
    { id: "f5", price: 450 },
  ],
  "lima-oslo": [{ id: "f6", price: 420 }],
  "rome-lima": [{ id: "f7", price: 300 }],
  "lima-rome": [{ id: "f8", price: 310 }],
};
export const FLIGHT_IDS = Object.values(TIMETABLE).flatMap((list) => list.map((f) => f.id));
const route = (from: string, to: string) =>
  Object.hasOwn(TIMETABLE, `${from}-${to}`) ? TIMETABLE[`${from}-${to}`]! : [];
const cheapest = (t: Task) => [...route(t.from, t.to)].sort((a, b) => a.price - b.price)[0]?.id;

const flights = r1.defineTool({
  name: "flights",
  description: "The flights from one city to another, with their prices.",
  parameters: r1.Schema.Struct({ from: r1.Schema.String, to: r1.Schema.String }),
  execute: ({ from, to }) => route(from, to),
});
const book = r1.defineTool({
  name: "book",
  description: "Books a flight by its id.",
  parameters: r1.Schema.Struct({ id: r1.Schema.String }),
  execute: ({ id }) => FLIGHT_IDS.includes(id),
});
export const tools = { flights, book };
export type Task = { from: string; to: string };
type Context = { task: Task; turns: number; searched: string[]; search: Task; booking: string };
const searchOf = (text: string) => r1.callOf(text, tools, "flights");
export const bookingOf = (text: string) => r1.callOf(text, tools, "book")?.id;
const key = (s: Task) => `${s.from}-${s.to}`;

/** `outcomeNeedsSearch`: a broken outcome that pays for the right booking only after a search of the route. */
export const createTravelEnv = (options: { outcomeNeedsSearch?: boolean } = {}) => {
  const outcome = ({ context }: { context: Context }) =>
    context.booking === cheapest(context.task) && (!options.outcomeNeedsSearch || context.searched.length > 0) ? 1 : 0;
  const machine = setup({
    types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
    actors: r1.toolActors(tools),
  }).createMachine({
    context: ({ input }) => ({ task: input.task, turns: 0, searched: [], search: { from: "", to: "" }, booking: "" }),
    entry: r1.observe(({ context }) => `book the cheapest flight from ${context.task.from} to ${context.task.to}`),
    initial: "waiting",
    states: {
      waiting: {
        entry: r1.assign({ turns: ({ context }) => context.turns + 1 }),
        on: {
          "agent.act": [
            {
              guard: ({ context }) => context.turns > 5,
              target: "done",
              actions: r1.end("turn-limit", { success: 0 }),
            },
            {
              guard: ({ event }) => searchOf(event.text) !== undefined,
              target: "searching",
              actions: r1.assign({ search: ({ event }) => searchOf(event.text)! }),
            },
            {
              guard: ({ event }) => bookingOf(event.text) !== undefined,
              target: "booking",
              actions: r1.assign({ booking: ({ event }) => bookingOf(event.text)! }),
            },
            {
              target: "waiting",
              reenter: true,
              actions: [r1.reward("process", -0.1, "malformed"), r1.observe("error : search or book")],
            },
          ],
        },
      },
      searching: {
        invoke: {
          src: "flights",
          input: ({ context }) => context.search,
          onDone: {
            target: "waiting",
            actions: [
              r1.reward(
                "process",
                ({ context: { searched, search, task } }) =>
                  searched.includes(key(search)) ? -0.1 : key(search) === key(task) ? 0.1 : 0,
                "search",
              ),
              r1.assign({ searched: ({ context }) => [...context.searched, key(context.search)] }),
              r1.observe(({ event }) =>
                event.output.ok ? JSON.stringify(event.output.content) : `error : ${event.output.error.kind}`,
              ),
            ],
          },
        },
      },
      booking: {
        invoke: {
          src: "book",
          input: ({ context }) => ({ id: context.booking }),
          onDone: [
            {
              guard: ({ event }) => !event.output.ok || event.output.content !== true,
              target: "waiting",
              actions: [r1.reward("process", -0.2, "no such flight"), r1.observe("error : no such flight")],
            },
            {
              target: "done",
              actions: [r1.reward("outcome", outcome, "booked"), r1.end("booked", (a) => ({ success: outcome(a) }))],
            },
          ],
        },
      },
      done: { type: "final" },
    },
  });
  return r1.defineEnv({
    id: "travel",
    version: "1",
    description: "Search a route's flights and book the cheapest.",
    machine,
    tools,
    tokenizer: r1.WordTokenizer.fromCorpus([
      ...CITIES,
      ...FLIGHT_IDS,
      "book the cheapest flight from to error search or no such id price true false",
    ]),
    task: (seed): Task => {
      const [from, to] = r1.Rng.fromSeed(seed).shuffle(CITIES);
      return { from: from!, to: to! };
    },
    maxActionTokens: 24,
  });
};

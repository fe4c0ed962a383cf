/**
 * A customer-support triage desk (written from the README alone, as a new user would). A ticket asks about an
 * order; the agent looks it up with `lookupOrder` (a flaky service: busy or timing out now and then, drawn from
 * the episode's seed and the turn), refunds it with `refund` when it is lost (a second refund of an order is
 * refused by the desk), and answers with the ticket's resolution: `refunded`, `delivered` or `in_transit`.
 * The world moves on its own: before each action that is not the answer, an order in transit may be delivered
 * or lost (drawn from the episode's seed). Process rewards: +0.1 for the first successful lookup of the
 * ticket's order, +0.1 for refunding a lost order its paid amount, -0.1 for a malformed action or a refused
 * second refund, -0.2 for a refund that was wrong. Outcome: 1 for the right resolution, else 0.
 */

import * as r1 from "agent-r1-ts";
import * as Data from "effect/Data";
import { setup } from "xstate";

export type Status = "in_transit" | "delivered" | "lost";
export type Order = { status: Status; paid: number };
export type Task = { ticket: string; order: string; orders: Record<string, Order> };
export type Context = {
  task: Task;
  seed: string;
  turns: number;
  orders: Record<string, Order>;
  looked: boolean;
  refunded: Record<string, number>;
  call: { id: string; amount: number };
};

class ServiceBusy extends Data.TaggedError("ServiceBusy")<{ readonly message: string }> {}

const lookupOrder = r1.defineTool({
  name: "lookupOrder",
  description: "Looks an order up: its status and what was paid.",
  parameters: r1.Schema.Struct({
    id: r1.Schema.String,
    // Filled by the machine: the draw that decides whether the service answers, and the order as it stands.
    attempt: r1.Schema.optional(r1.Schema.String),
    status: r1.Schema.optional(r1.Schema.String),
    paid: r1.Schema.optional(r1.Schema.Number),
  }),
  timeoutMs: 50,
  execute: ({ id, attempt, status, paid }, { signal }) => {
    const draw = r1.Rng.fromSeed(attempt ?? id).float();
    if (draw < 0.15) throw new ServiceBusy({ message: "the order service is busy" });
    if (draw < 0.25) return new Promise<null>((resolve) => signal.addEventListener("abort", () => resolve(null)));
    return status === undefined ? null : { id, status, paid: paid ?? 0 };
  },
});
const refund = r1.defineTool({
  name: "refund",
  description: "Refunds an amount of an order to its customer.",
  parameters: r1.Schema.Struct({ id: r1.Schema.String, amount: r1.Schema.Number }),
  execute: ({ id, amount }) => ({ refunded: id, amount }),
});
export const tools = { lookupOrder, refund };

const answerOf = (text: string) => r1.answerOf(text, tools);
const lookupOf = (text: string) => r1.callOf(text, tools, "lookupOrder")?.id;
const refundOf = (text: string) => r1.callOf(text, tools, "refund");

/** The resolution the ticket needs, given the world as it stands and the refunds made. */
export const resolution = (orders: Record<string, Order>, order: string): string => {
  const status = orders[order]?.status;
  return status === "lost" ? "refunded" : (status ?? "unknown");
};
const correct = (context: Context, text: string) => {
  const { orders, refunded, task } = context;
  const order = orders[task.order]!;
  const refundsRight =
    order.status === "lost"
      ? refunded[task.order] === order.paid && Object.keys(refunded).length === 1
      : Object.keys(refunded).length === 0;
  return refundsRight && answerOf(text) === resolution(orders, task.order) ? 1 : 0;
};

/** The world's own step: each order in transit may be delivered or lost, drawn from the seed and the turn. */
export const advance = (orders: Record<string, Order>, seed: string, turn: number): Record<string, Order> =>
  Object.fromEntries(
    Object.entries(orders).map(([id, order]) => {
      if (order.status !== "in_transit") return [id, order];
      const draw = r1.Rng.fromSeed(`${seed}:world:${turn}:${id}`).float();
      return [id, { ...order, status: draw < 0.2 ? "lost" : draw < 0.4 ? "delivered" : "in_transit" }];
    }),
  );

const IDS = ["o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8"];
const words =
  "amount ticket : where is order ? error use lookupOrder id , refund answer busy timeout try again not found paid refunded on was already failed in_transit delivered lost";
export const tokenizer = r1.WordTokenizer.fromCorpus([words, ...IDS]);

/** What the history's observations said last about the ticket's order: its status and paid amount. */
const lastSeen = (history: readonly { role: string; text: string }[], id: string) => {
  for (let i = history.length - 1; i >= 0; i--) {
    const m = new RegExp(`^${id} : (\\w+) , paid (\\d+)$`).exec(history[i]!.text);
    if (m) return { status: m[1]!, paid: Number(m[2]) };
  }
  return undefined;
};
const refundedIn = (history: readonly { role: string; text: string }[], id: string) =>
  history.some(
    (turn) => turn.role === "observation" && turn.text.startsWith("refunded ") && turn.text.endsWith(` on ${id}`),
  );

// The expert looks the order up until the service answers, refunds a lost order what was paid, then answers.
const expert = () =>
  r1.scriptedPolicy<Task>("support-expert", tokenizer, ({ task, history }) => {
    const seen = lastSeen(history, task.order);
    if (seen === undefined) return r1.formatCall(lookupOrder, { id: task.order });
    if (seen.status !== "lost") return r1.formatAnswer(seen.status);
    if (!refundedIn(history, task.order)) return r1.formatCall(refund, { id: task.order, amount: seen.paid });
    return r1.formatAnswer("refunded");
  });

const legalActions = ({ task, history }: r1.LegalView<Task>) => {
  const seen = lastSeen(history, task.order);
  return [
    r1.formatCall(lookupOrder, { id: task.order }),
    ...(seen?.status === "lost" ? [r1.formatCall(refund, { id: task.order, amount: seen.paid })] : []),
    ...["refunded", "delivered", "in_transit"].map((a) => r1.formatAnswer(a)),
  ];
};

const MAX_TURNS = 6;
/** `payFailedRefund`: a broken reward that pays a refund whose call failed (so a failed refund can be retried for more). */
const createMachine = (options: { payFailedRefund?: boolean }) =>
  setup({
    types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<Task> },
    actors: r1.toolActors(tools),
    actions: {
      // Every action but the answer takes a turn, and the world moves before it acts.
      tick: r1.assign({
        turns: ({ context }) => context.turns + 1,
        orders: ({ context }) => advance(context.orders, context.seed, context.turns),
      }),
    },
  }).createMachine({
    context: ({ input }) => ({
      task: input.task,
      seed: input.seed,
      turns: 0,
      orders: input.task.orders,
      looked: false,
      refunded: {},
      call: { id: "", amount: 0 },
    }),
    entry: r1.observe(({ context }) => `ticket ${context.task.ticket} : where is order ${context.task.order} ?`),
    initial: "waiting",
    states: {
      waiting: {
        on: {
          "agent.act": [
            {
              guard: ({ event }) => answerOf(event.text) !== undefined,
              target: "done",
              actions: [
                r1.reward("outcome", ({ context, event }) => correct(context, event.text), "resolution"),
                r1.end("answered", ({ context, event }) => ({ success: correct(context, event.text) })),
              ],
            },
            {
              guard: ({ context }) => context.turns >= MAX_TURNS,
              target: "done",
              actions: r1.end("turn-limit", { success: 0 }),
            },
            {
              guard: ({ event }) => lookupOf(event.text) !== undefined,
              target: "looking",
              actions: ["tick", r1.assign({ call: ({ event }) => ({ id: lookupOf(event.text)!, amount: 0 }) })],
            },
            {
              guard: ({ context, event }) => {
                const id = refundOf(event.text)?.id;
                return id !== undefined && Object.hasOwn(context.refunded, id);
              },
              target: "waiting",
              reenter: true,
              actions: [
                "tick",
                r1.reward("process", -0.1, "second refund refused"),
                r1.observe(({ event }) => `error : order ${refundOf(event.text)!.id} was refunded already`),
              ],
            },
            {
              guard: ({ event }) => refundOf(event.text) !== undefined,
              target: "refunding",
              actions: ["tick", r1.assign({ call: ({ event }) => refundOf(event.text)! })],
            },
            {
              target: "waiting",
              reenter: true,
              actions: [
                "tick",
                r1.reward("process", -0.1, "malformed"),
                r1.observe("error : use <lookupOrder>id</lookupOrder> , <refund> or <answer>"),
              ],
            },
          ],
        },
      },
      looking: {
        invoke: {
          src: "lookupOrder",
          input: ({ context }) => {
            const order = Object.hasOwn(context.orders, context.call.id) ? context.orders[context.call.id] : undefined;
            return {
              id: context.call.id,
              attempt: `${context.seed}:${context.turns}`,
              ...(order === undefined ? {} : { status: order.status, paid: order.paid }),
            };
          },
          onDone: {
            target: "waiting",
            actions: [
              r1.reward(
                "process",
                ({ context, event }) =>
                  event.output.ok && !context.looked && context.call.id === context.task.order ? 0.1 : 0,
                "looked the order up",
              ),
              r1.assign({
                looked: ({ context, event }) =>
                  context.looked || (event.output.ok && context.call.id === context.task.order),
              }),
              r1.observe(({ context, event }) => {
                const result = event.output;
                if (!result.ok)
                  return `error : lookupOrder ${result.error.tag === "ServiceBusy" ? "busy" : result.error.kind} , try again`;
                const found = result.content as { status: string; paid: number } | null;
                return found === null
                  ? `${context.call.id} : not found`
                  : `${context.call.id} : ${found.status} , paid ${found.paid}`;
              }),
            ],
          },
        },
      },
      refunding: {
        invoke: {
          src: "refund",
          input: ({ context }) => context.call,
          onDone: {
            target: "waiting",
            actions: [
              r1.reward(
                "process",
                ({ context, event }) => {
                  if (!event.output.ok && !options.payFailedRefund) return 0;
                  const order = Object.hasOwn(context.orders, context.call.id)
                    ? context.orders[context.call.id]
                    : undefined;
                  return order?.status === "lost" && order.paid === context.call.amount ? 0.1 : -0.2;
                },
                "refund",
              ),
              r1.assign({
                refunded: ({ context, event }) =>
                  event.output.ok ? { ...context.refunded, [context.call.id]: context.call.amount } : context.refunded,
              }),
              r1.observe(({ context, event }) =>
                event.output.ok ? `refunded ${context.call.amount} on ${context.call.id}` : "error : refund failed",
              ),
            ],
          },
        },
      },
      done: { type: "final" },
    },
  });

export const createSupportEnv = (options: { payFailedRefund?: boolean } = {}) =>
  r1.defineEnv({
    id: "support",
    version: "1",
    description: "Triage a support ticket: look its order up, refund a lost one, answer with the resolution.",
    machine: createMachine(options),
    tools,
    tokenizer,
    maxActionTokens: 32,
    task: (seed): Task => {
      const rng = r1.Rng.fromSeed(seed);
      const ids = rng.shuffle(IDS).slice(0, 3);
      const statuses: Status[] = ["in_transit", "in_transit", "lost", "delivered"];
      const orders = Object.fromEntries(ids.map((id) => [id, { status: rng.pick(statuses), paid: rng.int(10, 90) }]));
      return { ticket: String(rng.int(1, 99)), order: ids[0]!, orders };
    },
    policies: {
      expert,
      random: () =>
        r1.scriptedPolicy("support-random", tokenizer, (_, rng) =>
          rng.pick([
            "<lookupOrder>o1</lookupOrder>",
            "<answer>delivered</answer>",
            '<refund>{"id":"o1","amount":20}</refund>',
            "hello",
          ]),
        ),
    },
    legalActions,
  });
export default createSupportEnv();

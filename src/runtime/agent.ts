/**
 * The agent actor: waits for an observation, asks the shared policy actor for an action given the whole
 * token context, and emits it. It holds no randomness of its own: each turn's seed is passed in.
 */
import { assign, emit, fromPromise, setup } from "xstate";
import type { PolicyAction, PolicyRequest } from "./policy.ts";
import type { PolicyActor } from "./policy-actor.ts";

export type AgentEmitted =
  | { readonly type: "agent.decided"; readonly request: PolicyRequest; readonly action: PolicyAction }
  | { readonly type: "agent.failed"; readonly request: PolicyRequest; readonly error: unknown };

export const createAgentMachine = (policy: PolicyActor) =>
  setup({
    types: {
      events: {} as { type: "agent.observe"; request: PolicyRequest } | { type: "agent.stop" },
      context: {} as { request: PolicyRequest | null },
      emitted: {} as AgentEmitted,
    },
    actors: {
      decide: fromPromise<PolicyAction, PolicyRequest>(({ input }) => policy.request(input)),
    },
  }).createMachine({
    id: "agent",
    context: { request: null },
    initial: "waiting",
    on: { "agent.stop": ".stopped" },
    states: {
      waiting: {
        on: {
          "agent.observe": { target: "thinking", actions: assign({ request: ({ event }) => event.request }) },
        },
      },
      thinking: {
        invoke: {
          src: "decide",
          input: ({ context }) => context.request!,
          onDone: {
            target: "waiting",
            actions: emit(({ context, event }) => ({
              type: "agent.decided" as const,
              request: context.request!,
              action: event.output,
            })),
          },
          onError: {
            target: "waiting",
            actions: emit(({ context, event }) => ({
              type: "agent.failed" as const,
              request: context.request!,
              error: event.error,
            })),
          },
        },
      },
      stopped: { type: "final" },
    },
  });

/**
 * The agent actor: one per episode. It receives each observation as an `agent.observe` event carrying the
 * policy request (the whole token context, the turn's seed), asks the shared policy actor, and emits
 * `agent.decided` with the action, or `agent.failed`. It holds no randomness of its own (each turn's seed
 * comes in the request) and at most one request is out at a time: an `agent.observe` that arrives while one
 * is out is dropped (its observation is in the next request's history). A callback actor, so a turn costs
 * one event and one emit, not an invoked child.
 */
import { type ActorRefFrom } from "xstate";
import type { PolicyAction, PolicyRequest } from "./policy.ts";
import type { PolicyActor } from "./policy-actor.ts";
export type AgentEvent = {
    readonly type: "agent.observe";
    readonly request: PolicyRequest;
};
export type AgentEmitted = {
    readonly type: "agent.decided";
    readonly request: PolicyRequest;
    readonly action: PolicyAction;
} | {
    readonly type: "agent.failed";
    readonly request: PolicyRequest;
    readonly error: unknown;
};
export declare const agentLogic: (policy: PolicyActor) => import("xstate").CallbackActorLogic<AgentEvent, undefined, AgentEmitted>;
/** A new (not started) agent actor asking `policy`. */
export declare const createAgent: (policy: PolicyActor) => ActorRefFrom<ReturnType<typeof agentLogic>>;

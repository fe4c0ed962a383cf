/*
 * The agent actor: waits for an observation, asks the shared policy actor for an action given the whole
 * token context, and emits it. It holds no randomness of its own: each turn's seed is passed in.
 */
import type { PolicyAction, PolicyRequest } from "./policy.ts";
import type { PolicyActor } from "./policy-actor.ts";
export type AgentEmitted = {
    readonly type: "agent.decided";
    readonly request: PolicyRequest;
    readonly action: PolicyAction;
} | {
    readonly type: "agent.failed";
    readonly request: PolicyRequest;
    readonly error: unknown;
};
export declare const createAgentMachine: (policy: PolicyActor) => import("xstate").StateMachine<{
    request: PolicyRequest | null;
}, {
    type: "agent.observe";
    request: PolicyRequest;
} | {
    type: "agent.stop";
}, {
    [x: string]: import("xstate").ActorRefFromLogic<import("xstate").PromiseActorLogic<PolicyAction, PolicyRequest, import("xstate").EventObject>> | undefined;
}, {
    src: "decide";
    logic: import("xstate").PromiseActorLogic<PolicyAction, PolicyRequest, import("xstate").EventObject>;
    id: string | undefined;
}, never, never, never, "stopped" | "thinking" | "waiting", string, import("xstate").NonReducibleUnknown, import("xstate").NonReducibleUnknown, {
    readonly type: "agent.decided";
    readonly request: PolicyRequest;
    readonly action: PolicyAction;
} | {
    readonly type: "agent.failed";
    readonly request: PolicyRequest;
    readonly error: unknown;
}, import("xstate").MetaObject, {
    id: "agent";
    states: {
        readonly waiting: {};
        readonly thinking: {};
        readonly stopped: {};
    };
}, import("xstate").MetaObject>;

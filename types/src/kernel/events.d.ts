/**
 * The event model: one tagged union, described once as an Effect Schema.
 *
 * Every event of an episode's stream carries the envelope (`v`, `episode`, `seq`, `prev`) and a `type`.
 * Inputs from outside the environment (the source of truth) are `episode.started`, `agent.acted` and
 * `tool.returned`; every other event is derived by the environment machine and re-derived on replay.
 */
import * as Schema from "effect/Schema";
/** Version of the event format written by this code. Journals of another version are refused. */
export declare const EVENT_FORMAT_VERSION: 1;
/** `prev` of the first event of every episode. */
export declare const GENESIS: "genesis";
/** The policy that acted: its id and version (a learner bumps the version after each update). */
export declare const PolicyRef: Schema.Struct<{
    readonly id: Schema.String;
    readonly version: Schema.Int;
}>;
export type PolicyRef = typeof PolicyRef.Type;
/**
 * First event of every episode (an input): the environment's id and version (and options, for a configured variant),
 * the task, the seed, the policy and the tokenizer id.
 */
export declare const EpisodeStarted: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"episode.started">;
    /**
     * `options`: those of a configured variant (`--env "hopqa?legal=relations"`), as strings by key, where they
     * differ from the environment's own; absent for the environment as defined (and in journals written before).
     */
    readonly env: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.String;
        readonly options: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>;
    }>;
    readonly task: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    readonly seed: Schema.String;
    readonly policy: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.Int;
    }>;
    readonly tokenizer: Schema.String;
}>;
/**
 * The agent's action in a turn (an input): the sampled tokens, their text and their log-probabilities under the
 * acting policy.
 */
export declare const AgentActed: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"agent.acted">;
    readonly turn: Schema.Int;
    readonly tokens: Schema.$Array<Schema.Int>;
    readonly text: Schema.String;
    readonly logprobs: Schema.$Array<Schema.Finite>;
    readonly policy: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.Int;
    }>;
    /**
     * Constrained decoding: for each sampled token, the ids that were allowed at that position (absent when
     * decoding was unconstrained). Training applies the same mask so the importance ratio stays exact.
     */
    readonly allowed: Schema.optionalKey<Schema.$Array<Schema.NullOr<Schema.$Array<Schema.Int>>>>;
}>;
/** A tool call the environment started from the agent's action (derived); `call` ties it to its `tool.returned`. */
export declare const ToolCalled: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"tool.called">;
    readonly turn: Schema.Int;
    readonly call: Schema.String;
    /** The environment machine's invocation id (the child actor id). */
    readonly actor: Schema.String;
    readonly tool: Schema.String;
    readonly args: Schema.Codec<Schema.Json, Schema.Json, never, never>;
}>;
/**
 * Why a tool call failed: the tool threw (error), ran out of time (timeout) or got arguments that do not decode
 * (invalid-args). `tag`: the `_tag` of what the tool threw, when it had one (an Effect tagged error, such as
 * `Data.TaggedError("StoreLocked")`), so that a machine can tell typed errors apart without reading messages.
 */
export declare const ToolFailure: Schema.Struct<{
    readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
    readonly message: Schema.String;
    readonly tag: Schema.optionalKey<Schema.String>;
}>;
export type ToolFailure = typeof ToolFailure.Type;
/** The outcome of a tool call: `{ ok: true, content }` or `{ ok: false, error }`; a tool call never throws. */
export declare const ToolResult: Schema.Union<readonly [Schema.Struct<{
    readonly ok: Schema.Literal<true>;
    readonly content: Schema.Codec<Schema.Json, Schema.Json, never, never>;
}>, Schema.Struct<{
    readonly ok: Schema.Literal<false>;
    readonly error: Schema.Struct<{
        readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
        readonly message: Schema.String;
        readonly tag: Schema.optionalKey<Schema.String>;
    }>;
}>]>;
export type ToolResult = typeof ToolResult.Type;
/** A tool call's result (an input: replay reads it instead of calling the tool). */
export declare const ToolReturned: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"tool.returned">;
    readonly call: Schema.String;
    readonly result: Schema.Union<readonly [Schema.Struct<{
        readonly ok: Schema.Literal<true>;
        readonly content: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    }>, Schema.Struct<{
        readonly ok: Schema.Literal<false>;
        readonly error: Schema.Struct<{
            readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
            readonly message: Schema.String;
            readonly tag: Schema.optionalKey<Schema.String>;
        }>;
    }>]>;
}>;
/** What the environment shows the agent (derived), as text and as the tokenizer's tokens. */
export declare const EnvObserved: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"env.observed">;
    readonly turn: Schema.Int;
    readonly text: Schema.String;
    readonly tokens: Schema.$Array<Schema.Int>;
}>;
/** "process" rewards are given during the episode (per turn), "outcome" rewards at its end. */
export declare const RewardKind: Schema.Literals<readonly ["process", "outcome"]>;
export type RewardKind = typeof RewardKind.Type;
/** A reward the environment gave (derived), with the turn it belongs to and a reason for people. */
export declare const RewardAssigned: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"reward.assigned">;
    readonly kind: Schema.Literals<readonly ["process", "outcome"]>;
    readonly value: Schema.Finite;
    readonly turn: Schema.Int;
    readonly reason: Schema.String;
}>;
/** The environment machine's persisted state after a step (derived), with its hash; replay compares both. */
export declare const EnvTransitioned: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"env.transitioned">;
    readonly state: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    readonly hash: Schema.String;
}>;
/**
 * Last event of every episode (derived): why it ended, the return (sum of its rewards), the turns taken and the
 * environment's metrics.
 */
export declare const EpisodeEnded: Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"episode.ended">;
    readonly reason: Schema.String;
    readonly return: Schema.Finite;
    readonly turns: Schema.Int;
    /** The environment's own metrics (exact match, F1, ...), as numbers. */
    readonly metrics: Schema.$Record<Schema.String, Schema.Finite>;
}>;
/** Any event of an episode's stream: the schema journals are decoded and validated with. */
export declare const EpisodeEvent: Schema.Union<readonly [Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"episode.started">;
    /**
     * `options`: those of a configured variant (`--env "hopqa?legal=relations"`), as strings by key, where they
     * differ from the environment's own; absent for the environment as defined (and in journals written before).
     */
    readonly env: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.String;
        readonly options: Schema.optionalKey<Schema.$Record<Schema.String, Schema.String>>;
    }>;
    readonly task: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    readonly seed: Schema.String;
    readonly policy: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.Int;
    }>;
    readonly tokenizer: Schema.String;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"agent.acted">;
    readonly turn: Schema.Int;
    readonly tokens: Schema.$Array<Schema.Int>;
    readonly text: Schema.String;
    readonly logprobs: Schema.$Array<Schema.Finite>;
    readonly policy: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.Int;
    }>;
    /**
     * Constrained decoding: for each sampled token, the ids that were allowed at that position (absent when
     * decoding was unconstrained). Training applies the same mask so the importance ratio stays exact.
     */
    readonly allowed: Schema.optionalKey<Schema.$Array<Schema.NullOr<Schema.$Array<Schema.Int>>>>;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"tool.called">;
    readonly turn: Schema.Int;
    readonly call: Schema.String;
    /** The environment machine's invocation id (the child actor id). */
    readonly actor: Schema.String;
    readonly tool: Schema.String;
    readonly args: Schema.Codec<Schema.Json, Schema.Json, never, never>;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"tool.returned">;
    readonly call: Schema.String;
    readonly result: Schema.Union<readonly [Schema.Struct<{
        readonly ok: Schema.Literal<true>;
        readonly content: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    }>, Schema.Struct<{
        readonly ok: Schema.Literal<false>;
        readonly error: Schema.Struct<{
            readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
            readonly message: Schema.String;
            readonly tag: Schema.optionalKey<Schema.String>;
        }>;
    }>]>;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"env.observed">;
    readonly turn: Schema.Int;
    readonly text: Schema.String;
    readonly tokens: Schema.$Array<Schema.Int>;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"reward.assigned">;
    readonly kind: Schema.Literals<readonly ["process", "outcome"]>;
    readonly value: Schema.Finite;
    readonly turn: Schema.Int;
    readonly reason: Schema.String;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"env.transitioned">;
    readonly state: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    readonly hash: Schema.String;
}>, Schema.Struct<{
    readonly v: Schema.Literal<1>;
    readonly episode: Schema.String;
    readonly seq: Schema.Int;
    readonly prev: Schema.String;
    readonly digest: Schema.String;
    readonly meta: Schema.optionalKey<Schema.Struct<{
        readonly at: Schema.optionalKey<Schema.Finite>;
    }>>;
    readonly type: Schema.Literal<"episode.ended">;
    readonly reason: Schema.String;
    readonly return: Schema.Finite;
    readonly turns: Schema.Int;
    /** The environment's own metrics (exact match, F1, ...), as numbers. */
    readonly metrics: Schema.$Record<Schema.String, Schema.Finite>;
}>]>;
export type EpisodeEvent = typeof EpisodeEvent.Type;
/** The `type` of an event ("episode.started", "agent.acted", ...). */
export type EventType = EpisodeEvent["type"];
/** The event whose `type` is T. */
export type EventOf<T extends EventType> = Extract<EpisodeEvent, {
    type: T;
}>;
/** An event before the journal stamps its envelope. */
export type EventBody<E extends EpisodeEvent = EpisodeEvent> = E extends EpisodeEvent ? Omit<E, "v" | "episode" | "seq" | "prev" | "digest" | "meta"> : never;
/** A reward without its envelope, as replay returns it: `type`, `kind`, `value`, `turn`, `reason`. */
export type RewardBody = EventBody<EventOf<"reward.assigned">>;
/** Events that enter from outside the environment: the source of truth for replay. */
export declare const INPUT_EVENT_TYPES: ReadonlySet<EventType>;
/** A type guard for one event type, for `events.filter(isEventOf("reward.assigned"))`. */
export declare const isEventOf: <T extends EventType>(type: T) => (event: EpisodeEvent) => event is EventOf<T>;

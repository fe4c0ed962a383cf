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
export declare const PolicyRef: Schema.Struct<{
    readonly id: Schema.String;
    readonly version: Schema.Int;
}>;
export type PolicyRef = typeof PolicyRef.Type;
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
    readonly env: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.String;
    }>;
    readonly task: Schema.Codec<Schema.Json, Schema.Json, never, never>;
    readonly seed: Schema.String;
    readonly policy: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.Int;
    }>;
    readonly tokenizer: Schema.String;
}>;
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
export declare const ToolFailure: Schema.Struct<{
    readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
    readonly message: Schema.String;
}>;
export type ToolFailure = typeof ToolFailure.Type;
export declare const ToolResult: Schema.Union<readonly [Schema.Struct<{
    readonly ok: Schema.Literal<true>;
    readonly content: Schema.Codec<Schema.Json, Schema.Json, never, never>;
}>, Schema.Struct<{
    readonly ok: Schema.Literal<false>;
    readonly error: Schema.Struct<{
        readonly kind: Schema.Literals<readonly ["error", "timeout", "invalid-args"]>;
        readonly message: Schema.String;
    }>;
}>]>;
export type ToolResult = typeof ToolResult.Type;
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
        }>;
    }>]>;
}>;
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
export declare const RewardKind: Schema.Literals<readonly ["process", "outcome"]>;
export type RewardKind = typeof RewardKind.Type;
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
    readonly env: Schema.Struct<{
        readonly id: Schema.String;
        readonly version: Schema.String;
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
export type EventType = EpisodeEvent["type"];
export type EventOf<T extends EventType> = Extract<EpisodeEvent, {
    type: T;
}>;
/** An event before the journal stamps its envelope. */
export type EventBody<E extends EpisodeEvent = EpisodeEvent> = E extends EpisodeEvent ? Omit<E, "v" | "episode" | "seq" | "prev" | "digest" | "meta"> : never;
/** A reward without its envelope, as replay returns it: `type`, `kind`, `value`, `turn`, `reason`. */
export type RewardBody = EventBody<EventOf<"reward.assigned">>;
/** Events that enter from outside the environment: the source of truth for replay. */
export declare const INPUT_EVENT_TYPES: ReadonlySet<EventType>;
export declare const isEventOf: <T extends EventType>(type: T) => (event: EpisodeEvent) => event is EventOf<T>;

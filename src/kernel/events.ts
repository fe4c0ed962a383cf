/**
 * The event model: one tagged union, described once as an Effect Schema.
 *
 * Every event of an episode's stream carries the envelope (`v`, `episode`, `seq`, `prev`) and a `type`.
 * Inputs from outside the environment (the source of truth) are `episode.started`, `agent.acted` and
 * `tool.returned`; every other event is derived by the environment machine and re-derived on replay.
 */
import * as Schema from "effect/Schema";

/** Version of the event format written by this code. Journals of another version are refused. */
export const EVENT_FORMAT_VERSION = 1 as const;

/** `prev` of the first event of every episode. */
export const GENESIS = "genesis" as const;

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const TokenIds = Schema.Array(NonNegativeInt);

const Envelope = {
  v: Schema.Literal(EVENT_FORMAT_VERSION),
  episode: Schema.String,
  seq: NonNegativeInt,
  prev: Schema.String,
  /** Hash of this event's own canonical JSON (without `digest` and `meta`): an edited line is caught at its own line. */
  digest: Schema.String,
  /**
   * Optional wall-clock metadata (ms since epoch) for other writers. Never hashed or compared on replay,
   * so it is not protected against edits; the runtime does not write it.
   */
  meta: Schema.optionalKey(Schema.Struct({ at: Schema.optionalKey(Schema.Finite) })),
};

/** The policy that acted: its id and version (a learner bumps the version after each update). */
export const PolicyRef = Schema.Struct({ id: Schema.String, version: NonNegativeInt });
export type PolicyRef = typeof PolicyRef.Type;

/**
 * First event of every episode (an input): the environment's id and version (and options, for a configured variant),
 * the task, the seed, the policy and the tokenizer id.
 */
export const EpisodeStarted = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("episode.started"),
  /**
   * `options`: those of a configured variant (`--env "hopqa?legal=relations"`), as strings by key, where they
   * differ from the environment's own; absent for the environment as defined (and in journals written before).
   */
  env: Schema.Struct({
    id: Schema.String,
    version: Schema.String,
    options: Schema.optionalKey(Schema.Record(Schema.String, Schema.String)),
  }),
  task: Schema.Json,
  seed: Schema.String,
  policy: PolicyRef,
  tokenizer: Schema.String,
});

/**
 * The agent's action in a turn (an input): the sampled tokens, their text and their log-probabilities under the
 * acting policy.
 */
export const AgentActed = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("agent.acted"),
  turn: NonNegativeInt,
  tokens: TokenIds,
  text: Schema.String,
  logprobs: Schema.Array(Schema.Finite),
  policy: PolicyRef,
  /**
   * Constrained decoding: for each sampled token, the ids that were allowed at that position (absent when
   * decoding was unconstrained). Training applies the same mask so the importance ratio stays exact.
   */
  allowed: Schema.optionalKey(Schema.Array(Schema.NullOr(TokenIds))),
});

/** A tool call the environment started from the agent's action (derived); `call` ties it to its `tool.returned`. */
export const ToolCalled = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("tool.called"),
  turn: NonNegativeInt,
  call: Schema.String,
  /** The environment machine's invocation id (the child actor id). */
  actor: Schema.String,
  tool: Schema.String,
  args: Schema.Json,
});

/**
 * Why a tool call failed: the tool threw (error), ran out of time (timeout) or got arguments that do not decode
 * (invalid-args). `tag`: the `_tag` of what the tool threw, when it had one (an Effect tagged error, such as
 * `Data.TaggedError("StoreLocked")`), so that a machine can tell typed errors apart without reading messages.
 */
export const ToolFailure = Schema.Struct({
  kind: Schema.Literals(["error", "timeout", "invalid-args"]),
  message: Schema.String,
  tag: Schema.optionalKey(Schema.String),
});
export type ToolFailure = typeof ToolFailure.Type;

/** The outcome of a tool call: `{ ok: true, content }` or `{ ok: false, error }`; a tool call never throws. */
export const ToolResult = Schema.Union([
  Schema.Struct({ ok: Schema.Literal(true), content: Schema.Json }),
  Schema.Struct({ ok: Schema.Literal(false), error: ToolFailure }),
]);
export type ToolResult = typeof ToolResult.Type;

/** A tool call's result (an input: replay reads it instead of calling the tool). */
export const ToolReturned = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("tool.returned"),
  call: Schema.String,
  result: ToolResult,
});

/** What the environment shows the agent (derived), as text and as the tokenizer's tokens. */
export const EnvObserved = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("env.observed"),
  turn: NonNegativeInt,
  text: Schema.String,
  tokens: TokenIds,
});

/** "process" rewards are given during the episode (per turn), "outcome" rewards at its end. */
export const RewardKind = Schema.Literals(["process", "outcome"]);
export type RewardKind = typeof RewardKind.Type;

/** A reward the environment gave (derived), with the turn it belongs to and a reason for people. */
export const RewardAssigned = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("reward.assigned"),
  kind: RewardKind,
  value: Schema.Finite,
  turn: NonNegativeInt,
  reason: Schema.String,
});

/** The environment machine's persisted state after a step (derived), with its hash; replay compares both. */
export const EnvTransitioned = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("env.transitioned"),
  state: Schema.Json,
  hash: Schema.String,
});

/**
 * Last event of every episode (derived): why it ended, the return (sum of its rewards), the turns taken and the
 * environment's metrics.
 */
export const EpisodeEnded = Schema.Struct({
  ...Envelope,
  type: Schema.Literal("episode.ended"),
  reason: Schema.String,
  return: Schema.Finite,
  turns: NonNegativeInt,
  /** The environment's own metrics (exact match, F1, ...), as numbers. */
  metrics: Schema.Record(Schema.String, Schema.Finite),
});

/** Any event of an episode's stream: the schema journals are decoded and validated with. */
export const EpisodeEvent = Schema.Union([
  EpisodeStarted,
  AgentActed,
  ToolCalled,
  ToolReturned,
  EnvObserved,
  RewardAssigned,
  EnvTransitioned,
  EpisodeEnded,
]);
export type EpisodeEvent = typeof EpisodeEvent.Type;
/** The `type` of an event ("episode.started", "agent.acted", ...). */
export type EventType = EpisodeEvent["type"];
/** The event whose `type` is T. */
export type EventOf<T extends EventType> = Extract<EpisodeEvent, { type: T }>;

/** An event before the journal stamps its envelope. */
export type EventBody<E extends EpisodeEvent = EpisodeEvent> = E extends EpisodeEvent
  ? Omit<E, "v" | "episode" | "seq" | "prev" | "digest" | "meta">
  : never;

/** A reward without its envelope, as replay returns it: `type`, `kind`, `value`, `turn`, `reason`. */
export type RewardBody = EventBody<EventOf<"reward.assigned">>;

/** Events that enter from outside the environment: the source of truth for replay. */
export const INPUT_EVENT_TYPES: ReadonlySet<EventType> = new Set(["episode.started", "agent.acted", "tool.returned"]);

/** A type guard for one event type, for `events.filter(isEventOf("reward.assigned"))`. */
export const isEventOf =
  <T extends EventType>(type: T) =>
  (event: EpisodeEvent): event is EventOf<T> =>
    event.type === type;

/**
 * fast-check arbitraries for the framework's data, derived from the Effect Schemas that describe it.
 *
 * `arbitraryOf(schema)` interprets the schema's AST (`SchemaAST`) into fast-check combinators: structs
 * become records (optional keys optional), unions `oneof`, arrays and tuples arrays, literals constants.
 * Refinements are read from the `arbitraryConstraint` annotation each Effect check carries (integer,
 * finite, minimum, maxLength, pattern...), and every generated value is also passed through the checks
 * themselves, so what comes out always decodes. A change to an event schema changes these arbitraries.
 */

import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import * as SchemaAST from "effect/SchemaAST";
import fc from "fast-check";
import { EpisodeChain } from "../journal/stamp.ts";
import { shownValue } from "../kernel/errors.ts";
import {
  AgentActed,
  EnvObserved,
  EnvTransitioned,
  EpisodeEnded,
  type EpisodeEvent,
  EpisodeEvent as EpisodeEventSchema,
  EpisodeStarted,
  type EventBody,
  type EventOf,
  type EventType,
  RewardAssigned,
  ToolCalled,
  ToolFailure,
  ToolResult,
  ToolReturned,
} from "../kernel/events.ts";

/** Options of arbitraryOf: bounds on what is drawn where the schema sets none. */
export interface ArbitraryOptions {
  /** Longest string or array where the schema sets no bound (default 12). */
  readonly maxLength?: number;
  /** How deep recursive schemas (`Schema.suspend`) and JSON values go (default 3). */
  readonly maxDepth?: number;
  /**
   * Arbitraries for opaque `Declaration` nodes, by their `representation` id (e.g. "effect/schema/Json",
   * which defaults to small JSON values). A declaration with none fails with a message naming its id.
   */
  readonly declarations?: Readonly<Record<string, fc.Arbitrary<unknown>>>;
}

/** The annotation Effect's checks carry to describe themselves to arbitrary generators. */
interface Constraint {
  readonly number?: "integer" | "finite";
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly patterns?: readonly { readonly source: string; readonly flags: string }[];
}

type Check = SchemaAST.Check<unknown>;

const flatChecks = (checks: readonly Check[] | undefined): SchemaAST.Filter<unknown>[] =>
  (checks ?? []).flatMap((check) => (check._tag === "FilterGroup" ? flatChecks(check.checks) : [check]));

/** The tightest constraint all checks of a node agree on. */
const constraintOf = (ast: SchemaAST.AST): Constraint => {
  let merged: {
    -readonly [K in keyof Constraint]: Constraint[K];
  } = {};
  for (const check of flatChecks(ast.checks)) {
    const c = (check.annotations as { arbitraryConstraint?: Constraint } | undefined)?.arbitraryConstraint;
    if (!c || typeof c !== "object") continue;
    if (c.number === "integer" || (c.number === "finite" && merged.number === undefined)) merged.number = c.number;
    if (typeof c.minimum === "number" && (merged.minimum === undefined || c.minimum >= merged.minimum))
      merged = { ...merged, minimum: c.minimum, exclusiveMinimum: c.exclusiveMinimum };
    if (typeof c.maximum === "number" && (merged.maximum === undefined || c.maximum <= merged.maximum))
      merged = { ...merged, maximum: c.maximum, exclusiveMaximum: c.exclusiveMaximum };
    if (typeof c.minLength === "number") merged.minLength = Math.max(merged.minLength ?? 0, c.minLength);
    if (typeof c.maxLength === "number") merged.maxLength = Math.min(merged.maxLength ?? Infinity, c.maxLength);
    if (c.patterns) merged.patterns = [...(merged.patterns ?? []), ...c.patterns];
  }
  return merged;
};

/** Keeps only values every check of the node accepts: the annotations guide, the checks decide. */
const satisfyingChecks = <T>(ast: SchemaAST.AST, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T> => {
  const checks = flatChecks(ast.checks);
  if (checks.length === 0) return arbitrary;
  return arbitrary.filter((value) => checks.every((check) => check.run(value, ast, {}) === undefined));
};

/** JSON values as they come back from `JSON.parse` (no -0, no undefined), kept small. */
export const jsonValueArbitrary = (maxDepth = 3): fc.Arbitrary<Json> =>
  fc.jsonValue({ maxDepth }).map((value) => JSON.parse(JSON.stringify(value)) as Json);

interface Builder {
  readonly options: Required<Omit<ArbitraryOptions, "declarations">> & Pick<ArbitraryOptions, "declarations">;
  readonly depth: number;
}

const unsupported = (ast: SchemaAST.AST, hint: string): never => {
  throw new TypeError(`arbitraryOf: cannot derive an arbitrary for a ${ast._tag} node (${hint})`);
};

const numberArbitrary = (ast: SchemaAST.AST): fc.Arbitrary<number> => {
  const c = constraintOf(ast);
  if (c.number === "integer") {
    const min = c.minimum === undefined ? undefined : Math.ceil(c.minimum) + (c.exclusiveMinimum ? 1 : 0);
    const max = c.maximum === undefined ? undefined : Math.floor(c.maximum) - (c.exclusiveMaximum ? 1 : 0);
    return fc.integer({ min, max });
  }
  const finite = c.number === "finite" || c.minimum !== undefined || c.maximum !== undefined;
  return fc.double({
    noNaN: finite,
    noDefaultInfinity: finite,
    min: c.minimum,
    max: c.maximum,
    minExcluded: c.exclusiveMinimum,
    maxExcluded: c.exclusiveMaximum,
  });
};

const stringArbitrary = (ast: SchemaAST.AST, b: Builder): fc.Arbitrary<string> => {
  const c = constraintOf(ast);
  const [pattern] = c.patterns ?? [];
  if (pattern) return fc.stringMatching(new RegExp(pattern.source, pattern.flags.replace("g", "")));
  const minLength = c.minLength ?? 0;
  return fc.string({ minLength, maxLength: Math.max(minLength, c.maxLength ?? b.options.maxLength) });
};

const objectsArbitrary = (ast: SchemaAST.Objects, b: Builder): fc.Arbitrary<unknown> => {
  const fields: Record<PropertyKey, fc.Arbitrary<unknown>> = {};
  const required: PropertyKey[] = [];
  for (const property of ast.propertySignatures) {
    fields[property.name] = build(property.type, b);
    if (!SchemaAST.isOptional(property.type)) required.push(property.name);
  }
  const record = fc.record(fields, { requiredKeys: required as never[] });
  if (ast.indexSignatures.length === 0) return record;
  const maxKeys = b.depth > b.options.maxDepth ? 0 : Math.min(4, b.options.maxLength);
  const dictionaries = ast.indexSignatures.map((index) =>
    fc.dictionary(build(index.parameter, b).map(String), build(index.type, b), { maxKeys }),
  );
  // Declared properties win over index-signature keys of the same name.
  return fc
    .tuple(record, ...dictionaries)
    .map(([fixed, ...open]) => Object.assign({}, ...(open as object[]), fixed as object));
};

const arraysArbitrary = (ast: SchemaAST.Arrays, b: Builder): fc.Arbitrary<unknown[]> => {
  const c = constraintOf(ast);
  const head = ast.elements.map((element) => build(element, b));
  const [spread, ...tail] = ast.rest;
  const fixed = head.length + tail.length;
  const minLength = Math.max(0, (c.minLength ?? 0) - fixed);
  const bound = b.depth > b.options.maxDepth ? minLength : Math.max(minLength, b.options.maxLength);
  const maxLength = Math.max(minLength, Math.min(bound, (c.maxLength ?? Infinity) - fixed));
  const middle = spread ? fc.array(build(spread, b), { minLength, maxLength }) : fc.constant([]);
  return fc
    .tuple(fc.tuple(...head), middle, fc.tuple(...tail.map((element) => build(element, b))))
    .map(([first, spreadValues, last]) => [...first, ...spreadValues, ...last]);
};

/** Whether a node can be generated without going through a `Schema.suspend` (to end recursion). */
const terminates = (ast: SchemaAST.AST, seen = new Set<SchemaAST.AST>()): boolean => {
  if (seen.has(ast)) return false;
  seen.add(ast);
  switch (ast._tag) {
    case "Suspend":
      return false;
    case "Union":
      return ast.types.some((member) => terminates(member, seen));
    case "Objects":
      return ast.propertySignatures.every((p) => SchemaAST.isOptional(p.type) || terminates(p.type, seen));
    case "Arrays":
      return ast.elements.every((element) => terminates(element, seen));
    default:
      return true;
  }
};

const build = (ast: SchemaAST.AST, b: Builder): fc.Arbitrary<unknown> => satisfyingChecks(ast, buildNode(ast, b));

const buildNode = (ast: SchemaAST.AST, b: Builder): fc.Arbitrary<unknown> => {
  switch (ast._tag) {
    case "Null":
      return fc.constant(null);
    case "Undefined":
    case "Void":
      return fc.constant(undefined);
    case "Boolean":
      return fc.boolean();
    case "Number":
      return numberArbitrary(ast);
    case "String":
      return stringArbitrary(ast, b);
    case "BigInt":
      return fc.bigInt();
    case "Symbol":
      return fc.string({ maxLength: 6 }).map((name) => Symbol.for(name));
    case "UniqueSymbol":
      return fc.constant(ast.symbol);
    case "Literal":
      return fc.constant(ast.literal);
    case "Enum":
      return fc.constantFrom(...ast.enums.map(([, value]) => value));
    case "TemplateLiteral":
      return fc
        .tuple(...ast.parts.map((part) => build(part, b)))
        .map((parts) => parts.map((part) => String(part)).join(""));
    case "Unknown":
    case "Any":
      return jsonValueArbitrary(b.options.maxDepth);
    case "ObjectKeyword":
      return fc.object({ maxDepth: 1 });
    case "Objects":
      return objectsArbitrary(ast, b);
    case "Arrays":
      return arraysArbitrary(ast, b);
    case "Union": {
      const members = b.depth > b.options.maxDepth ? ast.types.filter((t) => terminates(t)) : ast.types;
      if (members.length === 0) return unsupported(ast, "an empty union");
      return fc.oneof(...members.map((member) => build(member, b)));
    }
    case "Suspend": {
      const deeper = { ...b, depth: b.depth + 1 };
      // Built lazily: the thunk may refer to the schema being built.
      return fc.constant(null).chain(() => build(ast.thunk(), deeper));
    }
    case "Declaration": {
      const id = (ast.annotations?.representation as { id?: string } | undefined)?.id ?? "(no representation id)";
      const given = b.options.declarations?.[id];
      if (given) return given;
      if (id === "effect/schema/Json") return jsonValueArbitrary(b.options.maxDepth);
      return unsupported(ast, `declaration ${id}: pass options.declarations[${JSON.stringify(id)}]`);
    }
    case "Never":
      return unsupported(ast, "Schema.Never has no values");
  }
};

/** A fast-check arbitrary of a schema's type, derived from its AST. */
export const arbitraryOf = <S extends Schema.Top>(
  schema: S,
  options: ArbitraryOptions = {},
): fc.Arbitrary<S["Type"]> => {
  // A plain object ({ city: "string" }) read as "Cannot read properties of undefined (reading 'encoding')".
  if (!Schema.isSchema(schema))
    throw new TypeError(
      `arbitraryOf: the first argument must be an Effect Schema (e.g. r1.Schema.Struct({ city: r1.Schema.String })), got ${shownValue(schema)}`,
    );
  return build(SchemaAST.toType(schema.ast), {
    options: { maxLength: options.maxLength ?? 12, maxDepth: options.maxDepth ?? 3, ...options },
    depth: 0,
  }) as fc.Arbitrary<S["Type"]>;
};

// ---------------------------------------------------------------------------------------------------
// The framework's own data.

const EVENT_SCHEMAS = {
  "episode.started": EpisodeStarted,
  "agent.acted": AgentActed,
  "tool.called": ToolCalled,
  "tool.returned": ToolReturned,
  "env.observed": EnvObserved,
  "reward.assigned": RewardAssigned,
  "env.transitioned": EnvTransitioned,
  "episode.ended": EpisodeEnded,
} as const satisfies Record<EventType, Schema.Top>;

/**
 * Events as the schema allows them, envelope included (its hashes are random strings, so a stream of
 * these is not a valid journal: use `journalEpisodeArbitrary` for that). Without a type: any event.
 */
export function eventArbitrary(options?: ArbitraryOptions): fc.Arbitrary<EpisodeEvent>;
export function eventArbitrary<T extends EventType>(type: T, options?: ArbitraryOptions): fc.Arbitrary<EventOf<T>>;
export function eventArbitrary(
  typeOrOptions?: EventType | ArbitraryOptions,
  options?: ArbitraryOptions,
): fc.Arbitrary<EpisodeEvent> {
  if (typeof typeOrOptions === "string") {
    // An unknown type ("reward") read as "Cannot read properties of undefined (reading 'ast')".
    if (!Object.hasOwn(EVENT_SCHEMAS, typeOrOptions))
      throw new TypeError(
        `eventArbitrary: no event type ${JSON.stringify(typeOrOptions)}; the types: ${Object.keys(EVENT_SCHEMAS).join(", ")}`,
      );
    return arbitraryOf(EVENT_SCHEMAS[typeOrOptions], options);
  }
  return arbitraryOf(EpisodeEventSchema, typeOrOptions);
}

const ENVELOPE_KEYS = ["v", "episode", "seq", "prev", "digest", "meta"] as const;

/**
 * The event without its envelope (`v`, `episode`, `seq`, `prev`, `digest`, `meta`): what replay returns and what is
 * compared.
 */
export const bodyOf = <E extends EpisodeEvent>(event: E): EventBody<E> => {
  const body: Record<string, unknown> = { ...event };
  for (const key of ENVELOPE_KEYS) delete body[key];
  return body as EventBody<E>;
};

/** Event bodies (no envelope), as the runtime hands them to the journal to stamp. */
export const eventBodyArbitrary = <T extends EventType>(
  type: T,
  options?: ArbitraryOptions,
): fc.Arbitrary<EventBody<EventOf<T>>> => eventArbitrary(type, options).map((event) => bodyOf(event));

/** Tool results: successes with any JSON content (or `content`), and failures of every kind. */
export const toolResultArbitrary = (
  options: ArbitraryOptions & { readonly content?: fc.Arbitrary<Json> } = {},
): fc.Arbitrary<ToolResult> =>
  arbitraryOf(ToolResult, {
    ...options,
    declarations: { ...options.declarations, ...(options.content ? { "effect/schema/Json": options.content } : {}) },
  });

/** Tool failures: errors, timeouts and undecodable arguments, with any message. */
export const toolFailureArbitrary = (options?: ArbitraryOptions): fc.Arbitrary<ToolFailure> =>
  arbitraryOf(ToolFailure, options);

/** What an injected failure says it is, so an environment that shows the message shows something. */
export const INJECTED: Readonly<Record<ToolFailure["kind"], string>> = {
  error: "tool error (injected by the test kit)",
  timeout: "timed out (injected by the test kit)",
  "invalid-args": "invalid arguments (injected by the test kit)",
};

/**
 * Failed tool results only, `{ ok: false, error }`, of every kind, as the kit injects them: each message
 * says what the failure is (for any message, `toolFailureArbitrary`).
 */
export const failedToolResultArbitrary = (): fc.Arbitrary<ToolResult> =>
  arbitraryOf(ToolFailure.fields.kind).map((kind) => ({
    ok: false as const,
    error: { kind, message: INJECTED[kind] },
  }));

/**
 * What the journal checks beyond the schema, as the runtime guarantees it: one logprob (at most 0) and
 * at most one allowed list per token.
 */
const asRecorded = (body: EventBody): EventBody => {
  if (body.type !== "agent.acted") return body;
  const { allowed, ...rest } = body;
  return {
    ...rest,
    logprobs: body.tokens.map((_, i) => -Math.abs(body.logprobs[i] ?? 0)),
    ...(allowed ? { allowed: body.tokens.map((_, i) => allowed[i] ?? null) } : {}),
  };
};

/**
 * Whole journal streams that pass validation: `episode.started` first, schema-derived events in between,
 * `episode.ended` last with the return and turn count of what came before, stamped into one hash chain.
 * Structurally valid, not replayable through an environment: for that, play an `EpisodeScript`.
 */
export const journalEpisodeArbitrary = (
  options: ArbitraryOptions & { readonly maxEvents?: number; readonly episode?: string } = {},
): fc.Arbitrary<EpisodeEvent[]> => {
  const middle = fc.oneof(
    eventBodyArbitrary("agent.acted", options),
    eventBodyArbitrary("tool.called", options),
    eventBodyArbitrary("tool.returned", options),
    eventBodyArbitrary("env.observed", options),
    eventBodyArbitrary("reward.assigned", options),
    eventBodyArbitrary("env.transitioned", options),
  );
  return fc
    .record({
      episode: options.episode ? fc.constant(options.episode) : fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,15}$/),
      started: eventBodyArbitrary("episode.started", options),
      events: fc.array(middle, { maxLength: options.maxEvents ?? 12 }),
      ended: eventBodyArbitrary("episode.ended", options),
    })
    .map(({ episode, started, events, ended }) => {
      const chain = new EpisodeChain(episode);
      const rewards = events.flatMap((e) => (e.type === "reward.assigned" ? [e.value] : []));
      const turns = events.filter((e) => e.type === "agent.acted").length;
      const total = rewards.reduce((sum, value) => sum + value, 0);
      const end = { ...ended, return: Number.isFinite(total) ? total : 0, turns };
      return [started, ...events.map(asRecorded), end].map((body) => chain.stamp(body as EventBody));
    });
};

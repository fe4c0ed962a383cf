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
import fc from "fast-check";
import { type EpisodeEvent, type EventBody, type EventOf, type EventType, ToolFailure, ToolResult } from "../kernel/events.ts";
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
/** JSON values as they come back from `JSON.parse` (no -0, no undefined), kept small. */
export declare const jsonValueArbitrary: (maxDepth?: number) => fc.Arbitrary<Json>;
/** A fast-check arbitrary of a schema's type, derived from its AST. */
export declare const arbitraryOf: <S extends Schema.Top>(schema: S, options?: ArbitraryOptions) => fc.Arbitrary<S["Type"]>;
/**
 * Events as the schema allows them, envelope included (its hashes are random strings, so a stream of
 * these is not a valid journal: use `journalEpisodeArbitrary` for that). Without a type: any event.
 */
export declare function eventArbitrary(options?: ArbitraryOptions): fc.Arbitrary<EpisodeEvent>;
export declare function eventArbitrary<T extends EventType>(type: T, options?: ArbitraryOptions): fc.Arbitrary<EventOf<T>>;
/**
 * The event without its envelope (`v`, `episode`, `seq`, `prev`, `digest`, `meta`): what replay returns and what is
 * compared.
 */
export declare const bodyOf: <E extends EpisodeEvent>(event: E) => EventBody<E>;
/** Event bodies (no envelope), as the runtime hands them to the journal to stamp. */
export declare const eventBodyArbitrary: <T extends EventType>(type: T, options?: ArbitraryOptions) => fc.Arbitrary<EventBody<EventOf<T>>>;
/** Tool results: successes with any JSON content (or `content`), and failures of every kind. */
export declare const toolResultArbitrary: (options?: ArbitraryOptions & {
    readonly content?: fc.Arbitrary<Json>;
}) => fc.Arbitrary<ToolResult>;
/** Tool failures: errors, timeouts and undecodable arguments, with any message. */
export declare const toolFailureArbitrary: (options?: ArbitraryOptions) => fc.Arbitrary<ToolFailure>;
/** What an injected failure says it is, so an environment that shows the message shows something. */
export declare const INJECTED: Readonly<Record<ToolFailure["kind"], string>>;
/**
 * Failed tool results only, `{ ok: false, error }`, of every kind, as the kit injects them: each message
 * says what the failure is (for any message, `toolFailureArbitrary`).
 */
export declare const failedToolResultArbitrary: () => fc.Arbitrary<ToolResult>;
/**
 * Whole journal streams that pass validation: `episode.started` first, schema-derived events in between,
 * `episode.ended` last with the return and turn count of what came before, stamped into one hash chain.
 * Structurally valid, not replayable through an environment: for that, play an `EpisodeScript`.
 */
export declare const journalEpisodeArbitrary: (options?: ArbitraryOptions & {
    readonly maxEvents?: number;
    readonly episode?: string;
}) => fc.Arbitrary<EpisodeEvent[]>;

/*
 * Tool: an executor that returns the raw outcome of a call (query a store, call an API). It never decides
 * rewards or state: that is the ToolEnv's job. A tool call always ends in a ToolResult: a throw (of
 * anything), a timeout, a cancellation, arguments that do not decode or a result that is not plain JSON
 * become `{ ok: false, error }`, never an exception. Results and error messages are plain, well-formed JSON, cut to size with a
 * visible marker, so whatever a tool does, the journal can hold and hash it.
 */
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import type { Subscribable } from "rxjs";
import type { ToolResult } from "../kernel/events.ts";
/** What a tool's `execute` is given besides its arguments. */
export interface ToolContext {
    /** Aborted when the call times out or the environment stops waiting for it. */
    readonly signal: AbortSignal;
}
/**
 * What a tool's `execute` may give: plain JSON, whose objects may also hold fields set to `undefined`, which the
 * result drops as JSON does (`{ unknown: drug }` or `{ interacts: true }` from one ternary, which TypeScript types
 * as a union of objects with each other's fields optional and `undefined`). An array's `undefined` item still
 * fails the call (JSON would write it as null).
 */
export type ToolOutput = null | boolean | number | string | readonly ToolOutput[] | {
    readonly [key: string]: ToolOutput | undefined;
};
/** What `defineTool` takes: a tool's name (its tag in actions), description, parameters and code. */
export interface ToolSpec<P extends Schema.Top> {
    readonly name: string;
    /** Shown to people and in prompts. */
    readonly description: string;
    /** The arguments, as an Effect Schema; decoded before `execute` runs and rendered as JSON Schema for prompts. */
    readonly parameters: P;
    /**
     * Runs the call with decoded arguments; returns plain JSON, a promise of it, or an Observable (RxJS's, or
     * anything with `subscribe`) whose last value before it completes is the result (its error, a thrown one).
     * Whatever it throws becomes a failed ToolResult.
     */
    execute(args: P["Type"], context: ToolContext): Promise<ToolOutput> | ToolOutput | Subscribable<ToolOutput>;
    /** Per-call time limit in milliseconds (default 10 s). */
    readonly timeoutMs?: number;
    /** Results and error messages longer than this (in characters of JSON) are cut, with a visible marker (default 20,000). */
    readonly maxResultChars?: number;
}
/** A tool ready to be called: the spec with its limits filled in. Give tools to an environment as `tools`. */
export interface Tool<P extends Schema.Top = Schema.Top> extends ToolSpec<P> {
    /** The spec's limit, or the default. */
    readonly timeoutMs: number;
    /** The spec's limit, or the default. */
    readonly maxResultChars: number;
    /** JSON Schema of the parameters, for prompts and docs. */
    readonly jsonSchema: unknown;
    /** Decodes the arguments and runs the tool under its time limit. Never throws. */
    call(args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}
/**
 * Whether this tool runs a `call` defineTool made: it passes the signal it is given to no one (`execute` gets a
 * signal of the call's own) and stops listening to it once the call has settled.
 */
export declare const isDefinedTool: (tool: unknown) => boolean;
/** The work of the defineTool call given `signal`, once it started (undefined for other tools' calls). */
export declare const executionOf: (signal: AbortSignal) => Promise<unknown> | undefined;
/** Appended where a result or error message was cut to `maxResultChars`. */
export declare const TRUNCATION_MARKER = "\u2026[truncated]";
/**
 * Where a tool's code threw the error journaled with this message, if this process saw it thrown: `thrownAt`; for
 * an error an Effect program failed with (`Effect.fail`, nothing thrown), the program's line that failed, with
 * `failedInEffect` and, when elsewhere, `madeAt`, where the error was constructed (effectFailedFrom).
 */
export declare const toolThrownFrom: (tool: string, message: string) => {
    readonly thrownAt: string;
    readonly failedInEffect?: true;
    readonly madeAt?: string;
} | undefined;
export declare const returnedNothingCounts: () => ReadonlyMap<string, number>;
/**
 * What a call whose `execute` threw `cause` returns (and the journal keeps): an error failure with the thrown
 * value's message, cut to `maxResultChars`, and its `_tag` when it has one. exploreEnv gives the same for a
 * synchronous tool that throws.
 */
export declare const thrownFailure: (cause: unknown, maxResultChars: number) => ToolResult;
/**
 * What the tool returned, cut to size. A value that is not plain JSON (a Map, Date, class instance, function,
 * bigint, NaN...) is refused, not normalised: JSON.stringify would journal a Map as {} and NaN as null, and
 * replay would agree with the loss, so nothing downstream could notice it. (checkCoverage shapes a tool's own
 * result with it too, so that it explores what a live call gives the machine.)
 */
export declare const toJsonResult: (name: string, content: unknown, limit: number) => ToolResult;
/**
 * The result of a call whose arguments do not decode (the runtime's and checkCoverage's). One line naming the
 * tool: Effect's message alone ("Expected number\n  at [\"qty\"]") broke record's note in two and did not say
 * whose arguments (the machine's invoke input: a model's call is checked before).
 */
export declare const invalidArgs: (name: string, cause: {
    readonly message: unknown;
}, limit: number) => ToolResult;
/**
 * A call's arguments as its `tool.called` event keeps them: the JSON of the machine's invoke input (null when JSON
 * can write none of it: a bigint, a cycle), with U+FFFD for a lone surrogate. The runtime journals them and calls
 * the tool with them; replay and checkCoverage take a call's arguments here too.
 */
export declare const journaledArguments: (input: unknown) => Json;
/**
 * The result of a call whose arguments (the machine's invoke input) are not plain JSON, or undefined when they are:
 * JSON would change them (a Date to its text, a Map to {}, NaN to null) or cannot write them (a bigint, a cycle),
 * so the tool would get other arguments than the machine gave, and the journal would hide it; or hold a lone
 * surrogate, which no journal can hold (the live episode aborted: "could not record tool.called"). The call does not
 * run (the runtime's, checkCoverage's, and a defined tool's own `call`).
 */
export declare const argumentsNotJson: (tool: Pick<Tool, "name" | "maxResultChars">, input: unknown) => ToolResult | undefined;
/** The result of a call that ran past its tool's `timeoutMs` (the runtime's and checkCoverage's). */
export declare const timedOut: (tool: Pick<Tool, "name" | "timeoutMs" | "maxResultChars">) => ToolResult;
/** Whether a tool returned an Observable (anything with `subscribe`: no plain JSON value has a function). */
export declare const isSubscribable: (value: unknown) => value is Subscribable<unknown>;
/** The failure of a tool's Observable that completed with no value (the runtime's and checkCoverage's). */
export declare const emptyObservableError: (name: string) => Error;
/**
 * Ends a subscription of whatever shape `subscribe` returned: RxJS's (`unsubscribe()`), a function (as some
 * libraries' `subscribe` returns), or nothing (then there is nothing to end).
 */
export declare const unsubscribeFrom: (subscription: unknown) => void;
/**
 * Why `tool` would not run as it reads, or undefined: a copy of a defined tool (`{ ...add, execute }`, with no
 * defineTool around it) keeps the original's `call`, which runs the original's execute, parameters and limits.
 */
export declare const staleCopyProblem: (tool: unknown) => string | undefined;
/**
 * Makes a Tool from its spec (timeoutMs default 10,000, maxResultChars default 20,000). Throws a TypeError on a
 * malformed spec, a RangeError on a limit that is not positive (maxResultChars: not a positive integer).
 */
export declare const defineTool: <P extends Schema.Top>(spec: ToolSpec<P>) => Tool<P>;

/**
 * Tool: an executor that returns the raw outcome of a call (query a store, call an API). It never decides
 * rewards or state: that is the ToolEnv's job. A tool call always ends in a ToolResult: a throw (of
 * anything), a timeout, a cancellation, arguments that do not decode or a result that is not plain JSON
 * become `{ ok: false, error }`, never an exception. Results and error messages are plain, well-formed JSON, cut to size with a
 * visible marker, so whatever a tool does, the journal can hold and hash it.
 */
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import type { ToolResult } from "../kernel/events.ts";
export interface ToolContext {
    /** Aborted when the call times out or the environment stops waiting for it. */
    readonly signal: AbortSignal;
}
export interface ToolSpec<P extends Schema.Top> {
    readonly name: string;
    readonly description: string;
    /** The arguments, as an Effect Schema; decoded before `execute` runs and rendered as JSON Schema for prompts. */
    readonly parameters: P;
    execute(args: P["Type"], context: ToolContext): Promise<Json> | Json;
    /** Per-call time limit in milliseconds (default 10 s). */
    readonly timeoutMs?: number;
    /** Results and error messages longer than this (in characters of JSON) are cut, with a visible marker (default 20,000). */
    readonly maxResultChars?: number;
}
export interface Tool<P extends Schema.Top = Schema.Top> extends ToolSpec<P> {
    readonly timeoutMs: number;
    readonly maxResultChars: number;
    /** JSON Schema of the parameters, for prompts and docs. */
    readonly jsonSchema: unknown;
    /** Decodes the arguments and runs the tool under its time limit. Never throws. */
    call(args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}
export declare const TRUNCATION_MARKER = "\u2026[truncated]";
/** Where a tool's code threw the error journaled with this message, if this process saw it thrown. */
export declare const toolThrownFrom: (tool: string, message: string) => string | undefined;
export declare const defineTool: <P extends Schema.Top>(spec: ToolSpec<P>) => Tool<P>;

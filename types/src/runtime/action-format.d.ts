/*
 * The action format, simple enough for a small model: one tool call `<name>argument</name>` or a final
 * answer `<answer>text</answer>`. A tool whose parameters have a single string field takes the text as
 * that field; any other tool takes a JSON object. Anything else is malformed: a normal outcome that the
 * environment answers with a format penalty, never an exception. (A tool with one required string field and
 * optional others also takes the text: the environment fills the rest when it calls the tool.)
 */
import type { Json } from "effect/Schema";
import type { Tool } from "./tool.ts";
/**
 * An action's text read against the tools: a call (with decoded-shape arguments), an answer, or malformed with a
 * reason.
 */
export type ParsedAction = {
    readonly kind: "call";
    readonly tool: string;
    readonly args: Json;
} | {
    readonly kind: "answer";
    readonly text: string;
} | {
    readonly kind: "malformed";
    readonly reason: string;
};
/** The longest action parseAction reads: a longer one is malformed without being parsed. */
export declare const MAX_ACTION_CHARS = 100000;
/**
 * The action text of a call of `tool` with `args` (`<name>text</name>` for a single-string tool, else JSON). Throws a
 * TypeError on arguments that are not plain JSON, do not fit the parameters, or would not parse back the same.
 */
export declare const formatCall: (tool: Tool, args: Json) => string;
/**
 * `<answer>text</answer>`; throws on text holding `</answer>`, or too long to parse, which would make the
 * action malformed. (An answer's text is trimmed when parsed, by design: `<answer> lima </answer>` answers lima.)
 */
export declare const formatAnswer: (text: string) => string;
/**
 * Reads an action's text as a call of one of `tools`, an answer or a malformed action; never throws on the text
 * (a TypeError when `tools` is no record of tools).
 */
export declare const parseAction: (text: string, tools: Readonly<Record<string, Tool>>) => ParsedAction;
/** The answer's text, when the action is `<answer>...</answer>`. */
export declare const answerOf: (text: string, tools: Readonly<Record<string, Tool>>) => string | undefined;
/**
 * A tool's arguments as an action writes them: the Encoded type of its parameters, the JSON they decode from
 * (the same as their Type for plain fields; a `NumberFromString` field is the string written). A tool typed only
 * as `Tool` says nothing of them: JSON fields.
 */
export type ToolArgs<T> = T extends Tool<infer P> ? (unknown extends P["Encoded"] ? Record<string, Json> : P["Encoded"]) : never;
/**
 * The tools' names that are known, without the index signature: `env.tools` of a `defineEnv` is
 * `Readonly<Record<string, Tool>> & { weather: ... }`, whose `keyof` is `string`, so callOf took it for a record of
 * any tools (JSON arguments, any name). A record of any tools has none: then any name, checked when called.
 */
export type KnownToolNames<T> = keyof {
    [P in keyof T as string extends P ? never : P]: T[P];
} & string;
type ToolNames<T> = [KnownToolNames<T>] extends [never] ? keyof T & string : KnownToolNames<T>;
/**
 * The arguments as written (JSON that the tool's parameters decode), when the action is a well-formed call of the
 * named tool. Typed from the tool (`callOf(text, tools, "weather")?.city` is a string), or as you declare it,
 * `callOf<{ city: string }>(text, tools, "weather")`. A name that is none of `tools` throws; where the name is a
 * literal and the tools' names are known (a record of tools from `defineTool`), it is a compile error too.
 */
export declare const callOf: {
    <T extends Readonly<Record<string, Tool>>, K extends ToolNames<T>>(text: string, tools: T, tool: K): (K extends KnownToolNames<T> ? ToolArgs<T[K]> : Record<string, Json>) | undefined;
    <A = Record<string, Json>, S extends string = string, T extends Readonly<Record<string, Tool>> = Record<string, Tool>>(text: string, tools: T, tool: string extends S ? S : ToolNames<T>): A | undefined;
};
export {};

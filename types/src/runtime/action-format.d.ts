/**
 * The action format, simple enough for a small model: one tool call `<name>argument</name>` or a final
 * answer `<answer>text</answer>`. A tool whose parameters have a single string field takes the text as
 * that field; any other tool takes a JSON object. Anything else is malformed: a normal outcome that the
 * environment answers with a format penalty, never an exception. (A tool with one required string field and
 * optional others also takes the text: the environment fills the rest when it calls the tool.)
 */
import type { Json } from "effect/Schema";
import type { Tool } from "./tool.ts";
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
export declare const formatCall: (tool: Tool, args: Json) => string;
/**
 * `<answer>text</answer>`; throws on text holding `</answer>`, or too long to parse, which would make the
 * action malformed. (An answer's text is trimmed when parsed, by design: `<answer> lima </answer>` answers lima.)
 */
export declare const formatAnswer: (text: string) => string;
export declare const parseAction: (text: string, tools: Readonly<Record<string, Tool>>) => ParsedAction;
/** The answer's text, when the action is `<answer>...</answer>`. */
export declare const answerOf: (text: string, tools: Readonly<Record<string, Tool>>) => string | undefined;
/** The decoded arguments, when the action is a well-formed call of the named tool. */
export declare const callOf: <A = Record<string, Json>>(text: string, tools: Readonly<Record<string, Tool>>, tool: string) => A | undefined;

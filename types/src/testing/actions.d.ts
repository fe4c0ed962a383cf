/*
 * What an agent may say: well-formed actions (tool calls whose arguments are derived from each tool's
 * parameter schema, final answers) and hostile ones (random text, unicode, lone surrogates, huge strings,
 * almost-right tool calls). An environment must answer every one of them with an observation, a penalty
 * or an end, never with a crash.
 */
import type { Json } from "effect/Schema";
import fc from "fast-check";
import type { EnvDefinition } from "../runtime/env.ts";
import type { Tool } from "../runtime/tool.ts";
/** Anything with tools: an environment, or `{ tools }`. */
export type WithTools = Pick<EnvDefinition, "tools">;
/** The keys of ActionOptions. */
export declare const ACTION_OPTIONS: readonly ["args", "answers", "hugeLength"];
/** What the action arbitraries draw: arguments per tool, answer texts and the size of a huge action. */
export interface ActionOptions {
    /**
     * Meaningful arguments per tool name (e.g. keys that exist). They are mixed 4:1 with arguments derived
     * from the tool's parameter schema, which are mostly meaningless but well-typed.
     */
    readonly args?: Readonly<Record<string, fc.Arbitrary<Json>>>;
    /** Answer texts (default: short random strings). */
    readonly answers?: fc.Arbitrary<string>;
    /**
     * Characters of a huge action (default 20,000). Over 100,000 (the action parser's limit) they test the
     * limit too, at a cost: the runtime takes about 0.3 s to tokenize and hash such an action.
     */
    readonly hugeLength?: number;
}
/** Well-formed calls of one tool: `<name>argument</name>`, arguments from `args` or the parameter schema. */
export declare const toolCallArbitrary: (tool: Tool, args?: fc.Arbitrary<Json>) => fc.Arbitrary<string>;
/** Well-formed final answers: `<answer>text</answer>`. */
export declare const answerArbitrary: (answers?: fc.Arbitrary<string>) => fc.Arbitrary<string>;
/** Actions the parser accepts: a call of one of the environment's tools, or an answer (3:1). */
export declare const wellFormedActionArbitrary: (env: WithTools, options?: ActionOptions) => fc.Arbitrary<string>;
/** Near misses of well-formed actions: an unclosed tag, a misspelled tool, prose around a call, ... */
export declare const almostRightActionArbitrary: (env: WithTools, options?: ActionOptions) => fc.Arbitrary<string>;
/** Text no environment should trust: random, unicode, lone surrogates, huge, almost-right. */
export declare const hostileActionArbitrary: (env: WithTools, options?: ActionOptions) => fc.Arbitrary<string>;
/**
 * The testing kit's first argument: an environment (from defineEnv). A failed import gives `undefined`,
 * which would otherwise fail deep inside the kit ("Cannot read properties of undefined (reading 'tools')").
 */
/**
 * What is wrong with a tool result the test injects, or undefined: the runtime shapes every real result as
 * `{ ok: true, content }` (content plain JSON) or `{ ok: false, error: { kind, message, tag? } }`. Injected
 * otherwise, `{ ok: true }` made observations of "undefined" and a NaN content aborted the episode as if
 * the environment had written it: problems of the test, reported as the environment's.
 */
export declare const toolResultProblem: (result: unknown) => string | undefined;
/** How a tool result is written, for the errors that refuse another shape. */
export declare const TOOL_RESULT_SHAPE = "{ ok: true, content } with content plain JSON, or { ok: false, error: { kind: \"error\" | \"timeout\" | \"invalid-args\", message } }";
export declare const checkArbitraryOptions: (options: object, env?: WithTools & {
    readonly id?: string;
}) => void;
/**
 * Agent output a model could produce: well-formed (2 in 3) or hostile (1 in 3). An option it does not know
 * (`answer` for `answers`, or an episode script's `maxActions`) is refused, naming it: it was ignored.
 */
export declare const actionArbitrary: (env: WithTools, options?: ActionOptions) => fc.Arbitrary<string>;

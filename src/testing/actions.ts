/**
 * What an agent may say: well-formed actions (tool calls whose arguments are derived from each tool's
 * parameter schema, final answers) and hostile ones (random text, unicode, lone surrogates, huge strings,
 * almost-right tool calls). An environment must answer every one of them with an observation, a penalty
 * or an end, never with a crash.
 */
import { inspect } from "node:util";
import * as Result from "effect/Result";
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import fc from "fast-check";
import { notPlainJson, notUnicode } from "../kernel/canonical.ts";
import { allKeys, checkBooleans, checkKnownKeys, shownValue } from "../kernel/errors.ts";
import { type ToolResult, ToolResult as ToolResultSchema } from "../kernel/events.ts";
import { formatAnswer, formatCall, parseAction } from "../runtime/action-format.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { Tool } from "../runtime/tool.ts";
import { arbitraryOf } from "./arbitraries.ts";

/** Anything with tools: an environment, or `{ tools }`. */
export type WithTools = Pick<EnvDefinition, "tools">;

/** The keys of ActionOptions. */
export const ACTION_OPTIONS = allKeys<ActionOptions>()(["args", "answers", "hugeLength"]);

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

/** The longest huge action drawn: 100 million characters (V8's longest string is about 536 million). */
const MAX_HUGE_LENGTH = 100_000_000;

/** Well-formed calls of one tool: `<name>argument</name>`, arguments from `args` or the parameter schema. */
export const toolCallArbitrary = (tool: Tool, args?: fc.Arbitrary<Json>): fc.Arbitrary<string> => {
  const tools = { [tool.name]: tool };
  const derived = arbitraryOf(tool.parameters, { maxLength: 8 }) as fc.Arbitrary<Json>;
  const chosen = args ? fc.oneof({ arbitrary: args, weight: 4 }, { arbitrary: derived, weight: 1 }) : derived;
  // A schema's numbers include NaN and Infinity, which no call can carry, and a bare string argument cannot
  // start or end with white space: formatCall refuses them, and they are left out.
  return chosen
    .filter((value) => notPlainJson(value) === undefined)
    .map((value) => tryFormat(() => formatCall(tool, value)))
    .filter((text) => text !== undefined && parseAction(text, tools).kind === "call") as fc.Arbitrary<string>;
};

/** The text a formatter writes, or undefined where it refuses (text that would not parse back as written). */
const tryFormat = (format: () => string): string | undefined => {
  try {
    return format();
  } catch {
    return undefined;
  }
};

/** Well-formed final answers: `<answer>text</answer>`. */
export const answerArbitrary = (answers: fc.Arbitrary<string> = fc.string({ maxLength: 12 })): fc.Arbitrary<string> =>
  answers.map(writtenAnswer).filter((text) => text !== undefined) as fc.Arbitrary<string>;

/** Actions the parser accepts: a call of one of the environment's tools, or an answer (3:1). */
export const wellFormedActionArbitrary = (env: WithTools, options: ActionOptions = {}): fc.Arbitrary<string> => {
  checkKnownKeys("wellFormedActionArbitrary", options, ACTION_OPTIONS);
  const calls = Object.values(env.tools).map((tool) => toolCallArbitrary(tool, options.args?.[tool.name]));
  const answer = answerArbitrary(options.answers);
  if (calls.length === 0) return answer;
  return fc.oneof({ arbitrary: fc.oneof(...calls), weight: 3 }, { arbitrary: answer, weight: 1 });
};

/** Ways a model gets an action almost right. Each turns a well-formed action into a near miss. */
const NEAR_MISSES: readonly [string, (text: string, name: string) => string][] = [
  ["unclosed", (text) => text.slice(0, -1)],
  ["no opening bracket", (text) => text.slice(1)],
  ["shouted tool name", (text, name) => text.replaceAll(name, name.toUpperCase())],
  [
    "misspelled tool name",
    (text, name) => text.replaceAll(`<${name}>`, `<${name}s>`).replaceAll(`</${name}>`, `</${name}s>`),
  ],
  ["mismatched closing tag", (text, name) => text.replace(`</${name}>`, name === "answer" ? "</result>" : "</answer>")],
  ["surrounded by prose", (text) => `Sure! I will do that: ${text} Hope this helps.`],
  ["in a code fence", (text) => `\`\`\`\n${text}\n\`\`\``],
  ["two actions at once", (text) => `${text}${text}`],
  [
    "JSON instead of text",
    (text, name) =>
      text.replace(/^<(\w+)>([\s\S]*)<\/\w+>$/, (_, n, inner) => `<${n}>${JSON.stringify({ [name]: inner })}</${n}>`),
  ],
  ["wrong argument type", (text) => text.replace(/^<(\w+)>[\s\S]*<\/(\w+)>$/, "<$1>[1, null, {}]</$2>")],
  ["empty argument", (text) => text.replace(/^<(\w+)>[\s\S]*<\/(\w+)>$/, "<$1></$2>")],
  ["control characters inside", (text) => `${text.slice(0, 3)}\u0000\u001b[2J${text.slice(3)}`],
  ["newline in the tag", (text) => text.replace(">", ">\n")],
  // JSON that parses but does not fit: a number past float range (parses as Infinity), an undeclared field.
  [
    "a number too large for JSON",
    (text) => text.replace(/^(<\w+>[\s\S]*?)-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/, (_, before) => `${before}1e400`),
  ],
  ["an undeclared field", (text) => text.replace(/^<(\w+)>\{/, '<$1>{"unexpected_field":1,')],
  // Names every object has: a lookup on a plain object finds Object.prototype's (a tool named so, an argument).
  ["a built-in object name as the tool", (text) => text.replace(/^<(\w+)>([\s\S]*)<\/\1>$/, "<toString>$2</toString>")],
  ["a built-in object name as the argument", (text) => text.replace(/^<(\w+)>[\s\S]*<\/(\w+)>$/, "<$1>__proto__</$2>")],
  // JSON.parse takes it; a recursive walker after it would overflow the stack.
  [
    "nested 5,000 deep",
    (text) => text.replace(/^<(\w+)>[\s\S]*<\/(\w+)>$/, `<$1>${"[".repeat(5000)}${"]".repeat(5000)}</$2>`),
  ],
];

/** Near misses of well-formed actions: an unclosed tag, a misspelled tool, prose around a call, ... */
export const almostRightActionArbitrary = (env: WithTools, options: ActionOptions = {}): fc.Arbitrary<string> => {
  checkKnownKeys("almostRightActionArbitrary", options, ACTION_OPTIONS);
  return fc
    .tuple(wellFormedActionArbitrary(env, options), fc.constantFrom(...NEAR_MISSES))
    .map(([text, [, miss]]) => miss(text, /^<(\w+)>/.exec(text)?.[1] ?? "answer"));
};

/** Text no environment should trust: random, unicode, lone surrogates, huge, almost-right. */
export const hostileActionArbitrary = (env: WithTools, options: ActionOptions = {}): fc.Arbitrary<string> => {
  checkKnownKeys("hostileActionArbitrary", options, ACTION_OPTIONS);
  const hugeLength = options.hugeLength ?? 20_000;
  // Refused here, before anything runs: NaN or a negative length drew "" (s.repeat(-0)) or threw mid-run, so the huge
  // actions asked for were never tried; a length past V8's longest string threw "Invalid string length", unsaid where.
  if (!Number.isInteger(hugeLength) || hugeLength < 1 || hugeLength > MAX_HUGE_LENGTH)
    throw new RangeError(
      `hugeLength must be an integer from 1 to ${MAX_HUGE_LENGTH} (the characters of a huge action; default 20000), got ${shownValue(hugeLength)}`,
    );
  // Huge actions cost the runtime tens of milliseconds each (tokenizing, hashing): present, but rare.
  return fc.oneof(
    { arbitrary: fc.string(), weight: 4 },
    { arbitrary: fc.string({ unit: "grapheme", maxLength: 40 }), weight: 4 },
    { arbitrary: fc.string({ unit: "binary", maxLength: 40 }), weight: 2 },
    { arbitrary: fc.constantFrom("", " ", "\n", "\u0000", "<", "</>", "<answer>", "<>x</>"), weight: 2 },
    // Lone surrogates: not Unicode; fc.string's units never make one (the runtime turns each into U+FFFD).
    { arbitrary: fc.constantFrom("\ud800", "hello \udc00", "<answer>\ud83d</answer>"), weight: 1 },
    { arbitrary: almostRightActionArbitrary(env, options), weight: 8 },
    {
      arbitrary: fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.boolean()).map(([s, tagged]) => {
        const huge = s.repeat(Math.ceil(hugeLength / s.length));
        return tagged ? `<answer>${huge}</answer>` : huge;
      }),
      weight: 2,
    },
  );
};

const isArbitrary = (value: unknown): boolean =>
  typeof value === "object" && value !== null && typeof (value as { generate?: unknown }).generate === "function";

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
export const toolResultProblem = (result: unknown): string | undefined => {
  const decoded = Schema.decodeUnknownResult(ToolResultSchema)(result, { onExcessProperty: "error" });
  if (Result.isFailure(decoded)) return String(decoded.failure.message).replace(/\s+/g, " ");
  const notJson = (result as ToolResult).ok
    ? notPlainJson((result as { content: unknown }).content, "content")
    : undefined;
  // A lone surrogate: a live tool's text has U+FFFD in its place; an injected one aborted the episode ("could not
  // record tool.returned"), blamed on the environment.
  return notJson ?? notUnicode(result, "result");
};

/** How a tool result is written, for the errors that refuse another shape. */
export const TOOL_RESULT_SHAPE =
  '{ ok: true, content } with content plain JSON, or { ok: false, error: { kind: "error" | "timeout" | "invalid-args", message } }';

/**
 * The kit's options that must be fast-check arbitraries (`tasks: [a, b]` instead of
 * `fc.constantFrom(a, b)` failed deep inside fast-check with "generate is not a function").
 */
/** A generated value as inspect shows it: JSON would write NaN as null, the very thing that is wrong. */
const shownJson = (value: unknown): string => inspect(value, { depth: 4, breakLength: Number.POSITIVE_INFINITY });

export const checkArbitraryOptions = (options: object, env?: WithTools & { readonly id?: string }): void => {
  const record = options as Record<string, unknown>;
  const wrong = (name: string, value: unknown) =>
    new TypeError(
      `option ${name} must be a fast-check arbitrary (for example fc.constantFrom(...values)), got ${
        Array.isArray(value) ? "an array" : typeof value
      }`,
    );
  for (const name of ["actions", "answers", "seeds", "tasks", "toolResults", "toolFaults"])
    if (record[name] !== undefined && !isArbitrary(record[name])) throw wrong(name, record[name]);
  // From plain JavaScript, `legal: "false"` is truthy: the legal picks it meant to turn off were drawn.
  checkBooleans(
    record,
    ["legal", "repeats"],
    (rule, value) => new TypeError(`option ${rule}, got ${shownValue(value)}`),
  );
  // Injected results of the wrong shape would be blamed on the environment: try a few (null: the real tool).
  for (const name of ["toolResults", "toolFaults"])
    if (record[name] !== undefined)
      for (const sample of fc.sample(record[name] as fc.Arbitrary<unknown>, { numRuns: 20, seed: 1 })) {
        const problem = sample === null && name === "toolResults" ? undefined : toolResultProblem(sample);
        if (problem !== undefined)
          throw new TypeError(
            `option ${name} generated ${shownJson(sample)}, which is not a tool result (${problem}): give ${TOOL_RESULT_SHAPE}${name === "toolResults" ? ", or null for the real tool's result" : ""}`,
          );
      }
  // Texts an agent writes: an arbitrary of anything else makes actions no episode can take.
  for (const name of ["actions", "answers", "seeds"])
    if (record[name] !== undefined)
      for (const sample of fc.sample(record[name] as fc.Arbitrary<unknown>, { numRuns: 5, seed: 1 }))
        if (typeof sample !== "string")
          throw new TypeError(
            `option ${name} must generate text (strings), but it generated ${JSON.stringify(sample) ?? String(sample)} (${typeof sample})`,
          );

  // Answers formatAnswer refuses (text holding </answer>) are left out of the draws; when every one is, the draw of
  // an answer looked for one for ever (fast-check's filter), and the check hung without a word.
  if (record.answers !== undefined) {
    const samples = fc.sample(record.answers as fc.Arbitrary<string>, { numRuns: 20, seed: 1 });
    if (samples.every((text) => writtenAnswer(text) === undefined))
      throw new TypeError(
        `option answers: none of the ${samples.length} answers it generated can be written as an answer (${JSON.stringify(samples[0])}: ${refusal(() => formatAnswer(samples[0] ?? ""))}), so no answer could be drawn (a check drawing one looked for ever)`,
      );
  }

  const args = record.args;
  if (args !== undefined)
    for (const [tool, value] of Object.entries(args as object)) {
      if (!isArbitrary(value)) throw wrong(`args.${tool}`, value);
      // A misspelt tool name would be ignored, and the test would silently fall back to schema-made arguments.
      if (env && !(tool in env.tools))
        throw new TypeError(
          `option args.${tool}: ${env.id ? `environment ${env.id}` : "the environment"} has no tool "${tool}"; its tools: ${Object.keys(env.tools).join(", ") || "none"}`,
        );
      // Arguments of the wrong shape would make meaningless calls (`<lookup>undefined</lookup>`): try a few.
      if (env) {
        const samples = fc.sample(value as fc.Arbitrary<Json>, { numRuns: 5, seed: 1 });
        let leftOut: { sample: Json; message: string } | undefined;
        for (const sample of samples)
          try {
            formatCall(env.tools[tool], sample);
          } catch (error) {
            // Text that the bare form cannot carry (white space at its ends) is only left out of the calls;
            // a field it cannot carry at all would leave every call out.
            if (!/does not fit|not plain JSON|cannot carry/.test((error as Error).message)) {
              leftOut ??= { sample, message: (error as Error).message };
              continue;
            }
            // formatCall's message names the arguments only where they do not fit: said "it generated" of each.
            const said = (error as Error).message.replace(/^formatCall: /, "");
            throw new TypeError(
              `option args.${tool}: it generated ${
                said.includes(" does not fit ")
                  ? said.replace(" does not fit", ", which does not fit")
                  : said.includes(" cannot carry ")
                    ? `${JSON.stringify(sample)}, which formatCall refuses: ${said}`
                    : `arguments that formatCall refuses: ${said}`
              }`,
            );
          }
        // Every one left out: the calls of this tool were all made from its parameter schema, the option unused.
        if (
          leftOut !== undefined &&
          samples.every((sample) => tryFormat(() => formatCall(env.tools[tool], sample)) === undefined)
        )
          throw new TypeError(
            `option args.${tool}: none of the ${samples.length} arguments it generated can be written as a call (${JSON.stringify(leftOut.sample)}: ${leftOut.message.replace(/^formatCall: /, "")}), so every call of ${tool} would be made from its parameter schema instead`,
          );
      }
    }
};

/** The action formatAnswer writes for `text`, if it writes one that parses back as an answer. */
const writtenAnswer = (text: string): string | undefined => {
  const written = tryFormat(() => formatAnswer(text));
  return written !== undefined && parseAction(written, {}).kind === "answer" ? written : undefined;
};

/** Why `format` refuses, or that what it wrote does not parse back as written. */
const refusal = (format: () => string): string => {
  try {
    format();
    return "it does not parse back as an answer";
  } catch (error) {
    return (error as Error).message;
  }
};

/**
 * Agent output a model could produce: well-formed (2 in 3) or hostile (1 in 3). An option it does not know
 * (`answer` for `answers`, or an episode script's `maxActions`) is refused, naming it: it was ignored.
 */
export const actionArbitrary = (env: WithTools, options: ActionOptions = {}): fc.Arbitrary<string> => {
  checkKnownKeys("actionArbitrary", options, ACTION_OPTIONS);
  checkArbitraryOptions(options, env);
  return fc.oneof(
    { arbitrary: wellFormedActionArbitrary(env, options), weight: 2 },
    { arbitrary: hostileActionArbitrary(env, options), weight: 1 },
  );
};

/**
 * The action format, simple enough for a small model: one tool call `<name>argument</name>` or a final
 * answer `<answer>text</answer>`. A tool whose parameters have a single string field takes the text as
 * that field; any other tool takes a JSON object. Anything else is malformed: a normal outcome that the
 * environment answers with a format penalty, never an exception. (A tool with one required string field and
 * optional others also takes the text: the environment fills the rest when it calls the tool.)
 */
import * as Result from "effect/Result";
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import { notPlainJson, notUnicode } from "../kernel/canonical.ts";
import { shownValue } from "../kernel/errors.ts";
import type { Tool } from "./tool.ts";

/**
 * An action's text read against the tools: a call (with decoded-shape arguments), an answer, or malformed with a
 * reason.
 */
export type ParsedAction =
  | { readonly kind: "call"; readonly tool: string; readonly args: Json }
  | { readonly kind: "answer"; readonly text: string }
  | { readonly kind: "malformed"; readonly reason: string };

const TAGGED = /^<([A-Za-z_][A-Za-z0-9_]*)>([\s\S]*)<\/\1>$/;
/** The longest action parseAction reads: a longer one is malformed without being parsed. */
export const MAX_ACTION_CHARS = 100_000;

/**
 * The single string field of a tool's parameters, if that is their shape: exactly one required field, a
 * string (optional fields are the environment's to fill, e.g. which index to search).
 */
const singleStringField = (tool: Tool): string | undefined => {
  const schema = tool.jsonSchema as {
    type?: string;
    properties?: Record<string, { type?: string }>;
    required?: readonly string[];
  };
  const required = schema.required ?? Object.keys(schema.properties ?? {});
  if (schema.type !== "object" || required.length !== 1) return undefined;
  return schema.properties?.[required[0]]?.type === "string" ? required[0] : undefined;
};

/**
 * The action text of a call of `tool` with `args` (`<name>text</name>` for a single-string tool, else JSON). Throws a
 * TypeError on arguments that are not plain JSON, do not fit the parameters, or would not parse back the same.
 */
export const formatCall = (tool: Tool, args: Json): string => {
  // NaN and Infinity are not JSON: written as null, the call would parse as malformed.
  const notJson = notPlainJson(args);
  if (notJson !== undefined)
    throw new TypeError(`formatCall: the arguments of ${tool.name} are not plain JSON: ${notJson}`);
  // Not Unicode: the call would parse as malformed (JSON) or as U+FFFD in place of the surrogate (bare text).
  const notText = notUnicode(args);
  if (notText !== undefined) throw new TypeError(`formatCall: the arguments of ${tool.name}: ${notText}`);
  // Arguments that do not fit would be written as a call of something else (`{ titel: "x" }` as `<t>undefined</t>`).
  const decoded = decodeArgs(tool)(args);
  if (Result.isFailure(decoded))
    throw new TypeError(
      `formatCall: ${JSON.stringify(args)} does not fit the parameters of ${tool.name}: ${String(decoded.failure.message).replace(/\s+/g, " ")}`,
    );
  const field = singleStringField(tool);
  if (field !== undefined && typeof args === "object" && args !== null && !Array.isArray(args)) {
    // The bare form carries the one string and nothing else, trimmed: what would not come back is refused.
    const value = String((args as Record<string, Json>)[field]);
    const others = Object.keys(args).filter((key) => key !== field);
    if (others.length > 0)
      throw new TypeError(
        `formatCall: ${tool.name} takes its one required string field ${field} as bare text, so a call cannot carry ${others.join(", ")} ` +
          "(a model cannot write it either: fill optional fields from the machine's invoke input)",
      );
    if (value !== value.trim())
      throw new TypeError(
        `formatCall: ${tool.name}'s ${field} ${JSON.stringify(value)} starts or ends with white space, which parsing trims: the call would ask for ${JSON.stringify(value.trim())}`,
      );
    if (value.includes(`</${tool.name}>`))
      throw new TypeError(
        `formatCall: ${tool.name}'s ${field} ${JSON.stringify(value)} holds the closing tag </${tool.name}>, which would end the call early (the action would be malformed)`,
      );
    return notTooLong("formatCall", `<${tool.name}>${value}</${tool.name}>`);
  }
  // JSON may write "/" as "\/": no closing tag can appear inside a string of the arguments.
  return notTooLong("formatCall", `<${tool.name}>${JSON.stringify(args).replaceAll("</", "<\\/")}</${tool.name}>`);
};

/**
 * `<answer>text</answer>`; throws on text holding `</answer>`, or too long to parse, which would make the
 * action malformed. (An answer's text is trimmed when parsed, by design: `<answer> lima </answer>` answers lima.)
 */
export const formatAnswer = (text: string): string => {
  // An answer computed as a number (a balance, a count) is written as text by the caller: `formatAnswer(String(n))`.
  if (typeof text !== "string")
    throw new TypeError(
      `formatAnswer: the answer must be text, got ${typeof text === "number" ? `the number ${text}: write formatAnswer(String(${text}))` : shownValue(text)}`,
    );
  if (text.includes("</answer>"))
    throw new TypeError(
      `formatAnswer: ${JSON.stringify(text)} holds the closing tag </answer>, which would end the answer early (the action would be malformed)`,
    );
  return notTooLong("formatAnswer", `<answer>${text}</answer>`);
};

/** An action longer than the parser reads is malformed: a formatter refuses to write one. */
const notTooLong = (formatter: string, action: string): string => {
  if (action.length > MAX_ACTION_CHARS)
    throw new TypeError(
      `${formatter}: the action would be ${action.length} characters, more than the ${MAX_ACTION_CHARS} an action may have (parseAction calls a longer one malformed)`,
    );
  return action;
};

/**
 * Refuses `tools` that are no record of tools by name: parseAction(text) without them crashed inside with "Cannot
 * convert undefined or null to object" (tsx runs a module without typechecking it), and an array or a single tool
 * made every call malformed, as of an unknown tool, without a word.
 */
const checkTools = (caller: string, tools: unknown): void => {
  const record = tools as Partial<Tool> | null | undefined;
  const got =
    typeof tools === "function"
      ? "a function"
      : tools === null || typeof tools !== "object"
        ? shownValue(tools)
        : Array.isArray(tools)
          ? "an array (the tools' names are the record's keys, as a model calls them)"
          : typeof record?.execute === "function" && typeof record.name === "string" && "parameters" in record
            ? `the tool ${record.name} itself`
            : undefined;
  if (got !== undefined)
    throw new TypeError(
      `${caller}(text, tools, ...): tools must be the environment's tools, a record of tools by name ({ search, lookup }, as defineEnv takes them), got ${got}`,
    );
};

/**
 * Reads an action's text as a call of one of `tools`, an answer or a malformed action; never throws on the text
 * (a TypeError when `tools` is no record of tools).
 */
export const parseAction = (text: string, tools: Readonly<Record<string, Tool>>): ParsedAction => {
  checkTools("parseAction", tools);
  if (text.length > MAX_ACTION_CHARS)
    return { kind: "malformed", reason: `action longer than ${MAX_ACTION_CHARS} characters` };
  const match = TAGGED.exec(text.trim());
  if (!match) return { kind: "malformed", reason: "expected <tool>argument</tool> or <answer>text</answer>" };
  const [, name, inner] = match;
  // `<answer>1</answer> or <answer>2</answer>` matches as one answer whose text holds the closing tag: an
  // action is one call or one answer, and a second tag would smuggle two queries past a per-call cost.
  if (inner.includes(`</${name}>`))
    return {
      kind: "malformed",
      reason: `more than one <${name}> in one action; an action is one call or one answer (make several calls in several actions)`,
    };
  if (name === "answer") return { kind: "answer", text: inner.trim() };
  // Own tools only: `<toString>x</toString>` found Object.prototype's method and threw.
  const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
  if (!tool) return { kind: "malformed", reason: `unknown tool ${name}; tools: ${Object.keys(tools).join(", ")}` };
  const field = singleStringField(tool);
  let args: unknown;
  if (field !== undefined) args = { [field]: inner.trim() };
  else {
    try {
      args = JSON.parse(inner);
    } catch {
      return { kind: "malformed", reason: `arguments of ${name} are not JSON` };
    }
  }
  // JSON text parses to plain JSON but for two things: a number past float range (`1e400`) parses as
  // Infinity, which the journal would write back as null; and nesting deep enough to overflow the stack
  // of whatever walks the arguments next.
  const notJson = notPlainJson(args);
  if (notJson !== undefined) return { kind: "malformed", reason: `arguments of ${name}: ${notJson}` };
  // A JSON escape writes a lone surrogate in ASCII (`{"q":"\ud800"}`): the action's text is Unicode, the
  // arguments are not, and the call could not be journaled (the episode aborted at its tool.called).
  // Only an escape (or text that is not Unicode already) can write one: the walk is skipped otherwise.
  const notText = inner.includes("\\u") || !inner.isWellFormed() ? notUnicode(args) : undefined;
  if (notText !== undefined) return { kind: "malformed", reason: `arguments of ${name}: ${notText}` };
  // JSON.parse keeps the last of a key written twice (`{"city":"oslo","city":"rome"}`): the model said two
  // things, and the call silently took one (a bare-text tool's argument is no JSON: nothing to scan).
  const twice = field === undefined ? duplicateKeyOf(inner) : undefined;
  if (twice !== undefined)
    return {
      kind: "malformed",
      reason: `arguments of ${name}: ${twice.where} has the key ${JSON.stringify(twice.key)} twice (write each field once)`,
    };
  const decoded = decodeArgs(tool)(args);
  if (Result.isFailure(decoded))
    return { kind: "malformed", reason: `arguments of ${name}: ${String(decoded.failure.message)}` };
  return { kind: "call", tool: name, args: args as Json };
};

/**
 * The first key that an object of `json` (text JSON.parse accepted) writes twice, and where (`.a.b`, `[2]`), or
 * undefined. Keys compare as decoded, so `"a"` and `"\\u0061"` are one key.
 */
const duplicateKeyOf = (json: string): { key: string; where: string } | undefined => {
  // Each open object or array: the keys seen (null for an array), its path, and its current member's name.
  const open: { keys: Set<string> | null; path: string; member: string }[] = [];
  let expectKey = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === "\\" ? 2 : 1;
      const top = open.at(-1);
      if (expectKey && top?.keys) {
        const key = JSON.parse(json.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return { key, where: top.path || "the object" };
        top.keys.add(key);
        top.member = `.${key}`;
      }
      expectKey = false;
      i = j;
    } else if (c === "{" || c === "[") {
      const parent = open.at(-1);
      const path = parent ? `${parent.path}${parent.member}` : "";
      open.push({ keys: c === "{" ? new Set() : null, path, member: c === "[" ? "[0]" : "" });
      expectKey = c === "{";
    } else if (c === "}" || c === "]") {
      open.pop();
      expectKey = false;
    } else if (c === ",") {
      const top = open.at(-1);
      expectKey = top?.keys !== null && top !== undefined;
      if (top && top.keys === null) top.member = `[${Number(top.member.slice(1, -1)) + 1}]`;
    }
  }
  return undefined;
};

/**
 * The tool's parameters as a decoder that refuses fields they do not declare: a call with an extra field
 * is malformed (it would be journaled, and rewards keyed on the arguments would see a new call).
 */
const decodeArgs = (tool: Tool) =>
  Schema.decodeUnknownResult(tool.parameters as unknown as Schema.Codec<unknown, unknown>, {
    onExcessProperty: "error",
  });

/** The answer's text, when the action is `<answer>...</answer>`. */
export const answerOf = (text: string, tools: Readonly<Record<string, Tool>>): string | undefined => {
  checkTools("answerOf", tools);
  const action = parseAction(text, tools);
  return action.kind === "answer" ? action.text : undefined;
};

/**
 * A tool's arguments as an action writes them: the Encoded type of its parameters, the JSON they decode from
 * (the same as their Type for plain fields; a `NumberFromString` field is the string written). A tool typed only
 * as `Tool` says nothing of them: JSON fields.
 */
export type ToolArgs<T> =
  T extends Tool<infer P> ? (unknown extends P["Encoded"] ? Record<string, Json> : P["Encoded"]) : never;

/**
 * The tools' names that are known, without the index signature: `env.tools` of a `defineEnv` is
 * `Readonly<Record<string, Tool>> & { weather: ... }`, whose `keyof` is `string`, so callOf took it for a record of
 * any tools (JSON arguments, any name). A record of any tools has none: then any name, checked when called.
 */
export type KnownToolNames<T> = keyof { [P in keyof T as string extends P ? never : P]: T[P] } & string;
type ToolNames<T> = [KnownToolNames<T>] extends [never] ? keyof T & string : KnownToolNames<T>;

/**
 * The arguments as written (JSON that the tool's parameters decode), when the action is a well-formed call of the
 * named tool. Typed from the tool (`callOf(text, tools, "weather")?.city` is a string), or as you declare it,
 * `callOf<{ city: string }>(text, tools, "weather")`. A name that is none of `tools` throws; where the name is a
 * literal and the tools' names are known (a record of tools from `defineTool`), it is a compile error too.
 */
export const callOf: {
  <T extends Readonly<Record<string, Tool>>, K extends ToolNames<T>>(
    text: string,
    tools: T,
    tool: K,
    // A record of any tools (Record<string, Tool>) says nothing of one's arguments: JSON fields, as before.
  ): (K extends KnownToolNames<T> ? ToolArgs<T[K]> : Record<string, Json>) | undefined;
  // A name known only at run time (a `string`), or arguments declared by hand (`callOf<{ city: string }>`): checked
  // when called. A literal name that none of the typed tools has matches neither overload: a compile error.
  <
    A = Record<string, Json>,
    S extends string = string,
    T extends Readonly<Record<string, Tool>> = Record<string, Tool>,
  >(
    text: string,
    tools: T,
    tool: string extends S ? S : ToolNames<T>,
  ): A | undefined;
} = <A = Record<string, Json>>(text: string, tools: Readonly<Record<string, Tool>>, tool: string): A | undefined => {
  checkTools("callOf", tools);
  if (typeof tool !== "string")
    throw new TypeError(
      `callOf(text, tools, name): name must be the name of one of the tools (${Object.keys(tools).join(", ") || "none"}), got ${shownValue(tool)}`,
    );
  // A misspelt name would match no call, ever: a guard using it would silently never fire.
  if (!Object.hasOwn(tools, tool))
    throw new TypeError(
      `callOf: no tool named ${JSON.stringify(tool)} among the tools given (${Object.keys(tools).join(", ") || "none"})`,
    );
  const action = parseAction(text, tools);
  return action.kind === "call" && action.tool === tool ? (action.args as A) : undefined;
};

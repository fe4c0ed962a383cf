/**
 * Tool: an executor that returns the raw outcome of a call (query a store, call an API). It never decides
 * rewards or state: that is the ToolEnv's job. A tool call always ends in a ToolResult: a throw (of
 * anything), a timeout, a cancellation, arguments that do not decode or a result that is not plain JSON
 * become `{ ok: false, error }`, never an exception. Results and error messages are plain, well-formed JSON, cut to size with a
 * visible marker, so whatever a tool does, the journal can hold and hash it.
 */
import { isEffect } from "effect/Effect";
import * as Result from "effect/Result";
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import type { Subscribable, Unsubscribable } from "rxjs";
import { notPlainJson, notUnicode } from "../kernel/canonical.ts";
import {
  allKeys,
  didYouMean,
  effectFailedFrom,
  firstUnknownKey,
  notAnErrorMessage,
  shownValue,
  ThrowSites,
  thrownFrom,
} from "../kernel/errors.ts";
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
export type ToolOutput =
  | null
  | boolean
  | number
  | string
  | readonly ToolOutput[]
  | { readonly [key: string]: ToolOutput | undefined };

/** What `defineTool` takes: a tool's name (its tag in actions), description, parameters and code. */
export interface ToolSpec<P extends Schema.Top> {
  readonly name: string;
  /** Shown to people and in prompts. */
  readonly description: string;
  /** The arguments, as an Effect Schema; decoded before `execute` runs and rendered as JSON Schema for prompts. */
  readonly parameters: P;
  // Method syntax on purpose: a tool with specific arguments still fits a Record<string, Tool>.
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

/** The tool defineTool made, by its `call`: a copy of one (a spread) keeps the original's `call`. */
const definedCalls = new WeakMap<object, Tool>();

/** The tool defineTool made whose `call` this tool has (itself, or the original of a copy), if any. */
const definedOriginal = (tool: unknown): Tool | undefined =>
  typeof tool === "object" && tool !== null ? definedCalls.get((tool as { call?: unknown }).call as object) : undefined;

/**
 * Whether this tool runs a `call` defineTool made: it passes the signal it is given to no one (`execute` gets a
 * signal of the call's own) and stops listening to it once the call has settled.
 */
export const isDefinedTool = (tool: unknown): boolean => definedOriginal(tool) !== undefined;

/**
 * The work of a defineTool call (its `execute`), by the signal the call was given: a call settles early on a
 * timeout or its signal, while the work may go on to its finalizers. A halted episode waits for it (halt.ts).
 */
const executions = new WeakMap<AbortSignal, Promise<unknown>>();

/** The work of the defineTool call given `signal`, once it started (undefined for other tools' calls). */
export const executionOf = (signal: AbortSignal): Promise<unknown> | undefined => executions.get(signal);

/** Appended where a result or error message was cut to `maxResultChars`. */
export const TRUNCATION_MARKER = "…[truncated]";

/** Where tools' code threw, by tool and the message journaled (not journaled itself: a line is not behaviour). */
const toolThrows = new ThrowSites(64);
const throwKey = (tool: string, message: string) => `${tool}\u0000${message}`;

/**
 * Where a tool's code threw the error journaled with this message, if this process saw it thrown: `thrownAt`; for
 * an error an Effect program failed with (`Effect.fail`, nothing thrown), the program's line that failed, with
 * `failedInEffect` and, when elsewhere, `madeAt`, where the error was constructed (effectFailedFrom).
 */
export const toolThrownFrom = (
  tool: string,
  message: string,
): { readonly thrownAt: string; readonly failedInEffect?: true; readonly madeAt?: string } | undefined => {
  const cause = toolThrows.causeOf(throwKey(tool, message));
  const failed = effectFailedFrom(cause);
  if (failed) return { thrownAt: failed.at, failedInEffect: true, ...(failed.madeAt ? { madeAt: failed.madeAt } : {}) };
  const at = thrownFrom(cause);
  return at === undefined ? undefined : { thrownAt: at };
};
/**
 * How many calls of each tool returned nothing (undefined, which the machine gets as null), in this process: not
 * journaled (the journal keeps null), so a summary compares counts taken before and after its episodes.
 */
const nothingReturned = new Map<string, number>();
export const returnedNothingCounts = (): ReadonlyMap<string, number> => new Map(nothingReturned);
/** Deepest nesting of a result's content; deeper results become errors (the journal refuses deeper events). */
const MAX_RESULT_DEPTH = 128;

const cut = (text: string, limit: number): string =>
  text.length <= limit ? text : text.slice(0, limit).toWellFormed() + TRUNCATION_MARKER;

/**
 * A message for whatever was thrown (an Error, a string, undefined, a cyclic object, a BigInt...). Never throws.
 * What is neither an Error nor text is said to be thrown (notAnErrorMessage).
 */
const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message || cause.name || "Error" : notAnErrorMessage(cause);

const failure = (
  kind: "error" | "timeout" | "invalid-args",
  message: string,
  limit: number,
  tag?: string,
): ToolResult => ({
  ok: false,
  error: { kind, message: cut(message.toWellFormed(), limit), ...(tag === undefined ? {} : { tag }) },
});

/** Longest `_tag` journaled; a longer one is cut like a message. */
const MAX_TAG_CHARS = 200;

/** The `_tag` of a thrown value (Effect's tagged errors, `Data.TaggedError("NotFound")`), if it has a string one. */
const tagOf = (cause: unknown): string | undefined => {
  try {
    const tag = typeof cause === "object" && cause !== null ? (cause as { _tag?: unknown })._tag : undefined;
    return typeof tag === "string" && tag.length > 0 ? cut(tag.toWellFormed(), MAX_TAG_CHARS) : undefined;
  } catch {
    return undefined; // a getter that throws, a revoked proxy: no tag
  }
};

/**
 * What a call whose `execute` threw `cause` returns (and the journal keeps): an error failure with the thrown
 * value's message, cut to `maxResultChars`, and its `_tag` when it has one. exploreEnv gives the same for a
 * synchronous tool that throws.
 */
export const thrownFailure = (cause: unknown, maxResultChars: number): ToolResult =>
  failure("error", describe(cause), maxResultChars, tagOf(cause));

/** Replaces lone surrogates (not valid Unicode, refused by canonical JSON) in every string and key. */
const wellFormed = (value: Json, depth: number): Json => {
  if (depth > MAX_RESULT_DEPTH) throw new RangeError(`the result nests deeper than ${MAX_RESULT_DEPTH} levels`);
  if (typeof value === "string") return value.toWellFormed();
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => wellFormed(item, depth + 1));
  const out: Record<string, Json> = {};
  for (const [key, item] of Object.entries(value)) out[key.toWellFormed()] = wellFormed(item, depth + 1);
  return out;
};

/**
 * What the tool returned, cut to size. A value that is not plain JSON (a Map, Date, class instance, function,
 * bigint, NaN...) is refused, not normalised: JSON.stringify would journal a Map as {} and NaN as null, and
 * replay would agree with the loss, so nothing downstream could notice it. (checkCoverage shapes a tool's own
 * result with it too, so that it explores what a live call gives the machine.)
 */
export const toJsonResult = (name: string, content: unknown, limit: number): ToolResult => {
  // A huge string is cut before it is serialised: no second copy of it.
  if (typeof content === "string")
    return { ok: true, content: content.length > limit ? cut(content, limit) : content.toWellFormed() };
  // A tool that returns nothing returned null (counted by its call, when the machine gets it: a forgotten `return`).
  if (content === undefined) return { ok: true, content: null };
  // An Effect program returned unrun (`execute: (args) => program`): it is no result, and "result is a Object" said
  // nothing of what to do. Checked here, before the Observable and JSON checks, as no Effect is either.
  if (isEffect(content))
    return failure(
      "error",
      `${name} returned an Effect program, not its result: run it in execute, \`execute: (args, { signal }) => Effect.runPromise(program, { signal })\`, so that a timeout or the episode's end interrupts it`,
      limit,
    );
  const problem = notPlainJson(content, "result");
  if (problem)
    return failure(
      "error",
      `${name} returned a value that is not plain JSON: ${problem}; a tool result is journaled as JSON, so return plain data (e.g. Object.fromEntries(map), date.toISOString())`,
      limit,
    );
  const text = JSON.stringify(content);
  return text.length <= limit
    ? { ok: true, content: wellFormed(JSON.parse(text) as Json, 1) }
    : { ok: true, content: { truncated: true, preview: cut(text, limit).toWellFormed() } };
};

/**
 * The result of a call whose arguments do not decode (the runtime's and checkCoverage's). One line naming the
 * tool: Effect's message alone ("Expected number\n  at [\"qty\"]") broke record's note in two and did not say
 * whose arguments (the machine's invoke input: a model's call is checked before).
 */
export const invalidArgs = (name: string, cause: { readonly message: unknown }, limit: number): ToolResult =>
  failure(
    "invalid-args",
    `${name}'s arguments do not fit its parameters: ${String(cause.message).replace(/\s*\n\s*/g, " ")}`,
    limit,
  );

/**
 * A call's arguments as its `tool.called` event keeps them: the JSON of the machine's invoke input (null when JSON
 * can write none of it: a bigint, a cycle), with U+FFFD for a lone surrogate. The runtime journals them and calls
 * the tool with them; replay and checkCoverage take a call's arguments here too.
 */
export const journaledArguments = (input: unknown): Json => {
  try {
    const args = JSON.parse(JSON.stringify(input ?? null) ?? "null") as Json;
    // A lone surrogate (refused as arguments, argumentsNotJson) is journaled as U+FFFD, as UTF-8 would make it.
    return notUnicode(args) === undefined ? args : wellFormed(args, 1);
  } catch {
    return null;
  }
};

/**
 * The result of a call whose arguments (the machine's invoke input) are not plain JSON, or undefined when they are:
 * JSON would change them (a Date to its text, a Map to {}, NaN to null) or cannot write them (a bigint, a cycle),
 * so the tool would get other arguments than the machine gave, and the journal would hide it; or hold a lone
 * surrogate, which no journal can hold (the live episode aborted: "could not record tool.called"). The call does not
 * run (the runtime's, checkCoverage's, and a defined tool's own `call`).
 */
export const argumentsNotJson = (
  tool: Pick<Tool, "name" | "maxResultChars">,
  input: unknown,
): ToolResult | undefined => {
  const problem = notPlainJson(input ?? null, "arguments");
  if (problem !== undefined)
    return failure(
      "invalid-args",
      `${tool.name}'s arguments are not plain JSON: ${problem}; a call's arguments are journaled as JSON, so give plain data (e.g. date.toISOString(), Object.fromEntries(map))`,
      tool.maxResultChars,
    );
  // Not Unicode (a lone surrogate, from a slice that cut an emoji in two): no journal can hold them.
  const notText = notUnicode(input ?? null, "arguments");
  return notText === undefined
    ? undefined
    : failure(
        "invalid-args",
        `${tool.name}'s arguments are not Unicode text: ${notText}; a call's arguments are journaled as JSON, so give well-formed text (e.g. text.toWellFormed(), or slice by characters: [...text].slice(0, n).join(""))`,
        tool.maxResultChars,
      );
};

/** The result of a call that ran past its tool's `timeoutMs` (the runtime's and checkCoverage's). */
export const timedOut = (tool: Pick<Tool, "name" | "timeoutMs" | "maxResultChars">): ToolResult =>
  failure("timeout", `${tool.name} timed out after ${tool.timeoutMs} ms`, tool.maxResultChars);

/** Whether a tool returned an Observable (anything with `subscribe`: no plain JSON value has a function). */
export const isSubscribable = (value: unknown): value is Subscribable<unknown> =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as { subscribe?: unknown }).subscribe === "function" &&
  typeof (value as { then?: unknown }).then !== "function";

/** The failure of a tool's Observable that completed with no value (the runtime's and checkCoverage's). */
export const emptyObservableError = (name: string): Error =>
  new Error(`${name}'s Observable completed without emitting a value (return of(null) for none)`);

/**
 * The last value `source` emits before it completes, as lastValueFrom gives it, but unsubscribed when `signal`
 * aborts (a timeout, the episode's end: the Observable's teardown runs, a timer or a request is cancelled), and
 * then rejected with the signal's reason, so the call's work settles. One that completes without a value fails.
 */
const lastValueOf = (name: string, source: Subscribable<unknown>, signal: AbortSignal): Promise<unknown> =>
  new Promise((resolve, reject) => {
    let last: { value: unknown } | undefined;
    let settled = false;
    let subscription: Unsubscribable | undefined;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      // Runs in the signal's listener: a teardown that throws (RxJS's UnsubscriptionError) escaped it as an
      // uncaught exception and ended the process. It fails the call's work instead (the call has its failure).
      try {
        unsubscribeFrom(subscription);
      } catch (cause) {
        return reject(cause);
      }
      reject(signal.reason);
    };
    const settle = (end: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
      end();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    subscription = source.subscribe({
      next: (value) => {
        last = { value };
      },
      error: (cause) => settle(() => reject(cause)),
      complete: () => settle(() => (last ? resolve(last.value) : reject(emptyObservableError(name)))),
    });
    // Settled during subscribe (a synchronous source), or aborted meanwhile: nothing more to hear.
    if (settled) unsubscribeFrom(subscription);
  });

/**
 * Ends a subscription of whatever shape `subscribe` returned: RxJS's (`unsubscribe()`), a function (as some
 * libraries' `subscribe` returns), or nothing (then there is nothing to end).
 */
export const unsubscribeFrom = (subscription: unknown): void => {
  if (typeof subscription === "function") subscription();
  else if (typeof (subscription as Partial<Unsubscribable> | null | undefined)?.unsubscribe === "function")
    (subscription as Unsubscribable).unsubscribe();
};

const positive = (name: string, value: number, integer: boolean) => {
  if (!(value > 0) || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    throw new RangeError(`${name} must be a positive ${integer ? "integer" : "number"}, got ${shownValue(value)}`);
};

/** The longest delay setTimeout keeps (2^31 - 1 ms); Node fires a longer one after 1 ms. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The keys of ToolSpec. */
const TOOL_FIELDS = allKeys<ToolSpec<Schema.Top>>()([
  "name",
  "description",
  "parameters",
  "execute",
  "timeoutMs",
  "maxResultChars",
]);

/** The fields defineTool adds to a spec (a spread of a defined tool holds them): made again from the spec. */
const DERIVED_FIELDS = ["jsonSchema", "call"] as const;
/** The fields a defined tool's `call` closes over: a copy that changes one of them still runs the original's. */
const CALLED_FIELDS = ["name", "parameters", "execute", "timeoutMs", "maxResultChars"] as const;

/**
 * Why `tool` would not run as it reads, or undefined: a copy of a defined tool (`{ ...add, execute }`, with no
 * defineTool around it) keeps the original's `call`, which runs the original's execute, parameters and limits.
 */
export const staleCopyProblem = (tool: unknown): string | undefined => {
  const original = definedOriginal(tool);
  if (original === undefined || original === tool) return undefined;
  const changed = CALLED_FIELDS.find(
    (field) => (tool as Record<string, unknown>)[field] !== (original as unknown as Record<string, unknown>)[field],
  );
  return changed === undefined
    ? undefined
    : `it is a copy of the tool ${original.name} with \`${changed}\` changed, but its \`call\` is still the original's and runs the original's ${changed}: make it with defineTool({ ...${original.name}, ${changed}: ... })`;
};

/** A name a model can write as a tag, `<name>...</name>` (the action format reads nothing else). */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Schemas no JSON object decodes as: a tool with such parameters could never be called. */
const NOT_AN_OBJECT = new Set([
  "String",
  "Number",
  "Boolean",
  "BigInt",
  "Symbol",
  "UniqueSymbol",
  "Literal",
  "TemplateLiteral",
  "Enum",
  "Arrays",
  "Null",
  "Undefined",
  "Void",
  "Never",
]);

/**
 * Refuses a tool a model could never call, or whose options would be ignored, naming what is wrong: a
 * name that is not a tag (or is `answer`, which the action format reads as the final answer), parameters
 * that no JSON object decodes as (the arguments are a JSON object, or one string field's text), a missing
 * execute, an unknown field (a misspelt `timeout`).
 */
const checkToolSpec = (spec: ToolSpec<Schema.Top>): void => {
  if (typeof spec !== "object" || spec === null)
    throw new TypeError("defineTool takes one object: { name, description, parameters, execute }");
  const name = (spec as { name?: unknown }).name;
  if (typeof name !== "string" || !TOOL_NAME.test(name))
    throw new TypeError(
      `defineTool: name ${JSON.stringify(name) ?? String(name)} cannot be called: a model calls a tool as <name>...</name>, so its name is letters, digits and _ (not first a digit), e.g. "search" or "get_weather"`,
    );
  if (name === "answer")
    throw new TypeError(
      'defineTool: a tool cannot be named "answer": <answer>...</answer> is the final answer in the action format; name it e.g. "submit"',
    );
  // `defineTool({ ...tool, execute })`, a defined tool spread with a field changed (a stand-in that keeps its name,
  // description and parameters), also holds what defineTool added: those are made again, not unknown.
  const spread = definedOriginal(spec) !== undefined;
  const unknown = firstUnknownKey(spec, spread ? [...TOOL_FIELDS, ...DERIVED_FIELDS] : TOOL_FIELDS);
  if (unknown)
    throw new TypeError(
      `tool ${name}: unknown field \`${unknown.key}\`${didYouMean(unknown.meant)}; a tool has ${TOOL_FIELDS.join(", ")}`,
    );
  // Required by ToolSpec's type, but taken as undefined from plain JavaScript (or tsx, which does not typecheck).
  if (typeof spec.description !== "string")
    throw new TypeError(
      `tool ${name}: description must be a string (what the tool does, shown to people and in prompts), got ${spec.description === undefined ? "none" : shownValue(spec.description)}`,
    );
  if (typeof spec.execute !== "function")
    throw new TypeError(
      `tool ${name}: execute must be a function (args, { signal }) => result, got ${spec.execute === undefined ? "none" : typeof spec.execute}`,
    );
  const parameters = spec.parameters as unknown as { ast?: { _tag?: unknown } } | undefined;
  if (!Schema.isSchema(parameters) || NOT_AN_OBJECT.has(String(parameters.ast?._tag)))
    throw new TypeError(
      `tool ${name}: parameters must be a Schema.Struct of the arguments (e.g. Schema.Struct({ query: Schema.String })), got ${Schema.isSchema(parameters) ? `a schema of no object (${String(parameters.ast?._tag)})` : parameters === undefined ? "none" : typeof parameters}: a model writes a tool's arguments as a JSON object, or as the text of its one string field`,
    );
};

/**
 * Makes a Tool from its spec (timeoutMs default 10,000, maxResultChars default 20,000). Throws a TypeError on a
 * malformed spec, a RangeError on a limit that is not positive (maxResultChars: not a positive integer).
 */
export const defineTool = <P extends Schema.Top>(spec: ToolSpec<P>): Tool<P> => {
  checkToolSpec(spec as unknown as ToolSpec<Schema.Top>);
  const timeoutMs = spec.timeoutMs ?? 10_000;
  const maxResultChars = spec.maxResultChars ?? 20_000;
  positive(`tool ${spec.name}: timeoutMs`, timeoutMs, false);
  // setTimeout takes at most 2^31 - 1 ms: a longer delay (1e12, meant as "no limit") fired after 1 ms, and
  // every slow call failed as "timed out after 1000000000000 ms".
  if (timeoutMs > MAX_TIMEOUT_MS)
    throw new RangeError(
      `tool ${spec.name}: timeoutMs must be at most ${MAX_TIMEOUT_MS} (about 24.8 days, the longest delay Node's timers take; a longer one fires after 1 ms), got ${timeoutMs}`,
    );
  positive(`tool ${spec.name}: maxResultChars`, maxResultChars, true);
  const decode = Schema.decodeUnknownResult(spec.parameters as unknown as Schema.Codec<unknown, unknown>);
  const tool: Tool<P> = {
    ...spec,
    timeoutMs,
    maxResultChars,
    jsonSchema: Schema.toJsonSchemaDocument(spec.parameters).schema,
    call: async (args, outer) => {
      // As an episode refuses them (where the runtime passes the JSON it journals, which always is).
      const notJson = argumentsNotJson({ name: spec.name, maxResultChars }, args);
      if (notJson) return notJson;
      const decoded = decode(args);
      if (Result.isFailure(decoded)) return invalidArgs(spec.name, decoded.failure, maxResultChars);
      if (outer?.aborted)
        return failure("error", `${spec.name} was cancelled before it ran: ${describe(outer.reason)}`, maxResultChars);
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      let onOuterAbort: (() => void) | undefined;
      // Settles first on a timeout or a cancellation: a tool that ignores its signal is not waited for.
      const stopped = new Promise<ToolResult>((resolve) => {
        timer = setTimeout(() => {
          // A DOMException named as AbortSignal.timeout() names its reason, for code that checks err.name.
          controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
          resolve(timedOut({ name: spec.name, timeoutMs, maxResultChars }));
        }, timeoutMs);
        onOuterAbort = () => {
          controller.abort(outer?.reason);
          resolve(failure("error", `${spec.name} was cancelled: ${describe(outer?.reason)}`, maxResultChars));
        };
        outer?.addEventListener("abort", onOuterAbort, { once: true });
      });
      /** The result of an execute that returned undefined (null to the machine, if the call settles with it). */
      let nothing: ToolResult | undefined;
      const ran = (async (): Promise<ToolResult> => {
        try {
          const returned = spec.execute(decoded.success as P["Type"], { signal: controller.signal });
          const content = await (isSubscribable(returned)
            ? lastValueOf(spec.name, returned, controller.signal)
            : returned);
          const result = toJsonResult(spec.name, content, maxResultChars);
          if (content === undefined) nothing = result;
          return result;
        } catch (cause) {
          const result = thrownFailure(cause, maxResultChars);
          if (!result.ok) toolThrows.note(throwKey(spec.name, result.error.message), cause);
          return result;
        }
      })();
      if (outer) executions.set(outer, ran);
      try {
        const result = await Promise.race([ran, stopped]);
        // Counted only when the call settles with it: after a timeout or a cancellation, an execute that returns
        // undefined (`if (signal.aborted) return;`) gave the machine nothing; it got the failure.
        if (result === nothing) nothingReturned.set(spec.name, (nothingReturned.get(spec.name) ?? 0) + 1);
        return result;
      } finally {
        clearTimeout(timer);
        if (onOuterAbort) outer?.removeEventListener("abort", onOuterAbort);
      }
    },
  };
  definedCalls.set(tool.call, tool as unknown as Tool);
  return tool;
};

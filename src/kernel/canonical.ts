/**
 * Canonical JSON (RFC 8785, key-order independent) and the hashes built on it. Everything that is hashed
 * or compared on replay goes through here, so two equal values always hash equal.
 */
import * as crypto from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import canonicalize from "canonicalize";
import { configure } from "safe-stable-stringify";
import { UsageError } from "./errors.ts";

/**
 * Sorted keys (by UTF-16 code units, as RFC 8785 sorts them), numbers and strings as JSON.stringify writes
 * them: on plain JSON with well-formed strings this is RFC 8785 byte for byte (a property test compares it
 * with `canonicalize` on arbitrary JSON, and on every recorded journal), about 2x faster (bench figure 1b),
 * and it allocates no Set per key. `strict` throws on NaN, Infinity, bigint and functions, as `canonicalize` does.
 */
const sortedJson = configure({ deterministic: true, strict: true, circularValue: Error, bigint: false });

/**
 * RFC 8785 canonical JSON of a plain JSON value (sorted keys, fixed number format). Throws on NaN,
 * Infinity, bigint, a function, a cycle or a lone surrogate.
 */
export const canonicalJson = (value: unknown): string => {
  const fast = sortedJson(value);
  // JSON.stringify writes a lone surrogate as an escape (\udXXX), which RFC 8785 refuses: on the rare text
  // that holds one (or a backslash followed by "ud"), canonicalize decides, and throws on a lone surrogate.
  const text = fast === undefined || fast.includes("\\ud") ? canonicalize(value) : fast;
  if (text === undefined) throw new TypeError("value has no JSON representation");
  return text;
};

/**
 * SHA-256 as hex: the one-shot `crypto.hash` (Node 20.12+, about 0.7 us cheaper per call than a Hash
 * object on short texts, same digest), else `createHash`.
 */
const sha256Hex: (text: string) => string =
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "hex")
    : (text) => crypto.createHash("sha256").update(text).digest("hex");

/** 128-bit hex digest of a string. */
export const digest = (text: string): string => sha256Hex(text).slice(0, 32);

/** Hash of a value's canonical JSON (128-bit hex): two equal values always hash equal, whatever their key order. */
export const hashValue = (value: unknown): string => digest(canonicalJson(value));

/** Hash of an event (its `digest`, and the next event's `prev`): canonical JSON without `digest` and `meta`. */
export const hashEvent = (event: object): string => {
  const { meta: _meta, digest: _digest, ...hashed } = event as { meta?: unknown; digest?: unknown };
  return hashValue(hashed);
};

/**
 * How deep plain JSON may nest: deeper values are refused, not walked (a 10,000-deep array, which
 * JSON.parse accepts, would overflow the stack of every recursive walker after it: this one, Schema's
 * decoding, the canonical hash).
 */
const MAX_JSON_DEPTH = 256;

/** Where in a value: a path as long as the nesting limit allows would bury the message; its ends find it. */
const shortPath = (path: string): string =>
  !path ? "the value" : path.length <= 60 ? path : `${path.slice(0, 30)}…${path.slice(-20)}`;

/**
 * Where `value` stops being plain JSON (undefined when it is all plain): a Set, Map, Date, class instance,
 * function, bigint or non-finite number would be hashed as something else ({} or a string) or not at all,
 * so two different states could hash equal. Object properties that are undefined are allowed (JSON drops them;
 * `asJournaled` drops them too, for a value replayed from its JSON); an undefined array item is not (JSON makes it null).
 */
export const notPlainJson = (value: unknown, path = ""): string | undefined => firstNotPlain(value, path);

/**
 * notPlainJson and notUnicode in one walk: where `value` is not plain JSON, or holds text that is not Unicode (what
 * a journal line must hold: a machine's context, a task), or undefined.
 */
export const notJournalable = (value: unknown, path = ""): string | undefined =>
  firstNotPlain(value, path, { undefinedField: false, unicode: true });

/**
 * Where `value` (plain JSON) holds a string or key that is not Unicode: a lone UTF-16 surrogate (say from a
 * `text.slice(0, 3)` that cuts an emoji in two), which no journal line can hold (RFC 8785 refuses it), or undefined.
 */
export const notUnicode = (value: unknown, path = ""): string | undefined => {
  if (typeof value === "string")
    return value.isWellFormed() ? undefined : `${shortPath(path)} holds a lone surrogate, which is not Unicode`;
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = notUnicode(value[i], `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!key.isWellFormed()) return `a key of ${shortPath(path)} holds a lone surrogate, which is not Unicode`;
    const problem = notUnicode(item, `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
};

/**
 * A value as its journal keeps it (a task, replayed from its JSON): the value itself when it is plain JSON with no
 * undefined object field and no -0 (the common case: no copy), a copy without those fields and with 0 for -0 when it
 * has some (JSON drops them, so `"hint" in task` would be true live and false on replay, and writes -0 as 0, so
 * `(-0).toLocaleString()` would say "-0" live and "0" on replay), or the problem (as notPlainJson says it) when JSON
 * would change it rather than drop a field: an undefined array item, NaN, a Date, a cycle; or text JSON cannot
 * journal, a lone surrogate.
 */
export const asJournaled = <T>(
  value: T,
  path = "",
): { readonly value: T; readonly problem?: undefined } | { readonly problem: string } => {
  // Text that is not Unicode cannot be journaled either: refused here (in the same walk), naming where, not as
  // "could not record".
  const seen = { undefinedField: false, unicode: true };
  const problem = firstNotPlain(value, path, seen);
  if (problem !== undefined) return { problem };
  return { value: seen.undefinedField ? (withoutUndefinedFields(value) as T) : value };
};

/**
 * A plain JSON value without its undefined object fields, and with 0 for -0 (JSON writes -0 as 0, which
 * toLocaleString, Object.is and 1 / x tell apart); what holds neither is kept, not copied.
 */
const withoutUndefinedFields = (value: unknown): unknown => {
  if (Object.is(value, -0)) return 0;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items = value.map(withoutUndefinedFields);
    return items.some((item, i) => !Object.is(item, value[i])) ? items : value;
  }
  const entries = Object.entries(value);
  const kept: [string, unknown][] = [];
  let changed = false;
  for (const [key, item] of entries) {
    if (item === undefined) {
      changed = true;
      continue;
    }
    const inner = withoutUndefinedFields(item);
    if (!Object.is(inner, item)) changed = true;
    kept.push([key, inner]);
  }
  // fromEntries defines each key as its own field: a "__proto__" key stays a field, as JSON.parse keeps it.
  return changed ? Object.fromEntries(kept) : value;
};

const firstNotPlain = (
  value: unknown,
  path: string,
  /**
   * `undefinedField` is set when an object field is undefined (JSON drops it), or a number is -0 (JSON writes 0);
   * with `unicode`, a string or key holding a lone surrogate is a problem too (as notUnicode says it).
   */
  seen?: { undefinedField: boolean; readonly unicode?: boolean },
  depth = 0,
  /** The objects and arrays that hold this value, outermost first, with their paths: a cycle is named as one. */
  holders: { readonly value: object; readonly path: string }[] = [],
): string | undefined => {
  if (typeof value === "object" && value !== null) {
    const holder = holders.find((h) => h.value === value);
    if (holder) return `${shortPath(path)} refers back to ${shortPath(holder.path)} (a circular reference)`;
  }
  if (depth > MAX_JSON_DEPTH)
    return `${shortPath(path)} nests deeper than ${MAX_JSON_DEPTH} levels (or refers back to an object that holds it)`;
  switch (typeof value) {
    case "string":
      return seen?.unicode && !value.isWellFormed()
        ? `${shortPath(path)} holds a lone surrogate, which is not Unicode`
        : undefined;
    case "boolean":
      return undefined;
    case "number":
      if (Object.is(value, -0) && seen) seen.undefinedField = true;
      if (Number.isFinite(value)) return undefined;
      // JSON text can hold no NaN, but it can overflow: `1e400` parses as Infinity (written back as null).
      return `${shortPath(path)} is ${value}${Number.isNaN(value) ? "" : ", a number too large for JSON"}`;
    case "object": {
      if (value === null) return undefined;
      const within = [...holders, { value, path }];
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          // Not dropped as a field is: the item would be null in the journal (and a hole in the array too).
          if (value[i] === undefined)
            return `${shortPath(`${path}[${i}]`)} is undefined (JSON writes it as null: give null)`;
          const problem = firstNotPlain(value[i], `${path}[${i}]`, seen, depth + 1, within);
          if (problem) return problem;
        }
        return undefined;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return `${shortPath(path)} is ${classNamed(value as object)}`;
      for (const [key, item] of Object.entries(value)) {
        if (seen?.unicode && !key.isWellFormed())
          return `a key of ${shortPath(path)} holds a lone surrogate, which is not Unicode`;
        if (item === undefined) {
          if (seen) seen.undefinedField = true;
          continue;
        }
        const problem = firstNotPlain(item, `${path}.${key}`, seen, depth + 1, within);
        if (problem) return problem;
      }
      return undefined;
    }
    case "undefined":
      return `${shortPath(path)} is undefined`;
    default:
      return `${shortPath(path)} is a ${typeof value}`;
  }
};

/**
 * What a non-plain object is, for a message: "a Map", "an Int8Array"; an object whose constructor is no class of its
 * own (an Effect, a prototype made by Object.create, another realm's plain object: all "Object") says so, rather
 * than "a Object".
 */
const classNamed = (value: object): string => {
  let name: unknown;
  try {
    name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    name = undefined; // a getter that throws, a revoked proxy
  }
  if (typeof name !== "string" || name === "" || name === "Object")
    return "an object of no plain prototype (a class instance, an Effect, another realm's object)";
  return `${/^[AEIOU]/.test(name) ? "an" : "a"} ${name}`;
};

/**
 * A JSON file's text, without the byte order mark an editor may put first: JSON.parse refuses one, so a
 * reader that skips what it cannot parse would take the file as absent.
 */
export const readJsonText = (file: string): string => readFileSync(file, "utf8").replace(/^\uFEFF/, "");

/**
 * A run's metrics.jsonl as text, read as readJsonText reads (a byte order mark would cost the first update);
 * a folder of that name is said with its path (Node's EISDIR names none). Train and plot read it this way.
 */
export const readMetricsText = (file: string): string => {
  if (statSync(file).isDirectory())
    throw new UsageError({ detail: `${file} is a folder; a run's metrics.jsonl is a file, one JSON line per update` });
  return readJsonText(file);
};

/**
 * JSON.parse's message with the line and column of its "at position N" (Node 20 gives only the offset, no
 * help in a file edited by hand), on one line.
 */
export const jsonSyntaxError = (cause: unknown, text: string): string => {
  const message = (cause instanceof Error ? cause.message : String(cause)).replace(/\s*\n\s*/g, " ");
  const at = /at position (\d+)/.exec(message);
  if (!at || /\bline \d+/.test(message)) return message;
  const before = text.slice(0, Number(at[1]));
  return `${message}, line ${before.split("\n").length} column ${before.length - before.lastIndexOf("\n")}`;
};

/**
 * Typed errors. Each is a value with a `_tag` and a message a user can act on; journal errors name the
 * file, the line and the seq where the problem is.
 */
import { dirname, isAbsolute, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { inspect, stripVTControlCharacters } from "node:util";
import * as Data from "effect/Data";
import { closest, distance } from "fastest-levenshtein";

/** What every kernel error class's prototype carries: isAgentR1Error reads it, so that no class is listed by hand. */
const AGENT_R1_ERROR: unique symbol = Symbol("AgentR1Error");

/**
 * The base of the kernel's tagged errors (the members of AgentR1Error): `Data.TaggedError(tag)`, marked so that
 * isAgentR1Error knows its instances and its subclasses' (UsageError's). A kernel error class is defined through
 * it, not through Data.TaggedError, and added to AgentR1Error (a test checks every exported one is both).
 */
export const AgentR1TaggedError = <Tag extends string>(tag: Tag): ReturnType<typeof Data.TaggedError<Tag>> => {
  const Base = Data.TaggedError(tag);
  Object.defineProperty(Base.prototype, AGENT_R1_ERROR, { value: true });
  return Base;
};

/** Where in a journal a problem is: the file, the line and, when known, the event's seq. */
export interface JournalPlace {
  readonly file: string;
  /** 1-based line number in the file. */
  readonly line: number;
  readonly seq?: number;
}

const where = (p: JournalPlace) =>
  `${p.file}${p.line > 0 ? `:${p.line}` : ""}${p.seq === undefined ? "" : ` (seq ${p.seq})`}`;

/** What is wrong with a journal file (JournalError's `problem`); only "torn-tail" is repairable. */
export type JournalProblem =
  | "unreadable" // I/O failed
  | "parse" // not JSON
  | "schema" // JSON, but not a valid event
  | "version" // written by another format version
  | "episode" // belongs to another episode
  | "sequence" // seq not contiguous from 0
  | "digest" // the line's content does not match its own digest (edited)
  | "chain" // prev does not match the previous event's digest (lines removed, duplicated, reordered)
  | "order" // events after episode.ended, or no episode.started first
  | "torn-tail" // the last line is incomplete (a crash mid-write); `replay --repair` fixes it
  | "empty"; // the file holds no event

/**
 * A journal file that cannot be read as a valid episode stream; says the problem, file, 1-based line (0 for the whole
 * file) and seq where known.
 */
export class JournalError extends AgentR1TaggedError("JournalError")<{
  readonly problem: JournalProblem;
  readonly file: string;
  readonly line: number;
  readonly seq?: number;
  readonly detail: string;
}> {
  override get message(): string {
    return `${where(this)}: ${this.problem}: ${this.detail}`;
  }
  /** The damage `replay --repair` mends: a torn last line. Anything else it leaves for a person. */
  get repairable(): boolean {
    return this.problem === "torn-tail";
  }
}

/** Appending out of turn: another writer appended, or an event was skipped. */
export class JournalConflictError extends AgentR1TaggedError("JournalConflictError")<{
  readonly episode: string;
  readonly expectedSeq: number;
  readonly actualSeq: number;
}> {
  override get message(): string {
    return `episode ${this.episode}: append expected seq ${this.expectedSeq} but the journal is at seq ${this.actualSeq}`;
  }
}

/** Creating an episode stream that already exists: the journal never overwrites an episode. */
export class JournalExistsError extends AgentR1TaggedError("JournalExistsError")<{
  readonly episode: string;
  readonly file: string;
}> {
  override get message(): string {
    // Seeds name episodes lossily (episodeIdOf: "a:1", "a-1" and "a 1" are all ep-a-1): another seed may not be another id.
    return `episode ${this.episode} already has a journal at ${this.file}; record into a new folder or use another seed (episode ids are seeds with every character but letters, digits, '.', '_' and '-' made '-': seeds "a:1", "a 1" and "a-1" name one episode)`;
  }
}

/** Replay re-derived something other than what was recorded. */
export class NonDeterminismError extends AgentR1TaggedError("NonDeterminismError")<{
  readonly episode: string;
  readonly seq: number;
  readonly file?: string;
  /** The recorded version, as text. */
  readonly expected: string;
  /** The version the replay derived, as text. */
  readonly actual: string;
  /** The usual cause of such a divergence, said after both versions. */
  readonly hint?: string;
}> {
  override get message(): string {
    const place = this.file ? `${this.file} ` : "";
    const hint = this.hint ? `\n  hint: ${this.hint}` : "";
    return `${place}episode ${this.episode}, seq ${this.seq}: replay diverged\n  recorded: ${this.expected}\n  replayed: ${this.actual}${hint}`;
  }
}

/**
 * A journal replayed with an environment of another id. Nothing diverged: the journal belongs to another
 * environment. Re-rewarding (`{ verify: false }`) takes a variant of the same machine that keeps its id
 * (the same environment built with other rewards, by a factory, say).
 */
export class EnvMismatchError extends AgentR1TaggedError("EnvMismatchError")<{
  readonly episode: string;
  readonly file?: string;
  /** The id in the journal's episode.started. */
  readonly recorded: string;
  /** The id of the environment it was replayed with. */
  readonly given: string;
  /** Whether the replay was verifying: one that was not (a re-reward) needs no advice to turn verify off. */
  readonly verify?: boolean;
}> {
  override get message(): string {
    const place = this.file ? `${this.file} ` : "";
    const variant = `a variant of ${this.recorded} that keeps the id ${JSON.stringify(this.recorded)} (the same machine with other rewards, built by a factory, say)`;
    return (
      `${place}episode ${this.episode} was recorded with environment ${this.recorded}, not ${this.given}: ` +
      (this.verify === false
        ? `a journal replays only with an environment of the id that recorded it, verifying or not; to re-reward it, replay it with ${variant}`
        : `a journal replays only with an environment of the id that recorded it; to re-reward it, replay it with { verify: false } and ${variant}`)
    );
  }
}

/** The environment machine broke the ToolEnv protocol (e.g. went idle without observing or ending). */
export class EnvProtocolError extends AgentR1TaggedError("EnvProtocolError")<{
  readonly env: string;
  readonly detail: string;
  /** What the environment's own code threw, when the error is that throw said (legalActions'). */
  readonly cause?: unknown;
}> {
  override get message(): string {
    return `environment ${this.env}: ${this.detail}`;
  }
}

/**
 * Every episode of a batch was aborted (the policy, its legal actions or the environment threw): a bug to
 * fix, not bad input. The CLI prints the message and exits with code 1.
 */
export class EpisodesAbortedError extends AgentR1TaggedError("EpisodesAbortedError")<{
  /** What the episodes were for, e.g. "update 1 of 40". */
  readonly batch: string;
  readonly reason: string;
  /** Where the first abort's error was thrown (file:line:column), when known. */
  readonly thrownAt?: string;
  /** The first aborted episode's journal, when it was written (`agent-r1 inspect` shows it). */
  readonly journal?: string;
}> {
  override get message(): string {
    return `every episode of ${this.batch} was ${this.reason}${this.thrownAt ? ` (thrown at ${this.thrownAt})` : ""}${this.journal ? `; the first: ${this.journal}` : ""}; nothing to learn from`;
  }
}

/** Bad user input: unknown names, wrong values. The CLI prints the message and exits with code 2. */
export class UsageError extends AgentR1TaggedError("UsageError")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

/**
 * A journal refused under `--env`: the journal records options (the variant it was recorded on) that are not
 * those of the `--env` given. A UsageError, which replay says and stops at (not a journal it skips).
 */
export class EnvOptionsRefusedError extends UsageError {}

/**
 * A journal whose recorded options (its episode.started's env.options) its environment here refuses: the
 * environment is known, the variant cannot be rebuilt. replay --verify skips it, as one of an unknown environment.
 */
export class RecordedOptionsRefusedError extends UsageError {}

/** Every tagged error of the kernel (each defined through AgentR1TaggedError), for an exhaustive `Effect.catchTags` or a `switch` on `_tag`. */
export type AgentR1Error =
  | JournalError
  | JournalConflictError
  | JournalExistsError
  | NonDeterminismError
  | EnvMismatchError
  | EnvProtocolError
  | EpisodesAbortedError
  | UsageError;

/**
 * Whether a value is one of the kernel's tagged errors (AgentR1Error): what an Effect program's `tryPromise` maps a
 * rejection with, so that `catchTag("JournalExistsError", ...)` type-checks without a cast that would also let any
 * other rejection through as one: `catch: (e) => (isAgentR1Error(e) ? e : new Cause.UnknownError(e))`. Any instance of
 * a class defined through AgentR1TaggedError (or a subclass of one) is; another library's error of the same `_tag` is not.
 */
export const isAgentR1Error = (value: unknown): value is AgentR1Error =>
  typeof value === "object" && value !== null && AGENT_R1_ERROR in value;

/**
 * The message of a thrown value that is not an Error (`throw undefined`, `throw 3`, a plain or cyclic object): text as
 * it is, an error-like object's own `message`, anything else said to be thrown, as `inspect` shows it
 * (`threw undefined, not an Error`): `undefined` alone, or `[object Object]`, told the user nothing. Never throws.
 */
export const notAnErrorMessage = (cause: unknown): string => {
  if (typeof cause === "string") return cause;
  try {
    const message = typeof cause === "object" && cause !== null ? (cause as { message?: unknown }).message : undefined;
    if (typeof message === "string" && message !== "") return message;
    return `threw ${inspect(cause, { depth: 2, breakLength: Number.POSITIVE_INFINITY, maxStringLength: 200 })}, not an Error`;
  } catch {
    return `threw ${Object.prototype.toString.call(cause)}, not an Error`; // a revoked proxy, a throwing getter
  }
};

/**
 * A thrown value's message (what journals record): an Error's `message`, anything else as notAnErrorMessage says
 * it (`threw undefined, not an Error`).
 */
export const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : notAnErrorMessage(cause);

/**
 * Whether a value is a Promise (or any thenable): an async function's result where a value was due (an async
 * guard, legalActions, policy factory, end() metrics or reason). False for a `then` getter that throws.
 */
export const isThenable = (value: unknown): boolean => {
  if (typeof value !== "object" || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === "function";
  } catch {
    return false; // a getter that throws, a revoked proxy
  }
};

/**
 * A value a user gave, as an error message shows it: text quoted and said to be text (the string "0.5" is not
 * the number 0.5), long text cut; an object or array named, not dumped; anything else as String() writes it.
 */
export const shownValue = (value: unknown): string => {
  if (typeof value === "string")
    return `${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)} (a string)`;
  if (typeof value === "object" && value !== null) {
    if (Array.isArray(value)) return "an array";
    // An async function's result, where a value was due (an async legalActions, an async policy factory).
    if (isThenable(value)) return "a Promise (from an async function? this must answer at once)";
    return "an object";
  }
  return String(value);
};

/** A thrown Error's stack frames, as files (file: URLs made paths) with line and column. */
export const stackFrames = (
  cause: unknown,
): { readonly file: string; readonly line: string; readonly column: string }[] =>
  [...(cause instanceof Error ? (cause.stack ?? "") : "").matchAll(/^\s+at (?:.*?\()?(.+?):(\d+):(\d+)\)?$/gm)].map(
    ([, path, line, column]) => ({ file: path.startsWith("file://") ? fileURLToPath(path) : path, line, column }),
  );

/** Code of the user's or the project's, not Node's and not a dependency's. */
export const isOwnFrame = (file: string): boolean => isAbsolute(file) && !/[/\\]node_modules[/\\]/.test(file);

/** A path as a user reads it: relative to the working folder when inside it, else as given. */
export const shownPath = (file: string): string => {
  const path = relative(process.cwd(), file);
  return path === "" || path.startsWith("..") || isAbsolute(path) ? file : path;
};

/** The framework's own sources (this file is src/kernel/errors.ts). */
const FRAMEWORK_SRC = `${dirname(dirname(fileURLToPath(import.meta.url)))}${sep}`;

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes (`'hopqa?a=1&b=2'`). */
export const shellWord = (word: string): string =>
  /^[\w./:@+,=-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/** A file of the framework's own sources. */
export const isFrameworkFile = (file: string): boolean => file.startsWith(FRAMEWORK_SRC);

/**
 * Where a user's code threw: the first stack frame outside node_modules and the framework's src/
 * ("file:line:column", shown); none for an error the framework raised itself (its message says what).
 * `calledFrom`: the framework file that ran the user's code synchronously (replay): its first frame and those
 * under it are its callers', not where anything was thrown, so they are not looked at.
 */
export const thrownFrom = (cause: unknown, calledFrom?: string): string | undefined => {
  const frames = stackFrames(cause);
  const callers = calledFrom === undefined ? -1 : frames.findIndex((f) => f.file === calledFrom);
  const frame = (callers < 0 ? frames : frames.slice(0, callers)).find(
    (f) => isOwnFrame(f.file) && !isFrameworkFile(f.file),
  );
  return frame && `${shownPath(frame.file)}:${frame.line}:${frame.column}`;
};

/** Effect's own sources (its fiber runtime) in a stack: `node_modules/effect/`, wherever installed. */
const isEffectRuntimeFile = (file: string): boolean => /[/\\]node_modules[/\\]effect[/\\]/.test(file);

/**
 * Where an Effect program failed, for an error made while one ran (its stack goes on into Effect's fiber runtime,
 * which ran the program): `at`, the user's line the runtime was running (the frame just above Effect's), and
 * `madeAt`, where the error was constructed, when that is elsewhere (a helper: `notFound(key)`). An `Effect.fail`
 * throws nothing: "thrown at" the first user frame named the helper that made its error, not the failing program.
 * Undefined for an error made outside a running program, or when the stack does not reach Effect's runtime.
 */
export const effectFailedFrom = (cause: unknown): { readonly at: string; readonly madeAt?: string } | undefined => {
  const frames = stackFrames(cause);
  const runtime = frames.findIndex((f) => isEffectRuntimeFile(f.file));
  const above = frames.slice(0, Math.max(0, runtime));
  // Through the framework's code (a tool called from a program of the user's): not a program's own failure.
  if (above.some((f) => isFrameworkFile(f.file))) return undefined;
  const own = above.filter((f) => isOwnFrame(f.file));
  if (own.length === 0) return undefined;
  const shown = (f: (typeof own)[number]) => `${shownPath(f.file)}:${f.line}:${f.column}`;
  const at = shown(own.at(-1)!);
  const madeAt = shown(own[0]!);
  return madeAt === at ? { at } : { at, madeAt };
};

/**
 * Where recent errors were thrown, by a key (their message), for errors that reach the user without their
 * stack: XState rethrows a guard's error as text, a tool's error is journaled as text. Bounded, most recent
 * kept; the stack is read only when asked (a tool that fails on every call costs no stack parsing per call).
 */
export class ThrowSites {
  private readonly causes = new Map<string, Error>();
  constructor(private readonly limit: number) {}

  note(key: string, cause: unknown): void {
    if (!(cause instanceof Error)) return;
    this.causes.delete(key);
    this.causes.set(key, cause);
    if (this.causes.size > this.limit) this.causes.delete(this.causes.keys().next().value as string);
  }

  /** file:line:column of the user's code that threw the error noted under `key`, if any (`calledFrom`: as thrownFrom's). */
  where(key: string, calledFrom?: string): string | undefined {
    const cause = this.causes.get(key);
    return cause === undefined ? undefined : thrownFrom(cause, calledFrom);
  }

  /** The error noted under `key`, if any (still held). */
  causeOf(key: string): Error | undefined {
    return this.causes.get(key);
  }
}

/** Two letters side by side swapped (`widht` for `width`): one slip, though Levenshtein counts two edits. */
const isTransposition = (a: string, b: string): boolean =>
  a.length === b.length &&
  [...a].some((c, i) => i + 1 < a.length && c !== a[i + 1] && a.slice(0, i) + a[i + 1] + c + a.slice(i + 2) === b);

/**
 * The known name a misspelt one most likely meant (case aside, at most a third of its letters off, or two
 * neighbouring letters swapped), if any; else the one known name it begins, when it is 4 letters or more
 * (`allowRetry` for `allowRetryAfterFailure`, `temp` for `temperature`: a name cut short is far from it).
 */
export const closestName = (name: string, known: readonly string[]): string | undefined => {
  if (known.length === 0) return undefined;
  const lower = name.toLowerCase();
  const lowers = known.map((k) => k.toLowerCase());
  const swapped = lowers.find((k) => isTransposition(lower, k));
  const best = swapped ?? closest(lower, lowers);
  if (swapped !== undefined || distance(lower, best) <= Math.max(1, Math.floor(name.length / 3)))
    return known.find((k) => k.toLowerCase() === best);
  const begun = lower.length >= 4 ? known.filter((k) => k.toLowerCase().startsWith(lower)) : [];
  return begun.length === 1 ? begun[0] : undefined;
};

/** The first key of `object` that is not in `known`, and the name it most likely meant (`aliases` first). */
export const firstUnknownKey = (
  object: object,
  known: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): { readonly key: string; readonly meant: string | undefined } | undefined => {
  const key = Object.keys(object).find((k) => !known.includes(k));
  return key === undefined
    ? undefined
    : { key, meant: Object.hasOwn(aliases, key) ? aliases[key] : closestName(key, known) };
};

/** " (did you mean `x`?)" when there is a likely name, else "". */
export const didYouMean = (meant: string | undefined): string => (meant ? ` (did you mean \`${meant}\`?)` : "");

/**
 * Every key of `T`, listed at run time (`allKeys<Options>()(["a", "b"])`): a key the list leaves out, or
 * one `T` does not have, fails to typecheck, so a list that refuses unknown keys cannot drift from its type.
 */
export const allKeys =
  <T>() =>
  <const K extends readonly (keyof T & string)[]>(
    keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> }),
  ): K =>
    keys;

/**
 * Refuses keys of an options object that `fn` does not know (a misspelt `numRun` would be ignored and the
 * defaults used silently), naming the closest known one.
 */
export const checkKnownKeys = (fn: string, options: object, known: readonly string[]): void => {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${fn}: the options must be an object, got ${options === null ? "null" : typeof options}`);
  const unknown = firstUnknownKey(options, known);
  // An environment given where the options were due (`runEpisode(env)`, `rollout(env, ...)`): said as such, not
  // as its first field, "unknown option `id`".
  if (unknown && known.includes("env") && "machine" in options && "tokenizer" in options && "task" in options)
    throw new TypeError(
      `${fn}: that is an environment; ${fn} takes one object of options, the environment among them: ${fn}({ env, ${known
        .filter((key) => key !== "env")
        .slice(0, 3)
        .join(", ")}, ... })`,
    );
  if (unknown)
    throw new TypeError(
      `${fn}: unknown option \`${unknown.key}\`${didYouMean(unknown.meant)}; ${fn} knows ${known.join(", ")}`,
    );
};

/**
 * Throws `refuse("KEY must be true or false", value)` for the first of `keys` that `options` gives as anything but a
 * boolean: from plain JavaScript, `constrained: "no"` or `verify: "false"` is truthy, and turned on what it meant to
 * turn off. The caller words the error: its type and its prefix (`(rule, value) => new TypeError(\`fn: ${rule}, got
 * ${shownValue(value)}\`)`).
 */
export const checkBooleans = <T extends object>(
  options: T,
  keys: readonly (keyof T & string)[],
  refuse: (rule: string, value: unknown) => Error,
): void => {
  for (const key of keys) {
    const value: unknown = options[key];
    if (value !== undefined && typeof value !== "boolean") throw refuse(`${key} must be true or false`, value);
  }
};

/**
 * Node's write errors name no file (`ENOSPC: no space left on device, write`: writeSync, writeFile and
 * appendFile alike), so a full disk was said without saying where. Names `file` in the error as Node does
 * for a call given a path (`..., write '/runs/x/metrics.jsonl'`) and returns it, for `throw withFile(e, f)`;
 * an error that names a path already, or is not a file-system error, is returned as it is.
 */
export const withFile = (cause: unknown, file: string): unknown => {
  const e = cause as NodeJS.ErrnoException;
  if (e instanceof Error && typeof e.code === "string" && e.path === undefined) {
    e.path = file;
    e.message = `${e.message} '${file}'`;
  }
  return cause;
};

/** Runs `write` (synchronous), its file-system error naming `file` (`withFile`). */
export const writingFile = <T>(file: string, write: () => T): T => {
  try {
    return write();
  } catch (cause) {
    throw withFile(cause, file);
  }
};

/** Awaits `write`, its file-system error naming `file` (`withFile`). */
export const writingFileAsync = async <T>(file: string, write: () => Promise<T>): Promise<T> => {
  try {
    return await write();
  } catch (cause) {
    throw withFile(cause, file);
  }
};

/**
 * What an import of a module failed with, as one line: the message's first line, with those it goes on to (a
 * syntax error's first line is only "Transform failed with 1 error:", and XState's "Invalid transition
 * definition for state node 'm.a':": the place and the error follow, so a line ending in ":" goes on).
 */
export const moduleLoadFailure = (cause: unknown): string => {
  const text = stripVTControlCharacters(cause instanceof Error ? cause.message : String(cause));
  const lines = text.split("\n").filter((l) => l.trim());
  let kept = 1;
  while (kept < Math.min(lines.length, 4) && lines[kept - 1].trimEnd().endsWith(":")) kept += 1;
  return lines
    .slice(0, lines[0]?.startsWith("Transform failed") ? Math.max(kept, 3) : kept)
    .join(" ")
    .replace(/\s+/g, " ");
};

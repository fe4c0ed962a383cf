/*
 * Typed errors. Each is a value with a `_tag` and a message a user can act on; journal errors name the
 * file, the line and the seq where the problem is.
 */
import * as Data from "effect/Data";
/**
 * The base of the kernel's tagged errors (the members of AgentR1Error): `Data.TaggedError(tag)`, marked so that
 * isAgentR1Error knows its instances and its subclasses' (UsageError's). A kernel error class is defined through
 * it, not through Data.TaggedError, and added to AgentR1Error (a test checks every exported one is both).
 */
export declare const AgentR1TaggedError: <Tag extends string>(tag: Tag) => ReturnType<typeof Data.TaggedError<Tag>>;
/** Where in a journal a problem is: the file, the line and, when known, the event's seq. */
export interface JournalPlace {
    readonly file: string;
    /** 1-based line number in the file. */
    readonly line: number;
    readonly seq?: number;
}
/** What is wrong with a journal file (JournalError's `problem`); only "torn-tail" is repairable. */
export type JournalProblem = "unreadable" | "parse" | "schema" | "version" | "episode" | "sequence" | "digest" | "chain" | "order" | "torn-tail" | "empty";
declare const JournalError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "JournalError";
} & Readonly<A>;
/**
 * A journal file that cannot be read as a valid episode stream; says the problem, file, 1-based line (0 for the whole
 * file) and seq where known.
 */
export declare class JournalError extends JournalError_base<{
    readonly problem: JournalProblem;
    readonly file: string;
    readonly line: number;
    readonly seq?: number;
    readonly detail: string;
}> {
    get message(): string;
    /** The damage `replay --repair` mends: a torn last line. Anything else it leaves for a person. */
    get repairable(): boolean;
}
declare const JournalConflictError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "JournalConflictError";
} & Readonly<A>;
/** Appending out of turn: another writer appended, or an event was skipped. */
export declare class JournalConflictError extends JournalConflictError_base<{
    readonly episode: string;
    readonly expectedSeq: number;
    readonly actualSeq: number;
}> {
    get message(): string;
}
declare const JournalExistsError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "JournalExistsError";
} & Readonly<A>;
/** Creating an episode stream that already exists: the journal never overwrites an episode. */
export declare class JournalExistsError extends JournalExistsError_base<{
    readonly episode: string;
    readonly file: string;
}> {
    get message(): string;
}
declare const NonDeterminismError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "NonDeterminismError";
} & Readonly<A>;
/** Replay re-derived something other than what was recorded. */
export declare class NonDeterminismError extends NonDeterminismError_base<{
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
    get message(): string;
}
declare const EnvMismatchError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "EnvMismatchError";
} & Readonly<A>;
/**
 * A journal replayed with an environment of another id. Nothing diverged: the journal belongs to another
 * environment. Re-rewarding (`{ verify: false }`) takes a variant of the same machine that keeps its id
 * (the same environment built with other rewards, by a factory, say).
 */
export declare class EnvMismatchError extends EnvMismatchError_base<{
    readonly episode: string;
    readonly file?: string;
    /** The id in the journal's episode.started. */
    readonly recorded: string;
    /** The id of the environment it was replayed with. */
    readonly given: string;
    /** Whether the replay was verifying: one that was not (a re-reward) needs no advice to turn verify off. */
    readonly verify?: boolean;
}> {
    get message(): string;
}
declare const EnvProtocolError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "EnvProtocolError";
} & Readonly<A>;
/** The environment machine broke the ToolEnv protocol (e.g. went idle without observing or ending). */
export declare class EnvProtocolError extends EnvProtocolError_base<{
    readonly env: string;
    readonly detail: string;
    /** What the environment's own code threw, when the error is that throw said (legalActions'). */
    readonly cause?: unknown;
}> {
    get message(): string;
}
declare const EpisodesAbortedError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "EpisodesAbortedError";
} & Readonly<A>;
/**
 * Every episode of a batch was aborted (the policy, its legal actions or the environment threw): a bug to
 * fix, not bad input. The CLI prints the message and exits with code 1.
 */
export declare class EpisodesAbortedError extends EpisodesAbortedError_base<{
    /** What the episodes were for, e.g. "update 1 of 40". */
    readonly batch: string;
    readonly reason: string;
    /** Where the first abort's error was thrown (file:line:column), when known. */
    readonly thrownAt?: string;
    /** The first aborted episode's journal, when it was written (`agent-r1 inspect` shows it). */
    readonly journal?: string;
}> {
    get message(): string;
}
declare const UsageError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "UsageError";
} & Readonly<A>;
/** Bad user input: unknown names, wrong values. The CLI prints the message and exits with code 2. */
export declare class UsageError extends UsageError_base<{
    readonly detail: string;
}> {
    get message(): string;
}
/**
 * A journal refused under `--env`: the journal records options (the variant it was recorded on) that are not
 * those of the `--env` given. A UsageError, which replay says and stops at (not a journal it skips).
 */
export declare class EnvOptionsRefusedError extends UsageError {
}
/**
 * A journal whose recorded options (its episode.started's env.options) its environment here refuses: the
 * environment is known, the variant cannot be rebuilt. replay --verify skips it, as one of an unknown environment.
 */
export declare class RecordedOptionsRefusedError extends UsageError {
}
/** Every tagged error of the kernel (each defined through AgentR1TaggedError), for an exhaustive `Effect.catchTags` or a `switch` on `_tag`. */
export type AgentR1Error = JournalError | JournalConflictError | JournalExistsError | NonDeterminismError | EnvMismatchError | EnvProtocolError | EpisodesAbortedError | UsageError;
/**
 * Whether a value is one of the kernel's tagged errors (AgentR1Error): what an Effect program's `tryPromise` maps a
 * rejection with, so that `catchTag("JournalExistsError", ...)` type-checks without a cast that would also let any
 * other rejection through as one: `catch: (e) => (isAgentR1Error(e) ? e : new Cause.UnknownError(e))`. Any instance of
 * a class defined through AgentR1TaggedError (or a subclass of one) is; another library's error of the same `_tag` is not.
 */
export declare const isAgentR1Error: (value: unknown) => value is AgentR1Error;
/**
 * The message of a thrown value that is not an Error (`throw undefined`, `throw 3`, a plain or cyclic object): text as
 * it is, an error-like object's own `message`, anything else said to be thrown, as `inspect` shows it
 * (`threw undefined, not an Error`): `undefined` alone, or `[object Object]`, told the user nothing. Never throws.
 */
export declare const notAnErrorMessage: (cause: unknown) => string;
/**
 * A thrown value's message (what journals record): an Error's `message`, anything else as notAnErrorMessage says
 * it (`threw undefined, not an Error`).
 */
export declare const messageOf: (cause: unknown) => string;
/**
 * Whether a value is a Promise (or any thenable): an async function's result where a value was due (an async
 * guard, legalActions, policy factory, end() metrics or reason). False for a `then` getter that throws.
 */
export declare const isThenable: (value: unknown) => boolean;
/**
 * A value a user gave, as an error message shows it: text quoted and said to be text (the string "0.5" is not
 * the number 0.5), long text cut; an object or array named, not dumped; anything else as String() writes it.
 */
export declare const shownValue: (value: unknown) => string;
/** A thrown Error's stack frames, as files (file: URLs made paths) with line and column. */
export declare const stackFrames: (cause: unknown) => {
    readonly file: string;
    readonly line: string;
    readonly column: string;
}[];
/** Code of the user's or the project's, not Node's and not a dependency's. */
export declare const isOwnFrame: (file: string) => boolean;
/** A path as a user reads it: relative to the working folder when inside it, else as given. */
export declare const shownPath: (file: string) => string;
/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes (`'hopqa?a=1&b=2'`). */
export declare const shellWord: (word: string) => string;
/** A file of the framework's own sources. */
export declare const isFrameworkFile: (file: string) => boolean;
/**
 * Where a user's code threw: the first stack frame outside node_modules and the framework's src/
 * ("file:line:column", shown); none for an error the framework raised itself (its message says what).
 * `calledFrom`: the framework file that ran the user's code synchronously (replay): its first frame and those
 * under it are its callers', not where anything was thrown, so they are not looked at.
 */
export declare const thrownFrom: (cause: unknown, calledFrom?: string) => string | undefined;
/**
 * Where an Effect program failed, for an error made while one ran (its stack goes on into Effect's fiber runtime,
 * which ran the program): `at`, the user's line the runtime was running (the frame just above Effect's), and
 * `madeAt`, where the error was constructed, when that is elsewhere (a helper: `notFound(key)`). An `Effect.fail`
 * throws nothing: "thrown at" the first user frame named the helper that made its error, not the failing program.
 * Undefined for an error made outside a running program, or when the stack does not reach Effect's runtime.
 */
export declare const effectFailedFrom: (cause: unknown) => {
    readonly at: string;
    readonly madeAt?: string;
} | undefined;
/**
 * Where recent errors were thrown, by a key (their message), for errors that reach the user without their
 * stack: XState rethrows a guard's error as text, a tool's error is journaled as text. Bounded, most recent
 * kept; the stack is read only when asked (a tool that fails on every call costs no stack parsing per call).
 */
export declare class ThrowSites {
    private readonly limit;
    private readonly causes;
    constructor(limit: number);
    note(key: string, cause: unknown): void;
    /** file:line:column of the user's code that threw the error noted under `key`, if any (`calledFrom`: as thrownFrom's). */
    where(key: string, calledFrom?: string): string | undefined;
    /** The error noted under `key`, if any (still held). */
    causeOf(key: string): Error | undefined;
}
/**
 * The known name a misspelt one most likely meant (case aside, at most a third of its letters off, or two
 * neighbouring letters swapped), if any; else the one known name it begins, when it is 4 letters or more
 * (`allowRetry` for `allowRetryAfterFailure`, `temp` for `temperature`: a name cut short is far from it).
 */
export declare const closestName: (name: string, known: readonly string[]) => string | undefined;
/** The first key of `object` that is not in `known`, and the name it most likely meant (`aliases` first). */
export declare const firstUnknownKey: (object: object, known: readonly string[], aliases?: Readonly<Record<string, string>>) => {
    readonly key: string;
    readonly meant: string | undefined;
} | undefined;
/** " (did you mean `x`?)" when there is a likely name, else "". */
export declare const didYouMean: (meant: string | undefined) => string;
/**
 * Every key of `T`, listed at run time (`allKeys<Options>()(["a", "b"])`): a key the list leaves out, or
 * one `T` does not have, fails to typecheck, so a list that refuses unknown keys cannot drift from its type.
 */
export declare const allKeys: <T>() => <const K extends readonly (keyof T & string)[]>(keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : {
    missing: Exclude<keyof T, K[number]>;
})) => K;
/**
 * Refuses keys of an options object that `fn` does not know (a misspelt `numRun` would be ignored and the
 * defaults used silently), naming the closest known one.
 */
export declare const checkKnownKeys: (fn: string, options: object, known: readonly string[]) => void;
/**
 * Throws `refuse("KEY must be true or false", value)` for the first of `keys` that `options` gives as anything but a
 * boolean: from plain JavaScript, `constrained: "no"` or `verify: "false"` is truthy, and turned on what it meant to
 * turn off. The caller words the error: its type and its prefix (`(rule, value) => new TypeError(\`fn: ${rule}, got
 * ${shownValue(value)}\`)`).
 */
export declare const checkBooleans: <T extends object>(options: T, keys: readonly (keyof T & string)[], refuse: (rule: string, value: unknown) => Error) => void;
/**
 * Node's write errors name no file (`ENOSPC: no space left on device, write`: writeSync, writeFile and
 * appendFile alike), so a full disk was said without saying where. Names `file` in the error as Node does
 * for a call given a path (`..., write '/runs/x/metrics.jsonl'`) and returns it, for `throw withFile(e, f)`;
 * an error that names a path already, or is not a file-system error, is returned as it is.
 */
export declare const withFile: (cause: unknown, file: string) => unknown;
/** Runs `write` (synchronous), its file-system error naming `file` (`withFile`). */
export declare const writingFile: <T>(file: string, write: () => T) => T;
/** Awaits `write`, its file-system error naming `file` (`withFile`). */
export declare const writingFileAsync: <T>(file: string, write: () => Promise<T>) => Promise<T>;
/**
 * What an import of a module failed with, as one line: the message's first line, with those it goes on to (a
 * syntax error's first line is only "Transform failed with 1 error:", and XState's "Invalid transition
 * definition for state node 'm.a':": the place and the error follow, so a line ending in ":" goes on).
 */
export declare const moduleLoadFailure: (cause: unknown) => string;
export {};

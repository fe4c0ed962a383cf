/**
 * ToolEnv: the environment's author writes an XState machine; this module gives it its vocabulary.
 *
 * The machine receives `agent.act` events (the agent's action text and tokens) and tool results (the
 * `onDone` of an `invoke` whose `src` is a tool's name; the output is always a ToolResult). It speaks back
 * through three actions: `observe(text)` (the next observation: the agent acts after it), `reward(kind,
 * value, reason)` (a process or outcome reward on the current turn) and `end(reason, metrics)`. Everything
 * it does is recorded as events and re-derived on replay, so guards and actions must be pure: no
 * Math.random, Date.now or timers; randomness comes from `input.seed` through `Rng`.
 */
import type { Json } from "effect/Schema";
import { type ActionFunction, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type Assigner, type DoneActorEvent, type EventObject, fromPromise, type MachineContext, type ParameterizedObject, type PropertyAssigner, type ProvidedActor } from "xstate";
import type { RewardKind, ToolResult } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, Turn } from "./policy.ts";
import { type Tool } from "./tool.ts";
/** The event the machine receives when the agent acts. */
export interface AgentActEvent {
    readonly type: "agent.act";
    readonly turn: number;
    readonly text: string;
    readonly tokens: readonly number[];
}
/** What the machine is started with. */
export interface EnvInput<Task = Json> {
    readonly task: Task;
    /** The episode's seed, for any randomness the environment needs (use `Rng.fromSeed`). */
    readonly seed: string;
}
/** Events the machine emits; the runtime turns them into journal events. */
export type EnvEmitted = ({
    readonly type: "env.observe";
    readonly text: string;
} | {
    readonly type: "env.reward";
    readonly kind: RewardKind;
    readonly value: number;
    readonly reason: string;
} | {
    readonly type: "env.end";
    readonly reason: string;
    readonly metrics: Readonly<Record<string, number>>;
}) & {
    /** Where the action creator was called in the environment's code, for error messages. */
    readonly at?: () => string | undefined;
};
/**
 * What a dynamic argument of `observe`, `reward` and `end` is called with: the machine's context and the
 * event being handled (an `agent.act` event, a tool's done event whose `output` is a ToolResult, ...).
 */
export interface EnvActionArgs<TContext = MachineContext, TEvent = EventObject> {
    readonly context: TContext;
    readonly event: TEvent;
}
/**
 * A tool's done event, as an `invoke`'s `onDone` receives it: `output` is always a ToolResult. For a helper
 * kept outside the machine: `({ event }: EnvActionArgs<Context, ToolDoneEvent>) => ...`.
 */
export type ToolDoneEvent = DoneActorEvent<ToolResult>;
/** A value, or a function of the machine's context and the event being handled. */
export type Dynamic<T, TContext = MachineContext, TEvent = EventObject> = T | ((args: EnvActionArgs<TContext, TEvent>) => T);
/**
 * The XState action an action creator returns. Its context and event types are inferred from where it is
 * placed (as XState's own `assign` and `emit` are), so `observe(({ context }) => context.task.a)` inside a
 * machine made with `setup({ types: { context: {} as Context, ... } })` sees `context` as a `Context`.
 */
export type EnvAction<TContext extends MachineContext, TEvent extends EventObject> = ActionFunction<TContext, TEvent, any, ParameterizedObject["params"] | undefined, never, never, never, never, never>;
/** XState's own: an intersection that keeps `TContext` from being inferred from the assignment. */
type LowInfer<T> = T & NonNullable<unknown>;
/** The signature of `assign` below: XState's, split into two overloads (an object of fields, or a function). */
export interface TypedAssign {
    <TContext extends MachineContext, TExpressionEvent extends AnyEventObject, TParams extends ParameterizedObject["params"] | undefined, TEvent extends EventObject, TActor extends ProvidedActor>(assignment: PropertyAssigner<LowInfer<TContext>, TExpressionEvent, TParams, TEvent, TActor>): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, TActor, never, never, never, never>;
    <TContext extends MachineContext, TExpressionEvent extends AnyEventObject, TParams extends ParameterizedObject["params"] | undefined, TEvent extends EventObject, TActor extends ProvidedActor>(assignment: Assigner<LowInfer<TContext>, TExpressionEvent, TParams, TEvent, TActor>): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, TActor, never, never, never, never>;
}
/**
 * XState's `assign` (the same function), with its one parameter split into two overloads. XState types it as
 * `Assigner | PropertyAssigner`, a function or an object of fields; a context field named `call` is then also
 * a member of the function type (`Function.prototype.call`), so TypeScript finds two contextual signatures for
 * `assign({ call: ({ event }) => ... })` and types `event` as an implicit any (TS7031 under `strict`). With
 * the object form and the function form apart, each field gets the machine's context and event types.
 */
export declare const assign: TypedAssign;
/** Shows the agent its next observation; the agent acts after it. */
export declare const observe: <TContext extends MachineContext, TEvent extends EventObject>(text: Dynamic<string, TContext, TEvent>) => EnvAction<TContext, TEvent>;
/** Assigns a reward on the current turn. */
export declare const reward: <TContext extends MachineContext, TEvent extends EventObject>(kind: RewardKind, value: Dynamic<number, TContext, TEvent>, reason: Dynamic<string, TContext, TEvent>) => EnvAction<TContext, TEvent>;
/**
 * Why an environment's own end() reason is refused, or undefined: "aborted: " begins the reasons of episodes the
 * runtime cut short (a policy that failed, the turn limit, a stop), which record counts as aborted and train and
 * sft leave out; a lone surrogate cannot be journaled (the episode's end failed, and with it runEpisode).
 */
export declare const refusedEndReason: (reason: string) => string | undefined;
/**
 * What is said of an environment's own text (an observation, a reward's or end()'s reason) that holds a lone UTF-16
 * surrogate: no journal line can hold it.
 */
export declare const LONE_SURROGATE = "holds a lone surrogate, which is not Unicode and no journal can hold; give well-formed text (e.g. text.toWellFormed(), or slice by characters: [...text].slice(0, n).join(\"\"))";
/** Ends the episode, with the environment's own metrics (exact match, F1, ...). */
export declare const end: <TContext extends MachineContext, TEvent extends EventObject>(reason: Dynamic<string, TContext, TEvent>, metrics?: Dynamic<Record<string, number>, TContext, TEvent>) => EnvAction<TContext, TEvent>;
/**
 * The machine's actor implementations for its tools, by name. They call the tools directly, so the
 * machine also runs standalone (in a unit test); the runtime replaces them with recording versions and
 * replay with the recorded results.
 */
export declare const toolActors: <const T extends Record<string, Tool>>(tools: T) => { [K in keyof T]: ReturnType<typeof fromPromise<ToolResult, ToolInput>>; };
/**
 * A tool actor's input: any value (the tool decodes it, and a wrong one is an invalid-args result), typed as
 * `{} | null | undefined`, not `unknown`. `unknown` absorbed XState's `Mapper | TInput` union, so an unannotated
 * `input: ({ context }) => ...` was TS7031; `Json` typed it but refused what `unknown` took (a context field
 * typed by an interface, a Record<string, unknown>, an unknown, no input at all).
 */
export type ToolInput = NonNullable<unknown> | null | undefined;
/** What `legalActions` sees: the task and the history so far (a PolicyRequest is one). */
export interface LegalView<Task = Json> {
    readonly task: Task;
    readonly history: readonly Turn[];
}
/** A ToolEnv: what `defineEnv` checks and returns, and what the runtime, replay, the CLI and the learner take. */
export interface EnvDefinition<Task extends Json = Json> {
    readonly id: string;
    /** Bump when behaviour changes: replays of another version are refused with a clear message. */
    readonly version: string;
    readonly description: string;
    /** The ToolEnv machine; its input is `EnvInput<Task>`. */
    readonly machine: AnyStateMachine;
    readonly tools: Readonly<Record<string, Tool>>;
    /** The environment's language: observations are encoded with it; learned policies start from it. */
    readonly tokenizer: Tokenizer;
    /** Draws a task from a seed (deterministic). */
    readonly task: (seed: string) => Task;
    /** Scripted policies shipped with the environment (e.g. `expert`, `random`). */
    readonly policies?: Readonly<Record<string, () => Policy>>;
    /** Safety net: the runtime aborts an episode that runs longer (default 64 turns). */
    readonly maxTurns?: number;
    /**
     * The most tokens one action of this environment takes: a learned policy's sampling budget per action
     * (default 12; `--max-new-tokens` overrides it). A longer action is cut and comes out malformed, so set it
     * when actions are long (a JSON call of several parameters). Constrained decoding sizes its budget from
     * the longest legal action instead.
     */
    readonly maxActionTokens?: number;
    /**
     * A variant drawing other tasks (another split, other worlds...), from `key=value` options: the CLI's
     * `--env "id?key=value&key=value"`. The machine must not change: replay finds an environment by id.
     * Throws a RangeError naming a wrong option.
     */
    readonly configure?: (options: Readonly<Record<string, string>>) => EnvDefinition<Task>;
    /** The options in effect (a variant's split, worlds...): `eval` reports them with its scores. */
    readonly options?: Readonly<Record<string, string | number>>;
    /**
     * Every key `configure` reads (`["split", "world-seed", "worlds", "top-k"]`): `--env "id?key=value"` then
     * refuses any other key before `configure` runs, naming the one meant. Without it, a key a module's own
     * `configure` passed over is found by asking `configure` again with that key at a value no option takes.
     */
    readonly optionKeys?: readonly string[];
    /**
     * The GPT a learned policy needs (its context must hold a whole episode; a world with many names needs a
     * wider model to copy them). Defaults: the train config's model, with a 192-token context.
     */
    readonly model?: {
        readonly layers?: number;
        readonly heads?: number;
        readonly width?: number;
        readonly contextLength?: number;
        /** A pointer head that copies tokens from the context (names from passages); off by default. */
        readonly copy?: boolean;
        /** Learned position embeddings (the default) or ALiBi. */
        readonly positions?: "learned" | "alibi";
    };
    /**
     * The warm start `train` runs by default when it starts from a fresh model: this many episodes of the
     * `expert` policy, cloned for this many epochs. For environments whose action format a fresh policy never
     * finds by sampling (RL would see no reward at all). Absent: RL starts from the fresh model.
     */
    readonly warmStart?: {
        readonly episodes: number;
        readonly epochs: number;
    };
    /**
     * Constrained decoding: the complete action texts this environment accepts as sensible in the state the
     * history shows (e.g. "a search or an answer, naming an entity seen so far"), or null for no constraint.
     * Used only when a run asks for it (`train --constrained`); the sampler then masks every token that
     * cannot start or continue one of them, and training scores actions under the same masks. Must be pure.
     */
    legalActions?(view: LegalView<Task>): readonly string[] | null;
    /** The variant training evaluates on (held-out tasks); default: this environment, on unseen seeds. */
    readonly evaluation?: EnvDefinition<Task>;
    /**
     * The kind of a task, as a short name (hopqa: "2 hops", "3 hops"): evaluate, `eval` and train's evaluations
     * then report the scores of each kind beside the totals (the summary's `groups`). Must be pure.
     */
    taskGroup?(task: Task): string;
}
/** `--env` and a train config's `env`: a module path (a separator or a module extension), else an id. */
export declare const isModulePath: (spec: string) => boolean;
/** Remembers the `--env` module path an environment was loaded from (loadEnv does), for a train config's `env`. */
export declare const rememberModuleSpec: <E extends object>(env: E, spec: string) => E;
/** The module path `loadEnv` loaded this environment from, if it was loaded from one. */
export declare const moduleSpecOf: (env: object) => string | undefined;
/**
 * Remembers that `variant` is `root` configured, and the options its journals record (sorted by key; undefined
 * when they are the root's own): the CLI's `--env "id?key=value"` does, and so does a configure that defineEnv
 * made remember its variants (remembersVariants); the runtime records them in each
 * episode.started (`env.options`), so that a journal says which variant it was recorded on.
 */
export declare const rememberConfigured: <E extends object>(variant: E, root: EnvDefinition, options: Readonly<Record<string, string>> | undefined) => E;
/** The options a journal of this environment records (undefined for an environment as defined, unconfigured). */
export declare const recordedOptionsOf: (env: object) => Readonly<Record<string, string>> | undefined;
/** The environment this one was configured from (itself when it is no variant its configure made). */
export declare const unconfiguredOf: (env: EnvDefinition) => EnvDefinition;
/** Options in effect as strings (what `configure` takes), or undefined for an environment that says none. */
export declare const inEffect: (env: EnvDefinition) => Record<string, string> | undefined;
/**
 * An option's value as its digits are read: a whole number in decimal digits, or a range a-b of them, without
 * leading zeros ("007" is "7", "0007-0010" is "7-10"); any other value as it is.
 */
export declare const digitsAsRead: (value: string) => string;
/**
 * The options the journals of `variant` (`env` configured with `given`) record: none when its options in
 * effect are the unconfigured environment's and every key given is one of them (`hopqa?split=train`: its
 * journals stay those of hopqa), else the options given (over those `env` itself records, for a variant of a
 * variant; numbers as read, numbersAsRead), or failing that the options in effect that differ from the
 * unconfigured environment's: the first of these that configures the unconfigured environment into the same
 * options in effect.
 */
export declare const optionsToRecord: (env: EnvDefinition, variant: EnvDefinition, given: Readonly<Record<string, string>>) => Record<string, string> | undefined;
/**
 * Makes `env.configure` remember each variant it makes as `--env "id?key=value"` does (rememberConfigured, with
 * the options optionsToRecord picks), so that a variant made in code (`hopqa.configure({ legal: "relations" })`,
 * or a module's `export default myEnv.configure({ ... })`) records its options in its journals too. defineEnv
 * does it; in place (an environment whose configure cannot be set, frozen, is left as it is). Returns `env`.
 */
export declare const remembersVariants: <E extends object>(env: E) => E;
/** Whether `env.configure` remembers the variants it makes (remembersVariants). */
export declare const remembersVariantsOf: (env: object) => boolean;
/**
 * Options as the text after `?` of `--env` (`legal=relations&wording=possessive`): sorted by key, each key and
 * value as written but for the characters that would end or change it there (`%`, `&`, `=`, `+`, `?`, `#`,
 * whitespace and control characters), written as %XX. `new URLSearchParams(text)` reads the options back.
 */
export declare const optionsQuery: (options: Readonly<Record<string, string>>) => string;
/** `id?options` (or the id alone, for none): what `--env` takes for the variant a journal was recorded on. */
export declare const envSpecOf: (id: string, options: Readonly<Record<string, string>> | undefined) => string;
/**
 * An `--env` spec in one spelling: its id (or module path) and its options sorted by key, as `envSpecOf` writes
 * them (`hopqa?wording=possessive&legal=relations` and `hopqa?legal=relations&wording=possessive` give the
 * same). A key given twice keeps both values, in their order.
 */
export declare const canonicalEnvSpec: (spec: string) => string;
/** Whether two `--env` specs name the same environment with the same options, whatever their order. */
export declare const sameEnvSpec: (a: string, b: string) => boolean;
/** Marks an environment built into the CLI (`--env hopqa`): the registry's (its variants count through it). */
export declare const rememberBuiltIn: <E extends object>(env: E) => E;
/** Whether this environment is a built-in one (its source is the package's, not the user's to edit). */
export declare const isBuiltInEnv: (env: object) => boolean;
/**
 * Checks an environment's definition and returns it. Write `defineEnv({ ... task: (seed): Task => ... })` and
 * every type parameter is inferred: the policies and the tools keep their names (`env.policies.expert()`,
 * `env.tools.weather`, with its own arguments' type, under noPropertyAccessFromIndexSignature); an environment
 * given policies has them (no `undefined` to rule out under strict). `defineEnv<Task>({ ... })` also works; its
 * policies and tools are records by name.
 */
export declare function defineEnv<Task extends Json, Policies extends Readonly<Record<string, () => Policy>> = Readonly<Record<string, () => Policy>>, Tools extends Readonly<Record<string, Tool>> = Readonly<Record<string, Tool>>>(definition: EnvDefinition<Task> & {
    readonly policies: Policies;
    readonly tools: Tools;
}): EnvDefinition<Task> & {
    readonly policies: Policies;
    readonly tools: Tools;
};
export declare function defineEnv<Task extends Json, Policies extends Readonly<Record<string, () => Policy>> = Readonly<Record<string, () => Policy>>, Tools extends Readonly<Record<string, Tool>> = Readonly<Record<string, Tool>>>(definition: EnvDefinition<Task> & {
    readonly policies?: Policies;
    readonly tools: Tools;
}): EnvDefinition<Task> & {
    readonly policies?: Policies;
    readonly tools: Tools;
};
/**
 * Where `env` was made by defineEnv in the environment's code (`envs/shop.ts:12:20`), or undefined (a copy, an
 * object written by hand, a built-in's line within the framework): for messages about a part that leaves no stack
 * of its own, such as a legalActions that returns nothing.
 */
export declare const envDefinedAt: (env: object) => string | undefined;
/**
 * defineEnv's checks, for an environment that was not made by it (a copy, `{ ...env, maxTurns: 0 }`, or an object
 * written by hand), run once per object by the functions that take one (runEpisode, rollout, replay, train, the
 * testing kit) and by the CLI's `--env` loader: such a copy went unchecked in `record` and the kit while `train`
 * and `eval` refused it, and a string `maxTurns` turned the turn limit off, a tool under another key ended every
 * episode "waiting for nothing". Throws defineEnv's TypeError.
 */
export declare const checkDefinitionOnce: (env: EnvDefinition) => void;
/** Whether an event descriptor of a machine's `on` hears the agent's action: `agent.act`, or a wildcard over it. */
export declare const hearsAgentAct: (descriptor: string) => boolean;
/**
 * Where an environment error was thrown: its own stack's first user frame, or, for XState's rethrow of a
 * guard's error ("Unable to evaluate guard ... :\n<message>", without the original's stack), the place the
 * wrapped guard noted for that message. `calledFrom`: the framework file that ran the machine synchronously
 * (replay, exploreEnv), whose callers' frames are not looked at (see thrownFrom).
 */
export declare const envThrownFrom: (cause: unknown, calledFrom?: string) => string | undefined;
/**
 * What versions before 2026-12-05 recorded for an environment error whose thrown value was not an Error (`throw 3`,
 * `throw undefined`, a plain object), which now says `threw 3, not an Error`: String(value) (an always guard's too), or for an event's guard XState's
 * "Unable to evaluate guard ...:\n" with the value's `message` (failing on undefined or null). For replay --verify
 * of their journals, whose ends say it so. Undefined where the message is the same in both versions.
 */
export declare const legacyEnvErrorMessage: (cause: unknown) => string | undefined;
/**
 * A guard that throws ends the episode as an environment error, and the user needs the line: XState's own
 * error names the state and event but drops the stack. So each guard of the machine, inline or named, is
 * wrapped to note where it threw; what it returns is unchanged. Changes `machine`, which must be the
 * framework's own copy (from `provide`), never the user's.
 */
export declare const locateGuardThrows: (machine: AnyStateMachine) => void;
/**
 * The most microsteps one event may take (XState's `options.maxIterations`, per macrostep), unless the
 * machine sets its own: an \`always\` transition whose guard keeps holding (to its own state, or round a
 * cycle) otherwise loops synchronously until memory runs out, where XState's default bound is Infinity.
 */
export declare const MAX_MICROSTEPS = 10000;
/**
 * Bounds the microsteps of one event (MAX_MICROSTEPS) on the framework's own copy of the machine (from
 * `provide`), unless the user's config chose a bound: past it XState throws, and the episode ends as an
 * environment error.
 */
export declare const boundMicrosteps: (machine: AnyStateMachine) => void;
/**
 * The environment's machine as the runtime runs it (MAX_MICROSTEPS per event, boundMicrosteps, guards wrapped by
 * locateGuardThrows), for replay's pure transitions: the user's own machine is not changed.
 */
export declare const boundedMachineOf: (machine: AnyStateMachine) => AnyStateMachine;
/**
 * What an event that never settled is taken again from, to see where it loops: the machine, and the snapshot
 * it took the event in with the event, or (entering its initial state) the machine's input.
 */
export interface LoopProbe {
    readonly machine: AnyStateMachine;
    readonly before?: AnyMachineSnapshot;
    readonly event?: EventObject;
    readonly input?: unknown;
}
/**
 * XState's error for an event that set off more microsteps than the bound ("Infinite loop detected", naming
 * no state), said with the event's type, the state the machine took it in, the states it loops through (when a
 * probe is given: loopOf), and the usual cause; the same live and in replay, which re-derives the episode's end.
 * Undefined for any other error. Without a probe it is the wording of versions before this one (2026-12-05), which
 * named no looping state (replay --verify takes their journals' ends as recorded).
 */
export declare const endlessEventMessage: (cause: unknown, eventType: string | undefined, stateBefore: unknown, probe?: LoopProbe) => string | undefined;
/**
 * `env` must be an environment object: a string (an id or path) or a wrong import is named, with the fix.
 * `what` names the argument, e.g. "env" for an option.
 */
export declare const checkEnvArgument: (fn: string, env: unknown, what?: string) => void;
export {};

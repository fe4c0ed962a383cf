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
import {
  type ActionFunction,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type Assigner,
  createActor,
  type DoneActorEvent,
  type EventObject,
  emit,
  fromPromise,
  type MachineContext,
  type ParameterizedObject,
  type PropertyAssigner,
  type ProvidedActor,
  assign as xstateAssign,
} from "xstate";
import { canonicalJson } from "../kernel/canonical.ts";
import {
  allKeys,
  closestName,
  didYouMean,
  firstUnknownKey,
  isThenable,
  messageOf,
  shownValue,
  ThrowSites,
  thrownFrom,
} from "../kernel/errors.ts";
import type { RewardKind, ToolResult } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import type { Policy, Turn } from "./policy.ts";
import { staleCopyProblem, type Tool } from "./tool.ts";

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
export type EnvEmitted = (
  | { readonly type: "env.observe"; readonly text: string }
  | {
      readonly type: "env.reward";
      readonly kind: RewardKind;
      readonly value: number;
      readonly reason: string;
    }
  | { readonly type: "env.end"; readonly reason: string; readonly metrics: Readonly<Record<string, number>> }
) & {
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
export type Dynamic<T, TContext = MachineContext, TEvent = EventObject> =
  | T
  | ((args: EnvActionArgs<TContext, TEvent>) => T);
/**
 * The XState action an action creator returns. Its context and event types are inferred from where it is
 * placed (as XState's own `assign` and `emit` are), so `observe(({ context }) => context.task.a)` inside a
 * machine made with `setup({ types: { context: {} as Context, ... } })` sees `context` as a `Context`.
 */
export type EnvAction<TContext extends MachineContext, TEvent extends EventObject> = ActionFunction<
  TContext,
  TEvent,
  // biome-ignore lint/suspicious/noExplicitAny: the machine's whole event type is not known where the action is made
  any,
  ParameterizedObject["params"] | undefined,
  never,
  never,
  never,
  never,
  never
>;

const resolve = <T, C, E>(value: Dynamic<T, C, E>, args: EnvActionArgs<C, E>): T =>
  typeof value === "function" ? (value as (args: EnvActionArgs<C, E>) => T)(args) : value;

/**
 * Where an action creator was called in the environment's code (`envs/shop.ts:31:9`), found only when an
 * error needs it: the stack is captured when the machine is defined, formatted only if a check fails.
 */
const definedAt = (): (() => string | undefined) => {
  const site = new Error();
  return () => thrownFrom(site);
};

/** An XState `emit` of what `make` builds, typed as an action of the machine it is placed in. */
const emitting = <C extends MachineContext, E extends EventObject>(
  make: (args: EnvActionArgs<C, E>) => EnvEmitted,
): EnvAction<C, E> => emit(make as never) as unknown as EnvAction<C, E>;

/** XState's own: an intersection that keeps `TContext` from being inferred from the assignment. */
type LowInfer<T> = T & NonNullable<unknown>;
/** The signature of `assign` below: XState's, split into two overloads (an object of fields, or a function). */
export interface TypedAssign {
  <
    TContext extends MachineContext,
    TExpressionEvent extends AnyEventObject,
    TParams extends ParameterizedObject["params"] | undefined,
    TEvent extends EventObject,
    TActor extends ProvidedActor,
  >(
    assignment: PropertyAssigner<LowInfer<TContext>, TExpressionEvent, TParams, TEvent, TActor>,
  ): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, TActor, never, never, never, never>;
  <
    TContext extends MachineContext,
    TExpressionEvent extends AnyEventObject,
    TParams extends ParameterizedObject["params"] | undefined,
    TEvent extends EventObject,
    TActor extends ProvidedActor,
  >(
    assignment: Assigner<LowInfer<TContext>, TExpressionEvent, TParams, TEvent, TActor>,
  ): ActionFunction<TContext, TExpressionEvent, TEvent, TParams, TActor, never, never, never, never>;
}
/**
 * XState's `assign` (the same function), with its one parameter split into two overloads. XState types it as
 * `Assigner | PropertyAssigner`, a function or an object of fields; a context field named `call` is then also
 * a member of the function type (`Function.prototype.call`), so TypeScript finds two contextual signatures for
 * `assign({ call: ({ event }) => ... })` and types `event` as an implicit any (TS7031 under `strict`). With
 * the object form and the function form apart, each field gets the machine's context and event types.
 */
export const assign: TypedAssign = xstateAssign as TypedAssign;

/** Shows the agent its next observation; the agent acts after it. */
export const observe = <TContext extends MachineContext, TEvent extends EventObject>(
  text: Dynamic<string, TContext, TEvent>,
): EnvAction<TContext, TEvent> => {
  // Refused where it is written, as reward()'s value is: observe() with its text forgotten, or a number.
  if (typeof text !== "function" && typeof text !== "string")
    throw new TypeError(
      `observe(text): text must be a string or a function of { context, event } giving one, got ${shownValue(text)}`,
    );
  const at = definedAt();
  return emitting<TContext, TEvent>((args) => ({ type: "env.observe", text: resolve(text, args), at }));
};

/** Assigns a reward on the current turn. */
export const reward = <TContext extends MachineContext, TEvent extends EventObject>(
  kind: RewardKind,
  value: Dynamic<number, TContext, TEvent>,
  reason: Dynamic<string, TContext, TEvent>,
): EnvAction<TContext, TEvent> => {
  // Refused where the machine is defined, when the module loads (tsx runs it untypechecked), rather than in every
  // episode that takes the transition, as an environment error: a kind misspelt, a value or reason of another type.
  if (kind !== "process" && kind !== "outcome")
    throw new TypeError(`reward(kind, value, reason): kind must be "process" or "outcome", got ${shownValue(kind)}`);
  if (typeof value !== "function" && !(typeof value === "number" && Number.isFinite(value)))
    throw new TypeError(
      `reward("${kind}", value, reason): value must be a finite number or a function of { context, event } giving one, got ${shownValue(value)}`,
    );
  if (typeof reason !== "function" && typeof reason !== "string")
    throw new TypeError(
      `reward("${kind}", value, reason): reason must be a string or a function of { context, event } giving one, got ${shownValue(reason)}`,
    );
  const at = definedAt();
  return emitting<TContext, TEvent>((args) => ({
    type: "env.reward",
    kind,
    value: resolve(value, args),
    reason: resolve(reason, args),
    at,
  }));
};

/**
 * Why an environment's own end() reason is refused, or undefined: "aborted: " begins the reasons of episodes the
 * runtime cut short (a policy that failed, the turn limit, a stop), which record counts as aborted and train and
 * sft leave out; a lone surrogate cannot be journaled (the episode's end failed, and with it runEpisode).
 */
export const refusedEndReason = (reason: string): string | undefined =>
  reason.startsWith("aborted:")
    ? `the reason ${shownValue(reason)} starts with "aborted:", which marks an episode the runtime cut short (a policy that failed, the turn limit, a stop): record would count it as aborted, and train and sft would leave it out; give the environment's own ending another reason (e.g. "refused", with its metrics)`
    : !reason.isWellFormed()
      ? `the reason ${shownValue(reason)} ${LONE_SURROGATE}`
      : undefined;

/**
 * What is said of an environment's own text (an observation, a reward's or end()'s reason) that holds a lone UTF-16
 * surrogate: no journal line can hold it.
 */
export const LONE_SURROGATE =
  'holds a lone surrogate, which is not Unicode and no journal can hold; give well-formed text (e.g. text.toWellFormed(), or slice by characters: [...text].slice(0, n).join(""))';

/** Ends the episode, with the environment's own metrics (exact match, F1, ...). */
export const end = <TContext extends MachineContext, TEvent extends EventObject>(
  reason: Dynamic<string, TContext, TEvent>,
  metrics: Dynamic<Record<string, number>, TContext, TEvent> = {},
): EnvAction<TContext, TEvent> => {
  // Refused where it is written, as reward() refuses its own: a reason of another type, or one that says
  // "aborted: ", which marks an episode the runtime cut short (record, train and sft would count it so).
  if (typeof reason !== "function" && typeof reason !== "string")
    throw new TypeError(
      `end(reason, metrics): reason must be a string or a function of { context, event } giving one, got ${shownValue(reason)}`,
    );
  if (typeof reason === "string") {
    const refused = refusedEndReason(reason);
    if (refused) throw new TypeError(`end(reason, metrics): ${refused}`);
  }
  // Metrics written as values are refused here too (`{ success: NaN }`, `{ success: "yes" }`), not in every episode
  // that reaches this end; those a function gives are judged in the episode, as a reward's are.
  if (typeof metrics !== "function") {
    if (typeof metrics !== "object" || metrics === null || Array.isArray(metrics))
      throw new TypeError(
        `end(reason, metrics): metrics must be an object of finite numbers (e.g. { success: 1 }) or a function of { context, event } giving one, got ${shownValue(metrics)}`,
      );
    for (const [name, value] of Object.entries(metrics))
      if (typeof value !== "number" || !Number.isFinite(value))
        throw new TypeError(
          `end(reason, metrics): metric ${name} is ${shownValue(value)}; metrics must be finite numbers (or a function of { context, event } giving them)`,
        );
  }
  const at = definedAt();
  return emitting<TContext, TEvent>((args) => ({
    type: "env.end",
    reason: resolve(reason, args),
    metrics: resolve(metrics, args),
    at,
  }));
};

/**
 * The machine's actor implementations for its tools, by name. They call the tools directly, so the
 * machine also runs standalone (in a unit test); the runtime replaces them with recording versions and
 * replay with the recorded results.
 */
export const toolActors = <const T extends Record<string, Tool>>(tools: T) =>
  Object.fromEntries(
    Object.entries(tools).map(([name, tool]) => [
      name,
      fromPromise<ToolResult, unknown>(({ input, signal }) => tool.call(input, signal)),
    ]),
  ) as { [K in keyof T]: ReturnType<typeof fromPromise<ToolResult, ToolInput>> };

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
  readonly warmStart?: { readonly episodes: number; readonly epochs: number };
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

/**
 * An environment's id: journals record it, replay finds the environment by it, and the CLI takes it as
 * `--env ID` (or `--env "ID?key=value"`), where anything with a slash or a module extension is a path. So
 * no spaces, slashes or `?`, and a letter first (never read as a flag or a relative path).
 */
const ID = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
/** A version is compared as text on replay and printed after a `v`: a short word, no spaces. */
const VERSION = /^[A-Za-z0-9._+-]{1,64}$/;

/** `--env` and a train config's `env`: a module path (a separator or a module extension), else an id. */
export const isModulePath = (spec: string): boolean => /[/\\]/.test(spec) || /\.(ts|js|mts|mjs)$/.test(spec);

const moduleSpecs = new WeakMap<object, string>();

/** Remembers the `--env` module path an environment was loaded from (loadEnv does), for a train config's `env`. */
export const rememberModuleSpec = <E extends object>(env: E, spec: string): E => {
  moduleSpecs.set(env, spec);
  return env;
};

/** The module path `loadEnv` loaded this environment from, if it was loaded from one. */
export const moduleSpecOf = (env: object): string | undefined => moduleSpecs.get(env);

/** What a configured variant was configured from: the unconfigured environment, and the options a journal records. */
const configuredFrom = new WeakMap<
  object,
  { readonly root: EnvDefinition; readonly options: Readonly<Record<string, string>> | undefined }
>();

/**
 * Remembers that `variant` is `root` configured, and the options its journals record (sorted by key; undefined
 * when they are the root's own): the CLI's `--env "id?key=value"` does, and so does a configure that defineEnv
 * made remember its variants (remembersVariants); the runtime records them in each
 * episode.started (`env.options`), so that a journal says which variant it was recorded on.
 */
export const rememberConfigured = <E extends object>(
  variant: E,
  root: EnvDefinition,
  options: Readonly<Record<string, string>> | undefined,
): E => {
  const sorted =
    options === undefined || Object.keys(options).length === 0
      ? undefined
      : Object.fromEntries(Object.entries(options).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  configuredFrom.set(variant, { root, options: sorted });
  return variant;
};

/** The options a journal of this environment records (undefined for an environment as defined, unconfigured). */
export const recordedOptionsOf = (env: object): Readonly<Record<string, string>> | undefined =>
  configuredFrom.get(env)?.options;

/** The environment this one was configured from (itself when it is no variant its configure made). */
export const unconfiguredOf = (env: EnvDefinition): EnvDefinition => configuredFrom.get(env)?.root ?? env;

/** Options in effect as strings (what `configure` takes), or undefined for an environment that says none. */
export const inEffect = (env: EnvDefinition): Record<string, string> | undefined =>
  env.options === undefined
    ? undefined
    : Object.fromEntries(Object.entries(env.options).map(([key, value]) => [key, String(value)]));

/** Whether `root` configured with `options` says the options in effect `variant` says (unknowable: true). */
const rebuildsAs = (root: EnvDefinition, options: Record<string, string>, variant: EnvDefinition): boolean => {
  const wanted = inEffect(variant);
  if (wanted === undefined) return true;
  try {
    const rebuilt = root.configure?.(options);
    return rebuilt !== undefined && canonicalJson(inEffect(rebuilt)) === canonicalJson(wanted);
  } catch {
    return false;
  }
};

/**
 * An option's value as its digits are read: a whole number in decimal digits, or a range a-b of them, without
 * leading zeros ("007" is "7", "0007-0010" is "7-10"); any other value as it is.
 */
export const digitsAsRead = (value: string): string =>
  /^\d+(-\d+)?$/.test(value) ? value.replace(/\d+/g, (digits) => digits.replace(/^0+(?=\d)/, "")) : value;

/**
 * The options given, each number written as read (digitsAsRead), when that is the same variant: `world-seed=007` is
 * recorded as `world-seed=7`, as one world should be recorded once; undefined when no number had leading zeros, or
 * when the environment reads them otherwise (a code "007"), or says no options in effect to compare.
 */
const numbersAsRead = (
  root: EnvDefinition,
  options: Record<string, string>,
  variant: EnvDefinition,
): Record<string, string> | undefined => {
  const read = Object.fromEntries(Object.entries(options).map(([key, value]) => [key, digitsAsRead(value)]));
  return Object.entries(read).some(([key, value]) => value !== options[key]) &&
    inEffect(variant) !== undefined &&
    rebuildsAs(root, read, variant)
    ? read
    : undefined;
};

/**
 * The options the journals of `variant` (`env` configured with `given`) record: none when its options in
 * effect are the unconfigured environment's and every key given is one of them (`hopqa?split=train`: its
 * journals stay those of hopqa), else the options given (over those `env` itself records, for a variant of a
 * variant; numbers as read, numbersAsRead), or failing that the options in effect that differ from the
 * unconfigured environment's: the first of these that configures the unconfigured environment into the same
 * options in effect.
 */
export const optionsToRecord = (
  env: EnvDefinition,
  variant: EnvDefinition,
  given: Readonly<Record<string, string>>,
): Record<string, string> | undefined => {
  const root = unconfiguredOf(env);
  const now = inEffect(variant);
  const before = inEffect(root);
  if (
    now !== undefined &&
    before !== undefined &&
    canonicalJson(now) === canonicalJson(before) &&
    Object.keys(given).every((key) => Object.hasOwn(now, key))
  )
    return recordedOptionsOf(env);
  const merged = { ...recordedOptionsOf(env), ...given };
  if (env === root || rebuildsAs(root, merged, variant)) return numbersAsRead(root, merged, variant) ?? merged;
  if (now !== undefined && before !== undefined) {
    const differing = Object.fromEntries(Object.entries(now).filter(([key, value]) => before[key] !== value));
    if (rebuildsAs(root, differing, variant)) return differing;
  }
  return merged;
};

/** The configure each wrapper of remembersVariants calls, and the environment whose variants it remembers. */
const rememberingConfigures = new WeakMap<
  object,
  { readonly env: object; readonly raw: (options: never) => unknown }
>();

/**
 * Makes `env.configure` remember each variant it makes as `--env "id?key=value"` does (rememberConfigured, with
 * the options optionsToRecord picks), so that a variant made in code (`hopqa.configure({ legal: "relations" })`,
 * or a module's `export default myEnv.configure({ ... })`) records its options in its journals too. defineEnv
 * does it; in place (an environment whose configure cannot be set, frozen, is left as it is). Returns `env`.
 */
export const remembersVariants = <E extends object>(env: E): E => {
  const configure: unknown = (env as { configure?: unknown }).configure;
  if (typeof configure !== "function") return env;
  const known = rememberingConfigures.get(configure);
  if (known?.env === env) return env;
  // A copy of an environment (`{ ...env }`) has its configure: wrap the one it was defined with, not the wrapper.
  const raw = (known?.raw ?? configure) as (options: Readonly<Record<string, string>>) => unknown;
  const remembering = function (this: unknown, options: Readonly<Record<string, string>>) {
    const variant = raw.call(this, options);
    if (variant === env || typeof variant !== "object" || variant === null) return variant;
    const given = Object.fromEntries(
      Object.entries((options ?? {}) as Record<string, unknown>).map(([key, value]) => [key, String(value)]),
    );
    const self = env as unknown as EnvDefinition;
    return rememberConfigured(variant, unconfiguredOf(self), optionsToRecord(self, variant as EnvDefinition, given));
  };
  rememberingConfigures.set(remembering, { env, raw });
  Reflect.set(env, "configure", remembering);
  return env;
};

/** Whether `env.configure` remembers the variants it makes (remembersVariants). */
export const remembersVariantsOf = (env: object): boolean => {
  const configure: unknown = (env as { configure?: unknown }).configure;
  return typeof configure === "function" && rememberingConfigures.get(configure)?.env === env;
};

/**
 * Options as the text after `?` of `--env` (`legal=relations&wording=possessive`): sorted by key, each key and
 * value as written but for the characters that would end or change it there (`%`, `&`, `=`, `+`, `?`, `#`,
 * whitespace and control characters), written as %XX. `new URLSearchParams(text)` reads the options back.
 */
export const optionsQuery = (options: Readonly<Record<string, string>>): string =>
  Object.keys(options)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => `${escapeOption(key)}=${escapeOption(options[key])}`)
    .join("&");

const escapeOption = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  text.replace(/[%&=+?#\s\u0000-\u001f\u007f]/gu, (c) => encodeURIComponent(c));

/** `id?options` (or the id alone, for none): what `--env` takes for the variant a journal was recorded on. */
export const envSpecOf = (id: string, options: Readonly<Record<string, string>> | undefined): string =>
  options === undefined || Object.keys(options).length === 0 ? id : `${id}?${optionsQuery(options)}`;

/**
 * An `--env` spec in one spelling: its id (or module path) and its options sorted by key, as `envSpecOf` writes
 * them (`hopqa?wording=possessive&legal=relations` and `hopqa?legal=relations&wording=possessive` give the
 * same). A key given twice keeps both values, in their order.
 */
export const canonicalEnvSpec = (spec: string): string => {
  const at = spec.indexOf("?");
  if (at < 0) return spec;
  const entries = [...new URLSearchParams(spec.slice(at + 1))].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = entries.map(([key, value]) => `${escapeOption(key)}=${escapeOption(value)}`).join("&");
  return query ? `${spec.slice(0, at)}?${query}` : spec.slice(0, at);
};

/** Whether two `--env` specs name the same environment with the same options, whatever their order. */
export const sameEnvSpec = (a: string, b: string): boolean => canonicalEnvSpec(a) === canonicalEnvSpec(b);

const builtIns = new WeakSet<object>();
/** Marks an environment built into the CLI (`--env hopqa`): the registry's (its variants count through it). */
export const rememberBuiltIn = <E extends object>(env: E): E => {
  builtIns.add(env);
  return env;
};

/** Whether this environment is a built-in one (its source is the package's, not the user's to edit). */
export const isBuiltInEnv = (env: object): boolean =>
  // A variant configured in code (hopqa.configure({ ... }) in a module) is the built-in's as much as --env's is.
  builtIns.has(env) || builtIns.has(configuredFrom.get(env)?.root ?? env);

/** What defineEnv checks first: each required field, and what it must be. */
const REQUIRED_FIELDS: readonly [keyof EnvDefinition, string, (value: unknown) => boolean][] = [
  [
    "id",
    "an id: 1 to 64 letters, digits, '.', '_' or '-', starting with a letter (e.g. \"my-env\")",
    (v) => typeof v === "string" && ID.test(v),
  ],
  [
    "version",
    "a version: 1 to 64 letters, digits, '.', '_', '-' or '+' (e.g. \"1\" or \"2.0.1\")",
    (v) => typeof v === "string" && VERSION.test(v),
  ],
  ["description", "a string", (v) => typeof v === "string"],
  [
    "machine",
    "an XState machine (setup({ actors: toolActors(tools), ... }).createMachine({ ... }))",
    (v) => typeof v === "object" && v !== null && typeof (v as { transition?: unknown }).transition === "function",
  ],
  ["tools", "an object of tools by name (defineTool(...))", (v) => typeof v === "object" && v !== null],
  [
    "tokenizer",
    "a tokenizer (e.g. WordTokenizer.fromCorpus([...]))",
    (v) => typeof v === "object" && v !== null && typeof (v as { encode?: unknown }).encode === "function",
  ],
  ["task", "a function from a seed to a task", (v) => typeof v === "function"],
];

/** Every field defineEnv knows; any other is a typo (`polices`) that would be ignored silently. */
const KNOWN_FIELDS: readonly string[] = allKeys<EnvDefinition>()([
  "id",
  "version",
  "description",
  "machine",
  "tools",
  "tokenizer",
  "task",
  "policies",
  "maxTurns",
  "maxActionTokens",
  "configure",
  "options",
  "optionKeys",
  "model",
  "warmStart",
  "legalActions",
  "evaluation",
  "taskGroup",
]);

/** `maxActionTokens`, when given, is a positive integer (checked by defineEnv, and checkDefinitionOnce). */
const checkMaxActionTokens = (env: Pick<EnvDefinition, "id" | "maxActionTokens">): void => {
  const n = env.maxActionTokens;
  if (n !== undefined && !(Number.isInteger(n) && n >= 1))
    throw new TypeError(`environment ${env.id}: \`maxActionTokens\` must be an integer >= 1, got ${JSON.stringify(n)}`);
};

/**
 * `maxTurns`, when given, is a positive integer: 0 or a negative limit aborted every episode before its first
 * action ("turn limit 0 reached"), and NaN or a string turned the runtime's safety net off without a word.
 */
const checkMaxTurns = (env: Pick<EnvDefinition, "id" | "maxTurns">): void => {
  const n = env.maxTurns;
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1))
    throw new TypeError(`environment ${env.id}: \`maxTurns\` must be an integer >= 1, got ${shownValue(n)}`);
};

/**
 * Checks an environment's definition and returns it. Write `defineEnv({ ... task: (seed): Task => ... })` and
 * every type parameter is inferred: the policies and the tools keep their names (`env.policies.expert()`,
 * `env.tools.weather`, with its own arguments' type, under noPropertyAccessFromIndexSignature); an environment
 * given policies has them (no `undefined` to rule out under strict). `defineEnv<Task>({ ... })` also works; its
 * policies and tools are records by name.
 */
export function defineEnv<
  Task extends Json,
  Policies extends Readonly<Record<string, () => Policy>> = Readonly<Record<string, () => Policy>>,
  Tools extends Readonly<Record<string, Tool>> = Readonly<Record<string, Tool>>,
>(
  definition: EnvDefinition<Task> & { readonly policies: Policies; readonly tools: Tools },
): EnvDefinition<Task> & { readonly policies: Policies; readonly tools: Tools };
export function defineEnv<
  Task extends Json,
  Policies extends Readonly<Record<string, () => Policy>> = Readonly<Record<string, () => Policy>>,
  Tools extends Readonly<Record<string, Tool>> = Readonly<Record<string, Tool>>,
>(
  definition: EnvDefinition<Task> & { readonly policies?: Policies; readonly tools: Tools },
): EnvDefinition<Task> & { readonly policies?: Policies; readonly tools: Tools };
export function defineEnv<
  Task extends Json,
  Policies extends Readonly<Record<string, () => Policy>> = Readonly<Record<string, () => Policy>>,
  Tools extends Readonly<Record<string, Tool>> = Readonly<Record<string, Tool>>,
>(
  definition: EnvDefinition<Task> & { readonly policies?: Policies; readonly tools: Tools },
): EnvDefinition<Task> & { readonly policies?: Policies; readonly tools: Tools } {
  checkDefinition(definition as unknown as EnvDefinition);
  const env = remembersVariants(definition);
  checkedDefinitions.add(env);
  definitionSites.set(env, definedAt());
  return env;
}

/** Where each defineEnv result was defined, found only when a message needs it (definedAt). */
const definitionSites = new WeakMap<object, () => string | undefined>();

/**
 * Where `env` was made by defineEnv in the environment's code (`envs/shop.ts:12:20`), or undefined (a copy, an
 * object written by hand, a built-in's line within the framework): for messages about a part that leaves no stack
 * of its own, such as a legalActions that returns nothing.
 */
export const envDefinedAt = (env: object): string | undefined => definitionSites.get(env)?.();

/** Environments whose definition passed defineEnv's checks: defineEnv's results, and others once checked in use. */
const checkedDefinitions = new WeakSet<object>();

/**
 * defineEnv's checks, for an environment that was not made by it (a copy, `{ ...env, maxTurns: 0 }`, or an object
 * written by hand), run once per object by the functions that take one (runEpisode, rollout, replay, train, the
 * testing kit) and by the CLI's `--env` loader: such a copy went unchecked in `record` and the kit while `train`
 * and `eval` refused it, and a string `maxTurns` turned the turn limit off, a tool under another key ended every
 * episode "waiting for nothing". Throws defineEnv's TypeError.
 */
export const checkDefinitionOnce = (env: EnvDefinition): void => {
  if (checkedDefinitions.has(env)) return;
  checkDefinition(env);
  checkedDefinitions.add(env);
};

const checkDefinition = (definition: EnvDefinition): void => {
  if (typeof definition !== "object" || definition === null)
    throw new TypeError("defineEnv takes one object: { id, version, description, machine, tools, tokenizer, task }");
  const name =
    typeof definition.id === "string" && ID.test(definition.id) ? `environment ${definition.id}` : "defineEnv";
  // A misspelt field (`polices`, or a required `tasks` for `task`) would be ignored, or called missing.
  const unknown = firstUnknownKey(definition, KNOWN_FIELDS);
  if (unknown)
    throw new TypeError(
      `${name}: unknown field \`${unknown.key}\`${didYouMean(unknown.meant)}; defineEnv knows ${KNOWN_FIELDS.join(", ")}`,
    );
  for (const [field, what, ok] of REQUIRED_FIELDS) {
    const value = (definition as unknown as Record<string, unknown>)[field];
    if (ok(value)) continue;
    // A wrong string is quoted: "Bad Id!" or "" is easier to find in the code than a description of it; another
    // value is named (the number 42), as the optional fields' messages name theirs.
    const given =
      typeof value === "string"
        ? ` ${JSON.stringify(value)}`
        : field in definition && value !== undefined
          ? ` (${shownValue(value)})`
          : "";
    throw new TypeError(
      `${name}: \`${field}\`${given} ${field in definition ? "is not" : "is missing; it must be"} ${what}`,
    );
  }
  checkMaxActionTokens(definition);
  checkMaxTurns(definition);
  // A model calls a tool by its name (formatCall writes <name>, the prompt lists names) and the parser
  // looks the tag up by key: a key other than the name would make every call of it malformed.
  for (const [key, tool] of Object.entries(definition.tools)) {
    const toolName = (tool as Partial<Tool> | null)?.name;
    if (typeof toolName !== "string")
      throw new TypeError(`${name}: tools.${key} is not a tool; make it with defineTool({ name, ... })`);
    const stale = staleCopyProblem(tool);
    if (stale !== undefined) throw new TypeError(`${name}: tools.${key}: ${stale}`);
    if (toolName !== key)
      throw new TypeError(
        `${name}: tools.${key} is the tool named "${toolName}"; the key must be its name, as a model calls it ` +
          `<${toolName}>...</${toolName}>: write { ${/^[A-Za-z_$][\w$]*$/.test(toolName) ? toolName : JSON.stringify(toolName)}: ... } ` +
          "(and the same key in the machine's invoke src)",
      );
  }
  const actors = (definition.machine.implementations?.actors ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(definition.tools))
    if (!(name in actors))
      throw new TypeError(
        `environment ${definition.id}: tool ${name} is not among the machine's actors; add \`actors: toolActors(tools)\` to its setup()`,
      );
  checkInvokedActors(definition.id, definition.machine, actors, definition.tools);
  checkEventNames(definition.id, definition.machine);
  checkNamedImplementations(definition.id, definition.machine);
  checkInitialStates(definition.id, definition.machine);
  checkEventlessCycles(definition.id, definition.machine);
  checkPolicies(definition.id, definition.policies);
  checkWarmStart(definition.id, definition.warmStart);
  checkOptionalFields(definition.id, definition as unknown as EnvDefinition<never>);
  // Last: a machine that fails another check (a test's fixture, a half-written one) is told of that first.
  checkActionsHeard(definition.id, definition.machine);
};

/** The parts of XState's state nodes that hold invocations as written (not in its public types). */
interface InvokingNode {
  readonly config?: { readonly invoke?: unknown; readonly after?: unknown };
  readonly states?: Record<string, InvokingNode>;
}

/**
 * An `invoke` whose `src` names no actor (a misspelt tool, `"ecko"`) starts nothing: XState leaves the
 * machine waiting, and the episode ended as "waiting for nothing" without naming the cause. So did an `after`.
 */
const checkInvokedActors = (
  id: string,
  machine: AnyStateMachine,
  actors: Record<string, unknown>,
  tools: Record<string, unknown>,
): void => {
  const visit = (node: InvokingNode | undefined, path: string): void => {
    if (!node) return;
    const invokes = node.config?.invoke;
    for (const invoke of Array.isArray(invokes) ? invokes : invokes === undefined ? [] : [invokes]) {
      const src = (invoke as { src?: unknown } | null)?.src;
      // XState's usual place for a failure is `onError`, but a tool's call never fails as an actor: its throw,
      // timeout or invalid arguments arrive on `onDone` as { ok: false, error }, so an `onError` never ran and the
      // episode ended as "waiting for nothing" (or the failure was read as a success) without naming the cause.
      if (
        typeof src === "string" &&
        Object.hasOwn(tools, src) &&
        (invoke as { onError?: unknown }).onError !== undefined
      )
        throw new TypeError(
          `environment ${id}: state "${path}" invokes the tool ${src} with an onError, which never runs: a tool's ` +
            "failure (a throw, a timeout, invalid arguments) arrives on onDone as { ok: false, error }, like its " +
            "results; handle it there (a guard on event.output.ok) and remove the onError",
        );
      if (typeof src === "string" && !Object.hasOwn(actors, src)) {
        const known = Object.keys(actors);
        throw new TypeError(
          `environment ${id}: state "${path}" invokes src "${src}", which is not among the machine's actors${didYouMean(closestName(src, known))}; ` +
            (known.length
              ? `it has ${known.join(", ")}`
              : "it has none: add `actors: toolActors(tools)` to its setup()"),
        );
      }
    }
    // A delayed transition waits on a clock the episode does not have: the live runtime waits for an action
    // or a tool's result and ended the episode as "waiting for nothing", and replay folds without timers.
    const after = node.config?.after;
    if (after !== undefined && after !== null && (typeof after !== "object" || Object.keys(after).length > 0))
      throw new TypeError(
        `environment ${id}: ${path ? `state "${path}"` : "the machine's root"} has \`after\` (a delayed transition, ` +
          `${typeof after === "object" ? Object.keys(after).join(", ") : String(after)}): an episode moves only on the agent's actions and ` +
          "the tools' results (its time is its turns: replay folds them without timers), so the delay would never " +
          "fire; count turns in the context, or make the wait a tool call (a tool that sleeps, with its own timeoutMs)",
      );
    for (const [key, child] of Object.entries(node.states ?? {})) visit(child, path ? `${path}.${key}` : key);
  };
  visit(machine.root as unknown as InvokingNode, "");
};

/** Whether an event descriptor of a machine's `on` hears the agent's action: `agent.act`, or a wildcard over it. */
export const hearsAgentAct = (descriptor: string): boolean =>
  descriptor === "agent.act" || descriptor === "*" || descriptor === "agent.*";

/** The parts of XState's state nodes that hold their transitions as written (not in its public types). */
interface HandlingNode {
  readonly config?: { readonly on?: unknown };
  readonly states?: Record<string, HandlingNode>;
}

/** Each event a machine's states have a transition on, with the state's path ("" for the root). */
const handledEvents = (machine: AnyStateMachine): { readonly type: string; readonly path: string }[] => {
  const found: { type: string; path: string }[] = [];
  const visit = (node: HandlingNode | undefined, path: string): void => {
    if (!node) return;
    const on = node.config?.on;
    for (const type of typeof on === "object" && on !== null ? Object.keys(on) : []) found.push({ type, path });
    for (const [key, child] of Object.entries(node.states ?? {})) visit(child, path ? `${path}.${key}` : key);
  };
  visit(machine.root as unknown as HandlingNode, "");
  return found;
};

/**
 * The agent's action is the one event the runtime sends a machine, `agent.act` (a tool's result comes through its
 * invoke's onDone). A misspelt one (`agent.akt`, `agent_act`, `Agent.Act`) was heard by nothing: the episode ended
 * "waiting for nothing", with advice about fallbacks that did not apply. Refused here, naming the state. Events a
 * machine raises or sends itself are its own, and left alone unless they are in the agent's namespace or a letter
 * or two from agent.act.
 */
const checkEventNames = (id: string, machine: AnyStateMachine): void => {
  for (const { type, path } of handledEvents(machine))
    if (
      !hearsAgentAct(type) &&
      !type.startsWith("xstate.") &&
      (type.startsWith("agent.") || closestName(type, ["agent.act"]))
    )
      throw new TypeError(
        `environment ${id}: ${path ? `state "${path}"` : "the machine's root"} has a transition on "${type}", ` +
          "an event the runtime never sends (did you mean `agent.act`?): the agent's actions arrive as agent.act, " +
          "and a tool's result on its invoke's onDone",
      );
};

/** A machine with no transition on agent.act anywhere could never hear the agent. */
const checkActionsHeard = (id: string, machine: AnyStateMachine): void => {
  if (!handledEvents(machine).some(({ type }) => hearsAgentAct(type)))
    throw new TypeError(
      `environment ${id}: no state of its machine has a transition on agent.act, the event the agent's actions ` +
        'arrive as, so no action would be heard: give the state that waits for the agent on: { "agent.act": [...] }',
    );
};

/** The parts of XState's state nodes that say where a compound state starts (not in its public types). */
interface InitialNode {
  readonly type?: string;
  readonly path?: readonly string[];
  readonly config?: { readonly initial?: unknown };
  readonly initial?: unknown;
  readonly states?: Record<string, InitialNode>;
}

/**
 * A compound state whose `initial` names no child (`initial: "wating"`) is taken by createMachine: XState
 * resolves it only when an episode enters the state, and then every episode aborted with "Initial state node
 * "wating" not found", naming no line. Refused here, naming the state and the child meant.
 */
const checkInitialStates = (id: string, machine: AnyStateMachine): void => {
  const visit = (node: InitialNode | undefined): void => {
    if (!node) return;
    if (node.type === "compound") {
      try {
        void node.initial; // XState's getter resolves the target, throwing when there is none
      } catch {
        const children = Object.keys(node.states ?? {});
        const initial = node.config?.initial;
        const target =
          typeof initial === "object" && initial !== null ? (initial as { target?: unknown }).target : initial;
        const named = typeof target === "string" ? target : String(target);
        throw new TypeError(
          `environment ${id}: ${node.path?.length ? `state "${node.path.join(".")}"` : "the machine"} has initial ` +
            `${JSON.stringify(named)}, which is none of its states${didYouMean(closestName(named, children))}; its states: ${children.join(", ")}`,
        );
      }
    }
    for (const child of Object.values(node.states ?? {})) visit(child);
  };
  visit(machine.root as unknown as InitialNode);
};

/** The parts of XState's state nodes that name actions and guards, as resolved (not in its public types). */
interface NamingNode {
  readonly path?: readonly string[];
  readonly entry?: readonly unknown[];
  readonly exit?: readonly unknown[];
  readonly transitions?: ReadonlyMap<
    string,
    readonly { readonly guard?: unknown; readonly actions?: readonly unknown[] }[]
  >;
  readonly always?: readonly { readonly guard?: unknown; readonly actions?: readonly unknown[] }[];
  readonly states?: Record<string, NamingNode>;
}

/** The name an action or guard refers to by string (`"cost"`, `{ type: "cost" }`), or undefined for an inline one. */
const referenceOf = (item: unknown): string | undefined => {
  if (typeof item === "string") return item;
  if (item !== null && typeof item === "object" && !Array.isArray(item)) {
    const type = (item as { type?: unknown }).type;
    if (typeof type === "string" && !type.startsWith("xstate.")) return type;
  }
  return undefined;
};

/**
 * An action named by string that setup() does not define (a misspelt `"cots"` for `"cost"`) is skipped by
 * XState without a word: the reward or assign it stood for never happens, and every episode records and
 * replays without it. A guard named so throws only when an episode first reaches it. Both are refused here.
 */
const checkNamedImplementations = (id: string, machine: AnyStateMachine): void => {
  const implementations = (machine.implementations ?? {}) as { actions?: object; guards?: object };
  const defined = {
    action: Object.keys(implementations.actions ?? {}),
    guard: Object.keys(implementations.guards ?? {}),
  };
  const refuse = (kind: "action" | "guard", name: string, where: string): never => {
    const known = defined[kind];
    throw new TypeError(
      `environment ${id}: ${where} names the ${kind} "${name}", which setup() does not define${didYouMean(closestName(name, known))}` +
        `; ${known.length ? `its ${kind}s: ${known.join(", ")}` : `it defines no ${kind}s`} (XState ${
          kind === "action" ? "skips an unknown action without a word" : "throws on an unknown guard when it is reached"
        }): define it in setup({ ${kind}s: { ${name}: ... } }) or fix the name`,
    );
  };
  const check = (kind: "action" | "guard", items: unknown, where: string): void => {
    for (const item of Array.isArray(items) ? items : items === undefined ? [] : [items]) {
      const name = referenceOf(item);
      if (name !== undefined && !defined[kind].includes(name)) refuse(kind, name, where);
      // and([...]), or([...]) and not(...) hold the guards they combine in `guards` (XState evaluates those
      // by name too, throwing on an unknown one when an episode reaches it).
      const combined = kind === "guard" && item !== null ? (item as { guards?: unknown }).guards : undefined;
      if (Array.isArray(combined)) check(kind, combined, where);
    }
  };
  const visit = (node: NamingNode | undefined): void => {
    if (!node) return;
    const state = node.path?.length ? `state "${node.path.join(".")}"` : "the machine's root";
    check("action", node.entry, `${state}'s entry`);
    check("action", node.exit, `${state}'s exit`);
    for (const [event, transitions] of node.transitions ?? new Map()) {
      const on = event.startsWith("xstate.done.actor.")
        ? `${state}'s invoke onDone`
        : event.startsWith("xstate.error.actor.")
          ? `${state}'s invoke onError`
          : `${state}'s transition on "${event}"`;
      for (const t of transitions) {
        check("guard", t.guard, on);
        check("action", t.actions, on);
      }
    }
    for (const t of node.always ?? []) {
      check("guard", t.guard, `${state}'s always transition`);
      check("action", t.actions, `${state}'s always transition`);
    }
    for (const child of Object.values(node.states ?? {})) visit(child);
  };
  visit(machine.root as unknown as NamingNode);
};

/** The parts of XState's state nodes that hold eventless transitions as resolved (not in its public types). */
interface EventlessNode {
  readonly type?: string;
  readonly path?: readonly string[];
  readonly always?: readonly { readonly guard?: unknown; readonly target?: readonly EventlessNode[] }[];
  readonly states?: Record<string, EventlessNode>;
}

/**
 * Atomic states that hand over to each other by unguarded `always` transitions loop forever once entered:
 * XState takes eventless transitions until none is enabled, so the episode never reached its next observation
 * and the process ran out of memory (a V8 crash after minutes, naming nothing). Only a state whose first
 * `always` has no guard and one atomic target is followed: that transition is always taken (a state's own
 * eventless transitions come before its ancestors'), so a cycle of them is certain.
 */
const checkEventlessCycles = (id: string, machine: AnyStateMachine): void => {
  const next = new Map<EventlessNode, EventlessNode>();
  const visit = (node: EventlessNode | undefined): void => {
    if (!node) return;
    const first = node.always?.[0];
    const target = first && first.guard === undefined && first.target?.length === 1 ? first.target[0] : undefined;
    if (node.type === "atomic" && target?.type === "atomic" && target !== node) next.set(node, target);
    for (const child of Object.values(node.states ?? {})) visit(child);
  };
  visit(machine.root as unknown as EventlessNode);
  const name = (node: EventlessNode) => `"${(node.path ?? []).join(".")}"`;
  const done = new Set<EventlessNode>();
  for (const start of next.keys()) {
    const path: EventlessNode[] = [];
    let at: EventlessNode | undefined = start;
    while (at !== undefined && !done.has(at) && !path.includes(at)) {
      path.push(at);
      at = next.get(at);
    }
    if (at !== undefined && path.includes(at)) {
      const cycle = [...path.slice(path.indexOf(at)), at];
      throw new TypeError(
        `environment ${id}: states ${cycle.map(name).join(" → ")} pass to each other by \`always\` transitions ` +
          "without a guard, so entering one loops forever (XState takes eventless transitions until none is " +
          "enabled: the episode never gets its next observation); give one of them a guard that stops the loop, " +
          "or let it wait for the agent (observe()) or a tool",
      );
    }
    for (const node of path) done.add(node);
  }
};

/** `policies` holds factories: `{ expert: () => policy }`. A policy object given instead failed at record time. */
const checkPolicies = (id: string, policies: unknown): void => {
  if (policies === undefined) return;
  if (typeof policies !== "object" || policies === null || Array.isArray(policies))
    throw new TypeError(
      `environment ${id}: \`policies\` must be an object of policy factories by name ({ expert: () => policy }), got ${shownValue(policies)}`,
    );
  for (const [key, make] of Object.entries(policies))
    if (typeof make !== "function")
      throw new TypeError(
        `environment ${id}: policies.${key} must be a function that makes the policy (() => Policy), got ${
          typeof make === "object" && make !== null && typeof (make as { act?: unknown }).act === "function"
            ? `a policy: write \`${key}: () => policy\` (a fresh policy per run)`
            : shownValue(make)
        }`,
      );
};

/** `warmStart: { episodes, epochs }`, positive integers: train reads it long after the module loaded. */
const checkWarmStart = (id: string, warmStart: unknown): void => {
  if (warmStart === undefined) return;
  const fields = ["episodes", "epochs"];
  if (typeof warmStart !== "object" || warmStart === null || Array.isArray(warmStart))
    throw new TypeError(
      `environment ${id}: \`warmStart\` must be { episodes, epochs } (positive integers), got ${shownValue(warmStart)}`,
    );
  const unknown = firstUnknownKey(warmStart, fields);
  if (unknown)
    throw new TypeError(
      `environment ${id}: \`warmStart\` has no field \`${unknown.key}\`${didYouMean(unknown.meant)}; it takes episodes and epochs`,
    );
  for (const field of fields) {
    const value = (warmStart as Record<string, unknown>)[field];
    if (!(typeof value === "number" && Number.isInteger(value) && value >= 1))
      throw new TypeError(
        `environment ${id}: warmStart.${field} must be a positive integer, got ${value === undefined ? "nothing" : shownValue(value)}`,
      );
  }
};

type ModelField = NonNullable<EnvDefinition["model"]>;
const MODEL_FIELDS: readonly string[] = allKeys<ModelField>()([
  "layers",
  "heads",
  "width",
  "contextLength",
  "copy",
  "positions",
]);

/**
 * The optional fields defineEnv did not look into: `model: { layer: 3 }` (a misspelt `layers`) trained the default
 * shape without a word, and `legalActions: [...]` (a list, not a function) loaded and then aborted every
 * constrained episode with "env.legalActions is not a function". Their values (a context length of 0) are
 * checked where a model is made, naming the environment.
 */
const checkOptionalFields = (id: string, definition: EnvDefinition<never>): void => {
  const model: unknown = definition.model;
  if (model !== undefined) {
    if (typeof model !== "object" || model === null || Array.isArray(model))
      throw new TypeError(
        `environment ${id}: \`model\` must be { layers, heads, width, contextLength, copy, positions } (any of them), got ${shownValue(model)}`,
      );
    const unknown = firstUnknownKey(model, MODEL_FIELDS);
    if (unknown)
      throw new TypeError(
        `environment ${id}: \`model\` has no field \`${unknown.key}\`${didYouMean(unknown.meant)}; it takes ${MODEL_FIELDS.join(", ")}`,
      );
  }
  const shapes = {
    legalActions: "({ task, history }) => string[] | null",
    configure: "(options) => a variant of the environment",
    taskGroup: '(task) => the name of its kind, e.g. "2 hops"',
  } as const;
  for (const field of Object.keys(shapes) as (keyof typeof shapes)[]) {
    const value: unknown = definition[field];
    if (value !== undefined && typeof value !== "function")
      throw new TypeError(
        `environment ${id}: \`${field}\` must be a function (${shapes[field]}), got ${shownValue(value)}`,
      );
  }
  const optionKeys: unknown = definition.optionKeys;
  if (
    optionKeys !== undefined &&
    (!Array.isArray(optionKeys) || optionKeys.some((key) => typeof key !== "string" || key === ""))
  )
    throw new TypeError(
      `environment ${id}: \`optionKeys\` must be the keys configure reads, an array of names (["split", "top-k"]), got ${shownValue(optionKeys)}`,
    );
  if (optionKeys !== undefined && definition.configure === undefined)
    throw new TypeError(
      `environment ${id}: \`optionKeys\` names the keys configure reads, but the environment has no \`configure\`; give one, or leave optionKeys out`,
    );
  for (const field of ["options", "evaluation"] as const) {
    const value: unknown = definition[field];
    if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value)))
      throw new TypeError(
        `environment ${id}: \`${field}\` must be ${field === "options" ? "an object of the options in effect" : "an environment (a variant, e.g. env.configure({ ... }))"}, got ${shownValue(value)}`,
      );
  }
  // train evaluates on it long after the module loaded: an object that is no environment (a plain
  // { id: "heldout" }) crashed train's first evaluation with evaluate's TypeError and a stack, and another
  // environment's variant would score the policy on tasks of another machine.
  const evaluation = definition.evaluation as { id?: unknown; tools?: unknown; machine?: unknown } | undefined;
  if (evaluation !== undefined) {
    if (typeof evaluation.tools !== "object" || evaluation.tools === null || evaluation.machine === undefined)
      throw new TypeError(
        `environment ${id}: \`evaluation\` must be an environment (a variant, e.g. env.configure({ ... })), got an object without tools and machine`,
      );
    if (evaluation.id !== id)
      throw new TypeError(
        `environment ${id}: \`evaluation\` is environment ${typeof evaluation.id === "string" ? JSON.stringify(evaluation.id) : shownValue(evaluation.id)}, not a variant of ${id}: train evaluates the policy it trains on ${id}'s machine, on held-out tasks (a variant, e.g. env.configure({ ... }))`,
      );
  }
};

/** Where recent errors of guards threw, by message (the wrapped guards note them). */
const guardThrows = new ThrowSites(32);

const noteGuardThrow = (cause: unknown): void => guardThrows.note(messageOf(cause), cause);

/**
 * Where an environment error was thrown: its own stack's first user frame, or, for XState's rethrow of a
 * guard's error ("Unable to evaluate guard ... :\n<message>", without the original's stack), the place the
 * wrapped guard noted for that message. `calledFrom`: the framework file that ran the machine synchronously
 * (replay, exploreEnv), whose callers' frames are not looked at (see thrownFrom).
 */
export const envThrownFrom = (cause: unknown, calledFrom?: string): string | undefined => {
  const at = thrownFrom(cause, calledFrom);
  if (at !== undefined) return at;
  const message = messageOf(cause);
  if (!message.startsWith("Unable to evaluate guard ")) return undefined;
  return guardThrows.where(message.slice(message.indexOf(":\n") + 2), calledFrom);
};

const NOTING = Symbol("agent-r1.notes-guard-throws");
type GuardFunction = ((...args: unknown[]) => unknown) & {
  check?: unknown;
  guards?: unknown[];
  [NOTING]?: true;
};

/**
 * A guard that notes where it threw before XState rethrows its error without the stack (see envThrownFrom), and
 * throws what is not an Error as one, with messageOf's message (`threw undefined, not an Error`).
 */
const noting = (guard: unknown): unknown => {
  if (typeof guard !== "function") return guard;
  const fn = guard as GuardFunction;
  if (fn[NOTING]) return fn;
  // and()/or()/not() are evaluated by XState through `check`, on the guards they combine: a copy combines
  // noting ones (the user's guard objects are not changed).
  if ("check" in fn) {
    if (!Array.isArray(fn.guards)) return fn;
    const combined: GuardFunction = () => false;
    combined.check = fn.check;
    combined.guards = fn.guards.map(noting);
    combined[NOTING] = true;
    return combined;
  }
  const wrapped: GuardFunction = (...args) => {
    try {
      const holds = fn(...args);
      // An async guard's Promise is truthy: XState took its transition whatever it would resolve to (an
      // outcome reward paid for any action, live and in replay alike), and nothing said so.
      if (isThenable(holds))
        throw new TypeError(
          "a guard returned a Promise (an async guard?), which XState takes as true whatever it resolves to; a " +
            "guard must answer at once, true or false: compute what it needs in a tool and read the result",
        );
      return holds;
    } catch (cause) {
      noteGuardThrow(cause);
      if (!(cause instanceof Error)) lastNotAnError = { message: messageOf(cause), thrown: cause };
      // XState rethrows a guard's error as "Unable to evaluate guard ...:\n" + its `message`: a guard that threw
      // undefined, 3 or a plain object would say "undefined" (or fail on `undefined.message`).
      if (cause instanceof Error) throw cause;
      const error = new Error(messageOf(cause));
      thrownInstead.set(error, cause);
      throw error;
    }
  };
  wrapped[NOTING] = true;
  return wrapped;
};

/** The last value a guard threw that was not an Error, and the message it was thrown on with (legacyEnvErrorMessage). */
let lastNotAnError: { readonly message: string; readonly thrown: unknown } | undefined;
/** The Errors the wrapped guards threw for a value that was not one, and that value (an always guard's reaches the runtime). */
const thrownInstead = new WeakMap<Error, unknown>();

/**
 * What versions before 2026-12-05 recorded for an environment error whose thrown value was not an Error (`throw 3`,
 * `throw undefined`, a plain object), which now says `threw 3, not an Error`: String(value) (an always guard's too), or for an event's guard XState's
 * "Unable to evaluate guard ...:\n" with the value's `message` (failing on undefined or null). For replay --verify
 * of their journals, whose ends say it so. Undefined where the message is the same in both versions.
 */
export const legacyEnvErrorMessage = (cause: unknown): string | undefined => {
  try {
    if (!(cause instanceof Error)) return typeof cause === "string" ? undefined : String(cause);
    if (thrownInstead.has(cause)) return String(thrownInstead.get(cause));
    const guard = lastNotAnError;
    const at = cause.message.indexOf(":\n");
    if (
      guard === undefined ||
      !cause.message.startsWith("Unable to evaluate guard ") ||
      cause.message.slice(at + 2) !== guard.message
    )
      return undefined;
    const { thrown } = guard;
    if (thrown === undefined || thrown === null) return `Cannot read properties of ${thrown} (reading 'message')`;
    return `${cause.message.slice(0, at + 2)}${(thrown as { message?: unknown }).message}`;
  } catch {
    return undefined;
  }
};

/** The parts of XState's state nodes that hold guards (not in its public types). */
interface GuardedNode {
  readonly transitions?: Map<string, { guard?: unknown }[]>;
  readonly states?: Record<string, GuardedNode>;
}

/**
 * A guard that throws ends the episode as an environment error, and the user needs the line: XState's own
 * error names the state and event but drops the stack. So each guard of the machine, inline or named, is
 * wrapped to note where it threw; what it returns is unchanged. Changes `machine`, which must be the
 * framework's own copy (from `provide`), never the user's.
 */
export const locateGuardThrows = (machine: AnyStateMachine): void => {
  const guards = machine.implementations?.guards as Record<string, unknown> | undefined;
  for (const name of Object.keys(guards ?? {})) guards![name] = noting(guards![name]);
  const visit = (node: GuardedNode | undefined): void => {
    if (!node) return;
    for (const candidates of node.transitions?.values() ?? [])
      for (const transition of candidates) if (transition.guard) transition.guard = noting(transition.guard);
    for (const child of Object.values(node.states ?? {})) visit(child);
  };
  visit(machine.root as unknown as GuardedNode);
};

/**
 * The most microsteps one event may take (XState's `options.maxIterations`, per macrostep), unless the
 * machine sets its own: an \`always\` transition whose guard keeps holding (to its own state, or round a
 * cycle) otherwise loops synchronously until memory runs out, where XState's default bound is Infinity.
 */
export const MAX_MICROSTEPS = 10_000;

/**
 * Bounds the microsteps of one event (MAX_MICROSTEPS) on the framework's own copy of the machine (from
 * `provide`), unless the user's config chose a bound: past it XState throws, and the episode ends as an
 * environment error.
 */
export const boundMicrosteps = (machine: AnyStateMachine): void => {
  const chosen = (machine.config as { options?: { maxIterations?: unknown } }).options?.maxIterations;
  if (typeof chosen === "number") return;
  (machine as { options: { maxIterations?: number } }).options = { ...machine.options, maxIterations: MAX_MICROSTEPS };
};

/** The framework's bounded copies of environments' machines, for replay (one per machine: building one is costly). */
const boundedMachines = new WeakMap<AnyStateMachine, AnyStateMachine>();

/**
 * The environment's machine as the runtime runs it (MAX_MICROSTEPS per event, boundMicrosteps, guards wrapped by
 * locateGuardThrows), for replay's pure transitions: the user's own machine is not changed.
 */
export const boundedMachineOf = (machine: AnyStateMachine): AnyStateMachine => {
  let bounded = boundedMachines.get(machine);
  if (!bounded) {
    bounded = machine.provide({});
    // Guards as the runtime runs them: what a guard throws that is not an Error ends a replay with the same reason.
    locateGuardThrows(bounded);
    boundMicrosteps(bounded);
    boundedMachines.set(machine, bounded);
  }
  return bounded;
};

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

/** How many of the last microsteps' states are looked at for the loop (half of them must repeat its period). */
const LOOP_WINDOW = 64;

/**
 * The states an event that never settled loops through, said as `looping in state "b"` or `looping round
 * states "b" → "c" → "b"` (undefined when the probe does not loop again). The event is taken again from
 * the probe's snapshot, as replay takes it (a pure transition: actions are collected, not run, and no
 * actor starts), watching XState's microstep inspection events, which the throw at the bound leaves
 * behind; only on this error path, so the per-event path pays nothing. A pure machine loops the same
 * way live, in replay and in exploreEnv, so all three say the same.
 */
const loopOf = (probe: LoopProbe): string | undefined => {
  const seen: string[] = [];
  const firstSeen = new Map<string, number>();
  try {
    // The scope of XState's own pure transition(): an unstarted actor, whose deferred actions never run.
    const self = createActor(probe.machine, { input: probe.input });
    self.system.inspect((inspected) => {
      if (inspected.type !== "@xstate.microstep") return;
      const value = JSON.stringify((inspected as unknown as { snapshot: AnyMachineSnapshot }).snapshot.value);
      if (!firstSeen.has(value)) firstSeen.set(value, seen.length);
      seen.push(value);
    });
    const scope = {
      self,
      defer: () => {},
      id: "",
      logger: () => {},
      sessionId: "",
      stopChild: () => {},
      system: self.system,
      emit: () => {},
      actionExecutor: () => {},
    };
    const machine = probe.machine as unknown as {
      transition: (snapshot: unknown, event: unknown, scope: unknown) => unknown;
      getInitialSnapshot: (scope: unknown, input: unknown) => unknown;
    };
    // XState throws at the bound, or (entering the initial state) gives a snapshot with the error.
    const next = (
      probe.before && probe.event
        ? machine.transition(probe.before, probe.event, scope)
        : machine.getInitialSnapshot(scope, probe.input)
    ) as { status?: string; error?: unknown } | undefined;
    if (next?.status !== "error") return undefined;
    throw next.error;
  } catch (cause) {
    if (!/^Infinite loop detected/.test(messageOf(cause)) || seen.length === 0) return undefined;
  }
  const n = seen.length;
  const half = Math.max(1, Math.floor(Math.min(n, LOOP_WINDOW) / 2));
  for (let period = 1; period <= half && period < n; period++) {
    let repeats = true;
    for (let i = n - half; i < n && repeats; i++) repeats = i - period < 0 || seen[i] === seen[i - period];
    if (!repeats) continue;
    // Said from the state the loop was entered by (the one of its states seen first).
    const cycle = seen.slice(n - period);
    const start = cycle.indexOf(
      cycle.reduce((first, value) => (firstSeen.get(value)! < firstSeen.get(first)! ? value : first)),
    );
    const round = [...cycle.slice(start), ...cycle.slice(0, start)];
    return period === 1 ? `looping in state ${round[0]}` : `looping round states ${[...round, round[0]].join(" → ")}`;
  }
  const among = [...new Set(seen.slice(n - half))];
  return `looping among states ${among.slice(0, 8).join(", ")}${among.length > 8 ? ", ..." : ""}`;
};

/**
 * XState's error for an event that set off more microsteps than the bound ("Infinite loop detected", naming
 * no state), said with the event's type, the state the machine took it in, the states it loops through (when a
 * probe is given: loopOf), and the usual cause; the same live and in replay, which re-derives the episode's end.
 * Undefined for any other error. Without a probe it is the wording of versions before this one (2026-12-05), which
 * named no looping state (replay --verify takes their journals' ends as recorded).
 */
export const endlessEventMessage = (
  cause: unknown,
  eventType: string | undefined,
  stateBefore: unknown,
  probe?: LoopProbe,
) => {
  const message = messageOf(cause);
  const bound = /^Infinite loop detected: the machine has processed more than (\d+) microsteps/.exec(message)?.[1];
  if (bound === undefined) return undefined;
  const initial = stateBefore === undefined || eventType === undefined || eventType === "xstate.init";
  const where = initial
    ? "entering the machine's initial state"
    : `event ${eventType} in state ${JSON.stringify(stateBefore)}`;
  const loop = probe && loopOf(initial ? { machine: probe.machine, input: probe.input } : probe);
  return (
    `${where} set off more than ${bound} microsteps without settling${loop ? `, ${loop}` : ""}: an \`always\` transition whose guard stays true ` +
    "(to its own state, or round a cycle of states), or events raised in a loop; make the guard false once its " +
    "transition is taken, or wait there for the agent (observe()) or a tool (XState: Infinite loop detected)"
  );
};

/**
 * `env` must be an environment object: a string (an id or path) or a wrong import is named, with the fix.
 * `what` names the argument, e.g. "env" for an option.
 */
export const checkEnvArgument = (fn: string, env: unknown, what = "the first argument"): void => {
  const e = env as { tools?: unknown; machine?: unknown } | null | undefined;
  if (typeof e === "object" && e !== null && typeof e.tools === "object" && e.machine !== undefined) {
    checkDefinitionOnce(e as EnvDefinition);
    return;
  }
  throw new TypeError(
    typeof e === "string"
      ? `${fn}: ${what} must be an environment object, got the string ${JSON.stringify(e)}; load it first: await loadEnv(${JSON.stringify(e)})`
      : `${fn}: ${what} must be an environment (defineEnv(...)), got ${e === null ? "null" : typeof e === "object" ? "an object without tools and machine" : typeof e}; check its import (a module's default export, or its export named env)`,
  );
};

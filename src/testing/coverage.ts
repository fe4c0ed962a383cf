/**
 * Path coverage of an environment machine with `xstate/graph`: from sample actions and sample tool
 * results, explore every state the machine can reach (its value, context, and the runtime's protocol:
 * waiting for an action, tools in flight, ended) and check that
 *   - every atomic and final state node of the machine is reached,
 *   - every reachable state can still end the episode, and no path loops forever,
 *   - every state where the agent must act has been shown an observation (a string, with no "undefined",
 *     "NaN" or "[object Object]" in it), rewards are finite, and nothing waits for nothing.
 * The exploration folds the machine's pure `initialTransition` / `transition`, as replay does, so guards
 * and actions run but no tool is called. It is breadth first (`getAdjacencyMap`), so the first way found to
 * each state is a shortest path to it. It is synchronous, so it stops itself: after `limit` states, or as
 * soon as a loop is seen to grow the context each round without ending the episode (an endless episode
 * whose states never repeat, which no limit would get to the end of).
 */

import { fileURLToPath } from "node:url";
import * as Result from "effect/Result";
import type { Json } from "effect/Schema";
import * as Schema from "effect/Schema";
import type { Subscribable } from "rxjs";
import { type AnyMachineSnapshot, getInitialMicrosteps, getMicrosteps, initialTransition, transition } from "xstate";
import { getAdjacencyMap, getStateNodes } from "xstate/graph";
import { asJournaled, canonicalJson } from "../kernel/canonical.ts";
import { allKeys, checkBooleans, checkKnownKeys, messageOf, shownValue } from "../kernel/errors.ts";
import type { ToolResult } from "../kernel/events.ts";
import { contextProblem, deadEndStates, nestedFinalNote, placed, rewardReasonProblem } from "../runtime/derive.ts";
import type { EnvDefinition, EnvEmitted } from "../runtime/env.ts";
import {
  boundedMachineOf,
  checkEnvArgument,
  endlessEventMessage,
  envThrownFrom,
  LONE_SURROGATE,
  refusedEndReason,
} from "../runtime/env.ts";
import {
  argumentsNotJson,
  emptyObservableError,
  invalidArgs,
  isSubscribable,
  journaledArguments,
  type Tool,
  thrownFailure,
  timedOut,
  toJsonResult,
  unsubscribeFrom,
} from "../runtime/tool.ts";
import { TOOL_RESULT_SHAPE, toolResultProblem } from "./actions.ts";
import { quote } from "./counterexample.ts";
import type { EpisodeScript } from "./episodes.ts";
import { endlessGrowthFinder, fieldsOf, jsonOf } from "./growth.ts";

/** This file: the exploration runs the machine synchronously, so frames from its own on are its callers'. */
const THIS_FILE = fileURLToPath(import.meta.url);

/** ` (thrown at file:line:column)` of the user's code that threw, as a live run's record says it; else nothing. */
const thrownAtNote = (cause: unknown): string => {
  const at = envThrownFrom(cause, THIS_FILE);
  return at ? ` (thrown at ${at})` : "";
};

interface ToolCallInFlight {
  readonly actor: string;
  readonly tool: string;
  readonly args: Json;
  /** The failure a live call gives when the arguments are not plain JSON: its only result (the tool never runs). */
  readonly refused?: ToolResult;
}

/** A state of the machine together with what the runtime knows about it. */
export interface ProtocolSnapshot {
  readonly status: "active" | "done";
  readonly output: undefined;
  readonly error: undefined;
  readonly machine: AnyMachineSnapshot;
  /** An observation was shown since the agent's last action: the agent acts next (once no tool is in flight). */
  readonly awaiting: boolean;
  /** The machine called end() or reached a final state. */
  readonly ended: boolean;
  /** The tool calls started and not yet answered. */
  readonly inFlight: readonly ToolCallInFlight[];
  /** The latest observation shown. */
  readonly observation: string | undefined;
  /** What is wrong with the transition into this state. */
  readonly problem: string | undefined;
}

/** What the exploration sends the machine: an agent action, or a tool result. */
export type ExplorationEvent =
  | { readonly type: "agent.act"; readonly turn: number; readonly text: string; readonly tokens: readonly number[] }
  | { readonly type: `xstate.done.actor.${string}`; readonly output: ToolResult; readonly actorId: string };

/** The keys of CoverageOptions. */
const COVERAGE_OPTIONS = allKeys<CoverageOptions>()([
  "task",
  "seed",
  "actions",
  "toolResults",
  "serialize",
  "limit",
  "allowCycles",
  "suspiciousObservation",
]);

/**
 * Options of exploreEnv and checkCoverage: the task, the sample actions and tool results, and the exploration's
 * limits.
 */
export interface CoverageOptions<Task extends Json = Json> {
  /** The task to explore (default: `env.task(seed)`). */
  readonly task?: Task;
  readonly seed?: string;
  /** Sample actions the agent tries in every state where it acts (a few: each multiplies the states). */
  readonly actions: readonly string[] | ((machine: AnyMachineSnapshot) => readonly string[]);
  /**
   * Sample results of a tool call. Default: the tool's own result when its `execute` is synchronous (null
   * otherwise), an error and a timeout.
   */
  readonly toolResults?: (tool: string, args: Json) => readonly ToolResult[];
  /**
   * What makes two states the same (default: canonical JSON of the machine's value and context, and the
   * protocol flags): states it maps to one string are explored once, so leaving a field out shrinks the
   * exploration (and a loop that only grows that field becomes a cycle).
   */
  readonly serialize?: (state: ProtocolSnapshot) => string;
  /**
   * Stop after this many distinct states (default 5,000: 2 to 3 seconds with five sample actions), with a
   * RangeError that names the context fields that vary most among them.
   */
  readonly limit?: number;
  /** Allow paths that loop (default false: every loop is an endless episode the runtime must cut). */
  readonly allowCycles?: boolean;
  /** Observations matching this are reported (default: "undefined", "NaN", "[object Object]"). */
  readonly suspiciousObservation?: RegExp | false;
}

/**
 * A problem found by the exploration: a state node never reached, a state that cannot end (dead-end), a loop
 * (endless), an agent asked to act without an observation (silent), or a bad observation or reward (invalid).
 */
export interface CoverageProblem {
  readonly kind: "unreachable" | "dead-end" | "endless" | "silent" | "invalid";
  readonly detail: string;
  /** The steps that lead there: the shortest path among those that do. */
  readonly path?: readonly string[];
  /**
   * How many explored states have this problem at this state node, each reached by its own path (they
   * differ in their context), when more than one: the problem is listed once, with the shortest path.
   */
  readonly paths?: number;
}

/** The shortest path found to one explored state. */
export interface CoveragePath<Task extends Json = Json> {
  /** The steps, in words. */
  readonly steps: readonly string[];
  /** The same path as an episode script: `playEpisode(env, script)` plays it live. */
  readonly script: EpisodeScript<Task>;
  readonly state: ProtocolSnapshot;
}

/**
 * What exploreEnv found: the states and transitions explored, the state nodes reached and not, and the problems.
 * `Task`: the environment's task type, which its paths' scripts have (JSON for an environment of any type).
 */
export interface CoverageReport<Task extends Json = Json> {
  /** Distinct states explored, and transitions between them. */
  readonly states: number;
  readonly transitions: number;
  /** Atomic and final state nodes of the machine, by id; which were reached; which were not. */
  readonly stateNodes: readonly string[];
  readonly reached: readonly string[];
  readonly unreachable: readonly string[];
  /** States where the episode ended. */
  readonly ends: number;
  /** The shortest path to every explored state. */
  readonly paths: readonly CoveragePath<Task>[];
  readonly problems: readonly CoverageProblem[];
}

// A missing value glued to a word (`${item}${suffix}` gives "keyundefined", `${n}${unit}` "12NaN") shows one too:
// a word that begins or ends with the token, not only the token alone.
const SUSPICIOUS = /undefined\b|\bundefined|NaN\b|\bNaN|\[object Object\]/;

const failure = (kind: "error", message: string): ToolResult => ({ ok: false, error: { kind, message } });

/**
 * An Observable's result when it completes during `subscribe` (`of(x)`): its last value, or its error as the
 * runtime journals it; null content when it has not completed by then (it is unsubscribed).
 */
const syncObservableResult = (tool: Tool, source: Subscribable<unknown>): ToolResult => {
  let result: ToolResult | undefined;
  let last: { value: unknown } | undefined;
  const subscription = source.subscribe({
    next: (value) => {
      last = { value };
    },
    error: (cause) => {
      result = thrownFailure(cause, tool.maxResultChars);
    },
    complete: () => {
      result = last
        ? toJsonResult(tool.name, last.value, tool.maxResultChars)
        : thrownFailure(emptyObservableError(tool.name), tool.maxResultChars);
    },
  });
  unsubscribeFrom(subscription);
  return result ?? { ok: true, content: null };
};

/** The tool's own result when it answers synchronously; null content otherwise. */
const ownResult = (tool: Tool, args: Json): ToolResult => {
  const decoded = Schema.decodeUnknownResult(tool.parameters as unknown as Schema.Codec<unknown, unknown>)(args);
  // As a live call says it, so that an observation of the message is the one a live episode shows.
  if (Result.isFailure(decoded)) return invalidArgs(tool.name, decoded.failure, tool.maxResultChars);
  try {
    const content = tool.execute(decoded.success as never, { signal: new AbortController().signal });
    if (content instanceof Promise) {
      content.catch(() => {});
      return { ok: true, content: null };
    }
    if (isSubscribable(content)) return syncObservableResult(tool, content);
    // As a live call shapes it: a value that is not plain JSON (a Date, a Map, NaN) fails, a long one is cut.
    return toJsonResult(tool.name, content, tool.maxResultChars);
  } catch (cause) {
    // As the runtime journals it: the same message, and the thrown value's `_tag` (a machine may branch on it).
    return thrownFailure(cause, tool.maxResultChars);
  }
};

const defaultToolResults =
  (env: EnvDefinition) =>
  (name: string, args: Json): readonly ToolResult[] => [
    ownResult(env.tools[name], args),
    failure("error", `${name} failed`),
    // As a live timeout says it (an observation of the message is then the live episode's).
    timedOut(env.tools[name]),
  ];

const defaultSerialize = (s: ProtocolSnapshot): string => {
  const state = {
    value: s.machine.value,
    context: s.machine.context ?? null,
    awaiting: s.awaiting,
    ended: s.ended,
    inFlight: s.inFlight,
    problem: s.problem ?? null,
  };
  try {
    return canonicalJson(state);
  } catch {
    // A context with no canonical JSON (a lone surrogate, a bigint) is a problem of that state, which ends there
    // (contextProblem): its JSON, whose order of keys may vary, tells it apart as far as JSON can write it.
    return jsonOf(state);
  }
};

type Step = [AnyMachineSnapshot, { type: string; params?: unknown }[]];

/** An action function the pure transition returned without running it (the live actor runs it). */
interface ActionToRun {
  readonly type: string;
  readonly params?: unknown;
  readonly info?: { readonly context?: unknown };
  readonly exec?: (info: unknown, params: unknown) => unknown;
}

/**
 * What an action function changes in the context, in words (`seen: [] -> ["x"]`), or undefined: it runs on a
 * copy of the context, so the exploration itself is not changed. A context that is not plain data, or an
 * action that throws (one that needs the live actor, `self`), is not judged.
 */
const changedInPlace = (action: ActionToRun, context: unknown): string | undefined => {
  if (typeof action.exec !== "function" || typeof context !== "object" || context === null) return undefined;
  let copy: Record<string, unknown>;
  try {
    copy = structuredClone(context) as Record<string, unknown>;
    action.exec({ ...action.info, context: copy }, action.params);
  } catch {
    return undefined;
  }
  const original = context as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(original), ...Object.keys(copy)])];
  const field = keys.find((key) => jsonOf(original[key]) !== jsonOf(copy[key]));
  return field === undefined ? undefined : `${field}: ${jsonOf(original[field])} -> ${jsonOf(copy[field])}`;
};

/** How many transitions of an exploration are run twice, to catch one that is not pure. */
const PURITY_CHECKS = 1000;

/**
 * Whether a pure transition gives the same result when run again: a guard or action that draws from
 * `Math.random`, the clock or state outside the machine gives another context, state or emitted event
 * (an observation, a reward) each time, which replay would not re-derive. Says what differed, or undefined.
 */
const differsOnRerun = (step: () => Step, first: Step): string | undefined => {
  let again: Step;
  try {
    again = step();
  } catch {
    return undefined;
  }
  const [a, aActions] = first;
  const [b, bActions] = again;
  if (jsonOf(a.value) !== jsonOf(b.value)) return `the state ${jsonOf(a.value)}, then ${jsonOf(b.value)}`;
  const before = (a.context ?? {}) as Record<string, unknown>;
  const after = (b.context ?? {}) as Record<string, unknown>;
  const field = [...new Set([...Object.keys(before), ...Object.keys(after)])].find(
    (key) => jsonOf(before[key]) !== jsonOf(after[key]),
  );
  if (field !== undefined) return `context.${field} ${jsonOf(before[field])}, then ${jsonOf(after[field])}`;
  const emitted = (actions: Step[1]) =>
    actions
      .filter((action) => action.type === "xstate.emit")
      .map((action) => (action.params as { event?: unknown })?.event);
  const [ea, eb] = [emitted(aActions), emitted(bActions)];
  const at = ea.findIndex((event, i) => jsonOf(event) !== jsonOf(eb[i]));
  if (at >= 0 || ea.length !== eb.length) {
    const i = at >= 0 ? at : Math.min(ea.length, eb.length);
    return `the emitted ${jsonOf(ea[i] ?? null)}, then ${jsonOf(eb[i] ?? null)}`;
  }
  return undefined;
};

/**
 * A RegExp's test from the text's start: a `/g` or `/y` one (`suspiciousObservation: /undefined/g`) keeps its
 * lastIndex between tests, so it skipped every second observation that shows it. (The kit's own copy: the
 * option's object is left as it was given.)
 */
const testedFromStart = (pattern: RegExp, text: string): boolean => {
  pattern.lastIndex = 0;
  return pattern.test(text);
};

/** The environment machine as actor logic whose snapshots carry the runtime's protocol state. */
const protocolLogic = (env: EnvDefinition, task: Json, seed: string, suspicious: RegExp | undefined) => {
  // The machine as the runtime runs it: an event that never settles (a guarded `always` loop) is an error.
  const bounded = boundedMachineOf(env.machine);
  // Transitions run twice to catch an impure one, for the first PURITY_CHECKS only (an impure world move
  // shows on the first steps; a second run of every transition of a large exploration would double it).
  let purityChecks = 0;
  const fold = (before: ProtocolSnapshot | undefined, event: ExplorationEvent | undefined, step: () => Step) => {
    let awaiting = event?.type === "agent.act" ? false : (before?.awaiting ?? false);
    let ended = false;
    let observation = before?.observation;
    const problems: string[] = [];
    let inFlight = (before?.inFlight ?? []).filter((c) => !(event && "actorId" in event && event.actorId === c.actor));
    let machine = before?.machine;
    /** An event that set off microsteps past the bound, said with the states it loops through (as live). */
    const endlessOf = (cause: unknown) =>
      endlessEventMessage(cause, event?.type ?? "xstate.init", before?.machine.value, {
        machine: bounded,
        ...(before && event ? { before: before.machine, event } : {}),
        input: { task, seed },
      });
    try {
      const [next, actions] = step();
      machine = next;
      // As the live runtime ends the episode there (an environment error): its state hash cannot be written.
      const contextRefused = contextProblem(next.context);
      if (contextRefused) problems.push(contextRefused);
      const rerun = purityChecks++ < PURITY_CHECKS ? differsOnRerun(step, [next, actions]) : undefined;
      if (rerun)
        problems.push(
          `the transition is not a pure function of the state and the event: run twice, it gave ${rerun}; a guard or action draws from Math.random, the clock or state outside the machine, which replay does not re-derive (draw from Rng.fromSeed of the episode's seed, input.seed, instead)`,
        );
      for (const action of actions) {
        const params = (action.params ?? {}) as Record<string, unknown>;
        if (action.type === "xstate.emit") {
          const emitted = params.event as EnvEmitted;
          if (emitted.type === "env.observe") {
            if (typeof emitted.text !== "string") problems.push(`observe() was given ${typeof emitted.text}, not text`);
            else if (!emitted.text.isWellFormed())
              problems.push(
                `the observation ${shownValue(emitted.text)} holds a lone surrogate, which is not Unicode: a live episode aborts here, "could not record env.observed" (give well-formed text: text.toWellFormed(), or slice by characters)`,
              );
            else if (suspicious !== undefined && testedFromStart(suspicious, emitted.text))
              problems.push(`the observation ${quote(emitted.text)} shows a missing value`);
            observation = typeof emitted.text === "string" ? emitted.text : undefined;
            awaiting = true;
          } else if (emitted.type === "env.reward" && rewardReasonProblem(emitted) !== undefined)
            problems.push(rewardReasonProblem(emitted)!);
          else if (emitted.type === "env.reward" && emitted.kind !== "process" && emitted.kind !== "outcome")
            problems.push(
              `reward "${emitted.reason}" is of kind ${JSON.stringify(emitted.kind)}, not process or outcome${placed(emitted)}`,
            );
          else if (emitted.type === "env.reward" && !Number.isFinite(emitted.value))
            problems.push(`reward "${emitted.reason}" is ${emitted.value}, not a finite number${placed(emitted)}`);
          else if (emitted.type === "env.reward" && !emitted.reason.isWellFormed())
            problems.push(
              `reward(${JSON.stringify(emitted.kind)}, ${emitted.value}, reason): its reason ${shownValue(emitted.reason)} holds a lone surrogate, which is not Unicode: a live episode aborts here, "could not record reward.assigned" (give well-formed text: text.toWellFormed(), or slice by characters)`,
            );
          else if (emitted.type === "env.end") {
            // As the live runtime ends the episode there (an environment error).
            const refused =
              typeof emitted.reason === "string"
                ? refusedEndReason(emitted.reason)
                : `its reason is ${shownValue(emitted.reason)}; give it as a string`;
            if (refused) problems.push(`end(): ${refused}`);
            for (const [name, value] of Object.entries(emitted.metrics ?? {}))
              if (!name.isWellFormed()) problems.push(`end() metric ${JSON.stringify(name)} ${LONE_SURROGATE}`);
              else if (!Number.isFinite(value))
                problems.push(`end() metric ${name} is ${value}, not a finite number${placed(emitted)}`);
            ended = true;
          }
        } else if (action.type === "xstate.spawnChild" && typeof params.src === "string" && params.src in env.tools) {
          // As the runtime calls it: with the arguments it journals, or refused when JSON would change them.
          const args = journaledArguments(params.input);
          const refused = argumentsNotJson(env.tools[params.src], params.input);
          inFlight = [
            ...inFlight,
            { actor: String(params.id), tool: params.src, args, ...(refused ? { refused } : {}) },
          ];
        } else if (action.type === "xstate.stopChild") {
          const ref = params.actorRef as { id?: string } | string | undefined;
          const id = typeof ref === "string" ? ref : ref?.id;
          inFlight = inFlight.filter((c) => c.actor !== id);
        } else if (!action.type.startsWith("xstate.")) {
          const changed = changedInPlace(action as ActionToRun, next.context);
          if (changed)
            problems.push(
              `the action ${quote(action.type)} changes the context in place (${changed}): the live episode sees that change, replay and exploreEnv do not (their pure transitions do not run action functions); change the context only with assign(...)`,
            );
        }
      }
      if (next.status === "done") ended = true;
      if (next.status === "error") {
        const endless = endlessOf(next.error);
        problems.push(
          endless ? `the machine: ${endless}` : `the machine failed: ${String(next.error)}${thrownAtNote(next.error)}`,
        );
      }
    } catch (cause) {
      const endless = endlessOf(cause);
      problems.push(
        endless ? `the machine: ${endless}` : `the machine threw: ${messageOf(cause)}${thrownAtNote(cause)}`,
      );
    }
    if (problems.length === 0 && !ended && !awaiting && inFlight.length === 0) {
      const deadEnd = deadEndStates(machine as AnyMachineSnapshot);
      const nestedFinal = deadEnd.length > 0 ? undefined : nestedFinalNote(machine as AnyMachineSnapshot);
      problems.push(
        "the machine waits for nothing: no observe(), no end(), no tool call in flight" +
          (deadEnd.length > 0
            ? ` (${deadEnd.map((s) => `"${s}"`).join(", ")} has no transition and is not final: make it a final state, type: "final", or end() the episode on the transition into it)`
            : nestedFinal !== undefined
              ? ` (${nestedFinal})`
              : ""),
      );
    }
    const snapshot: ProtocolSnapshot = {
      status: ended || problems.length > 0 ? "done" : "active",
      output: undefined,
      error: undefined,
      machine: machine as AnyMachineSnapshot,
      awaiting,
      ended,
      inFlight,
      observation,
      problem: problems.length > 0 ? problems.join("; ") : undefined,
    };
    return snapshot;
  };
  return {
    config: {},
    getInitialSnapshot: () =>
      fold(undefined, undefined, () => initialTransition(bounded, { task, seed }) as unknown as Step),
    // Each state is expanded once (getAdjacencyMap skips a state it has seen), so nothing is memoized.
    transition: (snapshot: ProtocolSnapshot, event: ExplorationEvent) =>
      fold(snapshot, event, () => transition(bounded, snapshot.machine, event as never) as unknown as Step),
    getPersistedSnapshot: (snapshot: ProtocolSnapshot) => snapshot,
  };
};

const describeEvent = (event: ExplorationEvent, before: ProtocolSnapshot | undefined): string => {
  if (event.type === "agent.act") return `act ${quote(event.text)}`;
  const done = event as Extract<ExplorationEvent, { actorId: string }>;
  const call = before?.inFlight.find((c) => c.actor === done.actorId);
  const name = call ? `${call.tool} ${JSON.stringify(call.args)}` : done.actorId;
  return done.output.ok
    ? `${name} returns ${JSON.stringify(done.output.content)}`
    : `${name} fails: ${done.output.error.kind}`;
};

/** One step of a path: the event and the state it leads to (the first step: `xstate.init` and the initial state). */
export interface PathStep {
  readonly state: ProtocolSnapshot;
  readonly event: ExplorationEvent | { readonly type: "xstate.init" };
}

const toCoveragePath = <Task extends Json>(path: readonly PathStep[], seed: string, task: Task): CoveragePath<Task> => {
  const steps: string[] = [];
  const actions: string[] = [];
  // A script's results go by call, in the order calls start (as playEpisode injects them). Every call of one
  // state's invoke has the same actor id, so an actor id names its call in flight only: its result frees the
  // id, and a call in flight whose id is free is a call that started, which takes the next index. (Not by
  // object identity: exploration merges equal states reached by other paths, whose objects differ.)
  const callIndex = new Map<string, number>();
  const results: (ToolResult | null)[] = [];
  let before: ProtocolSnapshot | undefined;
  for (const step of path) {
    if (step.event.type !== "xstate.init") {
      const event = step.event as ExplorationEvent;
      steps.push(describeEvent(event, before));
      if (event.type === "agent.act") actions.push(event.text);
      else {
        const index = callIndex.get(event.actorId);
        if (index !== undefined) results[index] = event.output;
        callIndex.delete(event.actorId);
      }
    }
    // A refused call never reaches its tool (the runtime fails it), so it takes no index of the script's.
    for (const call of step.state.inFlight)
      if (!callIndex.has(call.actor) && call.refused === undefined) {
        callIndex.set(call.actor, results.length);
        results.push(null);
      }
    before = step.state;
  }
  return {
    steps,
    script: { seed, task, actions, toolResults: results.map((r) => r ?? null) },
    state: path[path.length - 1].state,
  };
};

/** Distinct states explored before the exploration gives up, unless `limit` says otherwise. */
const DEFAULT_LIMIT = 5_000;
/** State counts at which the exploration looks for a loop that grows the context: this, then each doubling. */
const FIRST_CHECKPOINT = 200;
/** Explores the machine and reports coverage and problems; throws only when the exploration cannot finish. */
export const exploreEnv: {
  /** The report's paths' scripts have the environment's task type (`defineEnv` infers it). */
  <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task>;
  /** An environment of any task type, or a `task` of another type than its own: JSON tasks. */
  (env: EnvDefinition, options: CoverageOptions): CoverageReport;
} = <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task> =>
  explore("exploreEnv", env, options);

/**
 * The user's `toolResults`, each answer checked as the live runtime would have shaped it. Fed to the machine
 * unchecked, `{ ok: true }` or a NaN content explored states no episode can reach (an observation of
 * `undefined`, a reward of NaN) and reported them as the environment's.
 */
const checkedToolResults =
  (caller: string, given: NonNullable<CoverageOptions["toolResults"]>) =>
  (tool: string, args: Json): readonly ToolResult[] => {
    const said = `${caller}: options.toolResults(${JSON.stringify(tool)}, ${canonicalJsonOr(args)})`;
    const results: unknown = given(tool, args);
    if (!Array.isArray(results))
      throw new TypeError(`${said} returned ${shownValue(results)}; it must return a list of tool results`);
    for (const [index, result] of results.entries()) {
      const problem = toolResultProblem(result);
      if (problem !== undefined)
        throw new TypeError(`${said} item ${index} is not a tool result (${problem}): give ${TOOL_RESULT_SHAPE}`);
    }
    return results as readonly ToolResult[];
  };

const canonicalJsonOr = (value: unknown): string => {
  try {
    return canonicalJson(value);
  } catch {
    return shownValue(value);
  }
};

const explore = <Task extends Json>(
  caller: string,
  env: EnvDefinition<Task>,
  options: CoverageOptions<Task>,
): CoverageReport<Task> => {
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${caller}: the second argument must be options { actions, task?, toolResults?, ... }`);
  checkKnownKeys(caller, options, COVERAGE_OPTIONS);
  if (typeof options.actions !== "function" && !Array.isArray(options.actions))
    throw new TypeError(
      `${caller}: options.actions must be the sample actions to try in each state (an array of texts, or (state) => texts), got ${options.actions === undefined ? "none" : typeof options.actions}`,
    );
  // A list that is not texts, given or returned (a forgotten return, one text not in a list, a number), failed deep
  // in the exploration: "texts.map is not a function", "text.matchAll is not a function".
  const notTexts = (texts: unknown, said: string): string | undefined => {
    if (!Array.isArray(texts)) return `${said} ${shownValue(texts)}; it must be a list of action texts`;
    const index = texts.findIndex((text) => typeof text !== "string");
    return index < 0
      ? undefined
      : `${said} a list whose item ${index} is ${shownValue(texts[index])}, not an action text`;
  };
  if (Array.isArray(options.actions)) {
    const problem = notTexts(options.actions, `${caller}: options.actions is`);
    if (problem) throw new TypeError(problem);
  }
  const actionTexts = (machine: ProtocolSnapshot["machine"]): readonly string[] => {
    const texts: unknown = (options.actions as (state: typeof machine) => unknown)(machine);
    const problem = notTexts(texts, `${caller}: options.actions(state) returned, in state ${jsonOf(machine.value)},`);
    if (problem) throw new TypeError(problem);
    return texts as readonly string[];
  };
  if (Array.isArray(options.actions) && options.actions.length === 0)
    throw new RangeError(
      `${caller}: options.actions is empty: give the sample actions to try where the agent acts (a few texts), or nothing past the first state is explored`,
    );
  if (options.toolResults !== undefined && typeof options.toolResults !== "function")
    throw new TypeError(
      `${caller}: options.toolResults must be a function (tool, args) => ToolResult[] (e.g. () => [{ ok: true, content: "..." }, { ok: false, error: { kind: "error", message: "down" } }]), got ${Array.isArray(options.toolResults) ? "an array" : typeof options.toolResults}`,
    );
  if (options.serialize !== undefined && typeof options.serialize !== "function")
    throw new TypeError(
      `${caller}: options.serialize must be a function (state) => string, got ${typeof options.serialize}`,
    );
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 1))
    throw new RangeError(
      `${caller}: options.limit must be an integer >= 1 (distinct states to explore at most), got ${shownValue(options.limit)}`,
    );
  checkBooleans(
    options,
    ["allowCycles"],
    (rule, value) => new TypeError(`${caller}: options.${rule}, got ${shownValue(value)}`),
  );
  const seed = options.seed ?? "coverage";
  // Explored as an episode runs it: from the task as its journal keeps it (JSON drops undefined fields).
  const journaled = asJournaled(options.task ?? env.task(seed), "task");
  if (journaled.problem !== undefined)
    throw new TypeError(
      `${caller}: the task is not plain JSON: ${journaled.problem}; an episode journals its task as JSON and replays from it`,
    );
  const task: Task = journaled.value;
  const suspicious =
    options.suspiciousObservation === false ? undefined : new RegExp(options.suspiciousObservation ?? SUSPICIOUS);
  const given = options.serialize;
  // A user's serialize that throws, or returns no string, is named with the state it was given.
  const serialize = given
    ? (state: ProtocolSnapshot): string => {
        let key: unknown;
        try {
          key = given(state);
        } catch (cause) {
          throw new Error(
            `${caller}: options.serialize threw on state ${jsonOf(state.machine.value)}: ${cause instanceof Error ? cause.message : String(cause)}`,
            { cause },
          );
        }
        if (typeof key !== "string")
          throw new TypeError(
            `${caller}: options.serialize must return a string (states with equal strings are explored once), returned ${typeof key} on state ${jsonOf(state.machine.value)}`,
          );
        return key;
      }
    : defaultSerialize;
  const logic = protocolLogic(env, task, seed, suspicious);
  const toolResults =
    options.toolResults === undefined ? defaultToolResults(env) : checkedToolResults(caller, options.toolResults);
  const limit = options.limit ?? DEFAULT_LIMIT;
  const tokens = new Map<string, readonly number[]>();
  const tokensOf = (text: string): readonly number[] => {
    const encoded = tokens.get(text) ?? env.tokenizer.encode(text);
    tokens.set(text, encoded);
    return encoded;
  };
  const eventsOf = (state: ProtocolSnapshot): ExplorationEvent[] => {
    if (state.status === "done") return [];
    if (state.inFlight.length > 0)
      return state.inFlight.flatMap((call) =>
        (call.refused ? [call.refused] : toolResults(call.tool, call.args)).map((output) => ({
          type: `xstate.done.actor.${call.actor}` as const,
          output,
          actorId: call.actor,
        })),
      );
    if (!state.awaiting) return [];
    const texts = typeof options.actions === "function" ? actionTexts(state.machine) : options.actions;
    return texts.map((text) => ({ type: "agent.act", turn: 0, text, tokens: tokensOf(text) }));
  };

  // Each state is serialized once; the first way found to it is kept (a shortest one: breadth first).
  const serialized = new WeakMap<ProtocolSnapshot, string>();
  const keyOf = (state: ProtocolSnapshot): string => {
    let key = serialized.get(state);
    if (key === undefined) {
      key = serialize(state);
      serialized.set(state, key);
    }
    return key;
  };
  const found = new Map<string, { state: ProtocolSnapshot; event?: ExplorationEvent; parent?: string }>();
  const serializeState = (state: ProtocolSnapshot, event?: ExplorationEvent, before?: ProtocolSnapshot) => {
    const key = keyOf(state);
    if (!found.has(key)) found.set(key, { state, event, parent: before && keyOf(before) });
    return key;
  };
  const pathTo = (key: string): PathStep[] => {
    const steps: PathStep[] = [];
    for (let at: string | undefined = key; at !== undefined; at = found.get(at)?.parent) {
      const { state, event } = found.get(at)!;
      steps.push({ state, event: event ?? { type: "xstate.init" } });
    }
    return steps.reverse();
  };

  const endlessGrowth = endlessGrowthFinder({
    envId: env.id,
    userSerialize: options.serialize !== undefined,
    found,
    pathTo,
    keyOf,
    eventsOf,
    transition: (state, event) => logic.transition(state, event),
    describe: (path) => toCoveragePath(path, seed, task).steps,
  });

  // Past the limit: which context fields tell the states apart.
  const overLimit = (): string => {
    const distinct = new Map<string, Set<string>>();
    for (const { state } of found.values())
      for (const [field, value] of fieldsOf(state.machine.context)) {
        const values = distinct.get(field) ?? new Set<string>();
        distinct.set(field, values.add(jsonOf(value)));
      }
    const varying = [...distinct]
      .filter(([, values]) => values.size > 1)
      .sort((a, b) => b[1].size - a[1].size)
      .slice(0, 4)
      .map(([field, values]) => `${field} (${values.size} values)`);
    return `${env.id}: more than ${limit} states to explore: give fewer sample actions or tool results, raise \`limit\` (now ${limit}), or \`serialize\` fewer details of the context. ${
      varying.length > 0
        ? `Among the states explored, the context fields that vary most: ${varying.join(", ")}.`
        : "The states explored all have the same context: they differ in the machine's state, the tools in flight, or the observation."
    }`;
  };

  let explored = 0;
  let checkpoint = FIRST_CHECKPOINT;
  const events = (state: ProtocolSnapshot): ExplorationEvent[] => {
    // Called once for each new state.
    explored += 1;
    if (explored > limit) throw new RangeError(endlessGrowth(explored - 1) ?? overLimit());
    if (explored === checkpoint) {
      checkpoint *= 2;
      const endless = endlessGrowth(explored);
      if (endless) throw new RangeError(endless);
    }
    return eventsOf(state);
  };
  const adjacency = getAdjacencyMap(
    logic as never,
    { events, serializeState, limit: Number.POSITIVE_INFINITY } as never,
  ) as Record<
    string,
    { state: ProtocolSnapshot; transitions: Record<string, { event: ExplorationEvent; state: ProtocolSnapshot }> }
  >;
  const keys = [...found.keys()];
  const paths = keys.map((key) => toCoveragePath(pathTo(key), seed, task));
  const pathOf = new Map(keys.map((key, i) => [key, paths[i]]));
  const problems: CoverageProblem[] = [];
  // One problem per kind and state node (for invalid ones, per what is wrong): the first path found is a
  // shortest one; the others are counted.
  const grouped = new Map<string, { problem: CoverageProblem; count: number }>();
  const note = (group: string, problem: CoverageProblem) => {
    const seen = grouped.get(group);
    if (seen) seen.count += 1;
    else grouped.set(group, { problem, count: 1 });
  };
  const flush = () => {
    for (const { problem, count } of grouped.values())
      problems.push(count > 1 ? { ...problem, paths: count } : problem);
    grouped.clear();
  };

  // The machine's state nodes, and those some state reached.
  const stateNodes = getStateNodes(env.machine.root)
    .filter((node) => node.type === "atomic" || node.type === "final")
    .map((node) => node.id);
  const reached = new Set<string>();
  const reach = (snapshot: AnyMachineSnapshot | undefined) => {
    for (const node of snapshot?._nodes ?? [])
      if (node.type === "atomic" || node.type === "final") reached.add(node.id);
  };
  for (const key of keys) reach(adjacency[key].state.machine);
  // States left at once (eventless `always` transitions) show only in the microsteps of a transition.
  if (stateNodes.some((id) => !reached.has(id))) {
    try {
      for (const [snapshot] of getInitialMicrosteps(boundedMachineOf(env.machine), { task, seed })) reach(snapshot);
      for (const key of keys) {
        const from = adjacency[key].state;
        for (const { event } of Object.values(adjacency[key].transitions))
          for (const [snapshot] of getMicrosteps(boundedMachineOf(env.machine), from.machine, event as never))
            reach(snapshot);
        if (stateNodes.every((id) => reached.has(id))) break;
      }
    } catch {
      // A transition that throws is reported below, on the path that leads to it.
    }
  }
  // Problems on arrival: silent states, invalid observations or rewards.
  for (const path of paths)
    if (path.state.problem) {
      const kind = path.state.problem.startsWith("the machine waits") ? "silent" : "invalid";
      const detail = `${JSON.stringify(path.state.machine?.value)}: ${path.state.problem}`;
      // Observations shown differ from path to path; what is wrong with them does not.
      // Likewise the values an impure transition gave: the field it gave them in is what is wrong.
      const what = detail
        .replace(/the observation "(?:[^"\\]|\\.)*"(?: \(\d+ characters\))? shows/g, "")
        .replace(/(run twice, it gave (?:context\.\S+|the state|the emitted)) .*?(; a guard or action draws)/, "$1$2");
      note(`${kind}\n${what}`, {
        kind,
        detail,
        path: path.steps,
      });
    }
  flush();
  // Exploration stops where such a problem occurs, so it may be all that keeps later states unreached.
  const stopped = problems.length > 0 ? " (exploration stops at the problems above: fix those first)" : "";
  const unreachable = stateNodes.filter((id) => !reached.has(id));
  for (const id of unreachable)
    problems.push({
      kind: "unreachable",
      detail: `state ${id} is never reached with these actions and tool results${stopped}`,
    });

  // Every state must be able to end: walk back from the states that ended.
  const incoming = new Map<string, string[]>(keys.map((key) => [key, []]));
  let transitions = 0;
  for (const key of keys)
    for (const next of Object.values(adjacency[key].transitions)) {
      transitions += 1;
      incoming.get(keyOf(next.state))?.push(key);
    }
  // A state with a problem is where exploration stopped: whether it could end is unknown, so the states that lead
  // only to it are not called dead ends too (a NaN reward was also reported as a dead end of the state before).
  const canEnd = new Set(keys.filter((key) => adjacency[key].state.ended || adjacency[key].state.problem));
  const queue = [...canEnd];
  while (queue.length > 0)
    for (const from of incoming.get(queue.pop()!) ?? [])
      if (!canEnd.has(from)) {
        canEnd.add(from);
        queue.push(from);
      }
  for (const key of keys) {
    const state = adjacency[key].state;
    if (canEnd.has(key) || state.problem) continue;
    const detail = `${JSON.stringify(state.machine.value)}: no path from here ends the episode`;
    note(detail, { kind: "dead-end", detail, path: pathOf.get(key)?.steps });
  }
  flush();

  // No loops: a loop is an episode the environment never ends by itself.
  if (!options.allowCycles) {
    const color = new Map<string, 1 | 2>();
    type Edge = { readonly key: string; readonly event: ExplorationEvent };
    /** A loop reachable from `start`: the state it comes back to and the steps around it, in words. */
    const loop = (start: string): { entry: string; steps: string[] } | undefined => {
      const stack: { key: string; next: Edge[]; via?: ExplorationEvent }[] = [];
      const enter = (key: string, via?: ExplorationEvent) => {
        color.set(key, 1);
        stack.push({
          key,
          next: Object.values(adjacency[key].transitions).map((t) => ({ key: keyOf(t.state), event: t.event })),
          ...(via ? { via } : {}),
        });
      };
      enter(start);
      while (stack.length > 0) {
        const top = stack[stack.length - 1];
        const next = top.next.pop();
        if (next === undefined) {
          color.set(top.key, 2);
          stack.pop();
        } else if (color.get(next.key) === 1) {
          // The stack from the state the edge comes back to, then the edge itself: the loop's steps.
          const around = stack.slice(stack.findIndex((s) => s.key === next.key));
          const edges = [
            ...around.slice(1).map((s, i) => ({ from: around[i].key, event: s.via! })),
            { from: top.key, event: next.event },
          ];
          return { entry: next.key, steps: edges.map((e) => describeEvent(e.event, adjacency[e.from].state)) };
        } else if (!color.has(next.key)) enter(next.key, next.event);
      }
      return undefined;
    };
    for (const key of keys) {
      if (color.has(key)) continue;
      const cycle = loop(key);
      if (cycle === undefined) continue;
      const state = adjacency[cycle.entry].state;
      problems.push({
        kind: "endless",
        detail: `${JSON.stringify(state.machine.value)}: a path loops back to this state, so an episode can go on forever (count turns in the context and end at a limit, or pass allowCycles); the loop: ${cycle.steps.join(" → ")}`,
        path: pathOf.get(cycle.entry)?.steps,
      });
      break;
    }
  }

  return {
    states: keys.length,
    transitions,
    stateNodes,
    reached: [...reached].sort(),
    unreachable,
    ends: keys.filter((key) => adjacency[key].state.ended).length,
    paths,
    problems,
  };
};

/**
 * Thrown by checkCoverage when the report lists problems; `report` holds them all (the message shows the first 8).
 */
export class CoverageError extends Error {
  constructor(
    readonly env: string,
    readonly report: CoverageReport,
  ) {
    const shown = report.problems.slice(0, 8).map((p) => {
      const path = p.path ? `\n      path: ${p.path.length ? p.path.join(" → ") : "(the initial state)"}` : "";
      const paths = p.paths ? ` (reached by ${p.paths} paths; the shortest is shown)` : "";
      return `  - ${p.kind}: ${p.detail}${paths}${path}`;
    });
    const more =
      report.problems.length > shown.length ? [`  ... and ${report.problems.length - shown.length} more`] : [];
    super(
      [
        `environment ${env}: ${report.problems.length} coverage problem(s) in ${report.states} states (${report.transitions} transitions):`,
        ...shown,
        ...more,
      ].join("\n"),
    );
    this.name = "CoverageError";
  }
}

/**
 * Explores the machine and throws a CoverageError listing each problem with the shortest path to it (or a
 * RangeError when the exploration cannot finish: over `limit`, or an endless episode whose context grows).
 */
export const checkCoverage: {
  /** The report's paths' scripts have the environment's task type (`defineEnv` infers it). */
  <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task>;
  /** An environment of any task type, or a `task` of another type than its own: JSON tasks. */
  (env: EnvDefinition, options: CoverageOptions): CoverageReport;
} = <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task> => {
  checkEnvArgument("checkCoverage", env);
  const report = explore("checkCoverage", env, options);
  if (report.problems.length > 0) throw new CoverageError(env.id, report);
  return report;
};

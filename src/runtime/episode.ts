/**
 * One episode, live: the environment machine and the agent run as XState actors (the agent asks the shared
 * policy actor, at most one request in flight); every input and every derived event is appended to the journal before any consumer
 * sees it (write-ahead). Inputs (the agent's actions, tool results) are appended before they are delivered
 * to the machine.
 */
import type { Json } from "effect/Schema";
import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type EventObject,
  fromPromise,
  type InspectionEvent,
} from "xstate";
import type { EpisodeWriter, Journal } from "../journal/journal.ts";
import {
  ActionTooLongError,
  BODY_LIMIT_TEXT,
  EpisodeChain,
  episodeIdOf,
  MAX_BODY_BYTES,
  surelyTooLongToJournal,
} from "../journal/stamp.ts";
import { validatedEvents } from "../journal/validate.ts";
import { isAbortSignalShaped } from "../kernel/abort.ts";
import { asJournaled, canonicalJson } from "../kernel/canonical.ts";
import { allKeys, checkKnownKeys, EnvProtocolError, messageOf, shownValue, thrownFrom } from "../kernel/errors.ts";
import type { EpisodeEvent, EventBody, ToolResult } from "../kernel/events.ts";
import { splitSeed } from "../kernel/prng.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { createAgent } from "./agent.ts";
import {
  deadEndStates,
  deafToActionNote,
  EpisodeDerivation,
  misspelt,
  nestedFinalNote,
  waitingForTools,
} from "./derive.ts";
import {
  boundMicrosteps,
  checkDefinitionOnce,
  type EnvDefinition,
  endlessEventMessage,
  envThrownFrom,
  locateGuardThrows,
  recordedOptionsOf,
} from "./env.ts";
import { isHalted, onHalt, trackToolCall } from "./halt.ts";
import type { PolicyAction, PolicyRequest } from "./policy.ts";
import type { PolicyActor } from "./policy-actor.ts";
import { argumentsNotJson, executionOf, isDefinedTool, journaledArguments } from "./tool.ts";

/** Options of runEpisode; `Task` is the environment's task type (its record's `task` has it). */
export interface EpisodeOptions<Task extends Json = Json> {
  readonly env: EnvDefinition<Task>;
  readonly policy: PolicyActor;
  readonly journal: Journal;
  /** The episode's seed; turn t's policy seed is `${seed}:${t}`. */
  readonly seed: string;
  /** The task; drawn from the seed when absent. */
  readonly task?: Task;
  /** Defaults to an id derived from the seed. */
  readonly episode?: string;
  /** Receives every event after it is in the journal. */
  readonly onEvent?: (event: EpisodeEvent) => void;
  /**
   * Stops the episode when it aborts: it ends at once, journaled as aborted (`aborted: stopped: REASON`),
   * its tool calls' signals abort, and its promise resolves with that record.
   */
  readonly signal?: AbortSignal;
}

const EPISODE_OPTIONS = allKeys<EpisodeOptions>()([
  "env",
  "policy",
  "journal",
  "seed",
  "task",
  "episode",
  "onEvent",
  "signal",
]);

/**
 * A finished episode: its journaled events and its ending (the `episode.ended` event's reason, return, turns and
 * metrics). `Task` is its environment's task type: runEpisode, rollout, collect and evaluate give the records of an
 * `EnvDefinition<Task>` (from `defineEnv`) that type; code that takes the records of any environment keeps the
 * default, JSON.
 */
export interface EpisodeRecord<Task extends Json = Json> {
  readonly episode: string;
  readonly seed: string;
  readonly task: Task;
  readonly events: readonly EpisodeEvent[];
  /** Why the episode ended ("aborted: ..." when it was aborted). */
  readonly reason: string;
  /** Sum of the episode's rewards, process and outcome. */
  readonly return: number;
  readonly turns: number;
  /** The environment's metrics at the end (exact match, F1, success...). */
  readonly metrics: Readonly<Record<string, number>>;
  /**
   * Where the environment's code threw, for an episode it aborted ("file:line:column"; not journaled,
   * since a line number is not behaviour: an edit that moves it must not break replay).
   */
  readonly thrownAt?: string;
}

/**
 * Said wherever a success rate is shown while only some of the `ended` episodes (those not aborted)
 * reported a `success` metric: the rate is of those (record, train and eval say it the same way).
 * Undefined when all of them, or none, reported it.
 */
export const successOfSome = (reported: number, ended: number): string | undefined =>
  reported > 0 && reported < ended
    ? `success is of the ${reported} episode${reported === 1 ? "" : "s"} that report it; ${ended - reported} ended without a success metric (end(reason, { success: 0 }) counts a failure)`
    : undefined;

/**
 * The episodes whose end reported a `success` metric outside [0, 1] (`end(..., { success: 100 })`): success is read
 * as a rate, so their mean is none. Journals keep them as they are (old ones must replay); the summaries warn.
 */
export interface SuccessOutOfRange {
  /** How many episodes reported one. */
  readonly episodes: number;
  /** The first of them (as they came), and its success. */
  readonly episode: string;
  readonly success: number;
}

/** `seen`, with one more episode counted if its end's `success` metric is outside [0, 1]. */
export const countSuccessOutOfRange = (
  seen: SuccessOutOfRange | undefined,
  ended: { readonly episode: string; readonly metrics: Readonly<Record<string, number>> },
): SuccessOutOfRange | undefined => {
  const success = Object.hasOwn(ended.metrics, "success") ? ended.metrics.success : undefined;
  if (success === undefined || (success >= 0 && success <= 1)) return seen;
  return seen ? { ...seen, episodes: seen.episodes + 1 } : { episodes: 1, episode: ended.episode, success };
};

/**
 * The `success` metrics of episodes as they end (record's, across a --resume): the rate among those that
 * reported one, how many did, and those outside [0, 1] (countSuccessOutOfRange).
 */
export class SuccessTally {
  private sum = 0;
  /** How many episodes' ends reported `success`. */
  reported = 0;
  outOfRange: SuccessOutOfRange | undefined;

  add(ended: { readonly episode: string; readonly metrics: Readonly<Record<string, number>> }): void {
    if ("success" in ended.metrics) {
      this.reported += 1;
      this.sum += ended.metrics.success;
    }
    this.outOfRange = countSuccessOutOfRange(this.outOfRange, ended);
  }

  /** The mean success of the episodes that reported one; null when none did. */
  get rate(): number | null {
    return this.reported ? this.sum / this.reported : null;
  }
}

/**
 * Said wherever a success rate is shown while some episode's `success` was outside [0, 1] (record, train and
 * eval say it the same way): the rate shown is no rate.
 */
export const successOutOfRangeNote = (out: SuccessOutOfRange, episodes: number): string =>
  `${out.episodes} of ${episodes} episode${episodes === 1 ? "" : "s"} ended with a success metric outside [0, 1] ` +
  `(e.g. ${out.episode}: success ${out.success}), so the success shown is no rate: success is read as a rate, ` +
  "end(reason, { success }) with 1 for a success and 0 for a failure (a fraction between for partial success)";

/** Records a tool call; returns its arguments as plain JSON and what to call it ("search (call c3 of ep-7-0)"). */
type ToolCallRecorder = (
  child: AnyActorRef,
  tool: string,
  input: unknown,
  defined: boolean,
) => { readonly args: Json; readonly name: string };

/**
 * Called when a tool actor stops running (done, failed or stopped); records a done call's result as it is
 * sent to the actor that invoked the tool.
 */
type ToolResultRecorder = (child: AnyActorRef, done: { readonly output?: unknown } | undefined) => void;

/**
 * Each running episode's recorder and ending signal, found by the tool actors through their actor system.
 * The signal aborts, with the episode's reason, before the episode stops its actors: a tool cut off sees
 * why (a stopped rollout's reason, a turn limit) rather than the actor system's generic stop.
 */
const episodeOfSystem = new WeakMap<
  object,
  {
    record: ToolCallRecorder;
    returned: ToolResultRecorder;
    ending: AbortSignal;
    /** Tracks a call's work for a halt (halt.ts), while the episode runs. */
    track: (settling: Promise<unknown>, name: string) => void;
  }
>();

/**
 * Notes the type of the event the machine is taking (an inspection event per event sent to it), for an event
 * that never settles: XState's "Infinite loop detected" names neither it nor the state. Only the events sent
 * to the environment's own machine (agent.act, a tool's xstate.done.actor.*), as replay feeds them: not the
 * events its actions raise, whose microsteps are part of the event that set them off.
 */
const eventWatch = () => {
  let current: EventObject | undefined;
  return {
    inspect: (inspected: InspectionEvent) => {
      // The machine's own actor is its system's root: the one without a parent.
      if (inspected.type === "@xstate.event" && (inspected.actorRef as { _parent?: unknown })._parent === undefined)
        current = inspected.event;
    },
    get type() {
      return current?.type;
    },
    /** The event itself, taken again from the state before it to see where it loops (endlessEventMessage). */
    get event() {
      return current;
    },
  };
};

/**
 * The environment's machine with recording tool actors, built once per environment (building a machine
 * is costly): each tool actor finds its episode through the actor system it runs in.
 */
const recordingMachines = new WeakMap<EnvDefinition, AnyStateMachine>();
const recordingMachineFor = (env: EnvDefinition): AnyStateMachine => {
  let machine = recordingMachines.get(env);
  if (!machine) {
    const actors = Object.fromEntries(
      Object.entries(env.tools).map(([name, tool]) => {
        const defined = isDefinedTool(tool);
        const logic = fromPromise<ToolResult, unknown>(({ input, self, signal, system }) => {
          const running = episodeOfSystem.get(system);
          if (!running) return tool.call(input, signal);
          const call = running.record(self, name, input, defined);
          // Arguments JSON would change (a Date, a Map) are refused, not passed on as their JSON: the call fails.
          const refused = argumentsNotJson(tool, input);
          if (refused) return Promise.resolve(refused);
          const callSignal = AbortSignal.any([running.ending, signal]);
          const called = tool.call(call.args, callSignal);
          // A halted episode's calls are waited for (halt.ts): a defineTool call's own work, which may
          // outlive the call (it settles at once on its signal), or else the call.
          running.track(executionOf(callSignal) ?? called, call.name);
          return called;
        });
        // The step that settles the call as done is the one that sends the result to the invoking actor
        // (Actor.update relays `xstate.done.actor.<id>` right after it, in the same call): the result is
        // recorded here, before that send and so before the machine can take it (write-ahead).
        const recording: typeof logic = {
          ...logic,
          transition: (snapshot, event, scope) => {
            const next = logic.transition(snapshot, event, scope);
            if (snapshot.status === "active" && next.status !== "active")
              episodeOfSystem.get(scope.system)?.returned(scope.self, next.status === "done" ? next : undefined);
            return next;
          },
        };
        return [name, recording];
      }),
    );
    machine = env.machine.provide({ actors });
    locateGuardThrows(machine);
    boundMicrosteps(machine);
    recordingMachines.set(env, machine);
  }
  return machine;
};

/** What makes an action's event too long for a journal line, or undefined; cheap for an action of usual size. */
const tooLongToJournal = (acted: Extract<EventBody, { type: "agent.acted" }>): string | undefined => {
  // At most 6 bytes of JSON per character of text, 24 per number: measured only when that bound is passed.
  const numbers = acted.tokens.length * 2 + (acted.allowed ?? []).reduce((n, a) => n + (a?.length ?? 0), 0);
  if (acted.text.length * 6 + numbers * 24 <= MAX_BODY_BYTES) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(acted));
  if (bytes <= MAX_BODY_BYTES) return undefined;
  return (
    `${acted.text.length} characters, ${acted.tokens.length} tokens, ${bytes} bytes as JSON; ${BODY_LIMIT_TEXT} ` +
    "(cap the policy's output: a learned policy samples at most maxActionTokens)"
  );
};

/** Checks a policy's answer before it enters the journal: a broken policy aborts the episode, readably. */
const invalidAction = (action: PolicyAction, tokenizer: Tokenizer): string | undefined => {
  const vocabulary = tokenizer.size;
  if (typeof action !== "object" || action === null)
    return `the action is ${shownValue(action)}, not { tokens, text, logprobs, version }`;
  if (!Array.isArray(action.tokens))
    return action.tokens === undefined
      ? "no token ids"
      : `tokens is ${shownValue(action.tokens)}, not an array of token ids (the ids of tokenizer.encode(text))`;
  if (typeof action.text !== "string") return "text is not a string";
  if (!action.tokens.every((t) => Number.isInteger(t) && t >= 0 && t < vocabulary))
    return `token ids must be integers in [0, ${vocabulary})`;
  if (!Array.isArray(action.logprobs))
    return `logprobs is ${shownValue(action.logprobs)}, not an array (one per token; 0 for each where none are known)`;
  if (action.logprobs.length !== action.tokens.length)
    return `${action.logprobs?.length} logprobs for ${action.tokens.length} tokens`;
  if (!action.logprobs.every((l) => Number.isFinite(l) && l <= 1e-6)) return "logprobs must be finite and <= 0";
  if (!Number.isInteger(action.version) || action.version < 0)
    return `version ${action.version} is not a natural number`;
  if (action.allowed !== undefined && action.allowed.length !== action.tokens.length)
    return `${action.allowed.length} allowed lists for ${action.tokens.length} tokens`;
  return undefined;
};

/** Whether an action's tokens spell its text (checked after its length: decoding 20 MB takes seconds). */
const misspeltAction = (action: PolicyAction, tokenizer: Tokenizer): string | undefined => {
  const spelt = misspelt(tokenizer, action.tokens, action.text);
  if (spelt !== undefined)
    return `its text ${JSON.stringify(action.text.slice(0, 80))} is not what its tokens spell (${JSON.stringify(spelt.slice(0, 80))}) with its tokenizer; a policy's tokens are the truth: give text = tokenizer.decode(tokens)`;
  return undefined;
};

/**
 * An action surely too long for a journal line, told without decoding its tokens or writing its JSON (a runaway
 * generation of 20 MB took seconds of that before its refusal), or undefined: tooLongToJournal measures the rest.
 */
const surelyTooLong = (action: PolicyAction): string | undefined => {
  const allowed = (action.allowed ?? []).reduce((n, a) => n + (a?.length ?? 0), 0);
  const bytes = surelyTooLongToJournal(action.text, action.tokens.length + action.logprobs.length + allowed);
  return bytes === undefined
    ? undefined
    : `${action.text.length} characters, ${action.tokens.length} tokens, at least ${bytes} bytes as JSON; ${BODY_LIMIT_TEXT} ` +
        "(cap the policy's output: a learned policy samples at most maxActionTokens)";
};

/**
 * The parts an episode needs, checked up front: from plain JavaScript a missing part failed later as
 * "cannot read properties of undefined". `caller` names the function in the message.
 */
export const checkEpisodeParts = (
  caller: string,
  options: {
    readonly env?: unknown;
    readonly policy?: unknown;
    readonly journal?: unknown;
    readonly seed?: unknown;
    readonly signal?: unknown;
  },
): void => {
  const policy = options.policy as { request?: unknown; act?: unknown } | undefined;
  // Any object shaped as an AbortSignal is followed (a polyfill's, another realm's); another value failed deep
  // inside as "caller.addEventListener is not a function", naming neither the option nor what it was.
  const env = options.env as { task?: unknown; default?: { task?: unknown } } | undefined;
  const missing = [
    typeof env?.task !== "function" &&
      // `import * as env from "./my-env.ts"` (or `await import(...)`): the module, its environment one step in.
      (typeof env?.default?.task === "function"
        ? 'env: that is the environment\'s module; give its default export (import env from "./my-env.ts", or (await import(path)).default)'
        : typeof options.env === "string"
          ? `env: ${JSON.stringify(options.env)} is a name; give the environment itself (imported from its module, or await loadEnv(${JSON.stringify(options.env)}) of agent-r1-ts/learn)`
          : "env (an environment from defineEnv)"),
    typeof policy?.request !== "function" &&
      (typeof policy?.act === "function"
        ? "policy: that is a Policy; an episode takes it wrapped: new PolicyActor(policy)"
        : "policy (a PolicyActor: new PolicyActor(policy))"),
    typeof (options.journal as { create?: unknown } | undefined)?.create !== "function" &&
      "journal (e.g. new MemoryJournal() or new JsonlJournal(dir))",
    typeof options.seed !== "string" &&
      `seed (a string: it names the episode's journal and draws its task; got ${options.seed === undefined ? "none" : typeof options.seed})`,
    options.signal !== undefined &&
      !isAbortSignalShaped(options.signal) &&
      `signal (an AbortSignal, or an object shaped as one: aborted, addEventListener, removeEventListener; got ${shownValue(options.signal)})`,
  ].filter(Boolean);
  if (missing.length > 0) throw new TypeError(`${caller}: missing or wrong option: ${missing.join("; ")}`);
  // A copy of an environment (`{ ...env, maxTurns: 0 }`) is checked as defineEnv checks one, once.
  checkDefinitionOnce(options.env as EnvDefinition);
};

/** The runtime's turn limit of an environment without `maxTurns`: an episode that takes more actions is aborted. */
export const DEFAULT_MAX_TURNS = 64;

/**
 * Runs one episode live, journaling every event before anything sees it. An environment that throws or breaks the
 * protocol ends the episode as aborted (a record, not a rejection); the promise rejects when the journal fails.
 */
export const runEpisode: {
  /** The record's `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
  <Task extends Json>(options: EpisodeOptions<Task>): Promise<EpisodeRecord<Task>>;
  /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): a JSON task. */
  (options: EpisodeOptions): Promise<EpisodeRecord>;
} = <Task extends Json>(options: EpisodeOptions<Task>): Promise<EpisodeRecord<Task>> =>
  new Promise<EpisodeRecord<Task>>((resolveEpisode, rejectEpisode) => {
    checkKnownKeys("runEpisode", options, EPISODE_OPTIONS);
    checkEpisodeParts("runEpisode", options);
    const { env, policy, journal, seed } = options;
    // As rollout checks its tasks: the journal keeps the task as JSON and replay starts from that, so the live
    // machine starts from it too: without its undefined fields (JSON drops them; `"hint" in task` is false in both),
    // and a task JSON would change (a Date, NaN, an undefined array item) is refused, before anything is journaled.
    const journaled = asJournaled(options.task ?? env.task(seed), "task");
    if (journaled.problem !== undefined)
      throw new EnvProtocolError({
        env: env.id,
        detail: `episode ${JSON.stringify(seed)}'s task is not plain JSON: ${journaled.problem}; a task is journaled as JSON and replayed from it`,
      });
    const task = journaled.value;
    // The machine gets a copy of its own, as replay starts from the journal's: a machine that changes its task in
    // place (pushes into one of its arrays) changed the object every episode of that task shares (a group's, or
    // one env.task returns from a list), and a later episode started from the changed task, live only, so replay
    // diverged. Made as replay's is, from the JSON (about 0.5-2.5 us for the built-in environments' tasks).
    // Each policy request gets one too: a policy that changed `request.task` changed what this episode's later
    // requests, the group's other episodes (and their machines) and the record saw.
    const copyOfTask = (): Task =>
      typeof task === "object" && task !== null ? JSON.parse(JSON.stringify(task)) : task;
    const episode = options.episode ?? episodeIdOf(seed);
    const maxTurns = env.maxTurns ?? DEFAULT_MAX_TURNS;
    const tokenizer = policy.policy.tokenizer;
    const chain = new EpisodeChain(episode);
    const derivation = new EpisodeDerivation(env.id, tokenizer);
    // The runtime's own events (each built from the schema's types and stamped here): replay and the learner take
    // them as they are, as they take a reader's (checkGivenEvents checks only events from elsewhere). Marked once
    // the episode has ended (a marked array that changes is checked again).
    const events: EpisodeEvent[] = [];
    let writer: EpisodeWriter | undefined;
    let delivered: Promise<void> = Promise.resolve();
    let journalFailure: unknown;
    let finished = false;
    let callCounter = 0;

    /** Stamps and appends; consumers see the event only after the append. Resolves once it is appended. */
    const record = (body: EventBody): Promise<void> => {
      // Halted: nothing more is journaled (the journal stays cut short, as the process's exit leaves it).
      if (halted) return Promise.resolve();
      if (journalFailure) {
        // The episode is already rejected with it (failJournal); callers that do not wait must not leave it unhandled.
        const refused = Promise.reject(journalFailure);
        refused.catch(() => {});
        return refused;
      }
      let event: EpisodeEvent;
      try {
        event = chain.stamp(body);
      } catch (cause) {
        // Not writable as canonical JSON (an environment's own text with a lone surrogate, say): the episode
        // aborts and names the event; what was recorded before it stays. The end itself failing rejects.
        if (body.type === "episode.ended") throw cause;
        void finish(`could not record ${body.type}: ${messageOf(cause)}`);
        return Promise.resolve();
      }
      events.push(event);
      const appended = writer!.append(event);
      appended.catch(failJournal);
      delivered = delivered.then(() => appended).then(() => options.onEvent?.(event));
      // Awaited by finish(); after a journal failure the episode is rejected by failJournal instead, and
      // nothing awaits it (unhandled, it crashed the process after the command had reported the failure).
      delivered.catch(() => {});
      return appended;
    };

    /** The journal refused an event: nothing more can be recorded, so the episode stops now, rejected. */
    const failJournal = (cause: unknown) => {
      if (journalFailure) return;
      journalFailure = cause;
      if (finished) return;
      finished = true;
      stopListening();
      endTools(() => new DOMException(`the episode stopped: its journal failed: ${messageOf(cause)}`, "AbortError"));
      envActor?.stop();
      agent.stop();
      writer
        ?.close()
        .catch(() => {})
        .finally(() => rejectEpisode(cause));
    };

    /** The call each tool child is running, by the machine's child id. */
    const callOfChild = new Map<string, string>();
    /**
     * Tool actors whose call may still see the episode's `ending` signal: those running a call of a tool
     * defineTool made (its `call` drops the signal when it settles, which is after its actor stops running),
     * and every actor that called a tool made otherwise (`undefinedToolCalled`: it may keep the signal).
     */
    const toolsRunning = new Set<AnyActorRef>();
    let undefinedToolCalled = false;
    const toolCalled: ToolCallRecorder = (child, tool, input, defined) => {
      const call = `c${callCounter++}`;
      callOfChild.set(child.id, call);
      toolsRunning.add(child);
      if (!defined) undefinedToolCalled = true;
      const args = journaledArguments(input);
      void record({ type: "tool.called", turn: derivation.turn, call, actor: child.id, tool, args });
      return { args, name: `${tool} (call ${call} of ${episode})` };
    };

    /**
     * A tool result is recorded when it is delivered to the machine, not when the tool finishes: results
     * that arrive together are then recorded in the order the machine takes them, which replay follows.
     * The append happens before delivery (write-ahead). A result the machine stopped waiting for is
     * never delivered, so never recorded.
     */
    const toolReturned: ToolResultRecorder = (child, done) => {
      toolsRunning.delete(child);
      // Only the environment machine's own tool calls: a nested actor's tool result goes to that actor.
      if (done === undefined || finished || child._parent !== envActor) return;
      const call = callOfChild.get(child.id);
      if (call === undefined) return;
      void record({ type: "tool.returned", call, result: done.output as ToolResult });
    };

    /**
     * Aborts `ending` with the episode's reason, where a tool can see it: no tool call holds the signal
     * otherwise, and the reason (a DOMException, with its stack) and the abort cost about as much as a step.
     */
    const endTools = (reason: () => DOMException) => {
      if (toolsRunning.size > 0 || undefinedToolCalled) ending.abort(reason());
    };

    let envActor: AnyActorRef;
    /** Aborted with the episode's reason just before its actors stop (tools still running see it). */
    const ending = new AbortController();

    const finish = async (abort?: string, thrownAt?: string) => {
      if (finished) return;
      finished = true;
      stopListening();
      try {
        const body = derivation.ended(abort?.toWellFormed());
        record(body);
        // Named AbortError, as fetch and other APIs name a cancellation, so a tool's own checks see one.
        endTools(() => new DOMException(`the episode ended: ${(body as { reason: string }).reason}`, "AbortError"));
        envActor?.stop();
        agent.stop();
        await writer!.close();
        await delivered;
        if (journalFailure) throw journalFailure;
        const ended = body as Extract<EventBody, { type: "episode.ended" }>;
        resolveEpisode({
          episode,
          seed,
          task,
          events: validatedEvents(events),
          reason: ended.reason,
          return: ended.return,
          turns: ended.turns,
          metrics: ended.metrics,
          ...(thrownAt ? { thrownAt } : {}),
        });
      } catch (cause) {
        rejectEpisode(cause);
      }
    };

    const abort = (reason: string) => void finish(reason);
    const onStop = () => abort(`stopped: ${messageOf(options.signal?.reason ?? "the signal aborted")}`);

    /**
     * The process halts (a stopped record, halt.ts): the episode stops where it is, journaling nothing more
     * (no end: its journal stays cut short, to be recorded again by `record --resume`), its tool calls'
     * signals abort, and it never settles (the process exits).
     */
    let halted = false;
    const halt = (reason: string) => {
      if (finished) return;
      finished = true;
      halted = true;
      stopListening();
      endTools(() => new DOMException(`the episode was halted: ${reason}`, "AbortError"));
      envActor?.stop();
      agent.stop();
    };
    const stopHalt = onHalt(halt);
    /** The ends of this episode's calls' tracking (halt.ts): an episode that ended is not waited for by a halt. */
    const tracked = new Set<() => void>();
    const track = (settling: Promise<unknown>, name: string) => void tracked.add(trackToolCall(settling, name));
    const stopListening = () => {
      stopHalt();
      if (!halted) for (const untrack of tracked) untrack();
      tracked.clear();
      options.signal?.removeEventListener("abort", onStop);
    };
    /** The event the machine is taking, and the state it took the last one to (for endlessEventMessage). */
    const taking = eventWatch();
    let settled: AnyMachineSnapshot | undefined;
    let unheard: string | undefined;
    const envError = (cause: unknown) =>
      void finish(
        `environment error: ${
          endlessEventMessage(cause, taking.type, settled?.value, {
            machine: recordingMachineFor(env),
            ...(settled ? { before: settled } : {}),
            ...(taking.event ? { event: taking.event } : {}),
            input: { task: copyOfTask(), seed },
          }) ?? messageOf(cause)
        }`,
        envThrownFrom(cause),
      );

    /** The agent actor (src/runtime/agent.ts): it asks the policy, one request at a time, and emits the answer. */
    const agent = createAgent(policy);
    const askAgent = () => {
      if (derivation.actions >= maxTurns) return abort(`turn limit ${maxTurns} reached`);
      const turn = derivation.actions;
      agent.send({
        type: "agent.observe",
        request: {
          episode,
          turn,
          seed: splitSeed(seed, turn),
          task: copyOfTask(),
          history: [...derivation.history],
          context: [...derivation.context],
        },
      });
    };
    agent.on("agent.decided", ({ action, request }) => void agentDecided(action, request));
    agent.on("agent.failed", ({ error }) => {
      if (!finished) agentFailed(error);
    });

    const agentDecided = async (action: PolicyAction, request: PolicyRequest) => {
      if (finished) return;
      const problem = invalidAction(action, tokenizer);
      if (problem) return abort(`policy ${policy.policy.id} returned an invalid action: ${problem}`);
      const surely = surelyTooLong(action);
      if (surely) return abort(`policy ${policy.policy.id} returned an action too long to journal: ${surely}`);
      const spelt = misspeltAction(action, tokenizer);
      if (spelt) return abort(`policy ${policy.policy.id} returned an invalid action: ${spelt}`);
      // A lone surrogate is not Unicode and cannot be journaled: it becomes U+FFFD, as UTF-8 would make it.
      const text = action.text.toWellFormed();
      const acted: EventBody = {
        type: "agent.acted",
        turn: request.turn,
        tokens: [...action.tokens],
        text,
        logprobs: [...action.logprobs],
        policy: { id: policy.policy.id, version: action.version },
        ...(action.allowed ? { allowed: action.allowed.map((a) => (a ? [...a] : null)) } : {}),
      };
      // A runaway generation (an LLM that never stopped) too long for a journal line: refused here, ending only
      // its episode, as an invalid action does. The journal's refusal failed the whole run, blaming tool results.
      const tooLong = tooLongToJournal(acted);
      if (tooLong) return abort(`policy ${policy.policy.id} returned an action too long to journal: ${tooLong}`);
      try {
        await record(acted);
      } catch {
        // The journal refused it: failJournal has stopped the episode and rejected it with that error.
        return;
      }
      if (finished) return;
      derivation.acted(text, action.tokens);
      // The state that asked for the action, when neither it nor a state above it hears agent.act: the action will
      // take no transition, and the episode's end says why (a forgotten or misspelt `on`).
      unheard = settled === undefined ? undefined : deafToActionNote(settled);
      envActor.send({ type: "agent.act", turn: request.turn, text, tokens: action.tokens });
    };
    const agentFailed = (cause: unknown) =>
      cause instanceof ActionTooLongError
        ? abort(`policy ${policy.policy.id} returned an action too long to journal: ${cause.detail}`)
        : cause instanceof EnvProtocolError
          ? // The environment's legalActions, asked by constrained decoding, failed: its code, not the policy's.
            void finish(
              `environment error: ${cause.detail} (asked by policy ${policy.policy.id}'s constrained decoding)`,
              thrownFrom(cause),
            )
          : void finish(`policy ${policy.policy.id} failed: ${messageOf(cause)}`, thrownFrom(cause));

    const onEmitted = (emitted: { type: string }) => {
      if (finished) return;
      try {
        const body = derivation.emitted(emitted);
        if (body) void record(body);
      } catch (cause) {
        envError(cause);
      }
    };

    const onMacrostep = (snapshot: Parameters<Parameters<AnyActorRef["subscribe"]>[0]>[0]) => {
      if (finished) return;
      settled = snapshot as AnyMachineSnapshot;
      try {
        void record(derivation.transitioned(snapshot));
      } catch (cause) {
        return envError(cause);
      }
      if (derivation.ending || snapshot.status === "done") return void finish();
      const waiting = waitingForTools(snapshot, env.tools);
      if (derivation.awaitingAction && !waiting) return askAgent();
      const deadEnd = waiting ? [] : deadEndStates(snapshot);
      const nestedFinal = waiting || deadEnd.length > 0 ? undefined : nestedFinalNote(snapshot);
      if (!waiting)
        abort(
          `environment error: the machine is in state ${canonicalJson(snapshot.value)} waiting for nothing (no observe(), no end(), no tool call in flight): ${
            derivation.history.length === 0
              ? "it started without observing: give its entry (or its first state's) an observe() with the task, or a tool call"
              : deadEnd.length > 0
                ? `${deadEnd.map((s) => `"${s}"`).join(", ")} has no transition (no on, always or invoke, nor any state above it) and is not final: make it a final state (type: "final"), or end() the episode on the transition into it`
                : nestedFinal !== undefined
                  ? nestedFinal
                  : unheard !== undefined
                    ? unheard
                    : "the last input (an action, or a tool's result) took no transition that observes, ends or calls a tool; end each agent.act list with an unguarded fallback (a format penalty and observe()), and observe() on entering a state that waits for the agent; a state that runs several tools at once needs a way out once every result is in (an always transition whose guard then holds)"
          }`,
        );
    };

    // A configured variant's options (absent for the environment as defined: its journals are as before).
    const envOptions = recordedOptionsOf(env);
    const recordedEnvOptions = envOptions === undefined ? {} : { options: { ...envOptions } };
    const start = async () => {
      writer = await journal.create(episode);
      if (finished) return;
      await record({
        type: "episode.started",
        env: { id: env.id, version: env.version, ...recordedEnvOptions },
        task,
        seed,
        policy: { id: policy.policy.id, version: policy.policy.version },
        tokenizer: tokenizer.id,
      });
      if (finished) return;
      agent.start();
      envActor = createActor(recordingMachineFor(env), {
        input: { task: copyOfTask(), seed },
        inspect: taking.inspect,
      });
      episodeOfSystem.set(envActor.system, {
        record: toolCalled,
        returned: toolReturned,
        ending: ending.signal,
        track,
      });
      envActor.on("*", onEmitted);
      envActor.subscribe({
        next: onMacrostep,
        error: envError,
      });
      envActor.start();
      if (options.signal?.aborted) onStop();
      else options.signal?.addEventListener("abort", onStop, { once: true });
    };
    // Halted before it started: it never runs (nor settles: the process exits).
    if (isHalted()) return stopHalt();
    start().catch((cause) => {
      stopListening();
      rejectEpisode(cause);
    });
  });

/**
 * Replay: fold an episode's recorded inputs (the agent's actions, the tools' results) through the
 * environment machine's pure functions `initialTransition` / `transition`. No tool and no policy is
 * called: the machine's tool invocations are matched to recorded calls and answered with the recorded
 * results, in the recorded order. Every derived event is re-derived by the same code the live runtime
 * uses; with `verify`, each one must equal the record, or a NonDeterminismError names the episode, the
 * seq, both versions and the usual cause. A journal of another environment id is refused, verifying or not,
 * with an EnvMismatchError (re-rewarding takes a variant of the environment that keeps its id).
 */
import { fileURLToPath } from "node:url";
import type { Json } from "effect/Schema";
import { type AnyMachineSnapshot, type EventObject, initialTransition, transition } from "xstate";
import { tooLongToRecord } from "../journal/stamp.ts";
import { checkGivenEvents } from "../journal/validate.ts";
import { canonicalJson, hashValue } from "../kernel/canonical.ts";
import {
  allKeys,
  checkBooleans,
  checkKnownKeys,
  EnvMismatchError,
  messageOf,
  NonDeterminismError,
  shownValue,
} from "../kernel/errors.ts";
import type { EpisodeEvent, EventBody, RewardBody } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { parseAction } from "../runtime/action-format.ts";
import { ABORTED, EpisodeDerivation, isPlaced, misspelt, waitingForTools } from "../runtime/derive.ts";
import {
  boundedMachineOf,
  checkEnvArgument,
  type EnvDefinition,
  endlessEventMessage,
  envThrownFrom,
  legacyEnvErrorMessage,
} from "../runtime/env.ts";
import { journaledArguments } from "../runtime/tool.ts";

/** This file: replay runs the machine synchronously, so frames from its own on are its callers' (envThrownFrom). */
const THIS_FILE = fileURLToPath(import.meta.url);

/** Options of replayEpisode. */
export interface ReplayOptions {
  /** Compare every re-derived event with the record (default true). Off: derive afresh (re-reward). */
  readonly verify?: boolean;
  /** Tokenizer for observation tokens; defaults to the environment's when its id matches the record's. */
  readonly tokenizer?: Tokenizer;
  /** Named in error messages. */
  readonly file?: string;
}

/** The keys of ReplayOptions. */
const REPLAY_OPTIONS = allKeys<ReplayOptions>()(["verify", "tokenizer", "file"]);

/** An episode replayed: its stream, rewards and ending as the machine derives them now. */
export interface ReplayResult {
  readonly episode: string;
  /** The replayed stream: recorded inputs and re-derived events, in order, without envelopes. */
  readonly events: readonly EventBody[];
  /** The replayed stream's rewards (re-derived ones, when not verifying), in order. */
  readonly rewards: readonly RewardBody[];
  /** Sum of the rewards. */
  readonly return: number;
  /** Why the episode ended (the `episode.ended` reason). */
  readonly reason: string;
  readonly turns: number;
  /** Whether observation tokens were checked (false when the record's tokenizer was not available). */
  readonly tokensVerified: boolean;
  /**
   * Where the environment's code threw ("file:line:column", as a live run's record says it), for an episode that
   * ended in an environment error replay threw again. Found by the replay, not read from the journal: a journal
   * keeps the message only (a line is not behaviour, and paths differ between machines).
   */
  readonly thrownAt?: string;
}

/**
 * Said with each divergence: the machine took the recorded inputs to other events. In a journal whose
 * digests and chain hold, that is code the environment runs that is not pure, or a changed environment.
 */
const IMPURE =
  "the usual cause is a guard, action, observe, reward or end function that is not pure (Math.random, " +
  "Date.now, timers, reading outside state that changes, or changing the context in place instead of through " +
  "assign, which happens live and not in replay); or the environment changed without a new version";
/**
 * Said too for a journal the property kit wrote (its scripted policy is `script`, SCRIPT_POLICY in testing): its
 * counterexamples are often of a variant under test (a broken reward), which the module's export is not.
 */
const KIT_VARIANT =
  '; this journal was played by the property kit (policy "script"): a counterexample of a variant under test ' +
  "(a broken reward the module does not export) diverges against the module's export by design: replay it " +
  "against that variant in code, replayEpisode(await readJournalFile(path), variant)";
/**
 * Said too for an environment with variants: a journal replayed against another variant than its own (one from
 * before journals recorded their options, or one replayed from code against the export) replays as another.
 */
const CONFIGURED =
  " (or the journal is of another variant than the one it was replayed against: a journal from before journals recorded their options, or one replayed from code against the environment as exported; a configure() option that changes the machine replays as another environment)";

/**
 * Said first when the divergence follows an action the parser has read otherwise since 2026-12-03: two tags of
 * one name, or a tag named after an object built-in (`<toString>`), is malformed now.
 */
const reparsed = (text: string, seq: number, tools: EnvDefinition["tools"]): string => {
  const parsed = parseAction(text, tools);
  if (parsed.kind !== "malformed") return "";
  const name = /^\s*<([^>\s/]+)>/.exec(text)?.[1];
  const doubled = parsed.reason.startsWith("more than one <");
  if (!doubled && !(name !== undefined && name in Object.prototype)) return "";
  return `the action at seq ${seq} (${brief(text)}) ${doubled ? `holds two <${name}> tags` : `is tagged <${name}>, an object built-in`}, which is malformed since 2026-12-03 and was read otherwise before: a journal recorded earlier diverges at it, however pure its environment; record it again`;
};

/** A derived event the journal cannot hold; the live runtime ended the episode on it, with this reason. */
class Unrecordable {
  constructor(readonly reason: string) {}
}

const bodyOf = (event: EpisodeEvent): EventBody => {
  const { v: _v, episode: _e, seq: _s, prev: _p, digest: _d, meta: _m, ...body } = event;
  return body as EventBody;
};

/** A value as a short line of JSON. */
const brief = (value: unknown): string => {
  const json = value === undefined ? "(absent)" : canonicalJson(value as Json);
  return json.length > 80 ? `${json.slice(0, 80)}…` : json;
};

/**
 * What a transition whose state hash diverged did to the context. The journal keeps only the context's
 * hash, so the recorded context cannot be shown; this names the fields this transition changed in replay
 * (the usual culprits: a Date.now or Math.random written into one) and, when putting one field back makes
 * the recorded hash, that field for certain.
 */
const contextDifference = (
  record: Extract<EpisodeEvent, { type: "env.transitioned" }>,
  body: Extract<EventBody, { type: "env.transitioned" }>,
  /** The canonical JSON of { value, context } at the last matched transition ("" before the first), and now. */
  beforeJson: string,
  afterJson: string,
): string => {
  if (canonicalJson(record.state) !== canonicalJson(body.state)) return "";
  const said = "\n  the state is the same; the context differs (a journal keeps only the context's hash)";
  try {
    const contextOf = (json: string): unknown =>
      json === "" ? undefined : (JSON.parse(json) as { context: unknown }).context;
    const before = contextOf(beforeJson);
    const after = contextOf(afterJson);
    const isRecord = (v: unknown): v is Record<string, unknown> =>
      typeof v === "object" && v !== null && !Array.isArray(v);
    if (!isRecord(after) || !isRecord(before)) return `${said}; replayed context: ${brief(after)}`;
    // Own fields only: a field named like a built-in (valueOf) must not find Object.prototype's.
    const field = (o: Record<string, unknown>, key: string) => (Object.hasOwn(o, key) ? o[key] : undefined);
    const full = (v: unknown) => (v === undefined ? "" : canonicalJson(v as Json));
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
      (key) => full(field(before, key)) !== full(field(after, key)),
    );
    for (const key of changed) {
      const { [key]: _, ...rest } = after;
      const restored = Object.hasOwn(before, key) ? { ...rest, [key]: before[key] } : rest;
      if (hashValue({ value: body.state, context: restored }) === record.hash)
        return `${said}: context.${key} was ${brief(field(before, key))} when recorded, and replay made it ${brief(field(after, key))}`;
    }
    if (changed.length === 0)
      return `${said}; this transition changed no field in replay, so the recording changed one (an action that changes the context in place, not through assign, does so live only)`;
    // No field put back gives the recorded hash: the culprit may be a field the list does not show (an action
    // that changed it in place, live only) as well as another value in one it does.
    return `${said}; this transition changed in replay: ${changed.map((key) => `context.${key} ${brief(field(before, key))} -> ${brief(field(after, key))}`).join(", ")}, and putting ${changed.length === 1 ? "it" : "any one of them"} back does not give the recorded hash: the recording differs in a field this list does not show (changed live only: in place, not through assign) or holds another value in one it does (Date.now, Math.random)`;
  } catch {
    // A hint that fails must not hide the divergence it would explain.
    return said;
  }
};

/**
 * Replays one episode's recorded events through `env`'s machine without calling tools or a policy. Throws
 * EnvMismatchError when the journal is of another environment id, and, when verifying, NonDeterminismError at the
 * first derived event that differs from the record.
 */
export const replayEpisode = (
  recorded: readonly EpisodeEvent[],
  env: EnvDefinition,
  options: ReplayOptions = {},
): ReplayResult => {
  checkKnownKeys("replayEpisode", options, REPLAY_OPTIONS);
  // From plain JavaScript, `verify: "false"` is truthy: it verified, and a re-rewarding variant diverged.
  checkBooleans(
    options,
    ["verify"],
    (rule, value) => new TypeError(`replayEpisode: ${rule}, got ${shownValue(value)}`),
  );
  checkGivenEvents(recorded, "replayEpisode");
  // A failed import (undefined) read as "Cannot read properties of undefined (reading 'id')".
  checkEnvArgument("replayEpisode", env, "the second argument");
  const verify = options.verify ?? true;
  const started = recorded[0];
  const episode = started?.episode ?? "(empty)";
  /** A journal that cannot be replayed here at all: the message says why, no hint is needed. */
  const refuse = (seq: number, expected: string, actual: string): never => {
    throw new NonDeterminismError({ episode, seq, file: options.file, expected, actual });
  };
  /** The machine derived something else from the same inputs. */
  const diverge = (seq: number, expected: string, actual: string): never => {
    const usual =
      (env.configure ? IMPURE + CONFIGURED : IMPURE) +
      (started?.type === "episode.started" && started.policy.id === "script" ? KIT_VARIANT : "");
    const parse = lastAction ? reparsed(lastAction.text, lastAction.seq, env.tools) : "";
    const hint = parse ? `${parse}; if it was recorded later, ${usual}` : usual;
    throw new NonDeterminismError({ episode, seq, file: options.file, expected, actual, hint });
  };
  /** The last action fed to the machine, whose parse may have changed since it was recorded. */
  let lastAction: { readonly text: string; readonly seq: number } | undefined;
  if (started?.type !== "episode.started") return refuse(0, "episode.started", "no episode.started first");
  // Another environment's journal: refused with or without verify (re-reward keeps the id).
  if (started.env.id !== env.id)
    throw new EnvMismatchError({ episode, file: options.file, recorded: started.env.id, given: env.id, verify });
  if (verify && started.env.version !== env.version)
    refuse(
      0,
      `environment ${env.id} version ${started.env.version}`,
      `this build has version ${env.version}; replay the journal with the version that recorded it`,
    );
  const tokenizer = options.tokenizer ?? (env.tokenizer.id === started.tokenizer ? env.tokenizer : undefined);
  const tokensVerified = tokenizer !== undefined && tokenizer.id === started.tokenizer;
  const derivation = new EpisodeDerivation(env.id, tokensVerified ? tokenizer : undefined);
  const out: EventBody[] = [bodyOf(started)];
  let cursor = 1;
  let callCounter = 0;
  /** Tool calls in flight: call id -> the machine's child actor id. */
  const pending = new Map<string, string>();

  /** The recorded tool calls by call id: deriving afresh, a call must still be the one whose result was recorded. */
  const recordedCalls = new Map(recorded.flatMap((e) => (e.type === "tool.called" ? [[e.call, e] as const] : [])));

  /** The canonical JSON of { value, context } at the last transition that matched its record. */
  let matchedTransition = "";

  /** A re-derived event: compared with the record (verify) and kept. */
  const derived = (body: EventBody) => {
    // Not writable as canonical JSON (the environment's own text with a lone surrogate, say): the live
    // runtime recorded what came before it and ended the episode there, so replay does the same.
    let json: string;
    try {
      json = canonicalJson(body);
    } catch (cause) {
      throw new Unrecordable(`could not record ${body.type}: ${messageOf(cause)}`);
    }
    // Too long for a journal line: the live runtime ended the episode there too (EpisodeChain.stamp).
    const tooLong = tooLongToRecord(body, json);
    if (tooLong) throw new Unrecordable(`could not record ${body.type}: ${tooLong}`);
    const record = recorded[cursor];
    if (verify) {
      if (!record) {
        // A journal cut short (a killed run, or one still recording) is no divergence: said as `replay --verify`
        // says it, not with the hint about impure guards, which sent the reader hunting for a bug in the machine.
        if (recorded.at(-1)?.type !== "episode.ended")
          refuse(
            recorded.length,
            "(end of journal)",
            `${body.type}: the episode has no episode.ended (the journal stops after ${recorded.length} events: cut short, or still recording); only an ended episode verifies (replay it with { verify: false } to re-derive what it holds)`,
          );
        diverge(recorded.length, "(end of journal)", json);
      }
      let actual = body;
      if (!tokensVerified && body.type === "env.observed" && record.type === "env.observed") {
        actual = { ...body, tokens: record.tokens };
        json = canonicalJson(actual);
      }
      const expected = canonicalJson(bodyOf(record));
      if (json !== expected)
        diverge(
          record.seq,
          expected,
          body.type === "env.transitioned" && record.type === "env.transitioned"
            ? `${json}${contextDifference(record, body, matchedTransition, derivation.lastTransition)}`
            : json,
        );
      if (body.type === "env.transitioned") matchedTransition = derivation.lastTransition;
      out.push(actual);
      cursor += 1;
    } else {
      // Deriving afresh: skip the record's derived events; keep its inputs for the fold. A tool call must still
      // be the recorded one: its recorded result is fed to the machine as this call's, and it answers the
      // recorded arguments only (a variant that asks for something else would be given another call's result).
      if (body.type === "tool.called") {
        const made = recordedCalls.get(body.call);
        const call = (c: { tool: string; args: Json }) => `${c.tool}(${brief(c.args)})`;
        const same = (c: { tool: string; args: Json }) => canonicalJson([c.tool, c.args]);
        if (made !== undefined && same(made) !== same(body))
          refuse(
            made.seq,
            `call ${body.call}: ${call(made)}`,
            `this environment calls ${call(body)} as call ${body.call}: the recorded result answers ${call(made)}, not this call, so re-deriving the episode would feed it another call's result (a variant that re-rewards recorded episodes must make the tool calls they made)`,
          );
      }
      out.push(body);
    }
  };

  let snapshot: AnyMachineSnapshot;
  const input = { task: started.task, seed: started.seed };
  // The machine as the live runtime runs it: one event's microsteps bounded (an endless one is an env error).
  const machine = boundedMachineOf(env.machine);
  /** The type of the event being taken, for an event that never settles (endlessEventMessage). */
  let taking: EventObject = { type: "xstate.init" };
  let ended = false;
  /** Where the environment's code threw, when the episode ended so (ReplayResult.thrownAt). */
  let thrownAt: string | undefined;

  type Action = { type: string; params?: unknown };
  const spawnsTool = (action: Action) =>
    action.type === "xstate.spawnChild" &&
    typeof (action.params as { src?: unknown } | undefined)?.src === "string" &&
    (action.params as { src: string }).src in env.tools;
  /**
   * `initial`: the machine's first transition. A live actor starts the children of its initial state before
   * it runs that transition's other actions (XState's start() starts them, then flushes what was deferred:
   * the entry's observe() and reward()), so the live journal has their tool calls first; replay follows.
   */
  const step = ([next, actions]: [AnyMachineSnapshot, Action[]], initial = false) => {
    snapshot = next;
    const ordered = initial ? [...actions.filter(spawnsTool), ...actions.filter((a) => !spawnsTool(a))] : actions;
    for (const action of ordered) {
      const params = (action.params ?? {}) as Record<string, unknown>;
      if (action.type === "xstate.emit") {
        const body = derivation.emitted(params.event as { type: string });
        if (body) derived(body);
      } else if (action.type === "xstate.spawnChild" && typeof params.src === "string" && params.src in env.tools) {
        const call = `c${callCounter++}`;
        const actor = String(params.id);
        pending.set(call, actor);
        derived({
          type: "tool.called",
          turn: derivation.turn,
          call,
          actor,
          tool: params.src,
          args: journaledArguments(params.input),
        });
      } else if (action.type === "xstate.stopChild") {
        const ref = params.actorRef as { id?: string } | string | undefined;
        const actor = typeof ref === "string" ? ref : ref?.id;
        // A stopped call's result is never delivered, so the live runtime never records it.
        for (const [call, id] of pending) if (id === actor) pending.delete(call);
      }
    }
    derived(derivation.transitioned(snapshot));
    if (derivation.ending || snapshot.status === "done") {
      derived(derivation.ended());
      ended = true;
    }
  };

  /**
   * Runs one pure transition and derives its events. When the machine (or a reward it emits) throws, the
   * live runtime ended the episode there as an environment error: a record that ended so, with the same
   * message, is replayed faithfully; anything else diverges at that input's seq.
   */
  const guarded = (seq: number, run: () => unknown, initial = false) => {
    try {
      const next = run() as [AnyMachineSnapshot, Action[]];
      // XState's initial transition gives what its machine threw (a guard, a loop past the bound) as a snapshot
      // with the error, where a live actor reports it: as live, the episode ends there as an environment error.
      if (initial && next[0].status === "error") throw next[0].error;
      step(next as never, initial);
    } catch (cause) {
      if (cause instanceof NonDeterminismError) throw cause;
      const reason =
        cause instanceof Unrecordable
          ? cause.reason
          : `environment error: ${
              endlessEventMessage(cause, taking.type, initial ? undefined : snapshot?.value, {
                machine,
                ...(initial ? {} : { before: snapshot, event: taking }),
                input,
              }) ?? messageOf(cause)
            }`;
      const record = recorded[cursor];
      // A journal of a version before 2026-12-05 says a thrown value that is not an Error otherwise, and one
      // of a version before this one (also of 2026-12-05) an endless event without the states it looped through: its end holds.
      const legacy =
        cause instanceof Unrecordable
          ? undefined
          : (legacyEnvErrorMessage(cause) ??
            endlessEventMessage(cause, taking.type, initial ? undefined : snapshot?.value));
      const said =
        verify &&
        legacy !== undefined &&
        record?.type === "episode.ended" &&
        record.reason === `${ABORTED}environment error: ${legacy}`
          ? `environment error: ${legacy}`
          : reason;
      if (!verify || (record?.type === "episode.ended" && record.reason === ABORTED + said)) {
        if (verify) cursor += 1;
        const body = derivation.ended(said);
        if (verify && canonicalJson(body) !== canonicalJson(bodyOf(record)))
          diverge(record.seq, canonicalJson(bodyOf(record)), canonicalJson(body));
        out.push(body);
        ended = true;
        if (!(cause instanceof Unrecordable)) thrownAt = envThrownFrom(cause, THIS_FILE);
        return;
      }
      diverge(
        seq,
        record?.type === "episode.ended" && record.reason.startsWith(ABORTED)
          ? `the episode ended here: ${record.reason}`
          : "the machine took this input when it was recorded",
        cause instanceof Unrecordable ? `the episode ends here: ${reason}` : `the machine threw: ${messageOf(cause)}`,
      );
    }
  };

  guarded(0, () => initialTransition(machine, input), true);

  /** The next recorded input, skipping (when not verifying) the record's own derived events. */
  const nextInput = (): EpisodeEvent | undefined => {
    while (cursor < recorded.length) {
      const event = recorded[cursor];
      if (event.type === "agent.acted" || event.type === "tool.returned") return event;
      if (event.type === "episode.ended" && event.reason.startsWith(ABORTED)) return event;
      if (verify) return event;
      cursor += 1;
    }
    return undefined;
  };

  while (!ended) {
    const event = nextInput();
    if (!event) {
      if (verify)
        refuse(recorded.length, "(end of journal)", "the machine is still running: the journal was cut short");
      break;
    }
    if (event.type === "agent.acted") {
      if (
        !derivation.awaitingAction ||
        waitingForTools(snapshot!, env.tools, (id) => [...pending.values()].includes(id))
      )
        diverge(event.seq, "agent.acted", "the machine was not waiting for an action here");
      // The live runtime aborts an action whose text is not what its tokens spell; one in a journal was
      // written by other code (an older version, or an edit): the learner would train on other text.
      if (verify && tokensVerified) {
        let spelt: string | undefined;
        try {
          spelt = misspelt(tokenizer, event.tokens, event.text);
        } catch (cause) {
          return refuse(event.seq, "agent.acted with tokens of the recorded tokenizer", messageOf(cause));
        }
        if (spelt !== undefined)
          refuse(
            event.seq,
            `agent.acted's tokens, which spell ${JSON.stringify(spelt.slice(0, 80))}`,
            `agent.acted's text, ${JSON.stringify(event.text.slice(0, 80))}: the journal disagrees with itself (the live runtime aborts such an action; other code wrote this one), and the environment judged the text while a learner would train on the tokens`,
          );
      }
      cursor += 1;
      out.push(bodyOf(event));
      derivation.acted(event.text, event.tokens);
      lastAction = { text: event.text, seq: event.seq };
      const act = { type: "agent.act", turn: event.turn, text: event.text, tokens: event.tokens };
      taking = act;
      guarded(event.seq, () => transition(machine, snapshot!, act));
    } else if (event.type === "tool.returned") {
      const actor = pending.get(event.call);
      if (actor === undefined) diverge(event.seq, `tool.returned for call ${event.call}`, "no such call in flight");
      cursor += 1;
      out.push(bodyOf(event));
      pending.delete(event.call);
      const done = { type: `xstate.done.actor.${actor}`, output: event.result, actorId: actor };
      taking = done;
      guarded(event.seq, () => transition(machine, snapshot!, done as never));
    } else if (event.type === "episode.ended" && event.reason.startsWith(ABORTED)) {
      cursor += 1;
      const body = derivation.ended(event.reason.slice(ABORTED.length));
      if (verify && canonicalJson(body) !== canonicalJson(bodyOf(event)))
        diverge(event.seq, canonicalJson(bodyOf(event)), canonicalJson(body));
      out.push(body);
      ended = true;
    } else {
      diverge(
        event.seq,
        canonicalJson(bodyOf(event)),
        "replay derived nothing here (the machine produced no such event)",
      );
    }
  }
  if (verify && cursor < recorded.length)
    diverge(
      recorded[cursor].seq,
      canonicalJson(bodyOf(recorded[cursor])),
      "replay ended the episode before this event",
    );

  /**
   * Why deriving afresh stopped before the machine ended: a journal cut short, or, for one that ended, an
   * environment that asks for more than was recorded (another action, or a tool call the recording never made).
   */
  const ranOut = (): string => {
    if (!recorded.some((e) => e.type === "episode.ended")) return "journal cut short";
    const unanswered = [...pending.keys()].flatMap((call) =>
      out.flatMap((e) => (e.type === "tool.called" && e.call === call ? [`${e.tool}(${brief(e.args)})`] : [])),
    );
    return unanswered.length > 0
      ? `the recording holds no result for ${unanswered.join(", ")}, which this environment calls: a variant that re-rewards recorded episodes must make the tool calls they made`
      : "the recorded actions ran out before this environment ended the episode (it asks for another action)";
  };
  const last = out[out.length - 1];
  const endedBody = last?.type === "episode.ended" ? last : derivation.ended(ranOut());
  return {
    episode,
    events: out,
    rewards: out.filter((e): e is RewardBody => e.type === "reward.assigned"),
    return: derivation.totalReturn,
    reason: endedBody.type === "episode.ended" ? endedBody.reason : "",
    turns: derivation.actions,
    tokensVerified,
    ...(thrownAt ? { thrownAt } : {}),
  };
};

/** Whether an event is the end of an episode the environment aborted (its code threw, or it broke the protocol). */
export const endsInEnvError = (event: EpisodeEvent | undefined): boolean =>
  event?.type === "episode.ended" && event.reason.startsWith(`${ABORTED}environment error: `);

/**
 * An environment error whose message names its line already: an observe(), reward() or end() given a bad value is
 * placed where it was written ("(reward() at envs/shop.ts:31:9)"), so replaying the episode would find no more.
 */
export const envErrorPlaced = (event: EpisodeEvent | undefined): boolean =>
  endsInEnvError(event) && isPlaced((event as { reason: string }).reason);

/**
 * Where the environment's code threw ("file:line:column"), for a journal that ends in an environment error: the
 * journal keeps the message, not the line, so the episode is replayed (verifying) against `env` to throw it again.
 * Undefined for any other end, for an error the framework raised itself (its message says what), and for a journal
 * that does not replay with `env` (another version, an impure environment): no line is better than a wrong one.
 */
export const envErrorThrownAt = (events: readonly EpisodeEvent[], env: EnvDefinition): string | undefined => {
  if (!endsInEnvError(events.at(-1))) return undefined;
  try {
    return replayEpisode(events, env).thrownAt;
  } catch {
    return undefined;
  }
};

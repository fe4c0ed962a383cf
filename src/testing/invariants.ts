/**
 * Reward invariants, stated once and checked as properties against any ToolEnv: fast-check generates
 * episodes (actions, tool results, arrival orders), plays them through the live runtime, and shrinks a
 * failure to a short episode that is printed step by step and written as a replayable journal.
 *
 *   await checkRewards(env, { invariants: [rewardBounds({ min: -0.1, max: 1 }), noRewardForRepeatedCalls()] });
 */

import type { Json } from "effect/Schema";
import * as Struct from "effect/Struct";
import fc from "fast-check";
import { canonicalJson } from "../kernel/canonical.ts";
import { allKeys, checkKnownKeys, messageOf, shownValue, thrownFrom } from "../kernel/errors.ts";
import type { EpisodeEvent, EventOf, ToolResult } from "../kernel/events.ts";
import { replayEpisode } from "../replay/replay.ts";
import { parseAction } from "../runtime/action-format.ts";
import { ABORTED } from "../runtime/derive.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { checkEnvArgument } from "../runtime/env.ts";
import { DEFAULT_MAX_TURNS } from "../runtime/episode.ts";
import { ACTION_OPTIONS, actionArbitrary, answerArbitrary } from "./actions.ts";
import { INJECTED } from "./arbitraries.ts";
import {
  CounterexampleError,
  checkProperty,
  checkRunOptions,
  DEFAULT_NUM_RUNS,
  formatBeside,
  formatNumber,
  PROPERTY_RUN_OPTIONS,
  type PropertyRunOptions,
  quote,
  type Violation,
} from "./counterexample.ts";
import {
  EPISODE_SCRIPT_OPTIONS,
  type EpisodeScript,
  type EpisodeScriptOptions,
  episodeScriptArbitrary,
  type PlayedEpisode,
  playEpisode,
  seedArbitrary,
} from "./episodes.ts";

/**
 * A property of an environment's rewards: how to generate a case, and how to check it. `Task`: the task type of
 * the environments it checks (JSON, any environment's, by default; the built-in invariants are of any).
 */
export interface RewardInvariant<Case = unknown, Task extends Json = Json> {
  readonly name: string;
  readonly arbitrary: (env: EnvDefinition<Task>, options: EpisodeScriptOptions<Task>) => fc.Arbitrary<Case>;
  /** Plays the case; returns what broke, with the episodes that show it, or nothing. */
  readonly check: (env: EnvDefinition<Task>, value: Case) => Promise<Violation | undefined>;
  /**
   * Asked after every case passed: why the cases checked nothing (e.g. none had two tool calls in flight
   * for an arrival-order rule), or nothing. `arbitrary` is called first, once per check, and may reset
   * what this counts.
   */
  readonly vacuous?: () => string | undefined;
}

/** How often checkRewards' log says how far a long check got. */
const PROGRESS_EVERY_MS = 5000;

/** The failure processRewardCap gives a paid call, to see whether its retry is paid again. */
const INJECTED_FAILURE: ToolResult = { ok: false, error: { kind: "error", message: INJECTED.error } };

/** Floating-point slack when comparing sums of rewards. */
const EPSILON = 1e-9;

const GIVE_MORE =
  "Give actions and tool arguments that make the environment do it (options.actions, options.args), more cases (numRuns), or leave the invariant out.";

/**
 * Counts the cases a check drew and those that could have failed it, so that a check whose every case
 * passed without testing anything says so instead of passing.
 */
const coverage = (didWhat: string, advice = GIVE_MORE) => {
  const nothing = (cases: number) =>
    `none of the ${cases} episodes drawn ${didWhat}, so this invariant checked nothing. ${advice}`;
  let cases = 0;
  let relevant = 0;
  return {
    reset: () => {
      cases = 0;
      relevant = 0;
    },
    count: (applies: boolean) => {
      cases++;
      if (applies) relevant++;
    },
    vacuous: () => (cases > 0 && relevant === 0 ? nothing(cases) : undefined),
  };
};

/** Options of episodeInvariant (`Task`: as for episodeInvariant). */
export interface EpisodeInvariantOptions<Task extends Json = Json> {
  /**
   * Whether the rule has anything to check in this episode (e.g. it earned a process reward). When no
   * drawn episode applies, checkRewards throws NothingCheckedError instead of passing. Default: every one.
   */
  readonly appliesTo?: (episode: PlayedEpisode<Task>, env: EnvDefinition<Task>) => boolean;
  /** Says, in the NothingCheckedError, what no drawn episode did (default: "applied"). */
  readonly describe?: string;
}

/**
 * An invariant of single episodes: `check` returns a message when the played episode breaks it. Write
 * your own with it, e.g. `episodeInvariant("never rewards a malformed action", (e) => ...)`; give
 * `{ appliesTo }` when only some episodes can break it, so a check that met none of them fails.
 *
 * `Task`: the environment's task type, so that `e.record.task` and `e.script.task` read with no cast. Written
 * in checkRewards' `invariants`, it is the environment's; elsewhere, give it (`episodeInvariant<MyTask>(...)`)
 * or annotate the episode (`(e: PlayedEpisode<MyTask>) => ...`); otherwise JSON, for any environment.
 */
export const episodeInvariant = <Task extends Json = Json>(
  name: string,
  check: (episode: PlayedEpisode<Task>, env: EnvDefinition<Task>) => string | undefined,
  options: EpisodeInvariantOptions<Task> = {},
): RewardInvariant<EpisodeScript<Task>, Task> => {
  checkKnownKeys("episodeInvariant", options, allKeys<EpisodeInvariantOptions>()(["appliesTo", "describe"]));
  // Refused here, not met in every drawn episode as "the check itself threw: check is not a function", reported as
  // a counterexample of the environment with a journal written for it.
  if (typeof name !== "string" || name.trim() === "")
    throw new TypeError(
      `episodeInvariant: the name must be a non-empty string (the rule, as reports name it), got ${shownValue(name)}`,
    );
  if (typeof check !== "function")
    throw new TypeError(
      `episodeInvariant("${name}", check): check must be a function (episode, env) => message | undefined, got ${shownValue(check)}`,
    );
  for (const key of ["appliesTo", "describe"] as const)
    if (options[key] !== undefined && typeof options[key] !== (key === "appliesTo" ? "function" : "string"))
      throw new TypeError(
        `episodeInvariant("${name}"): ${key} must be ${key === "appliesTo" ? "a function (episode, env) => boolean" : "a string (what no drawn episode did)"}, got ${shownValue(options[key])}`,
      );
  const seen = coverage(options.describe ?? "applied (appliesTo returned false for each)");
  const { appliesTo } = options;
  return {
    name,
    arbitrary: (env, scriptOptions) => {
      seen.reset();
      return episodeScriptArbitrary(env, scriptOptions);
    },
    check: async (env, script) => {
      const played = await playEpisode(env, script);
      let message: string | undefined;
      try {
        const said: unknown = check(played, env);
        // A check written as a predicate (`(e) => e.record.return <= 1`) returned a boolean: true crashed the
        // report, and false, meant as "broken", passed. Anything but a message or nothing is the check's bug.
        message =
          said === undefined || said === null || typeof said === "string"
            ? (said ?? undefined)
            : `the check returned ${shownValue(said)}; it must return undefined when the rule holds, or a message (a string) saying what broke${typeof said === "boolean" ? ' (a check says what broke, not whether the rule holds: (e) => (holds ? undefined : "what broke"))' : ""}`;
        if (appliesTo) seen.count(appliesTo(played, env));
      } catch (cause) {
        // A bug in the check itself: still a counterexample, so the report shows (and shrinks) the episode it met.
        const at = thrownFrom(cause);
        message = `the check itself threw: ${messageOf(cause)}${at ? ` (thrown at ${at})` : ""}`;
      }
      return message ? { message, episodes: [played.events] } : undefined;
    },
    ...(appliesTo ? { vacuous: seen.vacuous } : {}),
  };
};

const describeReward = (r: EventOf<"reward.assigned">, value = formatNumber(r.value)) =>
  `${r.kind} reward ${value} on turn ${r.turn} ("${r.reason}")`;

/** Bounds are two numbers, min <= max: reversed ones would report every reward as a counterexample. */
const checkBounds = (
  fn: string,
  bounds: { readonly min: number; readonly max: number; readonly kind?: string },
  keys: readonly string[],
) => {
  checkKnownKeys(fn, bounds, keys);
  if (
    typeof bounds.min !== "number" ||
    Number.isNaN(bounds.min) ||
    typeof bounds.max !== "number" ||
    Number.isNaN(bounds.max)
  )
    throw new RangeError(
      `${fn}: min and max must be numbers, got min ${shownValue(bounds.min)}, max ${shownValue(bounds.max)}`,
    );
  if (bounds.min > bounds.max) throw new RangeError(`${fn}: min ${bounds.min} is above max ${bounds.max}`);
  // An infinite bound is one side left open (min -Infinity: no lower bound); min Infinity or max -Infinity
  // admits no number at all (every reward a counterexample), and both open bound nothing (no case can fail).
  if (bounds.min === Infinity || bounds.max === -Infinity)
    throw new RangeError(
      `${fn}: min must be finite or -Infinity (no lower bound) and max finite or Infinity (no upper bound), got min ${bounds.min}, max ${bounds.max}`,
    );
  if (bounds.min === -Infinity && bounds.max === Infinity)
    throw new RangeError(`${fn}: min -Infinity and max Infinity bound nothing: give a finite min or max`);
  if (bounds.kind !== undefined && bounds.kind !== "process" && bounds.kind !== "outcome")
    throw new RangeError(`${fn}: kind must be "process" or "outcome", got ${JSON.stringify(bounds.kind)}`);
};

/** Every reward (of `kind`, when given) lies in [min, max]. */
export const rewardBounds = (bounds: {
  readonly min: number;
  readonly max: number;
  readonly kind?: "process" | "outcome";
}): RewardInvariant<EpisodeScript> => {
  checkBounds("rewardBounds", bounds, ["min", "max", "kind"]);
  return episodeInvariant(
    `each ${bounds.kind ? `${bounds.kind} ` : ""}reward lies in [${bounds.min}, ${bounds.max}]`,
    (e) => {
      const out = e.rewards.find(
        (r) => (!bounds.kind || r.kind === bounds.kind) && (r.value < bounds.min || r.value > bounds.max),
      );
      if (!out) return undefined;
      const below = out.value < bounds.min;
      const limit = below ? bounds.min : bounds.max;
      return `${describeReward(out, formatBeside(out.value, limit))} is ${below ? "below" : "above"} ${limit}`;
    },
    {
      appliesTo: (e) => e.rewards.some((r) => !bounds.kind || r.kind === bounds.kind),
      describe: `earned ${bounds.kind === "outcome" ? "an outcome" : bounds.kind === "process" ? "a process" : "a"} reward`,
    },
  );
};

/** The episode's return (the sum of all its rewards) lies in [min, max], also for episodes cut short. */
export const returnBounds = (bounds: {
  readonly min: number;
  readonly max: number;
}): RewardInvariant<EpisodeScript> => {
  checkBounds("returnBounds", bounds, ["min", "max"]);
  return episodeInvariant(`the return lies in [${bounds.min}, ${bounds.max}]`, (e) => {
    const total = e.record.return;
    if (total >= bounds.min - EPSILON && total <= bounds.max + EPSILON) return undefined;
    const below = total < bounds.min;
    const limit = below ? bounds.min : bounds.max;
    const terms = e.rewards.map((r) => formatNumber(r.value)).join(" + ") || "no rewards";
    return `the return is ${formatBeside(total, limit)} (${terms}), ${below ? "below" : "above"} ${limit}`;
  });
};

/**
 * An episodeInvariant that, when the drawn episode passes, tries more episodes made from it: `followUp` gets the
 * episode the base check just played (processRewardCap repeats its paid actions, outcomeRewardOnEveryEnd plays a
 * script that ran out on to the turn limit), for what random scripts seldom draw.
 */
const episodeInvariantThen = (
  name: string,
  check: (episode: PlayedEpisode) => string | undefined,
  options: EpisodeInvariantOptions,
  followUp: (
    env: EnvDefinition,
    script: EpisodeScript,
    played: PlayedEpisode,
    /** The base check, for a script made from the played one (its episodes count for `appliesTo` too). */
    again: RewardInvariant<EpisodeScript>["check"],
  ) => Promise<Violation | undefined>,
): RewardInvariant<EpisodeScript> => {
  // The episode the base check just played, so that the follow-up need not play it again.
  let last: PlayedEpisode | undefined;
  const base = episodeInvariant(
    name,
    (e) => {
      last = e;
      return check(e);
    },
    options,
  );
  return {
    ...base,
    check: async (env, script) => {
      last = undefined;
      const found = await base.check(env, script);
      const played = last as PlayedEpisode | undefined;
      return found || !played ? found : followUp(env, script, played, base.check);
    },
  };
};

/** Process rewards of one episode sum to at most `cap`: more tool calls cannot farm more reward. */
export const processRewardCap = (cap: number): RewardInvariant<EpisodeScript> => {
  // A negative cap fails every episode, one with no process reward too (0 is above it); Infinity caps nothing.
  if (typeof cap !== "number" || !Number.isFinite(cap) || cap < 0)
    throw new RangeError(
      `processRewardCap: the cap must be a finite number >= 0 (the most process reward one episode may earn), got ${shownValue(cap)}`,
    );
  const processOf = (e: PlayedEpisode) => e.rewards.filter((r) => r.kind === "process");
  const overCap = (e: PlayedEpisode) => {
    const process = processOf(e);
    const total = process.reduce((sum, r) => sum + r.value, 0);
    if (total <= cap + EPSILON) return undefined;
    return `process rewards sum to ${formatBeside(total, cap)}, above the cap ${cap}: ${process
      .map((r) => describeReward(r))
      .join(", ")}`;
  };
  return episodeInvariantThen(
    `process rewards sum to at most ${cap}`,
    overCap,
    {
      appliesTo: (e) => e.rewards.some((r) => r.kind === "process" && r.value > EPSILON),
      describe: "earned a positive process reward",
    },
    async (env, script, played) => {
      // Then repeat, right away, each action that earned a process reward, as often as it takes to pass the cap
      // if every repeat earns it again: farming is a repeat, which random scripts seldom draw twice.
      const total = processOf(played).reduce((sum, r) => sum + r.value, 0);
      const earnedOn = (turn: number) =>
        processOf(played)
          .filter((r) => r.turn === turn)
          .reduce((sum, r) => sum + r.value, 0);
      const paid = played.events.filter(
        (e): e is EventOf<"agent.acted"> => e.type === "agent.acted" && earnedOn(e.turn) > EPSILON,
      );
      for (const acted of paid.slice(0, 2)) {
        const times = Math.min(8, Math.floor(Math.max(0, cap - total) / earnedOn(acted.turn)) + 1);
        const repeated = await playEpisode(env, {
          ...script,
          actions: [...script.actions.slice(0, acted.turn + 1), ...Array.from({ length: times }, () => acted.text)],
        });
        const message = overCap(repeated);
        if (message) return { message, episodes: [repeated.events] };
      }
      // And two paid actions in turn (A B A B ...): an environment that refuses an immediate repeat (a "repeated
      // call" penalty that remembers only the last call) may still pay for each again once another came between.
      const [a, b] = paid;
      if (a && b && a.text !== b.text) {
        const least = Math.min(earnedOn(a.turn), earnedOn(b.turn));
        const times = Math.min(8, Math.floor(Math.max(0, cap - total) / least) + 1);
        const alternated = await playEpisode(env, {
          ...script,
          actions: [
            ...script.actions.slice(0, b.turn + 1),
            ...Array.from({ length: times }, (_, i) => (i % 2 === 0 ? a.text : b.text)),
          ],
        });
        const message = overCap(alternated);
        if (message) return { message, episodes: [alternated.events] };
      }
      // And the first paid action in turn with a call that earned nothing (A X A X ...): a "first time" rule that
      // remembers only the last call pays A again once any other call came between, paid or not.
      const other = a && otherCall(played, a.text, (text) => defaultCallOf(text, env));
      if (a && other !== undefined && other !== b?.text) {
        const times = Math.min(8, Math.floor(Math.max(0, cap - total) / earnedOn(a.turn)) + 1);
        const interleaved = await playEpisode(env, {
          ...script,
          actions: [
            ...script.actions.slice(0, a.turn + 1),
            ...Array.from({ length: times }, () => [other, a.text]).flat(),
          ],
        });
        const message = overCap(interleaved);
        if (message) return { message, episodes: [interleaved.events] };
      }
      // And each paid action whose call succeeded, its call failed instead, then repeated with the real tool: a
      // reward that does not read the result (`event.output.ok`) pays the failed call, and again the retry that
      // succeeds; random scripts seldom fail just the paid call and then repeat it.
      const calls = played.events.filter((e): e is EventOf<"tool.called"> => e.type === "tool.called");
      const succeeded = new Set(
        played.events.flatMap((e) => (e.type === "tool.returned" && e.result.ok ? [e.call] : [])),
      );
      for (const acted of paid.slice(0, 2)) {
        const failing = calls.findIndex((c) => c.turn === acted.turn && succeeded.has(c.call));
        if (failing < 0) continue;
        const times = Math.min(8, Math.floor(Math.max(0, cap - total) / earnedOn(acted.turn)) + 1);
        const retried = await playEpisode(env, {
          ...script,
          actions: [...script.actions.slice(0, acted.turn + 1), ...Array.from({ length: times }, () => acted.text)],
          toolResults: [
            ...Array.from({ length: failing }, (_, i) => script.toolResults?.[i] ?? null),
            INJECTED_FAILURE,
          ],
        });
        const message = overCap(retried);
        if (message) return { message, episodes: [retried.events] };
      }
      return undefined;
    },
  );
};

/** The text of the first action in a played episode that makes a call (`callOf`) other than `text`'s, if any. */
const otherCall = (
  played: PlayedEpisode,
  text: string,
  callOf: (text: string) => string | undefined,
): string | undefined =>
  played.events.find(
    (e): e is EventOf<"agent.acted"> =>
      e.type === "agent.acted" && callOf(e.text) !== undefined && callOf(e.text) !== callOf(text),
  )?.text;

/** Options of noRewardForRepeatedCalls. */
export interface RepeatedCallOptions {
  /** The call an action makes, as a comparable key; default: the framework's action format. */
  readonly callOf?: (text: string, env: EnvDefinition) => string | undefined;
  /** A repeat of a call whose tool failed (error, timeout) is a retry, not a repeat (default false). */
  readonly allowRetryAfterFailure?: boolean;
}

const defaultCallOf = (text: string, env: EnvDefinition): string | undefined => {
  const action = parseAction(text, env.tools);
  return action.kind === "call" ? `${action.tool} ${canonicalJson(action.args)}` : undefined;
};

/** An action that repeats an earlier call of the same tool with the same arguments earns no positive reward. */
export const noRewardForRepeatedCalls = (options: RepeatedCallOptions = {}): RewardInvariant<EpisodeScript> => {
  checkKnownKeys(
    "noRewardForRepeatedCalls",
    options,
    allKeys<RepeatedCallOptions>()(["callOf", "allowRetryAfterFailure"]),
  );
  const own = options.callOf;
  // Keys are compared as Map keys and with ===: an array or object key (`["slots", day]`) never equals another, so
  // no repeat was ever found, and a reward paid for one passed; null made every non-call action one call.
  const callOf =
    own === undefined
      ? defaultCallOf
      : (text: string, env: EnvDefinition): string | undefined => {
          const key: unknown = own(text, env);
          if (key === undefined || typeof key === "string") return key;
          throw new TypeError(
            `noRewardForRepeatedCalls: callOf returned ${shownValue(key)} for the action ${quote(text)}; it must return a string, the same for calls that repeat each other (e.g. \`\${tool}:\${day}\`), or undefined for an action that makes no call`,
          );
        };
  const processOn = (e: PlayedEpisode, turn: number) =>
    e.rewards.filter((r) => r.turn === turn && r.kind === "process");
  const sum = (rewards: readonly EventOf<"reward.assigned">[]) => rewards.reduce((total, r) => total + r.value, 0);
  /** The first paid repeat in an episode, in words. */
  const paidRepeat = (e: PlayedEpisode, env: EnvDefinition): string | undefined => {
    const failedTurns = new Set<number>();
    const turnOfCall = new Map<string, number>();
    for (const event of e.events) {
      if (event.type === "tool.called") turnOfCall.set(event.call, event.turn);
      if (event.type === "tool.returned" && !event.result.ok) failedTurns.add(turnOfCall.get(event.call) ?? -1);
    }
    const firstTurn = new Map<string, number>();
    const callsMade: { readonly turn: number; readonly call: string }[] = [];
    for (const acted of e.events.filter((x): x is EventOf<"agent.acted"> => x.type === "agent.acted")) {
      const call = callOf(acted.text, env);
      if (call === undefined) continue;
      callsMade.push({ turn: acted.turn, call });
      const earlier = firstTurn.get(call);
      if (earlier === undefined || (options.allowRetryAfterFailure && failedTurns.has(earlier))) {
        firstTurn.set(call, acted.turn);
        continue;
      }
      const paid = processOn(e, acted.turn);
      if (sum(paid) <= EPSILON) continue;
      const repeat = `turn ${acted.turn} repeats the call ${quote(acted.text)} of turn ${earlier} and earns ${formatNumber(
        sum(paid),
      )}: ${paid.map((r) => describeReward(r)).join(", ")}`;
      // A retry after a failure may be what the author meant to pay for: say how to allow it.
      const retry = failedTurns.has(earlier)
        ? "; the earlier identical call failed; if a retry after a failure may earn the reward, use noRewardForRepeatedCalls({ allowRetryAfterFailure: true })"
        : "";
      // So may the same call after another one that changed what it returns (a read after a scroll): say how
      // to tell the check which actions to compare.
      const between = callsMade.find((c) => c.turn > earlier && c.turn < acted.turn && c.call !== call);
      const after = between
        ? `; another call came between (turn ${between.turn}); if the same call after another one may mean something new (a read after a scroll), tell the check what to compare: noRewardForRepeatedCalls({ callOf: (text, env) => a key, equal for calls that repeat each other, or undefined for an action never counted as a repeat })`
        : "";
      return `${repeat}${retry}${after}`;
    }
    return undefined;
  };
  const repeats = (e: PlayedEpisode, env: EnvDefinition) => {
    const calls = e.events.flatMap((x) => (x.type === "agent.acted" ? [callOf(x.text, env)] : [])).filter(Boolean);
    return new Set(calls).size < calls.length;
  };
  const seen = coverage("repeated a call or earned a process reward for one (which the check would then repeat)");
  return {
    name: "no reward for repeating a call",
    arbitrary: (env, scriptOptions) => {
      seen.reset();
      return episodeScriptArbitrary(env, scriptOptions);
    },
    check: async (env, script) => {
      const played = await playEpisode(env, script);
      const found = paidRepeat(played, env);
      if (found) return { message: found, episodes: [played.events] };
      // Then repeat, right away, each call that earned a reward: the repeat is where farming happens.
      const paidCalls = played.events.filter(
        (e): e is EventOf<"agent.acted"> =>
          e.type === "agent.acted" && callOf(e.text, env) !== undefined && sum(processOn(played, e.turn)) > EPSILON,
      );
      seen.count(paidCalls.length > 0 || repeats(played, env));
      for (const acted of paidCalls.slice(0, 2)) {
        const repeated = await playEpisode(env, {
          ...script,
          actions: [...script.actions.slice(0, acted.turn + 1), acted.text],
        });
        const message = paidRepeat(repeated, env);
        if (message) return { message, episodes: [repeated.events] };
      }
      // And the first paid call again after the second (A B A): a "repeated call" rule that remembers only the
      // last call refuses an immediate repeat and pays for this one.
      const [a, b] = paidCalls;
      if (a && b && callOf(a.text, env) !== callOf(b.text, env)) {
        const interleaved = await playEpisode(env, {
          ...script,
          actions: [...script.actions.slice(0, b.turn + 1), a.text],
        });
        const message = paidRepeat(interleaved, env);
        if (message) return { message, episodes: [interleaved.events] };
      }
      // And the first paid call again after any other call (A X A), paid or not: a "first time" rule that
      // remembers only the last call pays A again once X came between.
      const other = a && otherCall(played, a.text, (text) => callOf(text, env));
      if (a && other !== undefined && other !== b?.text) {
        const interleaved = await playEpisode(env, {
          ...script,
          actions: [...script.actions.slice(0, a.turn + 1), other, a.text],
        });
        const message = paidRepeat(interleaved, env);
        if (message) return { message, episodes: [interleaved.events] };
      }
      return undefined;
    },
    vacuous: seen.vacuous,
  };
};

/** The agent's actions that end an episode with an answer; default: `<answer>...</answer>`. */
export interface FinalAnswerOptions {
  /**
   * Candidate final answers (default: short random strings; give the task's real answers too), each written
   * as `<answer>...</answer>`; with `answerOf`, whole actions as written (default: the drawn actions it
   * recognises).
   */
  readonly answers?: fc.Arbitrary<string>;
  /**
   * The answer an action gives, or undefined when it is no answer; default: the framework's format. For an
   * environment that ends on a tool call (a booking: `(text) => callOf(text, tools, "book")?.id`).
   */
  readonly answerOf?: (text: string, env: EnvDefinition) => string | undefined;
}

/** The action put in the answer's place to see whether an episode ends there anyway: malformed in any format. */
const NOT_AN_ANSWER = "";

const defaultAnswerOf = (text: string, env: EnvDefinition) => {
  const action = parseAction(text, env.tools);
  return action.kind === "answer" ? action.text : undefined;
};

interface FinalAnswerCase {
  readonly seed: string;
  /** Two histories (actions without an answer, injected tool results) to play before the same answer. */
  readonly histories: readonly [EpisodeScript, EpisodeScript];
  readonly answer: string;
}

/**
 * Two episodes of the same task that end with the same answer, after different histories, earn the same
 * outcome reward: the outcome rewards the answer, not the path (which is what process rewards are for).
 */
export const outcomeDependsOnlyOnFinalAnswer = (options: FinalAnswerOptions = {}): RewardInvariant<FinalAnswerCase> => {
  checkKnownKeys("outcomeDependsOnlyOnFinalAnswer", options, allKeys<FinalAnswerOptions>()(["answers", "answerOf"]));
  const answerOf = options.answerOf ?? defaultAnswerOf;
  const seen = coverage(
    "gave two histories that the same answer both ended",
    "Give answers the environment accepts after a few actions (answers, options.actions), more cases (numRuns), or leave the invariant out; an environment that ends on a tool call rather than an <answer> (a booking) says which actions are final answers with answerOf.",
  );
  return {
    name: "the outcome reward depends only on the final answer",
    arbitrary: (env, scriptOptions) => {
      seen.reset();
      const actions = scriptOptions.actions ?? actionArbitrary(env, Struct.pick(scriptOptions, ACTION_OPTIONS));
      const notAnswers = actions.filter((text) => answerOf(text, env) === undefined);
      const history = episodeScriptArbitrary(env, {
        ...scriptOptions,
        actions: notAnswers,
        maxActions: (scriptOptions.maxActions ?? 6) - 1,
      });
      return fc.record({
        seed: scriptOptions.seeds ?? seedArbitrary(),
        histories: fc.tuple(history, history),
        // With an answerOf of its own, the final action is one it recognises (a booking, `<book>f2</book>`), as
        // written: formatted as `<answer>...</answer>`, it was no answer there, and the invariant checked nothing.
        answer: options.answerOf
          ? (options.answers ?? actions.filter((text) => answerOf(text, env) !== undefined))
          : answerArbitrary(options.answers ?? scriptOptions.answers),
      });
    },
    check: async (env, c) => {
      const played = await Promise.all(
        c.histories.map((history) =>
          playEpisode(env, {
            ...history,
            seed: c.seed,
            task: c.histories[0].task,
            actions: [...history.actions, c.answer],
          }),
        ),
      );
      // Compare only episodes that the answer actually ended.
      const endedOn = (p: (typeof played)[number], action: string) => {
        const last = p.events.findLast((e) => e.type === "agent.acted");
        // Ended by the environment (not cut short when the script ran out), on that action, its last.
        return (
          !p.truncated &&
          !p.record.reason.startsWith(ABORTED) &&
          last?.text === action &&
          last.turn === p.script.actions.length - 1
        );
      };
      // An episode that ends there whatever the action (a turn limit guarding `agent.act`, as README's example
      // does) never read the answer: the same history with a non-answer in its place shows it, ending alike.
      const probes = await Promise.all(
        c.histories.map((history, i) =>
          endedOn(played[i]!, c.answer)
            ? playEpisode(env, {
                ...history,
                seed: c.seed,
                task: c.histories[0].task,
                actions: [...history.actions, NOT_AN_ANSWER],
              })
            : undefined,
        ),
      );
      const outcomes = played.map((p, i) => {
        const probe = probes[i];
        const answerEnded =
          probe !== undefined && !(endedOn(probe, NOT_AN_ANSWER) && probe.record.reason === p.record.reason);
        const outcome = p.rewards.filter((r) => r.kind === "outcome").reduce((sum, r) => sum + r.value, 0);
        return answerEnded ? outcome : undefined;
      });
      const [a, b] = outcomes;
      seen.count(a !== undefined && b !== undefined);
      if (a === undefined || b === undefined || Math.abs(a - b) <= EPSILON) return undefined;
      return {
        message: `the same final answer ${quote(c.answer)} earned outcome ${formatBeside(a, b)} after one history and ${formatBeside(b, a)} after another (same task, seed ${quote(c.seed)}); if the outcome rightly depends on what the agent did (a transfer made, an order placed) or on when it answered (in a world that moves on its own, the turns the histories took), this invariant does not apply: leave it out and state that rule with episodeInvariant`,
        episodes: played.map((p) => p.events),
      };
    },
    vacuous: seen.vacuous,
  };
};

interface OrderCase {
  readonly script: EpisodeScript;
  /**
   * The arrival order, as a priority for each tool call (by call index; past the end, 0): each time the machine
   * waits and tool results are held, the held one of the highest priority arrives next, the earliest call among
   * equals. All zeros is call order, which it shrinks towards: a counterexample's order is the fewest and
   * smallest departures from call order that still fail, e.g. [0, 0, 0, 1] for "the 4th call's result first".
   */
  readonly priorities: readonly number[];
}

/**
 * Releases tool results one at a time in call order (each call's place is taken when it starts), each after
 * the machine has taken the one before: a real tool that finishes early waits for the calls made before it.
 */
const inCallOrder = () => {
  let previous: Promise<unknown> = Promise.resolve();
  return (_label: string, result: Promise<ToolResult>): Promise<ToolResult> => {
    const released = Promise.all([previous, result]).then(
      ([, value]) => new Promise<ToolResult>((resolve) => setImmediate(() => resolve(value))),
    );
    previous = released;
    return released;
  };
};

/** A turn of the event loop: what the machine does with a result, and the calls that starts, happen first. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Plays an episode with its tool results held from each call's start and released one at a time, in the order
 * the priorities give (see OrderCase), each once the machine has taken the one before; returns the played
 * episode, the labels of the results in the order they arrived, and whether that was call order.
 */
const playInOrderOf = async (env: EnvDefinition, script: EpisodeScript, priorities: readonly number[]) => {
  const held: {
    readonly label: string;
    readonly index: number;
    readonly priority: number;
    readonly release: () => Promise<unknown>;
  }[] = [];
  const arrived: string[] = [];
  /** The calls' indices in the order their results arrived. */
  const order: number[] = [];
  let calls = 0;
  const schedule = (label: string, result: Promise<ToolResult>) =>
    new Promise<ToolResult>((resolve, reject) => {
      const index = calls++;
      held.push({
        label,
        index,
        priority: priorities[index] ?? 0,
        release: () => {
          arrived.push(label);
          order.push(index);
          result.then(resolve, reject);
          return result.catch(() => undefined);
        },
      });
    });
  let ended = false;
  const episode = playEpisode(env, script, { schedule });
  const end = () => {
    ended = true;
  };
  episode.then(end, end);
  for (;;) {
    await settle();
    if (ended) break;
    // Nothing held: the machine waits on something else (the policy, a timer); look again next turn.
    if (held.length === 0) continue;
    // The first of the highest priority: held is in call order.
    const first = held.reduce((best, h, i) => (h.priority > held[best].priority ? i : best), 0);
    const [next] = held.splice(first, 1);
    await next.release();
  }
  return { played: await episode, arrived, inCallOrder: order.every((index, i) => i === 0 || index > order[i - 1]) };
};

const rewardKey = (r: EventOf<"reward.assigned">) => `turn ${r.turn} ${r.kind} ${Math.round(r.value * 1e9) / 1e9}`;

/**
 * Concurrent tool calls may return in any order; the rewards must not depend on it. Each case plays an
 * episode twice, with results in call order and in an arrival order fast-check draws (and shrinks, towards call
 * order), and compares the rewards of every turn (as multisets: the order of rewards within a turn may differ).
 */
export const orderIndependentRewards = (): RewardInvariant<OrderCase> => {
  const seen = coverage(
    "had two tool calls in flight at once, so no arrival order was varied",
    "An environment that calls one tool at a time cannot depend on arrival order: leave the invariant out. If it can call several at once (parallel states that each invoke a tool), give actions that do (options.actions, options.args).",
  );
  return {
    name: "rewards do not depend on the order concurrent tools return in",
    arbitrary: (env, options) => {
      seen.reset();
      const script = episodeScriptArbitrary(env, options);
      // One priority per tool call (calls past the end get 0); a few levels order any number held at once.
      const priorities = fc.array(fc.nat({ max: 7 }), { maxLength: 4 * (options.maxActions ?? 6) });
      return fc.record({ script, priorities });
    },
    check: async (env, { script, priorities }) => {
      const inOrder = await playEpisode(env, script, { schedule: inCallOrder() });
      seen.count(mostCallsInFlight(inOrder.events) >= 2);
      const { played: scheduled, arrived, inCallOrder: sameOrder } = await playInOrderOf(env, script, priorities);
      const expected = inOrder.rewards.map(rewardKey).sort();
      const actual = scheduled.rewards.map(rewardKey).sort();
      if (canonicalJson(expected) === canonicalJson(actual)) return undefined;
      // Rewards that differ between two plays in call order (or an arrival order that is call order) do not
      // depend on the order: they change from play to play (Math.random, Date.now). Said so, not blamed on the
      // order: the counterexample showed "another arrival order" that was call order.
      const again = sameOrder ? scheduled : await playEpisode(env, script, { schedule: inCallOrder() });
      const replayed = again.rewards.map(rewardKey).sort();
      if (canonicalJson(replayed) !== canonicalJson(expected))
        return {
          message: `played twice with tool results in the same order (call order), the rewards differ: [${expected.join("; ")}], then [${replayed.join("; ")}]; a reward, guard or action is not deterministic (Math.random, Date.now, state outside the machine), which replay cannot re-derive: draw from Rng.fromSeed of the episode's seed (input.seed) instead (replaysIdentically() names the event)`,
          episodes: [inOrder.events, again.events],
          details: [],
        };
      return {
        message: `with tool results in call order the rewards are [${expected.join("; ")}], in another arrival order [${actual.join("; ")}]`,
        episodes: [inOrder.events, scheduled.events],
        details: [`arrival order: ${arrived.join(", ")} (priorities by call [${priorities.join(", ")}])`],
      };
    },
    vacuous: seen.vacuous,
  };
};

/** The most tool calls an episode had in flight at once (called, not yet returned). */
const mostCallsInFlight = (events: readonly EpisodeEvent[]): number => {
  const open = new Set<string>();
  let most = 0;
  for (const e of events) {
    if (e.type === "tool.called") open.add(e.call);
    else if (e.type === "tool.returned") open.delete(e.call);
    most = Math.max(most, open.size);
  }
  return most;
};

/**
 * No action, however hostile, and no tool failure makes the environment throw (an "environment error" abort)
 * or write what the journal cannot hold (a "could not record" abort: its own text with a lone surrogate, from
 * a `slice` that cut an emoji in two), which aborts the episode just the same.
 */
export const neverCrashes = (): RewardInvariant<EpisodeScript> =>
  episodeInvariant("no action or tool result crashes the environment", (e) =>
    // (A pick among the legal actions that ran a failing legalActions is one too: the environment's code.)
    e.record.reason.startsWith(`${ABORTED}environment error`)
      ? `the episode ended with "${e.record.reason}"${e.record.thrownAt ? ` (thrown at ${e.record.thrownAt})` : ""}`
      : e.record.reason.startsWith(`${ABORTED}could not record `)
        ? `the episode ended with "${e.record.reason}": the environment wrote an event the journal cannot hold`
        : undefined,
  );

/**
 * Every episode the environment ends itself (an answer, its own turn limit) earns an outcome reward. The return
 * is a sum: an ending without one is graded as an outcome of 0, so where a wrong answer costs (-1), running out
 * the turns pays more than answering, and a policy learns to stall. Episodes cut short (the script ran out, an
 * abort) are not judged.
 */
export const outcomeRewardOnEveryEnd = (): RewardInvariant<EpisodeScript> => {
  const endedByEnv = (e: PlayedEpisode) => !e.truncated && !e.record.reason.startsWith(ABORTED);
  const outcomeAtEnd = (e: PlayedEpisode) => {
    if (!endedByEnv(e) || e.rewards.some((r) => r.kind === "outcome")) return undefined;
    const process = e.rewards.reduce((sum, r) => sum + r.value, 0);
    return `the environment ended the episode ("${e.record.reason}", after ${e.record.turns} turn(s)) with no outcome reward: its return is its process rewards alone (${formatNumber(process)}), as if its outcome were 0, whatever its other endings pay; give this ending its outcome where it ends, e.g. reward("outcome", 0, ${JSON.stringify(e.record.reason)}) beside end(${JSON.stringify(e.record.reason)})`;
  };
  const name = "every episode the environment ends earns an outcome reward";
  const options = {
    appliesTo: endedByEnv,
    describe: "was ended by the environment itself (an answer, a turn limit), not cut short",
  };
  return episodeInvariantThen(name, outcomeAtEnd, options, async (env, script, played, again) => {
    if (!played.truncated) return undefined;
    // A script that ran out before the environment ended it is played again with its last action repeated up to
    // the runtime's turn limit: a turn limit above the drawn scripts' length (maxActions, 6) ends no drawn
    // episode, and the rule passed with that ending never played.
    const limit = env.maxTurns ?? DEFAULT_MAX_TURNS;
    if (script.actions.length >= limit) return undefined;
    const pad = script.actions.at(-1) ?? "";
    return again(env, {
      ...script,
      actions: [...script.actions, ...Array.from({ length: limit - script.actions.length }, () => pad)],
    });
  });
};

/** The recorded episode replays through the machine's pure transitions to the same events. */
export const replaysIdentically = (): RewardInvariant<EpisodeScript> =>
  episodeInvariant("the episode replays to the same events", (e, env) => {
    try {
      replayEpisode(e.events as EpisodeEvent[], env);
      return undefined;
    } catch (cause) {
      return cause instanceof Error ? cause.message : String(cause);
    }
  });

/** A reward invariant of any case type, as checkRewards takes a list of them (`Task`: as for RewardInvariant). */
// biome-ignore lint/suspicious/noExplicitAny: a list of invariants, each with its own case type
export type AnyRewardInvariant<Task extends Json = Json> = RewardInvariant<any, Task>;

/** Every option checkRewards reads (the others would be ignored silently). */
const REWARD_CHECK_OPTIONS = allKeys<RewardCheckOptions>()([
  ...EPISODE_SCRIPT_OPTIONS,
  ...PROPERTY_RUN_OPTIONS,
  "invariants",
  "only",
  "log",
]);

/**
 * Options of checkRewards: the invariants, how episodes are drawn, and how many cases are run. `Task`: the
 * environment's task type, which its invariants may read (`episodeInvariant`'s episodes) and `tasks` draws.
 */
export interface RewardCheckOptions<Task extends Json = Json> extends EpisodeScriptOptions<Task>, PropertyRunOptions {
  /** The invariants to check, each as its own property: the built-in ones, of any task, and your own. */
  readonly invariants: readonly AnyRewardInvariant<Task>[];
  /** Check only the invariants of these names (to rerun a reported counterexample). */
  readonly only?: string | readonly string[];
  /**
   * Told as each invariant starts and ends (`checkRewards: "bounds" (1 of 3): checking 50 cases`, then
   * `...: passed in 1.2 s`, `checked nothing` or `FAILED`), and every 5 s how far a long one got (`...: 400 of
   * 1000 cases, 10.2 s`, or `...: shrinking a counterexample (1012 cases played), 30.5 s`), for a long check run
   * from a script; none by default.
   */
  readonly log?: (line: string) => void;
}

/**
 * Every case of an invariant passed, but none could have failed: the environment never did what the rule is
 * about (e.g. an arrival-order rule on an environment that calls one tool at a time).
 */
export class NothingCheckedError extends Error {
  constructor(readonly checks: readonly { readonly invariant: string; readonly reason: string }[]) {
    super(
      checks.length === 1
        ? `checkRewards: "${checks[0].invariant}" passed without checking anything: ${checks[0].reason}`
        : `checkRewards: ${checks.length} invariants passed without checking anything\n${checks.map((c) => `- "${c.invariant}": ${c.reason}`).join("\n")}`,
    );
    this.name = "NothingCheckedError";
  }
}

/** Several invariants failed: each has its own counterexample. */
export class InvariantsFailedError extends Error {
  constructor(readonly failures: readonly CounterexampleError[]) {
    super(`${failures.length} reward invariants failed\n\n${failures.map((f) => f.message).join("\n\n")}`);
    this.name = "InvariantsFailedError";
  }
}

/**
 * Checks reward invariants against an environment. Throws a CounterexampleError (one failure) or an
 * InvariantsFailedError (several) whose message shows each shrunk episode and where its journal is.
 */
export const checkRewards: {
  /**
   * The invariants get the environment's task type: `episodeInvariant("...", (e) => ...)` written in
   * `invariants` reads `e.record.task` as the environment's Task (`defineEnv` infers it from `task`).
   */
  <Task extends Json>(env: EnvDefinition<Task>, options: RewardCheckOptions<NoInfer<Task>>): Promise<void>;
  /** An environment of any task type: JSON tasks. */
  (env: EnvDefinition, options: RewardCheckOptions): Promise<void>;
} = async <Task extends Json>(env: EnvDefinition<Task>, options: RewardCheckOptions<Task>): Promise<void> => {
  checkEnvArgument("checkRewards", env);
  checkKnownKeys("checkRewards", options, REWARD_CHECK_OPTIONS);
  // One invariant given bare (invariants: neverCrashes()) is no list: say so, not that none was given.
  const given: unknown = options.invariants;
  if (given !== undefined && !Array.isArray(given)) {
    const name = given !== null && typeof given === "object" ? (given as { name?: unknown }).name : undefined;
    throw new TypeError(
      `checkRewards: invariants must be a list of invariants, got ${
        typeof name === "string"
          ? `the invariant ${JSON.stringify(name)} alone: wrap it in a list, invariants: [...]`
          : shownValue(given)
      }`,
    );
  }
  // A check that checks nothing must not pass.
  if (!Array.isArray(options.invariants) || options.invariants.length === 0)
    throw new RangeError("checkRewards: give at least one invariant (invariants: [rewardBounds(...), ...])");
  checkRunOptions("checkRewards", options);
  // An invariant passed without calling it (`neverCrashes` for `neverCrashes()`) is a function, not a check.
  for (const [i, invariant] of options.invariants.entries())
    if (typeof invariant === "function")
      throw new TypeError(
        `checkRewards: invariants[${i}] is the function ${(invariant as { name?: string }).name || "(anonymous)"}, not an invariant: call it (${(invariant as { name?: string }).name || "it"}(...))`,
      );
    else if (typeof (invariant as { arbitrary?: unknown })?.arbitrary !== "function")
      throw new TypeError(
        `checkRewards: invariants[${i}] is not an invariant (make one with rewardBounds(...), episodeInvariant(...), ...)`,
      );
  const only = options.only === undefined ? undefined : [options.only].flat();
  const unknown = only?.filter((name) => !options.invariants.some((i) => i.name === name)) ?? [];
  if (unknown.length > 0)
    throw new RangeError(
      `no invariant named ${unknown.map((n) => JSON.stringify(n)).join(", ")}; known: ${options.invariants
        .map((i) => JSON.stringify(i.name))
        .join(", ")}`,
    );
  if (options.log !== undefined && typeof options.log !== "function")
    throw new TypeError(`checkRewards: log must be a function of one line of text, got ${shownValue(options.log)}`);
  const failures: CounterexampleError[] = [];
  const checkedNothing: { invariant: string; reason: string }[] = [];
  const checked = options.invariants.filter((invariant) => !only || only.includes(invariant.name));
  for (const [index, invariant] of checked.entries()) {
    const which = `checkRewards: ${JSON.stringify(invariant.name)} (${index + 1} of ${checked.length})`;
    const started = performance.now();
    const took = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
    const cases = options.numRuns ?? DEFAULT_NUM_RUNS;
    options.log?.(`${which}: checking ${options.path === undefined ? `${cases} cases` : `case ${options.path}`}`);
    // A check of a thousand cases runs for minutes: every PROGRESS_EVERY_MS it says how far it got.
    let played = 0;
    let failed = false;
    let said = started;
    const run = async (value: unknown) => {
      const found = await invariant.check(env, value);
      played++;
      failed ||= found !== undefined;
      if (options.log && performance.now() - said >= PROGRESS_EVERY_MS) {
        said = performance.now();
        options.log(
          `${which}: ${failed ? `shrinking a counterexample (${played} cases played)` : `${played} of ${cases} cases`}, ${took()}`,
        );
      }
      return found;
    };
    try {
      await checkProperty(
        {
          name: invariant.name,
          env,
          // Only the episode scripts' options: an invariant's own arbitrary (episodeScriptArbitrary(env, options))
          // would refuse checkRewards' others (invariants, numRuns) as unknown.
          arbitrary: invariant.arbitrary(env, Struct.pick(options, EPISODE_SCRIPT_OPTIONS)),
          run,
          rerun: (seed, path) =>
            `checkRewards(env, { ...sameOptions, only: ${JSON.stringify(invariant.name)}, seed: ${seed}, path: ${JSON.stringify(path)} })`,
        },
        options,
      );
      // A rerun of one reported case (path) is not a search, so it says nothing about coverage.
      const reason = options.path === undefined ? invariant.vacuous?.() : undefined;
      if (reason) checkedNothing.push({ invariant: invariant.name, reason });
      options.log?.(`${which}: ${reason ? "checked nothing" : "passed"} in ${took()}`);
    } catch (cause) {
      if (!(cause instanceof CounterexampleError)) throw cause;
      options.log?.(`${which}: FAILED in ${took()} (a counterexample, shrunk)`);
      failures.push(cause);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new InvariantsFailedError(failures);
  if (checkedNothing.length > 0) throw new NothingCheckedError(checkedNothing);
};

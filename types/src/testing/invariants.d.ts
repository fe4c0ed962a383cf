/**
 * Reward invariants, stated once and checked as properties against any ToolEnv: fast-check generates
 * episodes (actions, tool results, arrival orders), plays them through the live runtime, and shrinks a
 * failure to a short episode that is printed step by step and written as a replayable journal.
 *
 *   await checkRewards(env, { invariants: [rewardBounds({ min: -0.1, max: 1 }), noRewardForRepeatedCalls()] });
 */
import type { Json } from "effect/Schema";
import fc from "fast-check";
import type { EnvDefinition } from "../runtime/env.ts";
import { CounterexampleError, type PropertyRunOptions, type Violation } from "./counterexample.ts";
import { type EpisodeScript, type EpisodeScriptOptions, type PlayedEpisode } from "./episodes.ts";
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
export declare const episodeInvariant: <Task extends Json = Json>(name: string, check: (episode: PlayedEpisode<Task>, env: EnvDefinition<Task>) => string | undefined, options?: EpisodeInvariantOptions<Task>) => RewardInvariant<EpisodeScript<Task>, Task>;
/** Every reward (of `kind`, when given) lies in [min, max]. */
export declare const rewardBounds: (bounds: {
    readonly min: number;
    readonly max: number;
    readonly kind?: "process" | "outcome";
}) => RewardInvariant<EpisodeScript>;
/** The episode's return (the sum of all its rewards) lies in [min, max], also for episodes cut short. */
export declare const returnBounds: (bounds: {
    readonly min: number;
    readonly max: number;
}) => RewardInvariant<EpisodeScript>;
/** Process rewards of one episode sum to at most `cap`: more tool calls cannot farm more reward. */
export declare const processRewardCap: (cap: number) => RewardInvariant<EpisodeScript>;
/** Options of noRewardForRepeatedCalls. */
export interface RepeatedCallOptions {
    /** The call an action makes, as a comparable key; default: the framework's action format. */
    readonly callOf?: (text: string, env: EnvDefinition) => string | undefined;
    /** A repeat of a call whose tool failed (error, timeout) is a retry, not a repeat (default false). */
    readonly allowRetryAfterFailure?: boolean;
}
/** An action that repeats an earlier call of the same tool with the same arguments earns no positive reward. */
export declare const noRewardForRepeatedCalls: (options?: RepeatedCallOptions) => RewardInvariant<EpisodeScript>;
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
export declare const outcomeDependsOnlyOnFinalAnswer: (options?: FinalAnswerOptions) => RewardInvariant<FinalAnswerCase>;
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
 * Concurrent tool calls may return in any order; the rewards must not depend on it. Each case plays an
 * episode twice, with results in call order and in an arrival order fast-check draws (and shrinks, towards call
 * order), and compares the rewards of every turn (as multisets: the order of rewards within a turn may differ).
 */
export declare const orderIndependentRewards: () => RewardInvariant<OrderCase>;
/**
 * No action, however hostile, and no tool failure makes the environment throw (an "environment error" abort)
 * or write what the journal cannot hold (a "could not record" abort: its own text with a lone surrogate, from
 * a `slice` that cut an emoji in two), which aborts the episode just the same.
 */
export declare const neverCrashes: () => RewardInvariant<EpisodeScript>;
/**
 * Every episode the environment ends itself (an answer, its own turn limit) earns an outcome reward. The return
 * is a sum: an ending without one is graded as an outcome of 0, so where a wrong answer costs (-1), running out
 * the turns pays more than answering, and a policy learns to stall. Episodes cut short (the script ran out, an
 * abort) are not judged.
 */
export declare const outcomeRewardOnEveryEnd: () => RewardInvariant<EpisodeScript>;
/** The recorded episode replays through the machine's pure transitions to the same events. */
export declare const replaysIdentically: () => RewardInvariant<EpisodeScript>;
/** A reward invariant of any case type, as checkRewards takes a list of them (`Task`: as for RewardInvariant). */
export type AnyRewardInvariant<Task extends Json = Json> = RewardInvariant<any, Task>;
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
export declare class NothingCheckedError extends Error {
    readonly checks: readonly {
        readonly invariant: string;
        readonly reason: string;
    }[];
    constructor(checks: readonly {
        readonly invariant: string;
        readonly reason: string;
    }[]);
}
/** Several invariants failed: each has its own counterexample. */
export declare class InvariantsFailedError extends Error {
    readonly failures: readonly CounterexampleError[];
    constructor(failures: readonly CounterexampleError[]);
}
/**
 * Checks reward invariants against an environment. Throws a CounterexampleError (one failure) or an
 * InvariantsFailedError (several) whose message shows each shrunk episode and where its journal is.
 */
export declare const checkRewards: {
    /**
     * The invariants get the environment's task type: `episodeInvariant("...", (e) => ...)` written in
     * `invariants` reads `e.record.task` as the environment's Task (`defineEnv` infers it from `task`).
     */
    <Task extends Json>(env: EnvDefinition<Task>, options: RewardCheckOptions<NoInfer<Task>>): Promise<void>;
    /** An environment of any task type: JSON tasks. */
    (env: EnvDefinition, options: RewardCheckOptions): Promise<void>;
};
export {};

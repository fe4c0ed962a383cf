/*
 * When a property fails: the shrunk counterexample is printed as the episode it played, step by step, and
 * written as a journal file, so `agent-r1 replay <file> --verify` re-derives it event by event; the
 * message also gives fast-check's seed and path to rerun exactly that case.
 */
import fc from "fast-check";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { EnvDefinition } from "../runtime/env.ts";
/**
 * Where a failing property's counterexample journals are written, and how the printed replay command names the
 * environment.
 */
export interface CounterexampleOptions {
    /**
     * Folder for counterexample journals (default: $AGENT_R1_COUNTEREXAMPLES, else
     * `<os tmpdir>/agent-r1-counterexamples`).
     */
    readonly counterexampleDir?: string;
    /**
     * Path of the module that default-exports the environment: completes the replay command (`--env`), which
     * replays against that export (or the variant its configure rebuilds from a journal's options), so it is
     * printed only when the environment under test is that export, or a variant that replays so. `?key=value` after
     * the path is read as `--env` reads it: the variant those options configure.
     */
    readonly envModule?: string;
}
/** The keys of PropertyRunOptions. */
export declare const PROPERTY_RUN_OPTIONS: readonly ["counterexampleDir", "envModule", "numRuns", "seed", "path"];
/** How many cases a property check tries, and how to rerun one reported case. */
/** Cases a property tries when not told (PropertyRunOptions.numRuns). */
export declare const DEFAULT_NUM_RUNS = 50;
export interface PropertyRunOptions extends CounterexampleOptions {
    /** Cases to try (default 50). */
    readonly numRuns?: number;
    /** fast-check's seed: with `path`, reruns exactly a reported counterexample. */
    readonly seed?: number;
    /** fast-check's path of a reported counterexample; needs its `seed`. */
    readonly path?: string;
}
/**
 * Refuses run options that would make a check pass without running what was asked: numRuns not a whole
 * number, a seed that is not a number (fast-check's seeds are integers), and a path without its seed (the
 * path is then ignored and a search of other cases may pass).
 */
export declare const checkRunOptions: (fn: string, options: PropertyRunOptions) => void;
/** What a failing case showed. */
export interface Violation {
    /** What broke, in words a user can act on. */
    readonly message: string;
    /** The episodes that show it, in the order they were played. */
    readonly episodes: readonly (readonly EpisodeEvent[])[];
    /** More lines for the report (e.g. a model run's commands). */
    readonly details?: readonly string[];
}
declare const CounterexampleError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "CounterexampleError";
} & Readonly<A>;
/**
 * A property failed: the shrunk case's violation, the journals written for it, and fast-check's seed and path to
 * rerun it.
 */
export declare class CounterexampleError extends CounterexampleError_base<{
    readonly property: string;
    readonly env: string;
    readonly violation: Violation;
    /** The counterexample journals, one per episode. */
    readonly files: readonly string[];
    readonly seed: number;
    readonly path: string;
    readonly numRuns: number;
    readonly numShrinks: number;
    /** How to rerun exactly this case, as code. */
    readonly rerun: string;
    readonly envModule?: string;
    /** Why `--env envModule` would not replay these journals: the command is left out. */
    readonly envModuleProblem?: string;
    /**
     * Per episode of the violation, where the environment's code threw, for one that ended in an environment error
     * (found by replaying it: its journal keeps the message only).
     */
    readonly thrownAt?: readonly (string | undefined)[];
}> {
    get message(): string;
}
/**
 * A string as JSON, with every invisible character escaped, cut to a readable length: its start and its
 * end around a "…", so a long action still shows its closing tag (`"<check>[[[[…]]]]</check>" (10015
 * characters)`).
 */
export declare const quote: (text: string) => string;
/** A reward or return as the report shows it: up to 6 significant digits, so 0.1 + 0.2 shows as 0.3. */
export declare const formatNumber: (value: number) => string;
/** A value compared with a limit: rounded, unless rounding would make it look like the limit. */
export declare const formatBeside: (value: number, limit: number) => string;
/**
 * An episode's events, one line each, the way a person reads an episode: turn, what happened, details.
 * `episode`: the id to show, when the episode was written under another (a counterexample's journal).
 * `thrownAt`: where the environment's code threw, for an episode that ended in an environment error (a
 * journal keeps the message only; envErrorThrownAt finds the line by replaying).
 */
export declare const describeEpisode: (events: readonly EpisodeEvent[], episode?: string, thrownAt?: string) => string;
/**
 * Where counterexample journals go by default: $AGENT_R1_COUNTEREXAMPLES, else `<os
 * tmpdir>/agent-r1-counterexamples`.
 */
export declare const defaultCounterexampleDir: () => string;
/**
 * Writes episodes as journal files (re-stamped under a new episode id, so names never clash) and returns
 * their paths. Each replays with `agent-r1 replay <file> --verify`.
 */
export declare const writeCounterexample: (name: string, episodes: readonly (readonly EpisodeEvent[])[], options?: CounterexampleOptions) => Promise<string[]>;
/**
 * Runs a property over an environment with fast-check. `run` plays what a case needs and returns a
 * Violation or nothing; the last violation seen is the shrunk counterexample, which is written as
 * journals and thrown as a CounterexampleError.
 */
export declare const checkProperty: <T>(spec: {
    readonly name: string;
    readonly env: EnvDefinition;
    readonly arbitrary: fc.Arbitrary<T>;
    readonly run: (value: T) => Promise<Violation | undefined>;
    /** Code that reruns this exact case, given fast-check's seed and path. */
    readonly rerun: (seed: number, path: string) => string;
    /** What else a rerun needs besides the seed and path (said when a path leads nowhere): checkModel's replayPath. */
    readonly rerunAlsoNeeds?: string;
}, options?: PropertyRunOptions) => Promise<void>;
export {};

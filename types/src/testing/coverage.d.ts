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
import type { Json } from "effect/Schema";
import { type AnyMachineSnapshot } from "xstate";
import type { ToolResult } from "../kernel/events.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeScript } from "./episodes.ts";
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
export type ExplorationEvent = {
    readonly type: "agent.act";
    readonly turn: number;
    readonly text: string;
    readonly tokens: readonly number[];
} | {
    readonly type: `xstate.done.actor.${string}`;
    readonly output: ToolResult;
    readonly actorId: string;
};
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
/** One step of a path: the event and the state it leads to (the first step: `xstate.init` and the initial state). */
export interface PathStep {
    readonly state: ProtocolSnapshot;
    readonly event: ExplorationEvent | {
        readonly type: "xstate.init";
    };
}
/** Explores the machine and reports coverage and problems; throws only when the exploration cannot finish. */
export declare const exploreEnv: {
    /** The report's paths' scripts have the environment's task type (`defineEnv` infers it). */
    <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task>;
    /** An environment of any task type, or a `task` of another type than its own: JSON tasks. */
    (env: EnvDefinition, options: CoverageOptions): CoverageReport;
};
/**
 * Thrown by checkCoverage when the report lists problems; `report` holds them all (the message shows the first 8).
 */
export declare class CoverageError extends Error {
    readonly env: string;
    readonly report: CoverageReport;
    constructor(env: string, report: CoverageReport);
}
/**
 * Explores the machine and throws a CoverageError listing each problem with the shortest path to it (or a
 * RangeError when the exploration cannot finish: over `limit`, or an endless episode whose context grows).
 */
export declare const checkCoverage: {
    /** The report's paths' scripts have the environment's task type (`defineEnv` infers it). */
    <Task extends Json>(env: EnvDefinition<Task>, options: CoverageOptions<Task>): CoverageReport<Task>;
    /** An environment of any task type, or a `task` of another type than its own: JSON tasks. */
    (env: EnvDefinition, options: CoverageOptions): CoverageReport;
};
export {};

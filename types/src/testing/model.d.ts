/**
 * Model-based testing of an environment: the user writes a simple model of what the environment should
 * do (a plain function from the model's state and the agent's action to the expected reward, observation
 * and end), and fast-check runs random command sequences (`fc.commands` + `fc.asyncModelRun`) against
 * both, one action at a time, through the live runtime. A mismatch shrinks to the shortest sequence.
 */
import type { Json } from "effect/Schema";
import fc from "fast-check";
import type { ToolResult } from "../kernel/events.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type ActionOptions } from "./actions.ts";
import { type PropertyRunOptions } from "./counterexample.ts";
/** What the environment should do after an action. Leave out what the model does not predict. */
export interface ModelPrediction<State> {
    /** The model's next state. */
    readonly state: State;
    /** The sum of the rewards the action earns (process and outcome together). */
    readonly reward?: number;
    /** Whether the action ends the episode. */
    readonly done?: boolean;
    /** The next observation: the exact text, or a pattern it matches. */
    readonly observation?: string | RegExp;
}
/** A simple model of an environment, written by its author. */
export interface EnvModel<State, Task = Json> {
    /**
     * The model's state when an episode of `task` starts. `seed` is the episode's seed, the machine's
     * `input.seed`: a model of an environment whose transitions draw from it (random demand, weather, an
     * opponent) draws the same way, with `Rng.fromSeed`.
     */
    init(task: Task, seed: string): State;
    /** The first observation, when the model predicts it (`seed` as for `init`). */
    opening?(task: Task, seed: string): string | RegExp;
    /** The prediction for the agent's action; `toolResult` is what every tool call of this action returns, if injected. */
    act(state: State, text: string, toolResult?: ToolResult): ModelPrediction<State>;
}
/** Options of checkModel: the model, and how action sequences and tasks are drawn. */
export interface ModelCheckOptions<State, Task> extends ActionOptions, PropertyRunOptions {
    /** The model the environment is checked against. */
    readonly model: EnvModel<State, Task>;
    /** The agent's actions (default: `actionArbitrary(env, options)`). */
    readonly actions?: fc.Arbitrary<string>;
    /** Episode seeds; the environment draws the task from it unless `tasks` is given. */
    readonly seeds?: fc.Arbitrary<string>;
    readonly tasks?: fc.Arbitrary<Task>;
    /** Longest command sequence (default 8). */
    readonly maxCommands?: number;
    /** Tool results to inject on some actions (1 in 5); the model sees them. Default: tools run for real. */
    readonly toolFaults?: fc.Arbitrary<ToolResult>;
    /** fast-check's replay path of a command sequence (printed with a failing sequence). */
    readonly replayPath?: string;
    /** Make some actions exact repeats of earlier ones (default true): repeats are where rewards get farmed. */
    readonly repeats?: boolean;
    /**
     * When the environment declares `legalActions` and `actions` is not given, draw about half the actions
     * from them, in the state each is taken in (default true), as `checkRewards` does: the task's own calls,
     * which random arguments rarely hit, so the model's branches for them are compared at all.
     */
    readonly legal?: boolean;
}
/**
 * Runs random action sequences against the environment and the model; throws a CounterexampleError with
 * the shortest sequence found where they disagree, its episode, and its journal.
 */
export declare const checkModel: {
    /** The model's `init` and `opening`, and `tasks`, get the environment's task type (`defineEnv` infers it). */
    <State, Task extends Json>(env: EnvDefinition<Task>, options: ModelCheckOptions<State, Task>): Promise<void>;
    /** An environment of any task type, or a model of another task type than its own (JSON by default). */
    <State, Task = Json>(env: EnvDefinition, options: ModelCheckOptions<State, Task>): Promise<void>;
};

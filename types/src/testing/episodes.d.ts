/**
 * Whole episodes, generated and played through the real runtime: an `EpisodeScript` (seed, task, the
 * agent's actions, tool results to inject) is what fast-check generates and shrinks; `playEpisode` runs
 * it with `runEpisode`, so every event is journaled exactly as in a rollout and replays with `--verify`.
 * `EpisodeDriver` plays one action at a time, for model-based tests.
 */
import type { Json } from "effect/Schema";
import fc from "fast-check";
import type { Journal } from "../journal/journal.ts";
import type { EpisodeEvent, EventOf, ToolResult } from "../kernel/events.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type EpisodeRecord } from "../runtime/episode.ts";
import type { PolicyRequest } from "../runtime/policy.ts";
import { type ActionOptions } from "./actions.ts";
/** An action of a script: its text, or a pick among the environment's legal actions in the state reached. */
export type ScriptAction = string | {
    readonly legal: number;
};
/**
 * An episode as fast-check generates it: everything that enters the environment from outside. `Task`: the
 * environment's task type (the kit's functions give an `EnvDefinition<Task>`'s scripts that type); a script of
 * any environment keeps the default, JSON.
 */
export interface EpisodeScript<Task extends Json = Json> {
    readonly seed: string;
    /** The task; drawn from the seed by the environment when absent. */
    readonly task?: Task;
    /**
     * The agent's actions, in order. When they run out first, the episode is cut short (aborted). A
     * `{ legal: i }` is resolved when played: one of the actions the environment's `legalActions` lists in the
     * state reached, i picking first a kind (a tool's calls, answers, ...) and then one of that kind, or an empty
     * action where it lists none. The same `{ legal }`
     * object held twice (a repeat the kit draws) plays, the second time, the text it played the first.
     */
    readonly actions: readonly ScriptAction[];
    /** Results to inject, by tool call in call order; null (or past the end) calls the real tool. */
    readonly toolResults?: readonly (ToolResult | null)[];
}
/** An episode script played live: the record, its events and its rewards (`Task`: as for EpisodeScript). */
export interface PlayedEpisode<Task extends Json = Json> {
    readonly script: EpisodeScript<Task>;
    readonly record: EpisodeRecord<Task>;
    readonly events: readonly EpisodeEvent[];
    readonly rewards: readonly EventOf<"reward.assigned">[];
    /** The script ran out of actions before the environment ended the episode. */
    readonly truncated: boolean;
}
/** The policy id of played scripts; its failure reason marks a truncated episode. */
export declare const SCRIPT_POLICY = "script";
/** What episodeScriptArbitrary draws: the actions, seeds or tasks, and the tool results to inject. */
export interface EpisodeScriptOptions<Task extends Json = Json> extends ActionOptions {
    /** The agent's actions (default: `actionArbitrary(env, options)`, well-formed and hostile). */
    readonly actions?: fc.Arbitrary<string>;
    /** At most this many actions (default 6). */
    readonly maxActions?: number;
    /**
     * At least this many actions (default 0). An environment that ends only after a fixed number of actions
     * (a world that runs for N days) needs scripts that long for its ending, and its outcome reward, to be drawn.
     */
    readonly minActions?: number;
    /** Episode seeds (default "s0" to "s9999"); the environment draws the task from it. */
    readonly seeds?: fc.Arbitrary<string>;
    /** Tasks; when absent, `env.task(seed)`. */
    readonly tasks?: fc.Arbitrary<Task>;
    /** One injected result per tool call, null for the real tool (default: real 4 in 5, else a failure). */
    readonly toolResults?: fc.Arbitrary<ToolResult | null>;
    /** Make some actions exact repeats of earlier ones (default true): repeats are where rewards get farmed. */
    readonly repeats?: boolean;
    /**
     * When the environment declares `legalActions` and `actions` is not given, draw about half the actions
     * from them, in the state each is taken in (default true): the task's own calls, which random arguments
     * rarely hit, and so loopholes that take two or three particular steps.
     */
    readonly legal?: boolean;
}
/** The options of episode scripts (checkRewards refuses any other). */
export declare const EPISODE_SCRIPT_OPTIONS: readonly ["args", "answers", "hugeLength", "actions", "maxActions", "minActions", "seeds", "tasks", "toolResults", "repeats", "legal"];
/** Episode seeds "s0" to "s9999". */
export declare const seedArbitrary: () => fc.Arbitrary<string>;
/** Actions with some exact repeats of earlier ones: `{ repeat: i }` copies the i-th earlier action. */
export declare const actionsWithRepeatsArbitrary: <A extends ScriptAction>(actions: fc.Arbitrary<A>, maxActions: number, repeats?: boolean, minActions?: number) => fc.Arbitrary<A[]>;
/** The text a script's action stands for, in the state the request shows. */
export declare const resolveAction: (env: EnvDefinition, action: ScriptAction, request: PolicyRequest) => string;
/** Episode scripts for an environment. */
export declare const episodeScriptArbitrary: {
    /** The scripts' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
    <Task extends Json>(env: EnvDefinition<Task>, options?: EpisodeScriptOptions<Task>): fc.Arbitrary<EpisodeScript<Task>>;
    /** An environment of any task type, or `tasks` of another type than its own: JSON tasks. */
    (env: EnvDefinition, options?: EpisodeScriptOptions): fc.Arbitrary<EpisodeScript>;
};
/** Options of playEpisode. */
export interface PlayOptions {
    /** Where the events go (default: a fresh MemoryJournal). */
    readonly journal?: Journal;
    /** The episode id (default: derived from the seed). */
    readonly episode?: string;
    /**
     * Decides when each tool result reaches the machine. Called as each call starts, with the promise of its
     * result (injected, or the real tool's); the machine sees the result when the returned promise settles.
     * With a fast-check scheduler, `(label, result) => s.schedule(result, label)` tries every arrival order,
     * of real async tools' results as well as of injected ones.
     */
    readonly schedule?: (label: string, result: Promise<ToolResult>) => Promise<ToolResult>;
}
/** Plays a script through the live runtime (`runEpisode`); the journal replays with `--verify`. */
export declare const playEpisode: {
    /** The played episode's `script.task` and `record.task` have the environment's task type. */
    <Task extends Json>(env: EnvDefinition<Task>, script: EpisodeScript<Task>, options?: PlayOptions): Promise<PlayedEpisode<Task>>;
    /** An environment of any task type, or a script whose task is of another type than its own: a JSON task. */
    (env: EnvDefinition, script: EpisodeScript, options?: PlayOptions): Promise<PlayedEpisode>;
};
/** What one action led to, up to the environment's next observation or the end. */
export interface StepResult {
    /** The events from the agent's action on. */
    readonly events: readonly EpisodeEvent[];
    readonly rewards: readonly EventOf<"reward.assigned">[];
    /** The sum of the rewards. */
    readonly reward: number;
    /** The last observation shown after the action (undefined when none). */
    readonly observation: string | undefined;
    /** The episode has ended. */
    readonly done: boolean;
}
/**
 * What an EpisodeDriver starts from: the episode's seed (the task is drawn from it unless given), and where its
 * events go.
 */
export interface DriverOptions<Task extends Json = Json> {
    readonly seed: string;
    readonly task?: Task;
    readonly journal?: Journal;
    readonly episode?: string;
}
/**
 * An episode played one action at a time, through the live runtime: the driver is the policy. `act`
 * returns once the environment waits for the next action or has ended; `close` cuts a running episode
 * short (recorded as an abort) and returns its record.
 */
export declare class EpisodeDriver<Task extends Json = Json> {
    readonly env: EnvDefinition<Task>;
    readonly events: EpisodeEvent[];
    private pending;
    private rejectPending;
    private wake;
    private outcome;
    private injected;
    private readonly episode;
    private constructor();
    private settle;
    /**
     * Starts the episode and waits for its first observation. The driver's `task` and its record's have the
     * environment's task type; an environment of any task type, or a `task` of another type, gives JSON tasks.
     */
    static start<Task extends Json>(env: EnvDefinition<Task>, options: DriverOptions<Task>): Promise<EpisodeDriver<Task>>;
    static start(env: EnvDefinition, options: DriverOptions): Promise<EpisodeDriver>;
    /** The episode has ended (the environment ended it, or `close` cut it short). */
    get done(): boolean;
    /** The task the episode runs (its episode.started's, journaled before `start` returns). */
    get task(): Task;
    /**
     * The action of the environment's `legalActions` in the state reached that a script's `{ legal: index }` plays
     * (index picks a kind, then one of that kind); an empty action where it lists none, or the episode ended.
     */
    legalAction(index: number): string;
    /** The latest observation so far. */
    get observation(): string | undefined;
    private turn;
    /** The agent acts; with `toolResult`, every tool call this action causes returns it instead. */
    act(text: string, options?: {
        toolResult?: ToolResult;
    }): Promise<StepResult>;
    /** Ends the episode (an abort when it is still running) and returns its record. */
    close(): Promise<EpisodeRecord<Task>>;
}

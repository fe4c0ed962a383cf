/**
 * Whole episodes, generated and played through the real runtime: an `EpisodeScript` (seed, task, the
 * agent's actions, tool results to inject) is what fast-check generates and shrinks; `playEpisode` runs
 * it with `runEpisode`, so every event is journaled exactly as in a rollout and replays with `--verify`.
 * `EpisodeDriver` plays one action at a time, for model-based tests.
 */
import type { Json } from "effect/Schema";
import * as Struct from "effect/Struct";
import fc from "fast-check";
import type { Journal } from "../journal/journal.ts";
import { MemoryJournal } from "../journal/memory.ts";
import { asJournaled } from "../kernel/canonical.ts";
import { allKeys, checkKnownKeys, didYouMean, firstUnknownKey, shownValue } from "../kernel/errors.ts";
import type { EpisodeEvent, EventOf, ToolResult } from "../kernel/events.ts";
import { legalActionsOf } from "../policy/legal.ts";
import { parseAction } from "../runtime/action-format.ts";
import {
  checkEnvArgument,
  type EnvDefinition,
  recordedOptionsOf,
  rememberConfigured,
  unconfiguredOf,
} from "../runtime/env.ts";
import { type EpisodeRecord, runEpisode } from "../runtime/episode.ts";
import type { Policy, PolicyAction, PolicyRequest } from "../runtime/policy.ts";
import { PolicyActor } from "../runtime/policy-actor.ts";
import { checkTaskDrawnAgain } from "../runtime/rollout.ts";
import type { Tool } from "../runtime/tool.ts";
import {
  ACTION_OPTIONS,
  type ActionOptions,
  actionArbitrary,
  checkArbitraryOptions,
  TOOL_RESULT_SHAPE,
  toolResultProblem,
} from "./actions.ts";
import { failedToolResultArbitrary } from "./arbitraries.ts";

/** An action of a script: its text, or a pick among the environment's legal actions in the state reached. */
export type ScriptAction = string | { readonly legal: number };

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

const SCRIPT_FIELDS = allKeys<EpisodeScript>()(["seed", "task", "actions", "toolResults"]);
const PLAY_OPTIONS = allKeys<PlayOptions>()(["journal", "episode", "schedule"]);

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
export const SCRIPT_POLICY = "script";
const EXHAUSTED = "the script has no more actions";

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
export const EPISODE_SCRIPT_OPTIONS = allKeys<EpisodeScriptOptions>()([
  ...ACTION_OPTIONS,
  "actions",
  "maxActions",
  "minActions",
  "seeds",
  "tasks",
  "toolResults",
  "repeats",
  "legal",
]);

/** Episode seeds "s0" to "s9999". */
export const seedArbitrary = (): fc.Arbitrary<string> => fc.nat({ max: 9999 }).map((n) => `s${n}`);

/** Actions with some exact repeats of earlier ones: `{ repeat: i }` copies the i-th earlier action. */
export const actionsWithRepeatsArbitrary = <A extends ScriptAction>(
  actions: fc.Arbitrary<A>,
  maxActions: number,
  repeats = true,
  minActions = 0,
): fc.Arbitrary<A[]> => {
  if (!repeats) return fc.array(actions, { minLength: minActions, maxLength: maxActions });
  const item = fc.oneof(
    { arbitrary: actions.map((action) => ({ action })), weight: 3 },
    { arbitrary: fc.nat({ max: maxActions }).map((repeat) => ({ repeat })), weight: 1 },
  );
  const scripts = fc.array(item, { minLength: minActions, maxLength: maxActions }).map((items) => {
    const texts: A[] = [];
    for (const it of items)
      if ("action" in it) texts.push(it.action);
      else if (texts.length > 0) texts.push(texts[it.repeat % texts.length]);
    return texts;
  });
  // A leading repeat has nothing to copy and is dropped, so a script can come out shorter than drawn. (Only
  // filtered when asked: the draws, seeds and paths of checks without minActions stay what they were.)
  return minActions > 0 ? scripts.filter((texts) => texts.length >= minActions) : scripts;
};

/** The text a script's action stands for, in the state the request shows. */
export const resolveAction = (env: EnvDefinition, action: ScriptAction, request: PolicyRequest): string => {
  if (typeof action === "string") return action;
  // Checked as constrained decoding checks it: a legalActions that throws (or returns no list of texts) is named,
  // and the kit reports it (neverCrashes), where before a throw was the script's failure and passed.
  const legal = legalActionsOf(env, { task: request.task, history: request.history }) ?? [];
  return legalPick(env, legal, action.legal);
};

/**
 * The `index`-th legal action, counted by kind: the legal actions are grouped by what they do (the calls of each
 * tool, the answers, anything else), in the order of their first appearance, and `index` picks a group (modulo
 * their number), then an action within it (the next digits of `index`, modulo its size). A plain `index % n` over
 * the list picked what the list had most of: a state listing 40 answers and 3 calls drew an answer, which ends the
 * episode, 93% of the time, so loopholes two calls deep were seldom reached. With one kind only, the same as
 * `index % n`.
 */
const legalPick = (env: EnvDefinition, legal: readonly string[], index: number): string => {
  if (legal.length === 0) return "";
  const groups = new Map<string, string[]>();
  for (const text of legal) {
    const action = parseAction(text, env.tools);
    const kind = action.kind === "call" ? `call ${action.tool}` : action.kind;
    const group = groups.get(kind);
    if (group) group.push(text);
    else groups.set(kind, [text]);
  }
  const kinds = [...groups.values()];
  const group = kinds[index % kinds.length] as string[];
  return group[Math.floor(index / kinds.length) % group.length] as string;
};

/** Episode scripts for an environment. */
export const episodeScriptArbitrary: {
  /** The scripts' `task` has the environment's task type (`defineEnv` infers it from `task: (seed): Task => ...`). */
  <Task extends Json>(
    env: EnvDefinition<Task>,
    options?: EpisodeScriptOptions<Task>,
  ): fc.Arbitrary<EpisodeScript<Task>>;
  /** An environment of any task type, or `tasks` of another type than its own: JSON tasks. */
  (env: EnvDefinition, options?: EpisodeScriptOptions): fc.Arbitrary<EpisodeScript>;
} = <Task extends Json>(
  env: EnvDefinition<Task>,
  options: EpisodeScriptOptions<Task> = {},
): fc.Arbitrary<EpisodeScript<Task>> => {
  // A misspelt option (`maxAction: 3`) was ignored: scripts of the default length were drawn.
  checkKnownKeys("episodeScriptArbitrary", options, EPISODE_SCRIPT_OPTIONS);
  checkArbitraryOptions(options, env);
  const maxActions = options.maxActions ?? 6;
  const minActions = options.minActions ?? 0;
  if (!Number.isInteger(minActions) || minActions < 0 || minActions > maxActions)
    throw new RangeError(
      `minActions must be an integer from 0 to maxActions (${maxActions}), got ${shownValue(options.minActions)}`,
    );
  const toolResult =
    options.toolResults ??
    fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: failedToolResultArbitrary(), weight: 1 });
  const drawn: fc.Arbitrary<ScriptAction> =
    options.actions ?? actionArbitrary(env, Struct.pick(options, ACTION_OPTIONS));
  const actions: fc.Arbitrary<ScriptAction> =
    env.legalActions && !options.actions && options.legal !== false
      ? fc.oneof(
          drawn,
          fc.nat({ max: 63 }).map((legal) => ({ legal })),
        )
      : drawn;
  const script = {
    seed: options.seeds ?? seedArbitrary(),
    actions: actionsWithRepeatsArbitrary(actions, maxActions, options.repeats, minActions),
    toolResults: fc.array(toolResult, { maxLength: maxActions }),
  };
  // Every key required: an optional `task` let fast-check drop the user's task, and shrinking always did.
  return options.tasks ? fc.record({ ...script, task: options.tasks }) : fc.record(script);
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

/** The environment with its tools' results injected and scheduled; its machine, id and version unchanged. */
const withTools = <Task extends Json>(
  env: EnvDefinition<Task>,
  inject: (call: number) => ToolResult | null | undefined,
  schedule: PlayOptions["schedule"],
): EnvDefinition<Task> => {
  let calls = 0;
  const wrap = (name: string, tool: Tool): Tool => ({
    ...tool,
    call: (args, signal) => {
      const index = calls++;
      // Handed to the schedule as the call starts, not as it returns: a result is held from the start, so
      // the order results reach the machine is the schedule's, not the order real tools happened to finish.
      const injected = inject(index);
      const result = injected != null ? Promise.resolve(injected) : tool.call(args, signal);
      return schedule ? schedule(`${name} call ${index}`, result) : result;
    },
  });
  const copy: EnvDefinition<Task> = {
    ...env,
    tools: Object.fromEntries(Object.entries(env.tools).map(([name, tool]) => [name, wrap(name, tool)])),
  };
  // A variant its configure made records its options in its journals, as in a run: the copy is that variant too, so
  // that a counterexample's journal says which variant to rebuild (`replay --verify --env MODULE`).
  const root = unconfiguredOf(env);
  return root === env ? copy : rememberConfigured(copy, root as EnvDefinition, recordedOptionsOf(env));
};

/** The action a model would emit for this text: its tokens, then <eos> when the tokenizer has one. */
const actionOf = (env: EnvDefinition, text: string): PolicyAction => {
  const eos = env.tokenizer.idOf("<eos>");
  const tokens = eos === undefined ? env.tokenizer.encode(text) : [...env.tokenizer.encode(text), eos];
  return { tokens, text, logprobs: tokens.map(() => 0), version: 0 };
};

const rewardsOf = (events: readonly EpisodeEvent[]) =>
  events.filter((e): e is EventOf<"reward.assigned"> => e.type === "reward.assigned");

/** Plays a script through the live runtime (`runEpisode`); the journal replays with `--verify`. */
export const playEpisode: {
  /** The played episode's `script.task` and `record.task` have the environment's task type. */
  <Task extends Json>(
    env: EnvDefinition<Task>,
    script: EpisodeScript<Task>,
    options?: PlayOptions,
  ): Promise<PlayedEpisode<Task>>;
  /** An environment of any task type, or a script whose task is of another type than its own: a JSON task. */
  (env: EnvDefinition, script: EpisodeScript, options?: PlayOptions): Promise<PlayedEpisode>;
} = async <Task extends Json>(
  env: EnvDefinition<Task>,
  script: EpisodeScript<Task>,
  options: PlayOptions = {},
): Promise<PlayedEpisode<Task>> => {
  // From plain JavaScript, an environment that is none ("reading 'tokenizer'"), a script without its seed or actions,
  // or with actions that are no texts ("policy script failed: ... reading 'matchAll'"), failed deep in the runtime.
  checkEnvArgument("playEpisode", env);
  checkKnownKeys("playEpisode", options, PLAY_OPTIONS);
  // A schedule that is no function threw in every tool call, and the episode ended "waiting for nothing", blamed
  // on the environment.
  if (options.schedule !== undefined && typeof options.schedule !== "function")
    throw new TypeError(
      `playEpisode: options.schedule must be a function (label, result) => a promise of the result (e.g. (label, result) => s.schedule(result, label) with a fast-check scheduler s), got ${shownValue(options.schedule)}`,
    );
  // A misspelt field (`toolResult: [...]`) was ignored: the real tools ran where failures were meant to be injected.
  // Named before the fields it leaves missing (`action: [...]` said only "its actions are not an array").
  const unknown = typeof script === "object" && script !== null ? firstUnknownKey(script, SCRIPT_FIELDS) : undefined;
  if (unknown)
    throw new TypeError(
      `playEpisode: the script has an unknown field \`${unknown.key}\`${didYouMean(unknown.meant)}; a script is { seed: string, actions: [...], task?, toolResults? }`,
    );
  if (typeof script?.seed !== "string" || !Array.isArray(script.actions))
    throw new TypeError(
      `playEpisode: the script must be { seed: string, actions: [...], task?, toolResults? }; ${typeof script?.seed !== "string" ? `its seed is ${script?.seed === undefined ? "missing" : typeof script.seed} (the episode's seed names its journal, and draws the task when none is given)` : "its actions are not an array"}`,
    );
  const notAction = script.actions.findIndex(
    (action) =>
      typeof action !== "string" &&
      !(
        typeof action === "object" &&
        action !== null &&
        Number.isInteger((action as { legal?: unknown }).legal) &&
        (action as { legal: number }).legal >= 0
      ),
  );
  if (notAction >= 0)
    throw new TypeError(
      `playEpisode: script.actions[${notAction}] is ${shownValue(script.actions[notAction])}, not an action: give the action's text, or { legal: i } for the i-th legal action`,
    );
  if (script.toolResults !== undefined && !Array.isArray(script.toolResults))
    throw new TypeError(
      `playEpisode: script.toolResults must be a list, the result to inject by tool call in call order (null: the real tool's), got ${shownValue(script.toolResults)}`,
    );
  // An injected result of another shape than the runtime's was journaled, or aborted the episode, as the
  // environment's doing.
  for (const [index, result] of (script.toolResults ?? []).entries()) {
    const problem = result == null ? undefined : toolResultProblem(result);
    if (problem !== undefined)
      throw new TypeError(
        `playEpisode: script.toolResults[${index}] is not a tool result (${problem}): give ${TOOL_RESULT_SHAPE}, or null for the real tool's result`,
      );
  }
  if (script.task === undefined) checkTaskOfSeed(env, script.seed);
  // A repeat the kit draws holds the very `{ legal }` object it repeats: it plays the text that pick played, not the
  // pick's index again in a state whose legal actions changed (another text, 14 of lookup's 48 such repeats).
  const picked = new Map<object, string>();
  const policy: Policy = {
    id: SCRIPT_POLICY,
    version: 0,
    tokenizer: env.tokenizer,
    act: async (requests) =>
      requests.map((request) => {
        const action = script.actions[request.turn];
        if (action === undefined) throw new Error(EXHAUSTED);
        if (typeof action === "string") return actionOf(env, action);
        const text = picked.get(action) ?? resolveAction(env, action, request);
        picked.set(action, text);
        return actionOf(env, text);
      }),
  };
  const record = await runEpisode({
    env: withTools(env, (call) => script.toolResults?.[call], options.schedule),
    policy: new PolicyActor(policy),
    journal: options.journal ?? new MemoryJournal(),
    seed: script.seed,
    ...(script.task !== undefined ? { task: script.task } : {}),
    ...(options.episode ? { episode: options.episode } : {}),
  });
  return {
    script: { ...script, task: record.task },
    record,
    events: record.events,
    rewards: rewardsOf(record.events),
    truncated: record.reason.endsWith(EXHAUSTED),
  };
};

/** How many seeds' tasks playEpisode has drawn twice, by environment: the first few of each are checked. */
const tasksChecked = new WeakMap<EnvDefinition, number>();
const TASKS_CHECKED = 8;

/**
 * A task the environment draws from the seed must be the same drawn again, as rollout checks (a kit that played
 * only journaled tasks passed an environment whose `task` drew from Math.random). A draw that throws or gives what
 * no journal holds is left to the episode, which says so.
 */
const checkTaskOfSeed = (env: EnvDefinition, seed: string): void => {
  const checked = tasksChecked.get(env) ?? 0;
  if (checked >= TASKS_CHECKED) return;
  tasksChecked.set(env, checked + 1);
  let task: Json;
  try {
    const journaled = asJournaled(env.task(seed), "task");
    if (journaled.problem !== undefined) return;
    task = journaled.value;
  } catch {
    return;
  }
  checkTaskDrawnAgain(env, seed, task, checked === 0 ? 3 : 1);
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
const DRIVER_OPTIONS = allKeys<DriverOptions>()(["seed", "task", "journal", "episode"]);

/**
 * An episode played one action at a time, through the live runtime: the driver is the policy. `act`
 * returns once the environment waits for the next action or has ended; `close` cuts a running episode
 * short (recorded as an abort) and returns its record.
 */
export class EpisodeDriver<Task extends Json = Json> {
  readonly events: EpisodeEvent[] = [];
  private pending: { requests: readonly PolicyRequest[]; resolve: (a: PolicyAction[]) => void } | undefined;
  private rejectPending: ((cause: Error) => void) | undefined;
  private wake: (() => void) | undefined;
  private outcome: { record?: EpisodeRecord<Task>; failure?: unknown } | undefined;
  private injected: ToolResult | undefined;
  private readonly episode: Promise<EpisodeRecord<Task>>;

  private constructor(
    readonly env: EnvDefinition<Task>,
    options: DriverOptions<Task>,
  ) {
    const policy: Policy = {
      id: "driver",
      version: 0,
      tokenizer: env.tokenizer,
      act: (requests) =>
        new Promise<PolicyAction[]>((resolve, reject) => {
          this.pending = { requests, resolve };
          this.rejectPending = reject;
          this.wake?.();
        }),
    };
    this.episode = runEpisode({
      env: withTools(env, () => this.injected, undefined),
      policy: new PolicyActor(policy),
      journal: options.journal ?? new MemoryJournal(),
      seed: options.seed,
      onEvent: (event) => this.events.push(event),
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(options.episode ? { episode: options.episode } : {}),
    });
    this.episode.then(
      (record) => this.settle({ record }),
      (failure) => this.settle({ failure }),
    );
  }

  private settle(outcome: { record?: EpisodeRecord<Task>; failure?: unknown }) {
    this.outcome = outcome;
    this.wake?.();
  }

  /**
   * Starts the episode and waits for its first observation. The driver's `task` and its record's have the
   * environment's task type; an environment of any task type, or a `task` of another type, gives JSON tasks.
   */
  static start<Task extends Json>(env: EnvDefinition<Task>, options: DriverOptions<Task>): Promise<EpisodeDriver<Task>>;
  static start(env: EnvDefinition, options: DriverOptions): Promise<EpisodeDriver>;
  static async start<Task extends Json>(
    env: EnvDefinition<Task>,
    options: DriverOptions<Task>,
  ): Promise<EpisodeDriver<Task>> {
    checkEnvArgument("EpisodeDriver.start", env);
    checkKnownKeys("EpisodeDriver.start", options, DRIVER_OPTIONS);
    if (typeof options?.seed !== "string")
      throw new TypeError(
        `EpisodeDriver.start: options.seed must be a string (it names the episode's journal, and draws the task when none is given); got ${options?.seed === undefined ? "none" : typeof options.seed}`,
      );
    const driver = new EpisodeDriver(env, options);
    await driver.turn();
    return driver;
  }

  /** The episode has ended (the environment ended it, or `close` cut it short). */
  get done(): boolean {
    return this.outcome !== undefined;
  }

  /** The task the episode runs (its episode.started's, journaled before `start` returns). */
  get task(): Task {
    const started = this.events[0];
    if (started?.type !== "episode.started") throw new Error("the episode has not started: await EpisodeDriver.start");
    return started.task as Task;
  }

  /**
   * The action of the environment's `legalActions` in the state reached that a script's `{ legal: index }` plays
   * (index picks a kind, then one of that kind); an empty action where it lists none, or the episode ended.
   */
  legalAction(index: number): string {
    const request = this.pending?.requests[0];
    return request === undefined ? "" : resolveAction(this.env, { legal: index }, request);
  }

  /** The latest observation so far. */
  get observation(): string | undefined {
    return this.events.findLast((e) => e.type === "env.observed")?.text;
  }

  private async turn(): Promise<void> {
    while (!this.pending && !this.outcome) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    if (this.outcome?.failure) throw this.outcome.failure;
  }

  /** The agent acts; with `toolResult`, every tool call this action causes returns it instead. */
  async act(text: string, options: { toolResult?: ToolResult } = {}): Promise<StepResult> {
    const pending = this.pending;
    if (!pending) throw new Error("the episode has ended: no more actions");
    this.pending = undefined;
    this.injected = options.toolResult;
    const from = this.events.length;
    pending.resolve(pending.requests.map(() => actionOf(this.env, text)));
    await this.turn();
    this.injected = undefined;
    const events = this.events.slice(from);
    const rewards = rewardsOf(events);
    return {
      events,
      rewards,
      reward: rewards.reduce((sum, r) => sum + r.value, 0),
      observation: events.findLast((e) => e.type === "env.observed")?.text,
      done: this.done,
    };
  }

  /** Ends the episode (an abort when it is still running) and returns its record. */
  async close(): Promise<EpisodeRecord<Task>> {
    if (this.pending) {
      this.pending = undefined;
      this.rejectPending?.(new Error("the test ended the episode"));
    }
    return this.episode;
  }
}

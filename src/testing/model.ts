/**
 * Model-based testing of an environment: the user writes a simple model of what the environment should
 * do (a plain function from the model's state and the agent's action to the expected reward, observation
 * and end), and fast-check runs random command sequences (`fc.commands` + `fc.asyncModelRun`) against
 * both, one action at a time, through the live runtime. A mismatch shrinks to the shortest sequence.
 */
import type { Json } from "effect/Schema";
import * as Struct from "effect/Struct";
import fc from "fast-check";
import {
  allKeys,
  checkKnownKeys,
  closestName,
  didYouMean,
  firstUnknownKey,
  NonDeterminismError,
} from "../kernel/errors.ts";
import type { EpisodeEvent, ToolResult } from "../kernel/events.ts";
import { replayEpisode } from "../replay/replay.ts";
import { checkEnvArgument, type EnvDefinition } from "../runtime/env.ts";
import { ACTION_OPTIONS, type ActionOptions, actionArbitrary, checkArbitraryOptions } from "./actions.ts";
import {
  checkProperty,
  checkRunOptions,
  formatBeside,
  formatNumber,
  PROPERTY_RUN_OPTIONS,
  type PropertyRunOptions,
  quote,
} from "./counterexample.ts";
import { EpisodeDriver, seedArbitrary } from "./episodes.ts";

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

/** Every option checkModel reads (the others would be ignored silently). */
const MODEL_CHECK_OPTIONS = allKeys<ModelCheckOptions<unknown, unknown>>()([
  ...ACTION_OPTIONS,
  ...PROPERTY_RUN_OPTIONS,
  "model",
  "actions",
  "seeds",
  "tasks",
  "maxCommands",
  "toolFaults",
  "replayPath",
  "repeats",
  "legal",
]);

interface ModelRun<State> {
  state: State;
  done: boolean;
  /** Actions taken so far. */
  turn: number;
  /** Their texts, in order (what a repeat copies). */
  texts: string[];
}

class ModelMismatch extends Error {}

/**
 * Whether `actual` is the observation expected. A RegExp is tested as a copy, from the text's start: a model's
 * hoisted `/error/g` (or `/y`) keeps its lastIndex between tests, so every second matching observation failed,
 * reported as "expects /error/g, the environment showed "error ..."".
 */
const matches = (expected: string | RegExp, actual: string | undefined) =>
  actual !== undefined && (typeof expected === "string" ? expected === actual : new RegExp(expected).test(actual));

const show = (expected: string | RegExp) => (typeof expected === "string" ? quote(expected) : String(expected));

/** A value the model returned, as the report names it. */
const describeValue = (value: unknown): string => {
  if (typeof value === "string") return quote(value);
  if (typeof value === "function") return "a function";
  if (value instanceof Promise) return "a Promise (act() must not be async)";
  if (typeof value !== "object" || value === null) return String(value);
  try {
    const json = JSON.stringify(value);
    return json.length > 60 ? `${json.slice(0, 60)}…` : json;
  } catch {
    return Object.prototype.toString.call(value);
  }
};

const SHAPE = "{ state, reward?, done?, observation? }";
const PREDICTION_FIELDS = allKeys<ModelPrediction<unknown>>()(["state", "reward", "done", "observation"]);

/** What is wrong with what the model's act() returned, or nothing. */
const predictionProblem = (predicted: unknown, text: string): string | undefined => {
  const action = `for action ${quote(text)}`;
  if (typeof predicted !== "object" || predicted === null || Array.isArray(predicted) || predicted instanceof Promise)
    return `the model's act() returned ${describeValue(predicted)} ${action}; it must return ${SHAPE}`;
  const { reward, done, observation } = predicted as Partial<ModelPrediction<unknown>>;
  // A misspelt field (`rewad: 0.1`) would leave that comparison out, and the check pass on what it never compared;
  // TypeScript does not catch it either: an arrow function's returned object gets no excess-property check.
  const unknown = firstUnknownKey(predicted, PREDICTION_FIELDS);
  if (unknown)
    return `the model's act() returned an unknown field \`${unknown.key}\`${didYouMean(unknown.meant)} ${action}; it must return ${SHAPE}`;
  if (!("state" in predicted))
    return `the model's act() returned no \`state\` ${action}; it must return ${SHAPE} (\`state\` is what the next act() gets: write \`state: undefined\` if the model keeps none)`;
  if (reward !== undefined && (typeof reward !== "number" || !Number.isFinite(reward)))
    return `the model's act() returned reward ${describeValue(reward)} ${action}; a reward must be a finite number (or left out, to skip the comparison)`;
  if (done !== undefined && typeof done !== "boolean")
    return `the model's act() returned done ${describeValue(done)} ${action}; done must be true or false (or left out)`;
  if (observation !== undefined && typeof observation !== "string" && !(observation instanceof RegExp))
    return `the model's act() returned observation ${describeValue(observation)} ${action}; an observation must be a string or a RegExp (or left out)`;
  return undefined;
};

/** How an ended episode ended: its reason, and the line that threw when the environment's code did. */
const endOf = async (driver: EpisodeDriver): Promise<string> => {
  const { reason, thrownAt } = await driver.close();
  return `${reason}${thrownAt ? ` (thrown at ${thrownAt})` : ""}`;
};

/** One agent action, played against the model and the environment, compared. */
class ActCommand<State> implements fc.AsyncCommand<ModelRun<State>, EpisodeDriver> {
  constructor(
    readonly model: EnvModel<State, never>,
    public text: string,
    readonly toolResult: ToolResult | undefined,
  ) {}

  check(run: Readonly<ModelRun<State>>): boolean {
    return !run.done;
  }

  async run(run: ModelRun<State>, driver: EpisodeDriver): Promise<void> {
    let predicted: ModelPrediction<State>;
    try {
      predicted = this.model.act(run.state, this.text, this.toolResult);
    } catch (cause) {
      throw new ModelMismatch(
        `turn ${run.turn}: the model's act() threw for action ${quote(this.text)}: ${cause instanceof Error ? cause.message : String(cause)}`,
      );
    }
    const wrong = predictionProblem(predicted, this.text);
    if (wrong) throw new ModelMismatch(`turn ${run.turn}: ${wrong}`);
    const step = await driver.act(this.text, this.toolResult ? { toolResult: this.toolResult } : {});
    run.texts.push(this.text);
    const problems: string[] = [];
    if (predicted.reward !== undefined && Math.abs(predicted.reward - step.reward) > 1e-9)
      problems.push(
        `the model expects reward ${formatBeside(predicted.reward, step.reward)}, the environment gave ${formatBeside(
          step.reward,
          predicted.reward,
        )}${
          step.rewards.length
            ? ` (${step.rewards.map((r) => `${r.kind} ${formatNumber(r.value)} "${r.reason}"`).join(", ")})`
            : ""
        }`,
      );
    if (predicted.done !== undefined && predicted.done !== step.done)
      problems.push(
        `the model expects the episode ${predicted.done ? "to end" : "to go on"}; it ${step.done ? `ended: ${await endOf(driver)}` : "went on"}`,
      );
    if (predicted.observation !== undefined && !step.done && !matches(predicted.observation, step.observation))
      problems.push(
        `the model expects the observation ${show(predicted.observation)}, the environment showed ${
          step.observation === undefined ? "none" : quote(step.observation)
        }`,
      );
    if (problems.length > 0)
      throw new ModelMismatch(`turn ${run.turn}, after ${this.toString()}:\n${problems.join("\n")}`);
    run.state = predicted.state;
    run.done = step.done;
    run.turn += 1;
  }

  toString(): string {
    return `act(${quote(this.text)}${this.toolResult ? `, tools return ${JSON.stringify(this.toolResult)}` : ""})`;
  }
}

/** The same action text as an earlier turn's (the `index`-th of those taken, modulo their number). */
class RepeatCommand<State> extends ActCommand<State> {
  constructor(
    model: EnvModel<State, never>,
    readonly index: number,
    toolResult: ToolResult | undefined,
  ) {
    super(model, "", toolResult);
  }

  override check(run: Readonly<ModelRun<State>>): boolean {
    return !run.done && run.texts.length > 0;
  }

  override async run(run: ModelRun<State>, driver: EpisodeDriver): Promise<void> {
    this.text = run.texts[this.index % run.texts.length];
    await super.run(run, driver);
  }
}

/** A pick among the environment's legal actions in the state reached (as a script's `{ legal: index }`: a kind, then one of it). */
class LegalCommand<State> extends ActCommand<State> {
  constructor(
    model: EnvModel<State, never>,
    readonly index: number,
    toolResult: ToolResult | undefined,
  ) {
    super(model, "", toolResult);
  }

  override async run(run: ModelRun<State>, driver: EpisodeDriver): Promise<void> {
    this.text = driver.legalAction(this.index);
    await super.run(run, driver);
  }
}

/** Why the episode does not replay through the environment's pure transitions, or undefined when it does. */
const replayProblem = (events: readonly EpisodeEvent[], env: EnvDefinition): string | undefined => {
  try {
    replayEpisode(events as EpisodeEvent[], env);
    return undefined;
  } catch (cause) {
    if (!(cause instanceof NonDeterminismError) || cause.hint === undefined) return undefined;
    return `but the environment is not deterministic: this episode does not replay through its own machine, so the same actions can give other results (the model may be right; fix the environment first):\n  ${cause.message.split("\n").join("\n  ")}`;
  }
};

/**
 * Runs random action sequences against the environment and the model; throws a CounterexampleError with
 * the shortest sequence found where they disagree, its episode, and its journal.
 */
export const checkModel: {
  /** The model's `init` and `opening`, and `tasks`, get the environment's task type (`defineEnv` infers it). */
  <State, Task extends Json>(env: EnvDefinition<Task>, options: ModelCheckOptions<State, Task>): Promise<void>;
  /** An environment of any task type, or a model of another task type than its own (JSON by default). */
  <State, Task = Json>(env: EnvDefinition, options: ModelCheckOptions<State, Task>): Promise<void>;
} = async <State, Task = Json>(env: EnvDefinition, options: ModelCheckOptions<State, Task>): Promise<void> => {
  checkEnvArgument("checkModel", env);
  checkKnownKeys("checkModel", options, MODEL_CHECK_OPTIONS);
  checkRunOptions("checkModel", options);
  checkArbitraryOptions(options, env);
  const model = options.model as EnvModel<State, never>;
  // A misspelt `openning` left the opening unchecked, without a word; other fields (a model's helpers) may stay.
  const MODEL_FIELDS = ["init", "act", "opening"];
  const misspelt = Object.keys(model ?? {})
    .filter((key) => !MODEL_FIELDS.includes(key))
    .map((key) => ({ key, meant: closestName(key, MODEL_FIELDS) }))
    .find(({ meant }) => meant !== undefined);
  if (misspelt)
    throw new TypeError(
      `checkModel: \`model\` has a field \`${misspelt.key}\`${didYouMean(misspelt.meant)}; a model is { init(task, seed), act(state, text, toolResult?), opening?(task, seed) }`,
    );
  for (const method of ["init", "act"] as const)
    if (typeof model?.[method] !== "function")
      throw new TypeError(
        `checkModel: \`model\` has no ${method}() function; a model is { init(task, seed), act(state, text, toolResult?), opening?(task, seed) }`,
      );
  // One action in five gets a fault, shrinking towards none (fc.option's freq is the odds of its nil: freq 4
  // injected a fault into 3 actions in 4, so that a model was seldom shown a real tool's result).
  const fault = options.toolFaults
    ? fc.oneof(
        // Cross-shrinking is what fc.option had: a counterexample's faults shrink to none where not needed.
        { withCrossShrink: true },
        { arbitrary: fc.constant<ToolResult | undefined>(undefined), weight: 4 },
        { arbitrary: options.toolFaults, weight: 1 },
      )
    : fc.constant<ToolResult | undefined>(undefined);
  const maxCommands = options.maxCommands ?? 8;
  const drawn = fc
    .tuple(options.actions ?? actionArbitrary(env, Struct.pick(options, ACTION_OPTIONS)), fault)
    .map(([text, toolResult]): ActCommand<State> => new ActCommand(model, text, toolResult));
  // Random arguments seldom hit the task's own calls (a flight of the task's route, a key the prompt names),
  // so a model wrong about what they do passed unseen: as checkRewards does, half the actions are legal picks.
  const command =
    env.legalActions && !options.actions && options.legal !== false
      ? fc.oneof(
          drawn,
          fc
            .tuple(fc.nat({ max: 63 }), fault)
            .map(([index, toolResult]): ActCommand<State> => new LegalCommand(model, index, toolResult)),
        )
      : drawn;
  const repeat = fc
    .tuple(fc.nat({ max: maxCommands }), fault)
    .map(([index, toolResult]): ActCommand<State> => new RepeatCommand(model, index, toolResult));
  const arbitrary = fc.record({
    seed: options.seeds ?? seedArbitrary(),
    task: options.tasks ?? fc.constant(undefined),
    commands: fc.commands(
      [
        options.repeats === false
          ? command
          : fc.oneof({ arbitrary: command, weight: 3 }, { arbitrary: repeat, weight: 1 }),
      ],
      {
        maxCommands,
        ...(options.replayPath ? { replayPath: options.replayPath } : {}),
      },
    ),
  });
  let replayPath: string | undefined;
  await checkProperty(
    {
      name: "the environment behaves like its model",
      env,
      arbitrary,
      run: async ({ seed, task, commands }) => {
        const driver = await EpisodeDriver.start(env, { seed, ...(task !== undefined ? { task: task as Json } : {}) });
        const run: ModelRun<State> = {
          state: model.init(driver.task as never, seed),
          done: driver.done,
          turn: 0,
          texts: [],
        };
        let mismatch: string | undefined;
        const opening = model.opening?.(driver.task as never, seed);
        if (opening !== undefined && typeof opening !== "string" && !(opening instanceof RegExp))
          mismatch = `the model's opening() returned ${describeValue(opening)}; it must return the first observation, a string or a RegExp (or undefined, to skip the comparison)`;
        else if (opening !== undefined && !matches(opening, driver.observation))
          mismatch = `the model expects the first observation ${show(opening)}, the environment showed ${
            driver.observation === undefined ? "none" : quote(driver.observation)
          }`;
        try {
          if (!mismatch) await fc.asyncModelRun(() => ({ model: run, real: driver }), commands);
        } catch (cause) {
          if (!(cause instanceof ModelMismatch)) throw cause;
          mismatch = cause.message;
        } finally {
          await driver.close();
        }
        if (!mismatch) return undefined;
        // fast-check replays a command sequence only with its own replay path too (the last failure is the shrunk one).
        replayPath = /replayPath="([^"]*)"/.exec(String(commands))?.[1];
        // A mismatch in an environment that does not replay its own episode is not the model's to fix: a
        // guard or action that is not pure (Math.random, Date.now, state outside the machine) gives the
        // same actions other results each time, so say so rather than blame the model.
        const unreplayable = replayProblem(driver.events, env);
        return {
          message: unreplayable ? `${mismatch}\n${unreplayable}` : mismatch,
          episodes: [driver.events],
          details: [`commands: ${String(commands)}`],
        };
      },
      rerun: (seed, path) =>
        `checkModel(env, { ...sameOptions, seed: ${seed}, path: ${JSON.stringify(path)}${replayPath ? `, replayPath: ${JSON.stringify(replayPath)}` : ""} })`,
      rerunAlsoNeeds: "and the replayPath it printed (checkModel replays its command sequence from it)",
    },
    options,
  );
};

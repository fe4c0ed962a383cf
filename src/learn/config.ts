/**
 * The training configuration: one Effect Schema, with a default and a one-line help for every field
 * (CleanRL style). Decoded wherever a config enters from outside: CLI flags, config.json on --resume.
 */
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { seedProblem } from "../cli/args.ts";
import { didYouMean, firstUnknownKey, shownValue, UsageError } from "../kernel/errors.ts";
import { constrainedByDefault } from "../policy/checkpoint.ts";
import { type GptConfig, gptConfig } from "../policy/gpt.ts";
import { checkEnvArgument, type EnvDefinition, isBuiltInEnv, moduleSpecOf } from "../runtime/env.ts";
import { ALGORITHMS } from "./advantages/types.ts";
import { POSITION_OFFSETS } from "./position-offsets.ts";

const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1));
const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0));
/**
 * A learning rate: > 0, as the CLI's --lr (at 0 an update changes no weight, weight decay included: only the
 * optimizer's moments and step count). `train`, `sft` and `AdamW` refuse 0 alike.
 */
export const LR_RULE = "lr must be a finite number > 0 (the CLI's --lr; at 0 nothing is learnt)";
const LearningRate = Schema.Finite.check(Schema.isGreaterThan(0, { message: LR_RULE }));
const Probability = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(1));
/** Nucleus sampling's mass: in (0, 1], as the sampler requires (at 0 every episode would abort at its first action). */
const TOP_P_RULE = "topP must be a number in (0, 1] (1: no nucleus cut; at 0 no token could be sampled)";
const TopP = Schema.Finite.check(
  Schema.isGreaterThan(0, { message: TOP_P_RULE }),
  Schema.isLessThanOrEqualTo(1, { message: TOP_P_RULE }),
);

/** How the learning rate changes over a run (see scheduledLr). */
export const LR_SCHEDULES = ["constant", "linear", "cosine"] as const;
/** One of LR_SCHEDULES. */
export type LrSchedule = (typeof LR_SCHEDULES)[number];

/**
 * The learning rate of update `step` (0-based) of `steps`: `lr` throughout (constant), or decayed so that
 * update 0 has `lr` and the rate would reach 0 at update `steps` (linear, cosine).
 */
export const scheduledLr = (lr: number, schedule: LrSchedule | undefined, step: number, steps: number): number => {
  if (schedule === undefined || schedule === "constant" || steps <= 0) return lr;
  const progress = Math.min(Math.max(step / steps, 0), 1);
  return schedule === "linear" ? lr * (1 - progress) : lr * 0.5 * (1 + Math.cos(Math.PI * progress));
};

/** Behaviour cloning before RL: `episodes` episodes of the environment's expert, cloned for `epochs` passes. */
export const WarmStartConfig = Schema.Struct({ episodes: PositiveInt, epochs: PositiveInt });
export type WarmStartConfig = typeof WarmStartConfig.Type;

/**
 * Everything a training run is configured by, as an Effect Schema (a default and a help line per field); a run saves
 * it as config.json.
 */
export const TrainConfig = Schema.Struct({
  env: Schema.String,
  algo: Schema.Literals(ALGORITHMS),
  /** Policy updates to run. */
  steps: PositiveInt,
  seed: Schema.String,
  backend: Schema.Literals(["auto", "tensorflow", "webgpu", "wasm", "cpu"]),
  /** Checkpoint to start from (e.g. written by `sft`); absent = a fresh model. */
  init: Schema.NullOr(Schema.String),
  /** Tasks per update, and episodes per task (GRPO/RLOO groups). */
  tasksPerStep: PositiveInt,
  groupSize: PositiveInt,
  /** Episodes running at once; the policy actor batches their requests. */
  concurrency: PositiveInt,
  temperature: Schema.Finite.check(Schema.isGreaterThan(0)),
  topP: TopP,
  maxNewTokens: PositiveInt,
  /** The learning rate (> 0). */
  lr: LearningRate,
  /**
   * The learning rate over the run's updates: constant, or decayed from `lr` at the first update to 0 after
   * the last (`steps`), linearly or along a half cosine; absent = constant.
   */
  lrSchedule: Schema.optionalKey(Schema.Literals(LR_SCHEDULES)),
  weightDecay: NonNegative,
  maxGradNorm: NonNegative,
  /** PPO clip range epsilon. */
  clip: NonNegative,
  /** Optimisation epochs over each batch of episodes, and minibatches per epoch. */
  epochs: PositiveInt,
  minibatches: PositiveInt,
  valueCoef: NonNegative,
  entropyCoef: NonNegative,
  /** KL penalty to the initial (frozen reference) policy: coefficient and estimator. */
  klCoef: NonNegative,
  klKind: Schema.Literals(["k1", "k2", "k3"]),
  gamma: Probability,
  lambda: Probability,
  /** Weight of process rewards in the return (0 = outcome reward only). */
  processRewardWeight: NonNegative,
  /** Ablations: advantages and the loss on action tokens only (true) or on every response token. */
  maskAdvantages: Schema.Boolean,
  maskLoss: Schema.Boolean,
  /** Constrained decoding from the environment's legal actions (`EnvDefinition.legalActions`); absent: off. */
  constrained: Schema.optionalKey(Schema.Boolean),
  /**
   * How token losses are averaged: over all tokens of the batch, or per episode first (each episode
   * weighs the same, however long; long failing episodes cannot drown the format of short good ones).
   */
  lossAggregation: Schema.Literals(["token-mean", "seq-mean-token-mean"]),
  /**
   * Where each trained episode's learned positions start (src/learn/position-offsets.ts): mixed, random or none.
   * The update scores the sampled tokens again at those positions, so the ratio and the KL compare like with
   * like; sampling and evaluation start at 0. Absent: none. Nothing with ALiBi (no absolute positions).
   */
  positionOffsets: Schema.optionalKey(Schema.Literals(POSITION_OFFSETS)),
  /** Updates between checkpoints, and evaluation episodes at the end (greedy, unseen seeds). */
  checkpointEvery: PositiveInt,
  evalEpisodes: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  /**
   * Before RL, when starting from a fresh model: clone this many episodes of the environment's expert for
   * this many epochs (`EnvDefinition.warmStart` gives an environment's default); absent or null: none.
   */
  warmStart: Schema.optionalKey(Schema.NullOr(WarmStartConfig)),
  model: Schema.Struct({
    layers: PositiveInt,
    heads: PositiveInt,
    width: PositiveInt,
    contextLength: PositiveInt,
    /** The copy (pointer) head; absent = off. */
    copy: Schema.optionalKey(Schema.Boolean),
    /** Learned position embeddings or ALiBi; absent = learned. */
    positions: Schema.optionalKey(Schema.Literals(["learned", "alibi"])),
    /**
     * Full attention (every earlier token) or turn-local (the prompt, a token's own turn and the one before it;
     * the turns start at the environment's action tags, as `sft --attention turn-local` finds them). Absent: full
     * for a fresh model, and the checkpoint's own with `init`; a checkpoint keeps its own, so an attention stated
     * otherwise than `init`'s (or a resumed run's) is refused, naming both.
     */
    attention: Schema.optionalKey(Schema.Literals(["full", "turn-local"])),
  }),
});
export type TrainConfig = typeof TrainConfig.Type;

/** The defaults of every TrainConfig field (the CLI's `train` defaults). */
export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  env: "lookup",
  algo: "grpo",
  steps: 40,
  seed: "0",
  backend: "auto",
  init: null,
  tasksPerStep: 8,
  groupSize: 8,
  concurrency: 64,
  temperature: 1,
  topP: 1,
  maxNewTokens: 12,
  lr: 1e-3,
  weightDecay: 0,
  maxGradNorm: 1,
  clip: 0.2,
  epochs: 1,
  minibatches: 1,
  valueCoef: 0.5,
  entropyCoef: 0,
  klCoef: 0,
  klKind: "k3",
  gamma: 1,
  lambda: 1,
  processRewardWeight: 1,
  maskAdvantages: true,
  maskLoss: true,
  constrained: false,
  lossAggregation: "seq-mean-token-mean",
  checkpointEvery: 10,
  evalEpisodes: 100,
  model: { layers: 2, heads: 4, width: 64, contextLength: 128 },
};

/**
 * Effect's message names the field and what it expected, not what was there (`Expected number at ["steps"]` for
 * a steps of "3"): each path is followed by the value it holds, as shownValue says it (`, got "3" (a string)`).
 */
const withGivenValues = (message: string, value: unknown): string =>
  message.replace(/(\n\s*at )((?:\["[^"\]]*"\])+)/g, (whole, at: string, path: string) => {
    let held: unknown = value;
    for (const [, key] of path.matchAll(/\["([^"\]]*)"\]/g))
      held =
        typeof held === "object" && held !== null && Object.hasOwn(held, key)
          ? (held as Record<string, unknown>)[key]
          : undefined;
    return held === undefined ? whole : `${at}${path}, got ${shownValue(held)}`;
  });

/** Decodes a config from outside; a wrong field is a UsageError naming it, what it held and what is accepted. */
export const decodeTrainConfig = (value: unknown, where: string): TrainConfig => {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UsageError({
      detail: `${where}: a config is an object of TrainConfig fields, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}; build one with trainConfigFor(env, { ...overrides })`,
    });
  checkFieldNames(value, where);
  // Every wrong value at once: an edited config.json should not take one attempt per mistake.
  const decoded = Schema.decodeUnknownResult(TrainConfig, { onExcessProperty: "error", errors: "all" })(value);
  if (Result.isFailure(decoded)) {
    const message = String(decoded.failure.message);
    // A hand-written object of a few fields: one line naming the missing ones, not two lines per field.
    const missing = [...message.matchAll(/Missing key\s+at \["([^"\]]+)"\]/g)].map((m) => m[1]);
    if (missing.length > 1)
      throw new UsageError({
        detail: `${where}: missing ${missing.join(", ")}; build the config with trainConfigFor(env, { ...overrides }), which fills every field from the environment and the defaults`,
      });
    throw new UsageError({ detail: `${where}: ${withGivenValues(message, value)}` });
  }
  const config = decoded.success;
  // The seed names the run's episodes (file names): the rule of `train --seed`, for a config from code too.
  const seedRefused = seedProblem(config.seed, `${where}: seed`);
  if (seedRefused !== undefined) throw new UsageError({ detail: seedRefused });
  if (config.groupSize < 2 && GROUP_RELATIVE.includes(config.algo))
    throw new UsageError({
      detail: `${where}: ${config.algo} with groupSize (--group-size) 1 learns nothing: it compares each episode with the others of its task, so every advantage would be 0; give at least 2 (default ${DEFAULT_TRAIN_CONFIG.groupSize}), or use ppo, reinforce++ or remax, which learn from one episode per task`,
    });
  return config;
};

/** Estimators whose baseline is the other episodes of the same task: a group of one has no signal. */
export const GROUP_RELATIVE: readonly string[] = ["grpo", "rloo", "reinforce++-baseline"];

/** A learned policy's token budget per action for an environment: its `maxActionTokens`, else the default. */
export const actionBudgetOf = (env: Pick<EnvDefinition, "maxActionTokens">): number =>
  env.maxActionTokens ?? DEFAULT_TRAIN_CONFIG.maxNewTokens;

/**
 * The note for demonstrations (recorded, or about to be cloned) whose longest action takes more tokens than
 * train and eval sample per action, or undefined when it fits. One wording for record and sft.
 */
export const actionBudgetNote = (
  env: Pick<EnvDefinition, "id" | "maxActionTokens" | "legalActions">,
  longest: number,
  demonstrations: "recorded" | "demonstrated",
): string | undefined => {
  const budget = actionBudgetOf(env);
  if (longest <= budget) return undefined;
  return (
    `note: the longest ${demonstrations} action takes ${longest} tokens (its <eos> included), but train and eval sample at most ` +
    `${budget} per action (a longer one is cut and comes out malformed): ` +
    // A built-in environment's source is not the user's to edit: only the flag is theirs to set.
    (isBuiltInEnv(env)
      ? `pass train and eval --max-new-tokens ${longest}`
      : `set maxActionTokens: ${longest} in environment ${env.id}, or pass train and eval --max-new-tokens ${longest}`) +
    (env.legalActions ? " (--constrained sizes its budget from the legal actions instead)" : "")
  );
};

/**
 * The note for demonstrations whose actions end without the tokenizer's `<eos>` though shorter than the action budget
 * (a Policy of one's own that leaves it out; a learned policy's action cut at the budget has none by right), or
 * undefined when every action ends with it: a model cloned from them never learns where an action ends. One wording
 * for record and sft.
 */
export const eosNote = (
  missing: number,
  actions: number,
  demonstrations: "recorded" | "demonstrated",
): string | undefined =>
  missing === 0
    ? undefined
    : `note: ${missing} of the ${actions} ${demonstrations} actions end without <eos>: a model cloned from them does not learn where an action ends (it writes on to the action budget, and its actions come out malformed); a Policy of your own ends each action's tokens with tokenizer.idOf("<eos>"), as scriptedPolicy does`;

/**
 * The note for demonstrations whose longest episode takes more tokens than the context of the model they would
 * be cloned into (the environment's `model.contextLength`, else train's default), or undefined when it fits:
 * sft refuses such an episode, so a recording said nothing of it until the clone (or train's warm start) failed.
 */
export const contextNote = (
  env: Pick<EnvDefinition, "id" | "model">,
  longest: { readonly tokens: number; readonly episode: string } | undefined,
): string | undefined => {
  const context = modelConfigFor(env).contextLength;
  if (longest === undefined || longest.tokens <= context) return undefined;
  const whose =
    env.model?.contextLength === undefined ? "train's default" : `environment ${env.id}'s model.contextLength`;
  return (
    `note: the longest recorded episode (${longest.episode}) takes ${longest.tokens} tokens, more than the model's context ` +
    `of ${context} (${whose}): sft, and train's warm start, refuse such demonstrations, and train trains only on the actions that fit: ` +
    (isBuiltInEnv(env)
      ? `pass sft and train --context-length ${longest.tokens}`
      : `set model: { contextLength: ${longest.tokens} } in environment ${env.id}, or pass sft and train --context-length ${longest.tokens}`)
  );
};

/** A fresh model's context when neither the user nor the environment says. */
export const DEFAULT_CONTEXT = 192;

/** A fresh model's shape for an environment: the defaults, then the environment's `model`, then `overrides`. */
export const modelConfigFor = (
  env: Pick<EnvDefinition, "model">,
  overrides: Partial<TrainConfig["model"]> = {},
): TrainConfig["model"] => ({
  ...DEFAULT_TRAIN_CONFIG.model,
  contextLength: DEFAULT_CONTEXT,
  ...env.model,
  ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)),
});

/** CLI flags whose config field has another name: `trainConfigFor({ tasks: 2 })` is a natural slip. */
const FIELD_OF_FLAG: Readonly<Record<string, string>> = {
  tasks: "tasksPerStep",
  kl: "klCoef",
  entropy: "entropyCoef",
  advantageMask: "maskAdvantages",
  lossMask: "maskLoss",
  noWarmStart: "warmStart: null",
  checkpoint: "init",
  layers: "model: { layers }",
  heads: "model: { heads }",
  width: "model: { width }",
  context: "model: { contextLength }",
  contextLength: "model: { contextLength }",
};

/**
 * A field that is no TrainConfig field: the field its CLI flag sets, or the closest field, and the list; the
 * same for `model`'s fields, and a `model` that is no object. `where` names the config (a file, or "train config").
 */
const checkFieldNames = (config: object, where: string) => {
  const fields = Object.keys(TrainConfig.fields);
  const unknown = firstUnknownKey(config, fields, FIELD_OF_FLAG);
  if (unknown)
    throw new UsageError({
      detail: `${where}: no field \`${unknown.key}\`${didYouMean(unknown.meant)}; the fields: ${fields.join(", ")}`,
    });
  const model: unknown = (config as { model?: unknown }).model;
  if (model === undefined) return;
  const modelFields = Object.keys(TrainConfig.fields.model.fields);
  if (typeof model !== "object" || model === null || Array.isArray(model))
    throw new UsageError({
      detail: `${where}: \`model\` must be an object of some of ${modelFields.join(", ")}, got ${JSON.stringify(model)}`,
    });
  const unknownInModel = firstUnknownKey(model, modelFields);
  if (unknownInModel)
    throw new UsageError({
      detail: `${where}: \`model\` has no field \`${unknownInModel.key}\`${didYouMean(unknownInModel.meant)}; its fields: ${modelFields.join(", ")}`,
    });
};

/**
 * A train config for an environment, as `agent-r1 train --env ID` builds it: the environment's id (or, for
 * one `loadEnv` loaded from a module, that module's path, as `--env` gave it), its model
 * shape (`modelConfigFor`), its action budget (`maxActionTokens`) and, from a fresh model, its default warm
 * start; then `overrides`, any field (`model` merged field by field). Decoded: a wrong field is a UsageError.
 * With `init` and no `constrained`, it samples as `train --init` does: under the legal actions when the checkpoint
 * was trained or cloned under them (its manifest says so).
 */
export const trainConfigFor = (
  env: EnvDefinition,
  overrides: Partial<Omit<TrainConfig, "model">> & { readonly model?: Partial<TrainConfig["model"]> } = {},
): TrainConfig => {
  checkEnvArgument("trainConfigFor", env);
  checkFieldNames(overrides, "train config");
  const { model, ...rest } = overrides;
  const config = decodeTrainConfig(
    {
      ...DEFAULT_TRAIN_CONFIG,
      // The module path for an environment loadEnv loaded from one: what `train --resume` and eval load.
      env: moduleSpecOf(env) ?? env.id,
      model: modelConfigFor(env, model),
      maxNewTokens: actionBudgetOf(env),
      ...(env.warmStart && !overrides.init ? { warmStart: env.warmStart } : {}),
      // A clone made under the gate, sampled freely, wrote few legal actions: every episode ran to its turn limit.
      ...(overrides.init && overrides.constrained === undefined && constrainedByDefault(env, overrides.init)
        ? { constrained: true }
        : {}),
      ...rest,
    },
    "train config",
  );
  // A shape no model can have (width 15 with 2 heads), refused here as train() would refuse it: a fresh model's
  // (a run from a checkpoint, init, has the checkpoint's shape).
  if (!config.init) checkedModelShape(config.model, env.tokenizer.size, "trainConfigFor");
  return config;
};

/**
 * The GPT config of a fresh model of `shape` (its attention kept only with the turn starts it needs), or a
 * UsageError naming `where` and the field: what train and sft check before any work, not when the model is built.
 */
export const checkedModelShape = (
  shape: Partial<GptConfig>,
  vocabSize: number,
  where: string,
  turnStarts?: readonly number[],
): GptConfig => {
  const { attention, turnStarts: _, ...rest } = shape;
  try {
    return gptConfig({
      vocabSize,
      ...rest,
      ...(attention === "turn-local" && turnStarts ? { attention, turnStarts } : {}),
    });
  } catch (error) {
    // "model:" already names what the message is of: not "model: GPT config: width 16 ...".
    throw new UsageError({ detail: `${where}: model: ${(error as Error).message.replace(/^GPT config: /, "")}` });
  }
};

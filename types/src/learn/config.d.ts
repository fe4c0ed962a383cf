/*
 * The training configuration: one Effect Schema, with a default and a one-line help for every field
 * (CleanRL style). Decoded wherever a config enters from outside: CLI flags, config.json on --resume.
 */
import * as Schema from "effect/Schema";
import { type GptConfig } from "../policy/gpt.ts";
import { type EnvDefinition } from "../runtime/env.ts";
/**
 * A learning rate: > 0, as the CLI's --lr (at 0 an update changes no weight, weight decay included: only the
 * optimizer's moments and step count). `train`, `sft` and `AdamW` refuse 0 alike.
 */
export declare const LR_RULE = "lr must be a finite number > 0 (the CLI's --lr; at 0 nothing is learnt)";
/** How the learning rate changes over a run (see scheduledLr). */
export declare const LR_SCHEDULES: readonly ["constant", "linear", "cosine"];
/** One of LR_SCHEDULES. */
export type LrSchedule = (typeof LR_SCHEDULES)[number];
/**
 * The learning rate of update `step` (0-based) of `steps`: `lr` throughout (constant), or decayed so that
 * update 0 has `lr` and the rate would reach 0 at update `steps` (linear, cosine).
 */
export declare const scheduledLr: (lr: number, schedule: LrSchedule | undefined, step: number, steps: number) => number;
/** Behaviour cloning before RL: `episodes` episodes of the environment's expert, cloned for `epochs` passes. */
export declare const WarmStartConfig: Schema.Struct<{
    readonly episodes: Schema.Int;
    readonly epochs: Schema.Int;
}>;
export type WarmStartConfig = typeof WarmStartConfig.Type;
/**
 * Everything a training run is configured by, as an Effect Schema (a default and a help line per field); a run saves
 * it as config.json.
 */
export declare const TrainConfig: Schema.Struct<{
    readonly env: Schema.String;
    readonly algo: Schema.Literals<readonly ["ppo", "grpo", "reinforce++", "reinforce++-baseline", "rloo", "remax"]>;
    /** Policy updates to run. */
    readonly steps: Schema.Int;
    readonly seed: Schema.String;
    readonly backend: Schema.Literals<readonly ["auto", "tensorflow", "webgpu", "wasm", "cpu"]>;
    /** Checkpoint to start from (e.g. written by `sft`); absent = a fresh model. */
    readonly init: Schema.NullOr<Schema.String>;
    /** Tasks per update, and episodes per task (GRPO/RLOO groups). */
    readonly tasksPerStep: Schema.Int;
    readonly groupSize: Schema.Int;
    /** Episodes running at once; the policy actor batches their requests. */
    readonly concurrency: Schema.Int;
    readonly temperature: Schema.Finite;
    readonly topP: Schema.Finite;
    readonly maxNewTokens: Schema.Int;
    /** The learning rate (> 0). */
    readonly lr: Schema.Finite;
    /**
     * The learning rate over the run's updates: constant, or decayed from `lr` at the first update to 0 after
     * the last (`steps`), linearly or along a half cosine; absent = constant.
     */
    readonly lrSchedule: Schema.optionalKey<Schema.Literals<readonly ["constant", "linear", "cosine"]>>;
    readonly weightDecay: Schema.Finite;
    readonly maxGradNorm: Schema.Finite;
    /** PPO clip range epsilon. */
    readonly clip: Schema.Finite;
    /** Optimisation epochs over each batch of episodes, and minibatches per epoch. */
    readonly epochs: Schema.Int;
    readonly minibatches: Schema.Int;
    readonly valueCoef: Schema.Finite;
    readonly entropyCoef: Schema.Finite;
    /** KL penalty to the initial (frozen reference) policy: coefficient and estimator. */
    readonly klCoef: Schema.Finite;
    readonly klKind: Schema.Literals<readonly ["k1", "k2", "k3"]>;
    readonly gamma: Schema.Finite;
    readonly lambda: Schema.Finite;
    /** Weight of process rewards in the return (0 = outcome reward only). */
    readonly processRewardWeight: Schema.Finite;
    /** Ablations: advantages and the loss on action tokens only (true) or on every response token. */
    readonly maskAdvantages: Schema.Boolean;
    readonly maskLoss: Schema.Boolean;
    /** Constrained decoding from the environment's legal actions (`EnvDefinition.legalActions`); absent: off. */
    readonly constrained: Schema.optionalKey<Schema.Boolean>;
    /**
     * How token losses are averaged: over all tokens of the batch, or per episode first (each episode
     * weighs the same, however long; long failing episodes cannot drown the format of short good ones).
     */
    readonly lossAggregation: Schema.Literals<readonly ["token-mean", "seq-mean-token-mean"]>;
    /**
     * Where each trained episode's learned positions start (src/learn/position-offsets.ts): mixed, random or none.
     * The update scores the sampled tokens again at those positions, so the ratio and the KL compare like with
     * like; sampling and evaluation start at 0. Absent: none. Nothing with ALiBi (no absolute positions).
     */
    readonly positionOffsets: Schema.optionalKey<Schema.Literals<readonly ["none", "random", "mixed"]>>;
    /** Updates between checkpoints, and evaluation episodes at the end (greedy, unseen seeds). */
    readonly checkpointEvery: Schema.Int;
    readonly evalEpisodes: Schema.Int;
    /**
     * Before RL, when starting from a fresh model: clone this many episodes of the environment's expert for
     * this many epochs (`EnvDefinition.warmStart` gives an environment's default); absent or null: none.
     */
    readonly warmStart: Schema.optionalKey<Schema.NullOr<Schema.Struct<{
        readonly episodes: Schema.Int;
        readonly epochs: Schema.Int;
    }>>>;
    readonly model: Schema.Struct<{
        readonly layers: Schema.Int;
        readonly heads: Schema.Int;
        readonly width: Schema.Int;
        readonly contextLength: Schema.Int;
        /** The copy (pointer) head; absent = off. */
        readonly copy: Schema.optionalKey<Schema.Boolean>;
        /** Learned position embeddings or ALiBi; absent = learned. */
        readonly positions: Schema.optionalKey<Schema.Literals<readonly ["learned", "alibi"]>>;
        /**
         * Full attention (every earlier token) or turn-local (the prompt, a token's own turn and the one before it;
         * the turns start at the environment's action tags, as `sft --attention turn-local` finds them). Absent: full
         * for a fresh model, and the checkpoint's own with `init`; a checkpoint keeps its own, so an attention stated
         * otherwise than `init`'s (or a resumed run's) is refused, naming both.
         */
        readonly attention: Schema.optionalKey<Schema.Literals<readonly ["full", "turn-local"]>>;
    }>;
}>;
export type TrainConfig = typeof TrainConfig.Type;
/** The defaults of every TrainConfig field (the CLI's `train` defaults). */
export declare const DEFAULT_TRAIN_CONFIG: TrainConfig;
/** Decodes a config from outside; a wrong field is a UsageError naming it, what it held and what is accepted. */
export declare const decodeTrainConfig: (value: unknown, where: string) => TrainConfig;
/** Estimators whose baseline is the other episodes of the same task: a group of one has no signal. */
export declare const GROUP_RELATIVE: readonly string[];
/** A learned policy's token budget per action for an environment: its `maxActionTokens`, else the default. */
export declare const actionBudgetOf: (env: Pick<EnvDefinition, "maxActionTokens">) => number;
/**
 * The note for demonstrations (recorded, or about to be cloned) whose longest action takes more tokens than
 * train and eval sample per action, or undefined when it fits. One wording for record and sft.
 */
export declare const actionBudgetNote: (env: Pick<EnvDefinition, "id" | "maxActionTokens" | "legalActions">, longest: number, demonstrations: "recorded" | "demonstrated") => string | undefined;
/**
 * The note for demonstrations whose actions end without the tokenizer's `<eos>` though shorter than the action budget
 * (a Policy of one's own that leaves it out; a learned policy's action cut at the budget has none by right), or
 * undefined when every action ends with it: a model cloned from them never learns where an action ends. One wording
 * for record and sft.
 */
export declare const eosNote: (missing: number, actions: number, demonstrations: "recorded" | "demonstrated") => string | undefined;
/**
 * The note for demonstrations whose longest episode takes more tokens than the context of the model they would
 * be cloned into (the environment's `model.contextLength`, else train's default), or undefined when it fits:
 * sft refuses such an episode, so a recording said nothing of it until the clone (or train's warm start) failed.
 */
export declare const contextNote: (env: Pick<EnvDefinition, "id" | "model">, longest: {
    readonly tokens: number;
    readonly episode: string;
} | undefined) => string | undefined;
/** A fresh model's context when neither the user nor the environment says. */
export declare const DEFAULT_CONTEXT = 192;
/** A fresh model's shape for an environment: the defaults, then the environment's `model`, then `overrides`. */
export declare const modelConfigFor: (env: Pick<EnvDefinition, "model">, overrides?: Partial<TrainConfig["model"]>) => TrainConfig["model"];
/**
 * A train config for an environment, as `agent-r1 train --env ID` builds it: the environment's id (or, for
 * one `loadEnv` loaded from a module, that module's path, as `--env` gave it), its model
 * shape (`modelConfigFor`), its action budget (`maxActionTokens`) and, from a fresh model, its default warm
 * start; then `overrides`, any field (`model` merged field by field). Decoded: a wrong field is a UsageError.
 * With `init` and no `constrained`, it samples as `train --init` does: under the legal actions when the checkpoint
 * was trained or cloned under them (its manifest says so).
 */
export declare const trainConfigFor: (env: EnvDefinition, overrides?: Partial<Omit<TrainConfig, "model">> & {
    readonly model?: Partial<TrainConfig["model"]>;
}) => TrainConfig;
/**
 * The GPT config of a fresh model of `shape` (its attention kept only with the turn starts it needs), or a
 * UsageError naming `where` and the field: what train and sft check before any work, not when the model is built.
 */
export declare const checkedModelShape: (shape: Partial<GptConfig>, vocabSize: number, where: string, turnStarts?: readonly number[]) => GptConfig;

/*
 * Training as one stream: rollout -> journal -> replay -> trajectories -> advantages -> update, once per
 * step. Each update bumps the policy version; every episode's journal, the metrics of every update and
 * the checkpoints land in the run folder:
 *
 *   runs/NAME/config.json            the decoded TrainConfig
 *   runs/NAME/origin.json            the folder train was started in (the config's relative paths)
 *   runs/NAME/metrics.jsonl          one line per update
 *   runs/NAME/episodes/u00012/*.jsonl the journals of update 12's rollouts
 *   runs/NAME/checkpoints/v00013/    weights, optimizer state, config, tokenizer, version; latest.json names
 *                                    the newest (each written atomically: a kill never leaves half of one)
 *   runs/NAME/eval.json              success before and after training, on seeds training never used
 *   runs/NAME/warm-start/            the warm start's demonstrations and cloned checkpoint, when one ran
 */
import type * as tf from "@tensorflow/tfjs-core";
import type { Json } from "effect/Schema";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { type BackendChoice, type BackendName } from "../policy/backend.ts";
import { type LatestCheckpoint } from "../policy/checkpoint.ts";
import { Gpt, type GptConfig } from "../policy/gpt.ts";
import { TransformerPolicy } from "../policy/transformer-policy.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type EpisodeRecord } from "../runtime/episode.ts";
import { type Estimator } from "./advantages/index.ts";
import { TrainConfig } from "./config.ts";
import { type EvalSummary } from "./evaluate.ts";
/**
 * Whether a batch of `episodes` without one success says the policy collapsed, when its best batch before succeeded
 * at `bestRate`: only if a policy still that good would give such a batch less than 1% of the time ((1 - rate)^n).
 * A tiny run's batches (4 episodes, one success among them once) often have none by chance, and said "collapsed"
 * after one update.
 */
export declare const collapseLikely: (bestRate: number, episodes: number) => boolean;
/**
 * Options of train: the environment, the run's config, the run folder (`out`), and progress callbacks. `Task` is
 * the environment's task type (the callbacks' records' `task` has it).
 */
export interface TrainOptions<Task extends Json = Json> {
    readonly env: EnvDefinition<Task>;
    readonly config: TrainConfig;
    readonly out: string;
    /** Continue the run in `out` from its latest checkpoint, with its saved config. */
    readonly resume?: boolean;
    /** Called once before the first update, after any warm start and evaluation (progress display). */
    readonly onUpdatesStart?: () => void;
    /** Called after each update with its metrics (progress display). */
    readonly onUpdate?: (metrics: UpdateMetrics) => void;
    /**
     * Called as the greedy evaluation before or after training starts (with its episodes and their turn limit), and
     * after each of its episodes (progress display).
     */
    readonly onEvalStart?: (phase: "before" | "after", episodes: number, maxTurns: number) => void;
    readonly onEvalEpisode?: (phase: "before" | "after", record: EpisodeRecord<Task>) => void;
    /** Every event of the evaluation's episodes as it is journaled (progress display while they run: `agent.acted`). */
    readonly onEvalEvent?: (phase: "before" | "after", event: EpisodeEvent) => void;
    /** Called after each episode an update samples, with how many of its episodes are done (progress display). */
    readonly onEpisode?: (record: EpisodeRecord<Task>, sampled: number, of: number) => void;
    /**
     * Where the run's lines go (default: stderr). Given, it hears everything the run says, and nothing is written
     * to stderr: the warm start's progress (recording and cloning), drawn there by default, is left out.
     */
    readonly log?: (line: string) => void;
    /** Checked before each update: true stops cleanly (checkpoint written). */
    readonly shouldStop?: () => boolean;
    /** Stops the run as shouldStop does, when it aborts (checked before each update and before the evaluation). */
    readonly signal?: AbortSignal;
    /**
     * Your own advantage estimator, in place of `config.algo`'s (the shipped ones are `ESTIMATORS`). The
     * algorithm still decides what the estimator is given (ppo: the critic's `values`; reinforce++ with a KL:
     * `refLogprobs` and `klCoef`; remax: `greedyReward`) and how the loss is formed (ppo trains the critic on
     * `returns`). Its output is checked: one finite Float32Array per sequence, of the sequence's length.
     * Not saved in the run: a resumed run needs it passed again.
     */
    readonly estimator?: {
        readonly name: string;
        readonly estimate: Estimator;
    };
}
/** One update's line of the run's metrics.jsonl: what was sampled, how the episodes went, and the losses. */
export interface UpdateMetrics {
    /** The update's index, from 0 (its policy version is step + 1). */
    readonly step: number;
    /** The policy version after this update. */
    readonly version: number;
    readonly episodes: number;
    readonly meanReturn: number;
    /** Mean over this update's episodes of the sum of their process rewards. */
    readonly meanProcessReward: number;
    /** Mean over this update's episodes of the sum of their outcome rewards. */
    readonly meanOutcomeReward: number;
    /** Mean `success` metric of the episodes that reported one; null when none did. */
    readonly successRate: number | null;
    readonly meanTurns: number;
    readonly aborted: number;
    /** Of the aborted episodes, those left out of training: all but those the runtime's turn limit cut. */
    readonly leftOut: number;
    /** Episodes by the reason they ended ("answered", "turn-limit"; every aborted one as "aborted"). */
    readonly endReasons?: Readonly<Record<string, number>>;
    /** Rewards given, by their reason ("malformed", ...): how often each was given this update. */
    readonly rewardCounts?: Readonly<Record<string, number>>;
    /** The mean of each metric the environment's end reported (success, em, f1, searches...). */
    readonly endMetrics?: Readonly<Record<string, number>>;
    /** Tool calls made this update, and how many failed (absent in runs written before they were counted). */
    readonly toolCalls?: number;
    readonly toolFailures?: number;
    /** Episodes longer than the context with not even their first action inside it: not trained on. */
    readonly droppedTooLong: number;
    /** Episodes longer than the context, trained on the actions that fit (with their whole return). */
    readonly cutToContext?: number;
    /** Sampled actions cut at the token budget before they ended (absent in runs written before it was counted). */
    readonly cutActions?: number;
    /** Groups with no learning signal (one episode, or all rewards equal): their advantages are 0. */
    readonly degenerateGroups: number;
    readonly loss: number;
    readonly policyLoss: number;
    readonly valueLoss: number;
    readonly entropy: number;
    /**
     * Mean KL estimate to the reference over the trained tokens: the loss term's (--kl-kind) for every algorithm
     * but REINFORCE++, whose k1 sits in the reward (mean over action tokens, from the sampled logprobs). 0 without --kl.
     */
    readonly kl: number;
    readonly approxKl: number;
    readonly clipfrac: number;
    readonly gradNorm: number;
    /** The learning rate of this update (`lrSchedule`; absent in runs written before it was recorded). */
    readonly lr?: number;
    /** Gradient steps of this update that were not applied (a NaN or infinite loss or gradient). */
    readonly skippedUpdates: number;
    /** Tokens under the loss mask, summed over this update's gradient steps. */
    readonly trainedTokens: number;
    /** Action tokens the policy sampled this update. */
    readonly sampledTokens: number;
    /** Timing fields: the only ones that differ between two runs of the same seed and config. */
    readonly tokensPerSecond: number;
    readonly sampleSeconds: number;
    readonly trainSeconds: number;
}
/** A run folder's record of the folder train was started in: `{ "startedIn": "/abs/path" }`. */
export declare const ORIGIN_FILE = "origin.json";
export declare const TIMING_FIELDS: readonly ["tokensPerSecond", "sampleSeconds", "trainSeconds"];
/** How a training run ended: the backend, the updates run, the policy version, the evaluations before and after. */
export interface TrainResult {
    readonly backend: BackendName;
    /** Updates run by this call (a resumed run's earlier ones not counted). */
    readonly steps: number;
    /** The policy version at the end (the updates it has had, counting those of a resumed run). */
    readonly version: number;
    /**
     * The greedy evaluation before the first update (a resumed run's from its eval.json); absent when evalEpisodes is
     * 0.
     */
    readonly before?: EvalSummary;
    /** The greedy evaluation after the last update; absent when stopped early or evalEpisodes is 0. */
    readonly after?: EvalSummary;
    /**
     * Stopped early (shouldStop or signal) rather than run to `config.steps`, or stopped during the last update, before
     * the evaluation after training (a resume then evaluates it).
     */
    readonly stopped: boolean;
}
/** The run's newest checkpoint (checkpoints/latest.json); a damaged latest.json is a CheckpointError. */
export declare const readLatest: (out: string) => LatestCheckpoint | undefined;
/** A run folder's config.json (undefined if absent); a damaged one is a UsageError naming the file and field. */
export declare const readRunConfig: (out: string) => TrainConfig | undefined;
/**
 * A TransformerPolicy of `model` that samples as the config says (temperature, topP, maxNewTokens, constrained);
 * greedy for evaluation.
 */
export declare const policyFromModel: (env: EnvDefinition, model: Gpt, tokenizer: Tokenizer, config: TrainConfig, greedy?: boolean, version?: number) => TransformerPolicy;
/**
 * A resume of a folder with no config.json: fine when empty (a run killed at its start), not when it does
 * not exist (a misspelt folder would start a whole new run) or holds other files. `flag` names the option.
 */
export declare const refuseForeignResume: (out: string, flag?: string) => void;
/**
 * The environment a run's journals were recorded with, from their episode.started lines (the first line of
 * each, not the whole file): those under episodes/, in order, then the warm start's demos. Given this
 * build's environment, the first journal recorded on another version of it, if any (a run resumed across
 * versions by a build without the check has it in a later update only), else the first journal's. Undefined
 * when there is none that can be read (replay and the resume's own checks say what is wrong with a damaged one).
 */
export declare const recordedEnvOfRun: (runDir: string, current?: {
    readonly id: string;
    readonly version: string;
}) => {
    readonly id: string;
    readonly version: string;
    readonly file: string;
} | undefined;
/** A checkpoint to start from; one written for another tokenizer is a UsageError naming both. */
export declare const loadCheckpointFor: (env: EnvDefinition, dir: string, options?: {
    optimizer?: boolean;
}) => Promise<import("../policy/checkpoint.ts").CheckpointContents>;
/**
 * A checkpoint of another environment's tokenizer is a UsageError naming both. With no id given, the one
 * the checkpoint's tokenizer.json states (read without loading: a command says it before any work; a
 * damaged file is left for the loader to name).
 */
export declare const checkTokenizerOf: (env: EnvDefinition, dir: string, id?: string) => void;
/** The names of the checkpoint folders (those with a manifest.json) directly in `folder`, sorted; [] if none or no folder. */
export declare const checkpointsIn: (folder: string) => string[];
/** The names of the run folders (those with checkpoints/latest.json) directly in `folder`, sorted; [] if none or no folder. */
export declare const runsIn: (folder: string) => string[];
/**
 * `; checkpoints in runs/a/checkpoints: v00010, v00020` when the folder of a missing checkpoint holds others, and
 * `; runs in runs: a, b` when it holds run folders, which a checkpoint argument also takes (each its latest).
 */
export declare const checkpointsBeside: (missing: string) => string;
/**
 * The checkpoint a user means by `dir`: a checkpoint folder as it is; a run folder (`train --out`) or its
 * checkpoints/ folder: the run's latest checkpoint (said through `log`). `what` names the argument in errors.
 */
export declare const checkpointIn: (dir: string, what: string, log?: (line: string) => void) => string;
/** loadPolicy's options. */
export interface LoadPolicyOptions {
    /** Sample greedily (default true). */
    readonly greedy?: boolean;
    /**
     * Decode only the environment's legal actions (it must declare `legalActions`). Default: as the checkpoint was
     * trained or cloned (its manifest says so), as `agent-r1 eval` decodes it; else freely.
     */
    readonly constrained?: boolean;
    readonly backend?: BackendChoice;
    /**
     * Where its lines go (default: stderr), as train's `log`: the backend it started ("tfjs backend: wasm", said by
     * the first call of a process that starts one) and, for a run folder, the checkpoint taken as its latest.
     */
    readonly log?: (line: string) => void;
}
/**
 * A checkpoint (or a run folder: its latest) as a policy, for `evaluate` or `rollout` from code: the backend started, the tokenizer checked
 * against the environment's, greedy unless told, the environment's action budget.
 */
export declare const loadPolicy: (env: EnvDefinition, dir: string, options?: LoadPolicyOptions) => Promise<TransformerPolicy>;
/**
 * A fresh model's GptConfig; one that cannot be built (heads not dividing width, too large) is a UsageError.
 * `turnStarts`: the environment's turn starts, for turn-local attention (without them, as when a config is read
 * before its environment is known, the rest of the shape is checked).
 */
export declare const freshModelConfig: (config: TrainConfig, vocabSize: number, where?: string, turnStarts?: readonly number[]) => GptConfig;
/**
 * A fresh run into a folder that holds a run is refused, said in the words of who asked: the CLI's (`--resume`,
 * another `--out`) or code's (`train({ ..., resume: true })`, another `out`).
 */
export declare const refuseRunFolder: (out: string, from?: "cli" | "code") => void;
/**
 * A whole RL run, as `agent-r1 train` runs it: evaluate, update `config.steps` times (checkpoints and metrics in
 * `out`), evaluate again. The run folder is locked while it runs.
 */
export declare const train: {
    /** The callbacks' records' `task` has the environment's task type. */
    <Task extends Json>(options: TrainOptions<Task>): Promise<TrainResult>;
    /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
    (options: TrainOptions): Promise<TrainResult>;
};
/**
 * Loss weights per token. token-mean: the 0/1 mask. seq-mean-token-mean: each row's tokens share one
 * row's weight, scaled so the weights still sum to the number of masked tokens.
 */
export declare const aggregate: (masks: readonly (readonly number[])[], how: TrainConfig["lossAggregation"]) => (readonly number[])[];
export type { tf };

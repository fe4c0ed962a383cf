/**
 * The learner from code (`agent-r1-ts/learn`): train, clone and evaluate GPT policies, as the CLI's `train`,
 * `sft` and `eval` do. Kept apart from the main entry because it loads TensorFlow.js.
 */
import { type AgentR1Error } from "../kernel/errors.ts";
import { BackendUnavailableError } from "../policy/backend.ts";
import { CheckpointError } from "../policy/checkpoint.ts";
import { EpisodeTooLongError } from "./trajectory.ts";
/** Every tagged error the learner adds to the kernel's (AgentR1Error), for one exhaustive catchTags or switch. */
export type LearnError = AgentR1Error | CheckpointError | BackendUnavailableError | EpisodeTooLongError;
/**
 * Whether a value is one of the learner's tagged errors or the kernel's (LearnError): what an Effect program's
 * `tryPromise` maps a rejection of `train`, `evaluate`, `loadPolicy` or `loadCheckpoint` with, so that
 * `catchTag("CheckpointError", ...)` narrows: `catch: (e) => (isLearnError(e) ? e : new Cause.UnknownError(e))`.
 * (`isAgentR1Error` is the kernel's alone: a CheckpointError is not one, and mapped by it became an UnknownError.)
 */
export declare const isLearnError: (value: unknown) => value is LearnError;
export { loadEnv } from "../cli/registry.ts";
export { type LineChartOptions, lineChartSvg, plotRuns } from "../observe/plot.ts";
export { type AveragedCheckpoint, averageCheckpoints } from "../policy/average.ts";
export { type BackendChoice, BackendUnavailableError, initBackend } from "../policy/backend.ts";
export { type CheckpointContents, CheckpointError, type CheckpointProblem, loadCheckpoint, saveCheckpoint, } from "../policy/checkpoint.ts";
export { DEFAULT_GPT_CONFIG, Gpt, type GptConfig, gptConfig } from "../policy/gpt.ts";
export { type SamplingConfig, TransformerPolicy } from "../policy/transformer-policy.ts";
export { type FileVerdict, verifyJournals } from "../replay/verify-journals.ts";
export { AdamW, type AdamWOverrides, ZERO_GRADIENT } from "./adamw.ts";
export { type AdvantageExtras, type AdvantageOptions, type AdvantageResult, computeAdvantages, DEFAULT_ADVANTAGE_OPTIONS, ESTIMATORS, type Estimator, runEstimator, type ScoredSequence, } from "./advantages/index.ts";
export { ALGORITHMS, type Algorithm } from "./advantages/types.ts";
export { type Collected, type CollectOptions, collect } from "./collect.ts";
export { DEFAULT_CONTEXT, DEFAULT_TRAIN_CONFIG, decodeTrainConfig, LR_SCHEDULES, type LrSchedule, modelConfigFor, scheduledLr, type TrainConfig, trainConfigFor, type WarmStartConfig, } from "./config.ts";
export { describeEval, type EvalSummary, type EvaluateOptions, evaluate, type GroupSummary } from "./evaluate.ts";
export { type KlKind, type PpoLossConfig, ppoLoss } from "./losses.ts";
export { type SftOptions, type SftResult, sft } from "./sft.ts";
export { type TrainEvent, trainEvents } from "./train-events.ts";
export { scoreTokens, type TokenScores, type TrainBatch, type TrainStepOptions, type TrainStepResult, trainStep, } from "./train-step.ts";
export { type LoadPolicyOptions, loadCheckpointFor, loadPolicy, policyFromModel, readLatest, readRunConfig, type TrainOptions, type TrainResult, train, type UpdateMetrics, } from "./trainer.ts";
export { type ActionSpan, EpisodeTooLongError, episodeToSequence, fitToContext, type Sequence, type TrajectoryOptions, } from "./trajectory.ts";

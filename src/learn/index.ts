/**
 * The learner from code (`agent-r1-ts/learn`): train, clone and evaluate GPT policies, as the CLI's `train`,
 * `sft` and `eval` do. Kept apart from the main entry because it loads TensorFlow.js.
 */

export { loadEnv } from "../cli/registry.ts";
export { type LineChartOptions, lineChartSvg, plotRuns } from "../observe/plot.ts";
export { type AveragedCheckpoint, averageCheckpoints } from "../policy/average.ts";
export { type BackendChoice, initBackend } from "../policy/backend.ts";
export { CheckpointError, loadCheckpoint, saveCheckpoint } from "../policy/checkpoint.ts";
export { ALGORITHMS, type Algorithm } from "./advantages/types.ts";
export {
  DEFAULT_CONTEXT,
  DEFAULT_TRAIN_CONFIG,
  decodeTrainConfig,
  LR_SCHEDULES,
  type LrSchedule,
  modelConfigFor,
  scheduledLr,
  type TrainConfig,
  trainConfigFor,
  type WarmStartConfig,
} from "./config.ts";
export { describeEval, type EvalSummary, evaluate } from "./evaluate.ts";
export { type SftOptions, type SftResult, sft } from "./sft.ts";
export {
  loadCheckpointFor,
  loadPolicy,
  policyFromModel,
  readLatest,
  readRunConfig,
  type TrainOptions,
  type TrainResult,
  train,
  type UpdateMetrics,
} from "./trainer.ts";

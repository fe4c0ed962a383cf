/**
 * The property-testing kit (`agent-r1-ts/testing`): fast-check arbitraries for the framework's data,
 * reward invariants checked against any ToolEnv, model-based tests, and path coverage of environment
 * machines. A failure prints the shrunk episode step by step and writes it as a replayable journal.
 * It needs fast-check, which the framework itself does not: install it as a dev dependency.
 */
export { type ActionOptions, actionArbitrary, almostRightActionArbitrary, answerArbitrary, hostileActionArbitrary, toolCallArbitrary, type WithTools, wellFormedActionArbitrary, } from "./actions.ts";
export { type ArbitraryOptions, arbitraryOf, bodyOf, eventArbitrary, eventBodyArbitrary, failedToolResultArbitrary, journalEpisodeArbitrary, jsonValueArbitrary, toolFailureArbitrary, toolResultArbitrary, } from "./arbitraries.ts";
export { CounterexampleError, type CounterexampleOptions, checkProperty, defaultCounterexampleDir, describeEpisode, type PropertyRunOptions, type Violation, writeCounterexample, } from "./counterexample.ts";
export { CoverageError, type CoverageOptions, type CoveragePath, type CoverageProblem, type CoverageReport, checkCoverage, type ExplorationEvent, exploreEnv, type ProtocolSnapshot, } from "./coverage.ts";
export { actionsWithRepeatsArbitrary, type DriverOptions, EpisodeDriver, type EpisodeScript, type EpisodeScriptOptions, episodeScriptArbitrary, type PlayedEpisode, type PlayOptions, playEpisode, resolveAction, SCRIPT_POLICY, type ScriptAction, type StepResult, seedArbitrary, } from "./episodes.ts";
export { type AnyRewardInvariant, checkRewards, type EpisodeInvariantOptions, episodeInvariant, type FinalAnswerOptions, InvariantsFailedError, NothingCheckedError, neverCrashes, noRewardForRepeatedCalls, orderIndependentRewards, outcomeDependsOnlyOnFinalAnswer, outcomeRewardOnEveryEnd, processRewardCap, type RepeatedCallOptions, type RewardCheckOptions, type RewardInvariant, replaysIdentically, returnBounds, rewardBounds, } from "./invariants.ts";
export { checkModel, type EnvModel, type ModelCheckOptions, type ModelPrediction } from "./model.ts";

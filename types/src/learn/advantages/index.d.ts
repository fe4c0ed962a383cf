/*
 * Advantage estimators by algorithm name, behind one signature:
 *   computeAdvantages(algorithm, sequences, extras, options) -> { advantages, returns?, degenerateGroups, rewardKl? }
 */
import { type AdvantageExtras, type AdvantageOptions, type AdvantageResult, type Algorithm, type Estimator, type ScoredSequence } from "./types.ts";
export * from "./types.ts";
/** The shipped estimator of each algorithm (ppo is GAE with the critic's values). */
export declare const ESTIMATORS: Readonly<Record<Algorithm, Estimator>>;
/** Runs `algorithm`'s estimator on the sequences, with the defaults for any option not given. */
export declare const computeAdvantages: (algorithm: Algorithm, sequences: readonly ScoredSequence[], extras?: AdvantageExtras, options?: AdvantageOptions) => AdvantageResult;
/**
 * Runs an estimator (a shipped one or your own) with the default options filled in, and checks what it
 * returns: one advantage array (and return array, where given) per sequence, of the sequence's length, all
 * finite. `name` appears in the errors.
 */
export declare const runEstimator: (name: string, estimator: Estimator, sequences: readonly ScoredSequence[], extras?: AdvantageExtras, options?: AdvantageOptions) => AdvantageResult;

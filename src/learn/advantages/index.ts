/**
 * Advantage estimators by algorithm name, behind one signature:
 *   computeAdvantages(algorithm, sequences, extras, options) -> { advantages, returns?, degenerateGroups, rewardKl? }
 */
import { gae } from "./gae.ts";
import { grpo } from "./grpo.ts";
import { reinforcePlusPlus } from "./reinforce-pp.ts";
import { reinforcePlusPlusBaseline } from "./reinforce-pp-baseline.ts";
import { remax } from "./remax.ts";
import { rloo } from "./rloo.ts";
import {
  type AdvantageExtras,
  type AdvantageOptions,
  type AdvantageResult,
  type Algorithm,
  DEFAULT_ADVANTAGE_OPTIONS,
  type Estimator,
  type ScoredSequence,
} from "./types.ts";

export * from "./types.ts";

/** The shipped estimator of each algorithm (ppo is GAE with the critic's values). */
export const ESTIMATORS: Readonly<Record<Algorithm, Estimator>> = {
  ppo: gae,
  grpo,
  "reinforce++": reinforcePlusPlus,
  "reinforce++-baseline": reinforcePlusPlusBaseline,
  rloo,
  remax,
};

/** Runs `algorithm`'s estimator on the sequences, with the defaults for any option not given. */
export const computeAdvantages = (
  algorithm: Algorithm,
  sequences: readonly ScoredSequence[],
  extras: AdvantageExtras = {},
  options: AdvantageOptions = {},
): AdvantageResult => {
  const estimator = ESTIMATORS[algorithm];
  if (estimator === undefined) throw new Error(`unknown advantage estimator "${algorithm}"`);
  return runEstimator(algorithm, estimator, sequences, extras, options);
};

/**
 * Runs an estimator (a shipped one or your own) with the default options filled in, and checks what it
 * returns: one advantage array (and return array, where given) per sequence, of the sequence's length, all
 * finite. `name` appears in the errors.
 */
export const runEstimator = (
  name: string,
  estimator: Estimator,
  sequences: readonly ScoredSequence[],
  extras: AdvantageExtras = {},
  options: AdvantageOptions = {},
): AdvantageResult => {
  const result = estimator(sequences, extras, { ...DEFAULT_ADVANTAGE_OPTIONS, ...options });
  const check = (what: string, arrays: readonly Float32Array[] | undefined): void => {
    if (arrays === undefined) return;
    if (!Array.isArray(arrays) || arrays.length !== sequences.length)
      throw new Error(
        `${name}: returned ${Array.isArray(arrays) ? arrays.length : "no array of"} ${what} arrays for ${sequences.length} sequences; give one per sequence`,
      );
    arrays.forEach((array, i) => {
      if (!(array instanceof Float32Array) || array.length !== sequences[i].actionMask.length)
        throw new Error(
          `${name}: ${what} ${i} (episode ${sequences[i].episode}) must be a Float32Array of the sequence's ${sequences[i].actionMask.length} tokens, got ${array instanceof Float32Array ? `${array.length} values` : Array.isArray(array) ? "a plain array" : typeof array}`,
        );
      const bad = array.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0) {
        throw new Error(
          `${name}: ${what}[${bad}] of sequence ${i} (episode ${sequences[i].episode}) is ${array[bad]}; ` +
            "check the rewards and extras for NaN or infinity",
        );
      }
    });
  };
  if (typeof result !== "object" || result === null || result.advantages === undefined)
    throw new Error(`${name}: an estimator returns { advantages, returns?, degenerateGroups }`);
  check("advantage", result.advantages);
  check("return", result.returns);
  if (!Number.isInteger(result.degenerateGroups) || result.degenerateGroups < 0)
    throw new Error(
      `${name}: degenerateGroups must be a count (groups whose episodes all returned the same), got ${String(result.degenerateGroups)}`,
    );
  return result;
};

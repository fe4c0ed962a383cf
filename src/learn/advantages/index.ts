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

export const ESTIMATORS: Readonly<Record<Algorithm, Estimator>> = {
  ppo: gae,
  grpo,
  "reinforce++": reinforcePlusPlus,
  "reinforce++-baseline": reinforcePlusPlusBaseline,
  rloo,
  remax,
};

export const computeAdvantages = (
  algorithm: Algorithm,
  sequences: readonly ScoredSequence[],
  extras: AdvantageExtras = {},
  options: AdvantageOptions = {},
): AdvantageResult => {
  const estimator = ESTIMATORS[algorithm];
  if (estimator === undefined) throw new Error(`unknown advantage estimator "${algorithm}"`);
  const result = estimator(sequences, extras, { ...DEFAULT_ADVANTAGE_OPTIONS, ...options });
  const check = (name: string, arrays: readonly Float32Array[] | undefined): void =>
    arrays?.forEach((array, i) => {
      const bad = array.findIndex((x) => !Number.isFinite(x));
      if (bad >= 0) {
        throw new Error(
          `${algorithm}: ${name}[${bad}] of sequence ${i} (episode ${sequences[i].episode}) is ${array[bad]}; ` +
            "check the rewards and extras for NaN or infinity",
        );
      }
    });
  check("advantage", result.advantages);
  check("return", result.returns);
  return result;
};

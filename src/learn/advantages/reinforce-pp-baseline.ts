/**
 * REINFORCE++-baseline (Hu 2025): a group-mean baseline, then normalisation over the batch's tokens.
 *
 *   A'_i = R_i - mean(R_1..R_G)                                   episode i, within its group of G
 *   A_k  = (A'_i(k) - mean(A')) / (std(A') + eps)                 mean, std over the batch's action tokens
 *
 * where i(k) is the episode of token k. A group of one episode, or whose rewards are all equal, carries
 * no signal: its tokens get A_k = 0 and stay out of the batch mean and std. The KL to the reference
 * belongs to the loss here, not to the reward.
 */
import { advantageMask, type TokenPosition, zerosLike } from "./chains.ts";
import { groupReturns } from "./groups.ts";
import { allEqual, mean, whiten } from "./stats.ts";
import type { Estimator } from "./types.ts";

export const reinforcePlusPlusBaseline: Estimator = (sequences, _extras, options) => {
  const centred = new Map<string, number>();
  let degenerateGroups = 0;
  for (const returns of groupReturns(sequences).values()) {
    const rewards = [...returns.values()];
    if (rewards.length < 2 || allEqual(rewards)) {
      degenerateGroups++;
      continue;
    }
    const m = mean(rewards);
    for (const [episode, reward] of returns) centred.set(episode, reward - m);
  }

  const positions: TokenPosition[] = [];
  const tokenValues: number[] = [];
  sequences.forEach((sequence, i) => {
    const value = centred.get(sequence.episode);
    if (value === undefined) return;
    advantageMask(sequence, options.maskAdvantages).forEach((m, index) => {
      if (m !== 1) return;
      positions.push({ sequence: i, index });
      tokenValues.push(value);
    });
  });

  const advantages = zerosLike(sequences);
  whiten(tokenValues, options.eps).forEach((advantage, k) => {
    advantages[positions[k].sequence][positions[k].index] = advantage;
  });
  return { advantages, degenerateGroups };
};

/**
 * ReMax (Li et al. 2024): the reward of a greedy rollout of the same task is the baseline.
 *
 *   A_i = R_i - R_greedy(group of i)                         on every action token of episode i
 *
 * The baseline comes from outside the group, so a group of one episode is the normal case here. A group
 * is degenerate (no signal) when every R_i equals R_greedy; its advantages are then exactly 0.
 */
import { broadcast, groupReturns } from "./groups.ts";
import type { Estimator } from "./types.ts";

export const remax: Estimator = (sequences, extras, options) => {
  const advantageOf = new Map<string, number>();
  let degenerateGroups = 0;
  for (const [group, returns] of groupReturns(sequences)) {
    const greedy = extras.greedyReward?.[group];
    if (greedy === undefined || !Number.isFinite(greedy)) {
      throw new Error(`remax needs extras.greedyReward["${group}"]: the greedy rollout's reward for that group`);
    }
    const rewards = [...returns.values()];
    if (rewards.every((reward) => reward === greedy)) degenerateGroups++;
    for (const [episode, reward] of returns) advantageOf.set(episode, reward - greedy);
  }
  return { advantages: broadcast(sequences, advantageOf, options.maskAdvantages), degenerateGroups };
};

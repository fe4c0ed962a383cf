/**
 * GRPO (Shao et al. 2024, DeepSeekMath), outcome supervision over a group of G episodes of one task:
 *
 *   A_i = (R_i - mean(R_1..R_G)) / (std(R_1..R_G) + eps)      on every action token of episode i
 *
 * R_i is the episode's total return, std the sample std. normalizeByStd=false keeps only the centring
 * (Dr. GRPO). A group of one episode, or whose rewards are all equal, carries no signal: A_i = 0.
 */
import { broadcast, groupReturns } from "./groups.ts";
import { allEqual, mean, std } from "./stats.ts";
import type { Estimator } from "./types.ts";

export const grpo: Estimator = (sequences, _extras, options) => {
  const advantageOf = new Map<string, number>();
  let degenerateGroups = 0;
  for (const returns of groupReturns(sequences).values()) {
    const rewards = [...returns.values()];
    const degenerate = rewards.length < 2 || allEqual(rewards);
    if (degenerate) degenerateGroups++;
    const m = mean(rewards);
    const scale = options.normalizeByStd ? std(rewards) + options.eps : 1;
    for (const [episode, reward] of returns) advantageOf.set(episode, degenerate ? 0 : (reward - m) / scale);
  }
  return { advantages: broadcast(sequences, advantageOf, options.maskAdvantages), degenerateGroups };
};

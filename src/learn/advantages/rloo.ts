/**
 * RLOO, REINFORCE leave-one-out (Kool et al. 2019; Ahmadian et al. 2024), over a group of G episodes:
 *
 *   A_i = R_i - (1 / (G - 1)) * sum_{j != i} R_j             on every action token of episode i
 *
 * A group of one episode (no other to compare with), or whose rewards are all equal: A_i = 0.
 */
import { broadcast, groupReturns } from "./groups.ts";
import { allEqual } from "./stats.ts";
import type { Estimator } from "./types.ts";

export const rloo: Estimator = (sequences, _extras, options) => {
  const advantageOf = new Map<string, number>();
  let degenerateGroups = 0;
  for (const returns of groupReturns(sequences).values()) {
    const rewards = [...returns.values()];
    const degenerate = rewards.length < 2 || allEqual(rewards);
    if (degenerate) degenerateGroups++;
    const total = rewards.reduce((sum, r) => sum + r, 0);
    const others = rewards.length - 1;
    for (const [episode, reward] of returns) {
      advantageOf.set(episode, degenerate ? 0 : reward - (total - reward) / others);
    }
  }
  return { advantages: broadcast(sequences, advantageOf, options.maskAdvantages), degenerateGroups };
};

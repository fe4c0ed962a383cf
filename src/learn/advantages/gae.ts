/**
 * PPO: Generalized Advantage Estimation (Schulman et al. 2016) over action tokens only.
 *
 *   delta_k = r_k + gamma * V(s_{k+1}) - V(s_k)
 *   A_k     = delta_k + gamma * lambda * A_{k+1}        A_n = 0, V(s_n) = 0 (the episode ended)
 *   G_k     = A_k + V(s_k)                              value target for the critic
 *
 * k runs over the episode's compacted chain of action tokens (observation tokens taken out), so the last
 * token of action a_t bootstraps from V at the first token of a_{t+1}, across the observation between
 * them; the results are scattered back to their token positions (Agent-R1). Observation tokens get 0.
 * maskAdvantages=false (ablation): the chain is every response token, observations included.
 * Advantages are not whitened, here or in the loss: `train` uses them as GAE gives them (trainStep's
 * `normalizeAdvantages`, CleanRL's norm_adv, whitens per minibatch when a caller asks; no flag sets it).
 */
import { episodeChains, zerosLike } from "./chains.ts";
import type { Estimator } from "./types.ts";

export const gae: Estimator = (sequences, extras, options) => {
  const { values } = extras;
  if (values === undefined) throw new Error("ppo needs extras.values: the critic's value of every token");
  sequences.forEach((sequence, i) => {
    if (values[i]?.length !== sequence.actionMask.length) {
      throw new Error(
        `ppo: sequence ${i} (episode ${sequence.episode}) has ${sequence.actionMask.length} tokens ` +
          `but ${values[i]?.length ?? 0} values`,
      );
    }
  });
  const { gamma, lambda } = options;
  const advantages = zerosLike(sequences);
  const returns = zerosLike(sequences);

  for (const chain of episodeChains(sequences, options.maskAdvantages)) {
    let nextValue = 0;
    let nextAdvantage = 0;
    for (let k = chain.length - 1; k >= 0; k--) {
      const { sequence, index } = chain[k];
      const value = values[sequence][index];
      const delta = sequences[sequence].rewards[index] + gamma * nextValue - value;
      const advantage = delta + gamma * lambda * nextAdvantage;
      advantages[sequence][index] = advantage;
      returns[sequence][index] = advantage + value;
      nextValue = value;
      nextAdvantage = advantage;
    }
  }
  return { advantages, returns, degenerateGroups: 0 };
};

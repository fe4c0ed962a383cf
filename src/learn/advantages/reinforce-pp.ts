/**
 * REINFORCE++ (Hu 2025): token-level reward with a KL penalty, discounted return-to-go, batch-normalised.
 *
 *   r'_k = r_k - beta * KL_k        KL_k = log pi(a_k) - log pi_ref(a_k); 0 off action tokens or with no ref
 *   G_k  = sum_{j >= k} gamma^(j - k) * r'_j                   over the episode's chain of action tokens
 *   A_k  = (G_k - mean(G)) / (std(G) + eps)                    mean, std over every chain token of the batch
 *
 * The chain skips observation tokens (maskAdvantages=false: it keeps them). No critic, no group. When
 * every G_k of the batch is equal there is no signal and A_k = 0.
 */
import { episodeChains, type TokenPosition, zerosLike } from "./chains.ts";
import { whiten } from "./stats.ts";
import type { Estimator } from "./types.ts";

export const reinforcePlusPlus: Estimator = (sequences, extras, options) => {
  const beta = extras.klCoef ?? 0;
  let klSum = 0;
  let klTokens = 0;
  const klAt = (sequence: number, index: number): number => {
    const ref = extras.refLogprobs?.[sequence];
    if (ref === undefined || beta === 0 || sequences[sequence].actionMask[index] !== 1) return 0;
    const policy = extras.policyLogprobs?.[sequence] ?? sequences[sequence].logprobs;
    const kl = policy[index] - ref[index];
    klSum += kl;
    klTokens += 1;
    return kl;
  };
  sequences.forEach((sequence, i) => {
    const ref = extras.refLogprobs?.[i];
    if (ref !== undefined && ref.length !== sequence.actionMask.length) {
      throw new Error(
        `reinforce++: sequence ${i} (episode ${sequence.episode}) has ${sequence.actionMask.length} tokens ` +
          `but ${ref.length} reference logprobs`,
      );
    }
  });

  const positions: TokenPosition[] = [];
  const returnsToGo: number[] = [];
  for (const chain of episodeChains(sequences, options.maskAdvantages)) {
    const chainReturns: number[] = new Array(chain.length);
    let next = 0;
    for (let k = chain.length - 1; k >= 0; k--) {
      const { sequence, index } = chain[k];
      next = sequences[sequence].rewards[index] - beta * klAt(sequence, index) + options.gamma * next;
      chainReturns[k] = next;
    }
    positions.push(...chain);
    returnsToGo.push(...chainReturns);
  }

  const advantages = zerosLike(sequences);
  whiten(returnsToGo, options.eps).forEach((advantage, k) => {
    advantages[positions[k].sequence][positions[k].index] = advantage;
  });
  return { advantages, degenerateGroups: 0, ...(klTokens > 0 ? { rewardKl: klSum / klTokens } : {}) };
};

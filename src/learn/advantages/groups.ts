/**
 * Sequence-level estimators compare episodes of one group. Each episode counts once, with its return R,
 * whether it arrives as one sequence (append layout) or one per turn (step layout); every sequence of
 * the episode then gets the episode's advantage on its advantage-masked tokens.
 */
import { advantageMask } from "./chains.ts";
import type { ScoredSequence } from "./types.ts";

/** group -> episode -> R, in order of first appearance. */
export const groupReturns = (sequences: readonly ScoredSequence[]): Map<string, Map<string, number>> => {
  const groups = new Map<string, Map<string, number>>();
  const groupOfEpisode = new Map<string, string>();
  for (const { episode, group, totalReturn } of sequences) {
    const knownGroup = groupOfEpisode.get(episode);
    if (knownGroup !== undefined && knownGroup !== group) {
      throw new Error(`episode ${episode} is in two groups: ${knownGroup} and ${group}`);
    }
    groupOfEpisode.set(episode, group);
    let returns = groups.get(group);
    if (returns === undefined) {
      returns = new Map();
      groups.set(group, returns);
    }
    const known = returns.get(episode);
    if (known !== undefined && known !== totalReturn) {
      throw new Error(`episode ${episode} has two different returns in the batch: ${known} and ${totalReturn}`);
    }
    returns.set(episode, totalReturn);
  }
  return groups;
};

/** A_i of each episode written on every advantage-masked token of its sequences; 0 elsewhere. */
export const broadcast = (
  sequences: readonly ScoredSequence[],
  advantageOf: ReadonlyMap<string, number>,
  maskAdvantages: boolean,
): Float32Array[] =>
  sequences.map((sequence) => {
    const advantage = advantageOf.get(sequence.episode) ?? 0;
    const mask = advantageMask(sequence, maskAdvantages);
    return Float32Array.from(mask, (m) => (m === 1 ? advantage : 0));
  });

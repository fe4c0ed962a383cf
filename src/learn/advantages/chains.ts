/**
 * Compacting: per episode, the positions of its advantage-masked tokens in order. The append layout
 * contributes one sequence per episode, the step layout one per turn (taken in turn order), so a chain
 * runs from the episode's first action token to its last, skipping the observation tokens between
 * actions: value bootstrapping and return-to-go link turns across observations (Agent-R1).
 */
import type { ScoredSequence } from "./types.ts";

export interface TokenPosition {
  readonly sequence: number;
  readonly index: number;
}

/** Action tokens, or every response token in the "no advantage mask" ablation. */
export const advantageMask = (sequence: ScoredSequence, maskAdvantages: boolean): readonly number[] =>
  maskAdvantages ? sequence.actionMask : sequence.responseMask;

export const episodeChains = (sequences: readonly ScoredSequence[], maskAdvantages: boolean): TokenPosition[][] => {
  const byEpisode = new Map<string, number[]>();
  sequences.forEach((sequence, i) => {
    const members = byEpisode.get(sequence.episode);
    if (members === undefined) byEpisode.set(sequence.episode, [i]);
    else members.push(i);
  });
  return [...byEpisode.entries()].map(([episode, members]) => {
    const turns = members.map((i) => sequences[i].turn);
    if (members.length > 1 && (turns.some((t) => t === undefined) || new Set(turns).size !== turns.length)) {
      throw new Error(`episode ${episode} appears ${members.length} times in the batch without distinct step turns`);
    }
    members.sort((a, b) => (sequences[a].turn ?? 0) - (sequences[b].turn ?? 0));
    const chain: TokenPosition[] = [];
    for (const sequence of members) {
      const mask = advantageMask(sequences[sequence], maskAdvantages);
      for (let index = 0; index < mask.length; index++) if (mask[index] === 1) chain.push({ sequence, index });
    }
    return chain;
  });
};

/** One zeroed array per sequence, as long as its masks. */
export const zerosLike = (sequences: readonly ScoredSequence[]): Float32Array[] =>
  sequences.map((sequence) => new Float32Array(sequence.actionMask.length));

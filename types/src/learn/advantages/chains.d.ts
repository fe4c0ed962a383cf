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
export declare const advantageMask: (sequence: ScoredSequence, maskAdvantages: boolean) => readonly number[];
export declare const episodeChains: (sequences: readonly ScoredSequence[], maskAdvantages: boolean) => TokenPosition[][];
/** One zeroed array per sequence, as long as its masks. */
export declare const zerosLike: (sequences: readonly ScoredSequence[]) => Float32Array[];

/*
 * Sequence-level estimators compare episodes of one group. Each episode counts once, with its return R,
 * whether it arrives as one sequence (append layout) or one per turn (step layout); every sequence of
 * the episode then gets the episode's advantage on its advantage-masked tokens.
 */
import type { ScoredSequence } from "./types.ts";
/** group -> episode -> R, in order of first appearance. */
export declare const groupReturns: (sequences: readonly ScoredSequence[]) => Map<string, Map<string, number>>;
/** A_i of each episode written on every advantage-masked token of its sequences; 0 elsewhere. */
export declare const broadcast: (sequences: readonly ScoredSequence[], advantageOf: ReadonlyMap<string, number>, maskAdvantages: boolean) => Float32Array[];

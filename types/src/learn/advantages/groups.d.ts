import type { ScoredSequence } from "./types.ts";
/** group -> episode -> R, in order of first appearance. */
export declare const groupReturns: (sequences: readonly ScoredSequence[]) => Map<string, Map<string, number>>;
/** A_i of each episode written on every advantage-masked token of its sequences; 0 elsewhere. */
export declare const broadcast: (sequences: readonly ScoredSequence[], advantageOf: ReadonlyMap<string, number>, maskAdvantages: boolean) => Float32Array[];

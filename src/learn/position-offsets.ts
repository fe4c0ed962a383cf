/**
 * Position offsets while training (`sft --position-offsets`, `train --position-offsets`): a row's learned
 * positions start at a random place instead of 0, so the positions that episodes longer than the training ones
 * reach get trained, and a policy cannot tell how far into an episode it is from its absolute positions alone.
 * Sampling and evaluation always start at 0.
 */

import type { Rng } from "../kernel/prng.ts";

export const POSITION_OFFSETS = ["none", "random", "mixed"] as const;
export type PositionOffsets = (typeof POSITION_OFFSETS)[number];

/**
 * Where a row of `length` tokens starts: "mixed" puts half the rows at 0 and half at a random position, "random"
 * every row at a random one, "none" every row at 0. The model reads tokens 0..length-2 (the last is only a
 * target), so they fit from any start up to contextLength - (length - 1).
 */
export const drawPositionOffset = (rng: Rng, kind: PositionOffsets, contextLength: number, length: number): number => {
  if (kind === "none") return 0;
  if (kind === "mixed" && rng.float() < 0.5) return 0;
  return rng.int(0, Math.max(0, contextLength - (length - 1)));
};

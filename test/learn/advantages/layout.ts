/** Scored sequences written as a layout string: p = prompt, a = action, o = observation token. */
import type { ScoredSequence } from "../../../src/learn/advantages/types.ts";

export interface LayoutInit {
  readonly episode: string;
  readonly group?: string;
  readonly turn?: number;
  /** Reward by token position. */
  readonly rewards?: Readonly<Record<number, number>>;
  /** Default: the sum of the rewards. */
  readonly totalReturn?: number;
  readonly logprobs?: readonly number[];
}

export const scored = (layout: string, init: LayoutInit): ScoredSequence => {
  const kinds = [...layout];
  const promptLength = kinds.filter((k) => k === "p").length;
  const rewards = kinds.map((_, i) => init.rewards?.[i] ?? 0);
  return {
    episode: init.episode,
    group: init.group ?? "g",
    ...(init.turn === undefined ? {} : { turn: init.turn }),
    actionMask: kinds.map((k) => (k === "a" ? 1 : 0)),
    responseMask: kinds.map((_, i) => (i < promptLength ? 0 : 1)),
    rewards,
    totalReturn: init.totalReturn ?? rewards.reduce((a, b) => a + b, 0),
    logprobs: init.logprobs ?? kinds.map(() => 0),
  };
};

/** A Float32Array as a plain list, for toEqual. */
export const list = (array: Float32Array): number[] => Array.from(array);

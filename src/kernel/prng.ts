/**
 * Seeded, splittable randomness. A seed is a string; `splitSeed(seed, i)` names the i-th child stream
 * ("7" -> "7:3" -> "7:3:0": run -> episode -> turn). A child stream depends only on its own name, so a
 * result never depends on what else ran in the same batch or in which order.
 */
import { createHash } from "node:crypto";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";

/** The seed of the index-th child stream of `seed` (`splitSeed("7", 3)` is "7:3"). */
export const splitSeed = (seed: string, index: number | string): string => `${seed}:${index}`;

/** The four 32-bit words of xoroshiro128+'s state, taken from the seed's SHA-256. */
const stateOf = (seed: string): number[] => {
  const bytes = createHash("sha256").update(seed).digest();
  const words: number[] = [0, 1, 2, 3].map((i) => bytes.readInt32LE(i * 4));
  // xoroshiro must not start from the all-zero state.
  return words.some((w) => w !== 0) ? words : [1, 0, 0, 0];
};

/**
 * A deterministic random stream (xoroshiro128+) seeded from a string: the same seed gives the same draws on every
 * machine.
 */
export class Rng {
  private constructor(private readonly generator: RandomGenerator) {}

  /**
   * The stream of this seed (its SHA-256 sets the generator's state). A TypeError for a seed that is no string
   * (`fromSeed(7)` failed inside node:crypto, "The \"data\" argument must be of type string ...", naming no seed).
   */
  static fromSeed(seed: string): Rng {
    if (typeof seed !== "string")
      throw new TypeError(
        `Rng.fromSeed: a seed is a string, got ${typeof seed === "number" ? `the number ${seed} (write String(${seed}) or "${seed}")` : seed === null ? "null" : typeof seed}`,
      );
    return new Rng(xoroshiro128plusFromState(stateOf(seed)));
  }

  /**
   * The stream as it is now (its generator's four 32-bit words), for a resumable job to save: `fromState` of it
   * draws what this stream draws next.
   */
  state(): number[] {
    return [...this.generator.getState()];
  }

  /** The stream `state()` saved; a RangeError unless it is four 32-bit integers, not all 0. */
  static fromState(state: readonly number[]): Rng {
    if (
      !Array.isArray(state) ||
      state.length !== 4 ||
      !state.every((w) => Number.isInteger(w) && w >= -(2 ** 31) && w < 2 ** 32) ||
      state.every((w) => w === 0)
    )
      throw new RangeError(`a random stream's state is four 32-bit integers, not all 0, got ${JSON.stringify(state)}`);
    return new Rng(xoroshiro128plusFromState(state));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.generator);
  }

  /**
   * Uniform integer in [from, to], both included. Throws a RangeError unless both are safe integers with
   * `from <= to` (reversed or fractional bounds would otherwise draw numbers outside them: `int(5, 2)` gave 6).
   */
  int(from: number, to: number): number {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from > to || !Number.isSafeInteger(to - from))
      throw new RangeError(
        `Rng.int(from, to) takes two safe integers with from <= to (a span of at most 2^53 - 1), got int(${from}, ${to})`,
      );
    return uniformInt(this.generator, from, to);
  }

  /** A uniformly chosen item; throws a RangeError on an empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("cannot pick from an empty list");
    return items[this.int(0, items.length - 1)];
  }

  /** A new array with the items in a random order (Fisher-Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}

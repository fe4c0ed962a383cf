/*
 * Seeded, splittable randomness. A seed is a string; `splitSeed(seed, i)` names the i-th child stream
 * ("7" -> "7:3" -> "7:3:0": run -> episode -> turn). A child stream depends only on its own name, so a
 * result never depends on what else ran in the same batch or in which order.
 */
/** The seed of the index-th child stream of `seed` (`splitSeed("7", 3)` is "7:3"). */
export declare const splitSeed: (seed: string, index: number | string) => string;
/**
 * A deterministic random stream (xoroshiro128+) seeded from a string: the same seed gives the same draws on every
 * machine.
 */
export declare class Rng {
    private readonly generator;
    private constructor();
    /**
     * The stream of this seed (its SHA-256 sets the generator's state). A TypeError for a seed that is no string
     * (`fromSeed(7)` failed inside node:crypto, "The \"data\" argument must be of type string ...", naming no seed).
     */
    static fromSeed(seed: string): Rng;
    /**
     * The stream as it is now (its generator's four 32-bit words), for a resumable job to save: `fromState` of it
     * draws what this stream draws next.
     */
    state(): number[];
    /** The stream `state()` saved; a RangeError unless it is four 32-bit integers, not all 0. */
    static fromState(state: readonly number[]): Rng;
    /** Uniform in [0, 1). */
    float(): number;
    /**
     * Uniform integer in [from, to], both included. Throws a RangeError unless both are safe integers with
     * `from <= to` (reversed or fractional bounds would otherwise draw numbers outside them: `int(5, 2)` gave 6).
     */
    int(from: number, to: number): number;
    /** A uniformly chosen item; throws a RangeError on an empty list. */
    pick<T>(items: readonly T[]): T;
    /** A new array with the items in a random order (Fisher-Yates). */
    shuffle<T>(items: readonly T[]): T[];
}

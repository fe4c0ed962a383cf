/**
 * Seeded, splittable randomness. A seed is a string; `splitSeed(seed, i)` names the i-th child stream
 * ("7" -> "7:3" -> "7:3:0": run -> episode -> turn). A child stream depends only on its own name, so a
 * result never depends on what else ran in the same batch or in which order.
 */
export declare const splitSeed: (seed: string, index: number | string) => string;
export declare class Rng {
    private readonly generator;
    private constructor();
    static fromSeed(seed: string): Rng;
    /** Uniform in [0, 1). */
    float(): number;
    /** Uniform integer in [from, to], both included. */
    int(from: number, to: number): number;
    pick<T>(items: readonly T[]): T;
    /** A new array with the items in a random order (Fisher-Yates). */
    shuffle<T>(items: readonly T[]): T[];
}

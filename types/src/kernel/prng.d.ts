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

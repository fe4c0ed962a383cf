import { type Passage, type World } from "./world.ts";
export interface IndexedWorld {
    readonly world: World;
    search(query: string, k: number): Passage[];
}
/** The world of a seed (default sizes), indexed; cached. */
export declare const worldOf: (seed: string) => IndexedWorld;

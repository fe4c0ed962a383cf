/*
 * BM25 search over a world's passages, with MiniSearch (BM25+, its default scoring). Worlds and their
 * indexes are generated on demand and kept in a small cache: generating one takes a few milliseconds.
 */
import { type Passage, type World } from "./world.ts";
export interface IndexedWorld {
    readonly world: World;
    search(query: string, k: number): Passage[];
}
/** The world of a seed (default sizes), indexed; cached. */
export declare const worldOf: (seed: string) => IndexedWorld;

/**
 * BM25 search over a world's passages, with MiniSearch (BM25+, its default scoring). Worlds and their
 * indexes are generated on demand and kept in a small cache: generating one takes a few milliseconds.
 */
import MiniSearch from "minisearch";
import { DEFAULT_SIZES, generateWorld, type Passage, type World } from "./world.ts";

export interface IndexedWorld {
  readonly world: World;
  search(query: string, k: number): Passage[];
}

const CACHE_SIZE = 64;
const cache = new Map<string, IndexedWorld>();

const index = (world: World): IndexedWorld => {
  // Text only, no title field: the passages that mention an entity hold its name too, so a bare name is
  // ambiguous and a good query needs the relation's word as well (docs/hopqa.md, "Retrieval").
  const engine = new MiniSearch<Passage>({ fields: ["text"], idField: "id" });
  engine.addAll(world.passages);
  return {
    world,
    search: (query, k) =>
      engine
        .search(query)
        // Ties broken by passage id: the same query always returns the same list.
        .sort((a, b) => b.score - a.score || (a.id as number) - (b.id as number))
        .slice(0, k)
        .map((hit) => world.passages[hit.id as number]),
  };
};

/** The world of a seed (default sizes), indexed; cached. */
export const worldOf = (seed: string): IndexedWorld => {
  const hit = cache.get(seed);
  if (hit) {
    cache.delete(seed);
    cache.set(seed, hit);
    return hit;
  }
  const made = index(generateWorld(seed, DEFAULT_SIZES));
  cache.set(seed, made);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return made;
};

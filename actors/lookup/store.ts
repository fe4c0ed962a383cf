/**
 * The lookup world: a key-value store of 48 keys. Some keys hold a word (a final value), others hold the
 * name of another key, so a task can ask for one lookup or a chain of two. Fixed by a seed, so every run,
 * test and replay sees the same store.
 */
import { Rng } from "../../src/index.ts";

export const VALUES = [
  "red",
  "blue",
  "green",
  "amber",
  "violet",
  "silver",
  "copper",
  "ivory",
  "olive",
  "coral",
  "plum",
  "teal",
] as const;
export const KEY_COUNT = 48;
export const keyName = (i: number) => `k${i}`;
export const KEYS: readonly string[] = Array.from({ length: KEY_COUNT }, (_, i) => keyName(i));

/** Keys k0..k23 hold values; k24..k47 hold pointers to one of k0..k23. */
export const STORE: Readonly<Record<string, string>> = (() => {
  const rng = Rng.fromSeed("lookup-store-v1");
  const store: Record<string, string> = {};
  for (let i = 0; i < KEY_COUNT / 2; i++) store[keyName(i)] = rng.pick(VALUES);
  for (let i = KEY_COUNT / 2; i < KEY_COUNT; i++) store[keyName(i)] = keyName(rng.int(0, KEY_COUNT / 2 - 1));
  return store;
})();

export interface LookupTask {
  readonly key: string;
  /** 1: the key holds the answer; 2: the key holds another key, which holds the answer. */
  readonly hops: 1 | 2;
  readonly [field: string]: string | number;
}

export const drawTask = (seed: string): LookupTask => {
  const rng = Rng.fromSeed(`${seed}:task`);
  const hops = rng.float() < 0.5 ? 1 : 2;
  const key = hops === 1 ? keyName(rng.int(0, KEY_COUNT / 2 - 1)) : keyName(rng.int(KEY_COUNT / 2, KEY_COUNT - 1));
  return { key, hops };
};

/** The keys a task needs looked up, in order, and its answer. */
export const solve = (task: LookupTask): { path: string[]; answer: string } =>
  task.hops === 1
    ? { path: [task.key], answer: STORE[task.key] }
    : { path: [task.key, STORE[task.key]], answer: STORE[STORE[task.key]] };

export const promptOf = (task: LookupTask): string =>
  task.hops === 1
    ? `Find the value stored under ${task.key} .`
    : `The key ${task.key} holds another key . Find the value stored under that key .`;

/*
 * The lookup world: a key-value store of 48 keys. Some keys hold a word (a final value), others hold the
 * name of another key, so a task can ask for one lookup or a chain of two. Fixed by a seed, so every run,
 * test and replay sees the same store.
 */
export declare const VALUES: readonly ["red", "blue", "green", "amber", "violet", "silver", "copper", "ivory", "olive", "coral", "plum", "teal"];
export declare const KEY_COUNT = 48;
export declare const keyName: (i: number) => string;
export declare const KEYS: readonly string[];
/** Keys k0..k23 hold values; k24..k47 hold pointers to one of k0..k23. */
export declare const STORE: Readonly<Record<string, string>>;
export interface LookupTask {
    readonly key: string;
    /** 1: the key holds the answer; 2: the key holds another key, which holds the answer. */
    readonly hops: 1 | 2;
    readonly [field: string]: string | number;
}
export declare const drawTask: (seed: string) => LookupTask;
/** The keys a task needs looked up, in order, and its answer. */
export declare const solve: (task: LookupTask) => {
    path: string[];
    answer: string;
};
export declare const promptOf: (task: LookupTask) => string;

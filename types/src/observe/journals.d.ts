/*
 * Where the journals of a path are: a journal file, a folder of journals (`record --out`), or a run
 * folder (`train --out`: metrics.jsonl, and the journals under episodes/u00012/).
 */
/** A run folder: written by `agent-r1 train` (metrics.jsonl, episodes/). */
export declare const isRunFolder: (dir: string) => boolean;
/** An absolute path as a user would type it from here: relative when it lies under the working folder. */
export declare const shownPath: (path: string) => string;
/**
 * The train run (or `start` folder) that `out` is, or lies in up to three levels down (episodes/u00000,
 * warm-start/demos, checkpoints/v00001), as an absolute path; undefined when none.
 */
export declare const enclosingRun: (out: string) => string | undefined;
/**
 * The journal files at `path`, sorted: the file itself, or the .jsonl files of a folder and of its
 * subfolders (at most `depth` levels down), skipping metrics.jsonl and checkpoint folders. Links are
 * never followed into; with `links`, a link named like a journal is listed (for the caller to refuse).
 */
export declare const findJournals: (path: string, { depth, links }?: {
    readonly depth?: number;
    readonly links?: boolean;
}) => Promise<string[]>;
/** `n` of `items`, evenly spaced, always with the first and the last; all of them when there are no more. */
export declare const evenlySpaced: <T>(items: readonly T[], n: number) => T[];

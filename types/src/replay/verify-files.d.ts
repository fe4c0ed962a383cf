/*
 * Checks journal files: each is read (schema, seq, hash chain), optionally repaired (a torn tail is
 * truncated) and optionally replay-verified against its environment. Every file gets a verdict; one bad
 * file never hides the others. Reading streams (one line in memory at a time); verifying holds one
 * episode at a time. In a folder, only regular files are read: a link cannot lead the check outside it.
 */
import { type RepairReport } from "../journal/jsonl.ts";
import type { EnvDefinition } from "../runtime/env.ts";
export interface FileVerdict {
    readonly file: string;
    readonly ok: boolean;
    readonly events: number;
    readonly episode?: string;
    readonly return?: number;
    readonly reason?: string;
    /**
     * Where the environment's code threw, for an episode that ended in an environment error and replays with its
     * environment (verified, or, when only reading, an environment known here): the journal keeps the message only.
     */
    readonly thrownAt?: string;
    /**
     * Reading only: the id of the environment, not known here, of an episode that ended in an environment error,
     * whose line was therefore not found (its module, given with --env, would find it).
     */
    readonly thrownAtUnknown?: string;
    readonly repaired?: RepairReport;
    /** The digest of its last event, of a journal read whole. */
    readonly lastDigest?: string;
    /**
     * Verified, but not its token ids: the tokenizer it was recorded with (its id), which the environment it was
     * verified with has not (another version's, or a variant's that no option here gives).
     */
    readonly tokensUnchecked?: {
        readonly env: string;
        readonly recorded: string;
        readonly here: string;
    };
    /** A journal checked before this one that holds the same episode (the same last digest): this is a copy, or it is. */
    readonly copyOf?: string;
    /** What is wrong, naming file and line. */
    readonly problem?: string;
    /**
     * Set when the file was read but could not be verified: its environment is unknown here. The same text
     * for every journal of that environment, so a caller can say it once.
     */
    readonly unverified?: string;
    /** Set with `unverified` when the environment is known but refuses the options the journal records. */
    readonly optionsRefused?: boolean;
}
export interface VerifyOptions {
    readonly verify: boolean;
    readonly repair: boolean;
    /**
     * The environment of a journal, by the id, tokenizer id and options its episode.started records. An
     * EnvOptionsRefusedError (the journal's options are not those of the `--env` given) stops the check.
     */
    readonly envOf: (id: string, tokenizerId?: string, options?: Readonly<Record<string, string>>) => EnvDefinition;
    /** Told the journals found, before any is checked (a caller's progress takes its total from them). */
    readonly found?: (files: readonly string[]) => void;
}
export declare const checkFile: (file: string, options: VerifyOptions) => Promise<FileVerdict>;
/**
 * Verdicts on the journals at `path`: a journal, a folder of them (`record --out`), or a run folder
 * (`train --out`: episodes/u00012/, warm-start/demos/), found as `inspect` finds them. Several paths (a shell glob's
 * files) are one list: each is checked to exist and hold journals before any is read, a file named twice is read
 * once, and a copy of an episode is found across them as within a folder.
 */
export declare function checkPath(path: string | readonly string[], options: VerifyOptions): AsyncGenerator<FileVerdict>;

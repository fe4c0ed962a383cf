/*
 * A checkpoint is a folder:
 *
 *   manifest.json   format, policy version, tensor names/shapes/offsets/SHA-256, checksums of the other
 *                   files, the optimizer's step; its own digest (SHA-256 of its canonical JSON)
 *   weights.bin     every parameter as float32 little-endian, concatenated in manifest order
 *   optimizer.bin   AdamW's first moments in manifest order, then its second moments (when saved)
 *   config.json     the GptConfig
 *   tokenizer.json  the WordTokenizer's word list and id
 *
 * Saving is atomic: the files are written and fsynced in a temporary folder next to the target, manifest
 * last, and the folder is renamed into place. A kill at any moment leaves the previous folder (or none)
 * and a `NAME.tmp-*` folder that `removeUnfinishedSaves` clears; never a half-written checkpoint under its
 * name. Loading checks everything (presence, JSON shape, sizes, checksums, names and shapes) before it
 * fills a model: a damaged or incomplete checkpoint is refused with a CheckpointError naming the file and
 * the place (a field, a tensor, a byte position), never half-loaded. Format version 1 (no digest, no
 * optimizer state) is still read.
 */
import * as Schema from "effect/Schema";
import { WordTokenizer } from "../kernel/tokenizer.ts";
import { Gpt, type GptConfig } from "./gpt.ts";
/** What is wrong with a checkpoint (CheckpointError's `problem`). */
export type CheckpointProblem = "missing" | "parse" | "schema" | "truncated" | "checksum" | "mismatch";
declare const CheckpointError_base: new <A extends Record<string, any> = {}>(args: import("effect/Types").VoidIfEmpty<{ readonly [P in keyof A as P extends "_tag" ? never : P]: A[P]; }>) => import("effect/Cause").YieldableError & {
    readonly _tag: "CheckpointError";
} & Readonly<A>;
/** A checkpoint that cannot be loaded whole: the problem, the file, and where in it. */
export declare class CheckpointError extends CheckpointError_base<{
    readonly problem: CheckpointProblem;
    readonly file: string;
    readonly detail: string;
}> {
    get message(): string;
}
/** A safe folder name: no separator, not `.` or `..`. */
declare const LatestFile: Schema.Struct<{
    readonly version: Schema.Int;
    readonly dir: Schema.String;
}>;
export type LatestCheckpoint = typeof LatestFile.Type;
/**
 * What `agent-r1 sft` writes beside a clone's checkpoint files: the --env it cloned under (`{ "env":
 * "hopqa?split=test", "data": "/abs/demos" }`), which eval takes when --env is not given, as it takes a run's
 * from its config.json. Not in the manifest (its digest covers what it decodes), so a clone without one
 * loads as before.
 */
export declare const SFT_FILE = "sft.json";
/**
 * What `agent-r1 average` writes beside an average's checkpoint files when every checkpoint averaged was
 * made under one --env: `{ "env": ..., "checkpoints": [absolute folders] }`, read as a clone's sft.json is.
 */
export declare const AVERAGE_FILE = "average.json";
/**
 * What an sft stopped before its end (Ctrl-C, SIGTERM, a kill) leaves in its --out: its last saved point (a
 * checkpoint with the optimizer's state) and `progress.json` (where it stopped, its random streams, the
 * arguments it was started with), from which `sft ... --resume` continues. The finished clone replaces the
 * folder, this included, in one swap; while it is there the folder is no clone, and loading it is refused.
 */
export declare const SFT_PROGRESS = "sft-progress";
/** The file in SFT_PROGRESS naming the last saved point: written (atomically) after the point itself. */
export declare const SFT_PROGRESS_FILE = "progress.json";
/**
 * Why `folder` is no checkpoint when an sft writing it stopped before its end (it holds SFT_PROGRESS), with
 * where it stopped and the command that resumes it; undefined otherwise. Loading such a folder is refused
 * with this: its weights (when it still holds a clone an sft --replace began to write over) are not the clone
 * its sft is making. `otherwise`: what else to do, for a command that would write there (a folder of its own).
 */
export declare const unfinishedSft: (folder: string, otherwise?: string) => string | undefined;
/** Whether `folder` holds a finished clone (a checkpoint, and no sft stopped there since: see unfinishedSft). */
export declare const finishedClone: (folder: string) => boolean;
/**
 * Where a checkpoint outside a run came from, saved with it (in the same swap, so a checkpoint is never
 * without it): a clone's --env and data (SFT_FILE), or an average's --env and checkpoints (AVERAGE_FILE).
 */
export type CheckpointOrigin = {
    readonly by: "sft";
    readonly env: string;
    readonly data: string;
} | {
    readonly by: "average";
    readonly env: string;
    readonly checkpoints: readonly string[];
};
/** A manifest's digest: SHA-256 of the canonical JSON of every field but `digest`. */
export declare const manifestDigest: (manifest: object) => string;
/** Writes to a temporary name, fsyncs, renames: a reader never sees half a file. */
export declare const writeFileAtomically: (file: string, data: Uint8Array | string) => Promise<void>;
/** The optimizer's state: its update count and both moments of every parameter, by parameter name. */
export interface OptimizerState {
    readonly step: number;
    readonly moments: ReadonlyMap<string, {
        readonly m: Float32Array;
        readonly v: Float32Array;
    }>;
}
/** A loaded checkpoint: the model, its tokenizer and its policy version. */
export interface CheckpointContents {
    readonly model: Gpt;
    readonly tokenizer: WordTokenizer;
    /** Policy version of the weights. */
    readonly version: number;
    /** AdamW's state, when the checkpoint holds it (a training run's do; `sft`'s do not). */
    readonly optimizer?: OptimizerState;
    /**
     * Trained or cloned under the environment's legal actions (true), or trained freely (false), so decoded
     * that way by default; absent when not known (a free clone, which may be decoded either way, or a
     * checkpoint written before this was recorded).
     */
    readonly constrained?: boolean;
    /** Written beside the checkpoint files (SFT_FILE or AVERAGE_FILE), so eval without --env finds the env. */
    readonly origin?: CheckpointOrigin;
}
/**
 * Where a checkpoint may be saved: a new folder ("new") or a checkpoint to replace ("checkpoint"); a file,
 * or a folder holding anything else, is refused (UsageError). A command checks its --out with this before
 * its work, not after.
 */
export declare const checkpointTarget: (folder: string) => "new" | "checkpoint";
/**
 * Saves atomically: into `FOLDER.tmp-*`, then renamed to FOLDER. An existing checkpoint at FOLDER is
 * replaced; an existing folder that holds anything else is refused (UsageError), never deleted.
 */
export declare const saveCheckpoint: (folder: string, contents: CheckpointContents) => Promise<void>;
/**
 * The previous checkpoints a save that replaced `folder` moved aside (`FOLDER.old-PID-N`) and, killed between
 * its two renames or before removing them, left beside it; oldest name first. Never removed here: each holds a
 * checkpoint the user had.
 */
export declare const leftoversOfReplace: (folder: string) => string[];
/** One line on the leftovers of an interrupted --replace beside `folder`, or undefined if there are none. */
export declare const describeLeftoversOfReplace: (folder: string) => string | undefined;
/** `; found DIR.old-... left by an interrupted --replace ...` when a replace of `dir` was cut short. */
export declare const leftoverNote: (dir: string) => string;
/** Removes the leftovers of saves killed mid-way (`*.tmp-*`, `*.old-*` folders) in a folder of checkpoints. */
export declare const removeUnfinishedSaves: (folder: string) => Promise<string[]>;
/** The largest model a config may ask for (weights, gradients and two moments: 2 GiB of float32). */
export declare const MAX_PARAMETERS: number;
/**
 * Parameters any GPT of this config has at least (embeddings, attention and MLP matrices): checked against
 * the manifest before a model is built, so a config edited to be huge is refused, not allocated.
 */
export declare const minimumParameters: (c: GptConfig) => number;
/**
 * Loads and verifies a checkpoint folder; throws CheckpointError if anything is off. With `optimizer: false`
 * (evaluating, averaging, cloning from it) the optimizer state is neither read nor checked, and not returned.
 */
export declare const loadCheckpoint: (folder: string, options?: {
    readonly optimizer?: boolean;
}) => Promise<CheckpointContents>;
/** A checkpoint's model config (its config.json), without loading it: undefined when it cannot be read. */
export declare const savedModelConfig: (folder: string) => Record<string, unknown> | undefined;
/** The attention a checkpoint's model has (full when its config.json states none), or undefined when unreadable. */
export declare const savedAttention: (folder: string) => "full" | "turn-local" | undefined;
/** The tokenizer id a checkpoint's tokenizer.json states, without loading it: undefined when it cannot be read. */
export declare const savedTokenizerId: (folder: string) => string | undefined;
/**
 * What a checkpoint's manifest says of its decoding (`constrained`), without loading or verifying it; for a run
 * folder (no manifest of its own), its latest checkpoint's: undefined when it says nothing or cannot be read
 * (loading says what is wrong with it).
 */
export declare const savedConstrained: (folder: string) => boolean | undefined;
/**
 * Whether a checkpoint decodes under the legal actions when nobody says: only for an environment that declares
 * them, and only when the checkpoint (or its run's latest) was trained or cloned so. Train, sft and loadPolicy
 * decide their default by it.
 */
export declare const constrainedByDefault: (env: {
    readonly legalActions?: unknown;
}, folder: string) => boolean;
/** Reads `checkpoints/latest.json` of a run (undefined when there is none); a damaged one is a CheckpointError. */
export declare const readLatestCheckpoint: (checkpoints: string) => LatestCheckpoint | undefined;
/** Points `checkpoints/latest.json` at a checkpoint folder, atomically (written, fsynced, renamed). */
export declare const writeLatestCheckpoint: (checkpoints: string, latest: LatestCheckpoint) => Promise<void>;
export {};

/**
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
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { copyFile, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { endianness } from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import * as Data from "effect/Data";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { isLockFile, LOCK_FILE } from "../journal/lock.ts";
import { canonicalJson, readJsonText } from "../kernel/canonical.ts";
import { shellWord, UsageError, writingFileAsync } from "../kernel/errors.ts";
import { makeFolders } from "../kernel/folders.ts";
import { oneLine } from "../kernel/terminal.ts";
import { WordTokenizer } from "../kernel/tokenizer.ts";
import { isRunFolder } from "../observe/journals.ts";
import { Gpt, type GptConfig, gptConfig } from "./gpt.ts";

const CHECKPOINT_FORMAT = "agent-r1/gpt-checkpoint" as const;
const CHECKPOINT_FORMAT_VERSION = 2 as const;

/** What is wrong with a checkpoint (CheckpointError's `problem`). */
export type CheckpointProblem =
  | "missing" // a file is absent or unreadable (a save that never finished has no manifest.json)
  | "parse" // a JSON file is not JSON
  | "schema" // JSON of the wrong shape (a wrong type, a missing or unknown field, another format version)
  | "truncated" // weights.bin or optimizer.bin has the wrong size
  | "checksum" // a file's or a tensor's SHA-256 differs from the manifest's, or the manifest's own digest
  | "mismatch"; // the tensors do not fit the config, the tokenizer id does not match its words...

/** A binary file of the wrong size: shorter is a cut write; longer is not (something was added to it). */
const sizeDetail = (bytes: number, expected: number): string =>
  `${bytes} bytes, the manifest says ${expected}` +
  (bytes > expected ? ` (${bytes - expected} bytes too many: not a cut write, something was added to the file)` : "");

/** A checkpoint that cannot be loaded whole: the problem, the file, and where in it. */
export class CheckpointError extends Data.TaggedError("CheckpointError")<{
  readonly problem: CheckpointProblem;
  readonly file: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `checkpoint ${this.file}: ${this.problem}: ${this.detail}`;
  }
}

const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0));
const Sha256 = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/));

const ManifestV1 = Schema.Struct({
  format: Schema.Literal(CHECKPOINT_FORMAT),
  formatVersion: Schema.Literal(1),
  version: NonNegativeInt,
  tensors: Schema.Array(
    Schema.Struct({ name: Schema.String, shape: Schema.Array(NonNegativeInt), offset: NonNegativeInt }),
  ),
  files: Schema.Struct({
    weights: Schema.Struct({ bytes: NonNegativeInt, sha256: Sha256 }),
    config: Schema.Struct({ sha256: Sha256 }),
    tokenizer: Schema.Struct({ sha256: Sha256 }),
  }),
});

const Manifest = Schema.Struct({
  format: Schema.Literal(CHECKPOINT_FORMAT),
  formatVersion: Schema.Literal(CHECKPOINT_FORMAT_VERSION),
  /** The policy version these weights are. */
  version: NonNegativeInt,
  /** Offsets count float32 values; every tensor has its own checksum, so damage names its tensor. */
  tensors: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      shape: Schema.Array(NonNegativeInt),
      offset: NonNegativeInt,
      sha256: Sha256,
    }),
  ),
  files: Schema.Struct({
    weights: Schema.Struct({ bytes: NonNegativeInt }),
    config: Schema.Struct({ sha256: Sha256 }),
    tokenizer: Schema.Struct({ sha256: Sha256 }),
  }),
  /** AdamW's update count t and optimizer.bin, or null (saved without optimizer state). */
  optimizer: Schema.NullOr(
    Schema.Struct({ kind: Schema.Literal("adamw"), step: NonNegativeInt, bytes: NonNegativeInt, sha256: Sha256 }),
  ),
  /**
   * Whether the weights were trained or cloned under the environment's legal actions (`--constrained`), so
   * they should be decoded under them too; absent when unknown (a free clone, or a checkpoint written
   * before it was recorded).
   */
  constrained: Schema.optionalKey(Schema.Boolean),
  /** SHA-256 of the canonical JSON of every other field. */
  digest: Sha256,
});
type Manifest = typeof Manifest.Type;

const ConfigFile = Schema.Struct({
  vocabSize: Schema.Int,
  contextLength: Schema.Int,
  layers: Schema.Int,
  heads: Schema.Int,
  width: Schema.Int,
  mlpRatio: Schema.Int,
  activation: Schema.Literals(["relu", "gelu"]),
  tiedEmbeddings: Schema.Boolean,
  initStd: Schema.Finite,
  layerNormEps: Schema.Finite,
  /** Absent in checkpoints written before the copy head existed: off. */
  copy: Schema.optionalKey(Schema.Boolean),
  /** Absent in checkpoints written before ALiBi existed: learned. */
  positions: Schema.optionalKey(Schema.Literals(["learned", "alibi"])),
  /** Absent in checkpoints written before turn-local attention existed, and in any with full attention: full. */
  attention: Schema.optionalKey(Schema.Literals(["full", "turn-local"])),
  /** With turn-local attention: the ids that start a turn. */
  turnStarts: Schema.optionalKey(Schema.Array(Schema.Int)),
});

const TokenizerFile = Schema.Struct({
  kind: Schema.Literal("words"),
  id: Schema.String,
  words: Schema.Array(Schema.String),
  /** Absent in checkpoints written before the implicit-space mode: explicit. */
  spaces: Schema.optional(Schema.Literals(["explicit", "implicit"])),
});

/** A safe folder name: no separator, not `.` or `..`. */
const LatestFile = Schema.Struct({
  version: NonNegativeInt,
  dir: Schema.String.check(Schema.isPattern(/^(?!\.\.?$)[A-Za-z0-9._-]+$/)),
});
export type LatestCheckpoint = typeof LatestFile.Type;

const FILES = {
  manifest: "manifest.json",
  weights: "weights.bin",
  optimizer: "optimizer.bin",
  config: "config.json",
  tokenizer: "tokenizer.json",
} as const;
/**
 * What `agent-r1 sft` writes beside a clone's checkpoint files: the --env it cloned under (`{ "env":
 * "hopqa?split=test", "data": "/abs/demos" }`), which eval takes when --env is not given, as it takes a run's
 * from its config.json. Not in the manifest (its digest covers what it decodes), so a clone without one
 * loads as before.
 */
export const SFT_FILE = "sft.json";
/**
 * What `agent-r1 average` writes beside an average's checkpoint files when every checkpoint averaged was
 * made under one --env: `{ "env": ..., "checkpoints": [absolute folders] }`, read as a clone's sft.json is.
 */
export const AVERAGE_FILE = "average.json";
/**
 * What an sft stopped before its end (Ctrl-C, SIGTERM, a kill) leaves in its --out: its last saved point (a
 * checkpoint with the optimizer's state) and `progress.json` (where it stopped, its random streams, the
 * arguments it was started with), from which `sft ... --resume` continues. The finished clone replaces the
 * folder, this included, in one swap; while it is there the folder is no clone, and loading it is refused.
 */
export const SFT_PROGRESS = "sft-progress";
/** The file in SFT_PROGRESS naming the last saved point: written (atomically) after the point itself. */
export const SFT_PROGRESS_FILE = "progress.json";
const KNOWN_FILES = new Set<string>([...Object.values(FILES), SFT_FILE, AVERAGE_FILE, SFT_PROGRESS]);

/**
 * Why `folder` is no checkpoint when an sft writing it stopped before its end (it holds SFT_PROGRESS), with
 * where it stopped and the command that resumes it; undefined otherwise. Loading such a folder is refused
 * with this: its weights (when it still holds a clone an sft --replace began to write over) are not the clone
 * its sft is making. `otherwise`: what else to do, for a command that would write there (a folder of its own).
 */
export const unfinishedSft = (folder: string, otherwise = "give another checkpoint"): string | undefined => {
  const progress = path.join(folder, SFT_PROGRESS);
  if (!existsSync(progress)) return undefined;
  let saved: { epoch?: unknown; epochs?: unknown; command?: unknown } = {};
  try {
    const text = readFileSync(path.join(progress, SFT_PROGRESS_FILE), "utf8");
    const parsed = JSON.parse(text) as { epoch?: unknown; arguments?: { epochs?: unknown }; command?: unknown };
    saved = { epoch: parsed.epoch, epochs: parsed.arguments?.epochs, command: parsed.command };
  } catch {
    // Stopped before its first saved point, or a damaged file: said without the epoch.
  }
  const where =
    typeof saved.epoch === "number" && typeof saved.epochs === "number"
      ? ` (${saved.epoch} of ${saved.epochs} epoch${saved.epochs === 1 ? "" : "s"} done)`
      : "";
  const resume =
    typeof saved.command === "string" ? `\`${saved.command}\`` : "the same `agent-r1 sft` command with --resume";
  // An sft --replace stopped before its end: the clone the folder held before is still there, beside the progress.
  const before = existsSync(path.join(folder, FILES.manifest))
    ? ` (the clone it held before that sft --replace is still there: remove ${path.join(folder, SFT_PROGRESS)} to use it)`
    : "";
  return `${folder} is an unfinished sft clone${where}, not a checkpoint: its sft was stopped before its end and left its progress in ${path.join(folder, SFT_PROGRESS)}; finish it with ${resume}, or ${otherwise}${before}`;
};

/** Whether `folder` holds a finished clone (a checkpoint, and no sft stopped there since: see unfinishedSft). */
export const finishedClone = (folder: string): boolean =>
  existsSync(path.join(folder, FILES.manifest)) && !existsSync(path.join(folder, SFT_PROGRESS));

/**
 * Where a checkpoint outside a run came from, saved with it (in the same swap, so a checkpoint is never
 * without it): a clone's --env and data (SFT_FILE), or an average's --env and checkpoints (AVERAGE_FILE).
 */
export type CheckpointOrigin =
  | { readonly by: "sft"; readonly env: string; readonly data: string }
  | { readonly by: "average"; readonly env: string; readonly checkpoints: readonly string[] };

const sha256 = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** A manifest's digest: SHA-256 of the canonical JSON of every field but `digest`. */
export const manifestDigest = (manifest: object): string => {
  const { digest: _digest, ...rest } = manifest as { digest?: unknown };
  return sha256(canonicalJson(rest));
};

const littleEndian = endianness() === "LE";

/** float32 little-endian bytes of `values`, whatever this machine's byte order. */
const toLittleEndian = (values: Float32Array): Uint8Array => {
  if (littleEndian) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  const out = new DataView(new ArrayBuffer(values.byteLength));
  values.forEach((v, i) => {
    out.setFloat32(i * 4, v, true);
  });
  return new Uint8Array(out.buffer);
};

const fromLittleEndian = (bytes: Uint8Array, offset: number, count: number): Float32Array => {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset * 4, count * 4);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
};

/** Writes a new file and fsyncs it. */
const writeSynced = async (file: string, data: Uint8Array | string): Promise<void> => {
  const handle = await open(file, "wx");
  try {
    await writingFileAsync(file, async () => {
      await handle.writeFile(data);
      await handle.sync();
    });
  } finally {
    await handle.close();
  }
};

/** fsyncs a folder, so the names in it survive a machine crash (where the file system allows it). */
const syncFolder = async (folder: string): Promise<void> => {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a folder; the rename is still atomic for a process kill.
  } finally {
    await handle.close();
  }
};

/** Writes to a temporary name, fsyncs, renames: a reader never sees half a file. */
export const writeFileAtomically = async (file: string, data: Uint8Array | string): Promise<void> => {
  const temporary = `${file}.tmp-${process.pid}`;
  await rm(temporary, { force: true });
  await writeSynced(temporary, data);
  await rename(temporary, file);
  await syncFolder(path.dirname(file));
};

/** The optimizer's state: its update count and both moments of every parameter, by parameter name. */
export interface OptimizerState {
  readonly step: number;
  readonly moments: ReadonlyMap<string, { readonly m: Float32Array; readonly v: Float32Array }>;
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

let saves = 0;

/**
 * Where a checkpoint may be saved: a new folder ("new") or a checkpoint to replace ("checkpoint"); a file,
 * or a folder holding anything else, is refused (UsageError). A command checks its --out with this before
 * its work, not after.
 */
export const checkpointTarget = (folder: string): "new" | "checkpoint" => {
  // "" resolves to the working folder, which existsSync("") denies: a save there replaced the working folder.
  if (folder.trim() === "")
    throw new UsageError({ detail: `a checkpoint folder must be named, got ${JSON.stringify(folder)}` });
  if (!existsSync(folder)) return "new";
  const names = statSync(folder).isDirectory() ? readdirSync(folder) : undefined;
  const foreign = names?.find((name) => !KNOWN_FILES.has(name) && !isLockFile(name));
  // A train run's folder holds checkpoints under checkpoints/: said so, not as a folder that "holds checkpoints".
  if (
    names &&
    foreign !== undefined &&
    (isRunFolder(folder) || existsSync(path.join(folder, "checkpoints", "latest.json")))
  )
    throw new UsageError({
      detail: `${folder} is a train run's folder, not a checkpoint folder (its checkpoints are in ${path.join(folder, "checkpoints")}); choose another folder`,
    });
  if (!names || foreign !== undefined)
    throw new UsageError({
      detail: `${folder} exists and is not a checkpoint folder (${names ? `it holds ${foreign}` : "a file"}); choose another folder`,
    });
  // The lock of the sft or average writing there (src/journal/lock.ts), and its claims and temp files, are no checkpoint.
  return names.some((name) => !isLockFile(name)) ? "checkpoint" : "new";
};

/**
 * Saves atomically: into `FOLDER.tmp-*`, then renamed to FOLDER. An existing checkpoint at FOLDER is
 * replaced; an existing folder that holds anything else is refused (UsageError), never deleted.
 */
export const saveCheckpoint = async (folder: string, contents: CheckpointContents): Promise<void> => {
  const { model, tokenizer, version, optimizer, constrained, origin } = contents;
  if (!Number.isInteger(version) || version < 0) throw new RangeError(`policy version must be >= 0, got ${version}`);
  // Refused here, not only when loaded: a checkpoint whose tokenizer the model cannot embed would be saved whole
  // and then never load.
  if (tokenizer.size > model.config.vocabSize)
    throw new RangeError(
      `the tokenizer's ${tokenizer.size} token ids do not fit the model's vocabSize ${model.config.vocabSize}: nothing was saved (build the model with vocabSize: tokenizer.size)`,
    );
  const target = path.resolve(folder);
  checkpointTarget(folder);
  const tensors: Manifest["tensors"][number][] = [];
  const parts: Float32Array[] = [];
  let offset = 0;
  for (const [name, variable] of model.parameters) {
    const values = (await variable.data()) as Float32Array;
    tensors.push({ name, shape: [...variable.shape], offset, sha256: sha256(toLittleEndian(values)) });
    parts.push(values);
    offset += values.length;
  }
  const all = new Float32Array(offset);
  parts.forEach((part, i) => {
    all.set(part, tensors[i].offset);
  });
  const weights = toLittleEndian(all);
  let moments: Uint8Array | undefined;
  if (optimizer) {
    if (!Number.isInteger(optimizer.step) || optimizer.step < 0)
      throw new RangeError(`optimizer step must be >= 0, got ${optimizer.step}`);
    const values = new Float32Array(offset * 2);
    for (const { name, shape, offset: at } of tensors) {
      const size = shape.reduce((a, b) => a * b, 1);
      const saved = optimizer.moments.get(name);
      if (!saved || saved.m.length !== size || saved.v.length !== size)
        throw new RangeError(`optimizer state has no moments of ${size} values for parameter ${name}`);
      values.set(saved.m, at);
      values.set(saved.v, offset + at);
    }
    if (optimizer.moments.size !== tensors.length)
      throw new RangeError("optimizer state has moments of non-parameters");
    moments = toLittleEndian(values);
  }
  // `copy`, `positions` and `attention` are written only when not the default, so a checkpoint without them
  // reads as it did before they existed.
  const { copy, positions, attention, turnStarts, ...rest } = model.config;
  const config = JSON.stringify(
    {
      ...rest,
      ...(copy ? { copy } : {}),
      ...(positions === "alibi" ? { positions } : {}),
      ...(attention === "turn-local" ? { attention, turnStarts } : {}),
    },
    null,
    2,
  );
  const tokenizerJson = JSON.stringify({
    kind: "words",
    id: tokenizer.id,
    words: tokenizer.words,
    ...(tokenizer.spaces === "implicit" ? { spaces: "implicit" } : {}),
  });
  const body: Omit<Manifest, "digest"> = {
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    version,
    tensors,
    files: {
      weights: { bytes: weights.byteLength },
      config: { sha256: sha256(config) },
      tokenizer: { sha256: sha256(tokenizerJson) },
    },
    optimizer:
      optimizer && moments
        ? { kind: "adamw", step: optimizer.step, bytes: moments.byteLength, sha256: sha256(moments) }
        : null,
    ...(constrained === undefined ? {} : { constrained }),
  };
  const manifest: Manifest = { ...body, digest: manifestDigest(body) };

  makeFolders(path.dirname(target));
  saves += 1;
  const temporary = `${target}.tmp-${process.pid}-${saves}`;
  await rm(temporary, { recursive: true, force: true });
  await mkdir(temporary);
  try {
    await writeSynced(path.join(temporary, FILES.weights), weights);
    if (moments) await writeSynced(path.join(temporary, FILES.optimizer), moments);
    await writeSynced(path.join(temporary, FILES.config), config);
    await writeSynced(path.join(temporary, FILES.tokenizer), tokenizerJson);
    await writeSynced(path.join(temporary, FILES.manifest), JSON.stringify(manifest, null, 2));
    if (origin) {
      const { by, ...record } = origin;
      await writeSynced(
        path.join(temporary, by === "sft" ? SFT_FILE : AVERAGE_FILE),
        `${JSON.stringify(record, null, 2)}\n`,
      );
    }
    // The lock of the process writing the folder (sft, average: src/journal/lock.ts) goes with it, so that the
    // folder stays locked through the swap.
    if (existsSync(path.join(target, LOCK_FILE)))
      await copyFile(path.join(target, LOCK_FILE), path.join(temporary, LOCK_FILE)).catch(() => undefined);
    await syncFolder(temporary);
  } catch (cause) {
    // A save that failed (a full disk, an I/O error) takes its half-written folder with it: nothing else would
    // remove it beside an sft or average --out, and on a full disk it holds the space the next try needs.
    await rm(temporary, { recursive: true, force: true }).catch(() => undefined);
    throw cause;
  }
  if (existsSync(target)) {
    // rename() cannot replace a folder that has files: move the old one aside first. A kill between the
    // two renames leaves no folder under the name (a `missing` manifest when loading), never a mixed one.
    const old = `${target}.old-${process.pid}-${saves}`;
    await rename(target, old);
    await rename(temporary, target);
    await rm(old, { recursive: true, force: true });
  } else await rename(temporary, target);
  await syncFolder(path.dirname(target));
};

/**
 * The previous checkpoints a save that replaced `folder` moved aside (`FOLDER.old-PID-N`) and, killed between
 * its two renames or before removing them, left beside it; oldest name first. Never removed here: each holds a
 * checkpoint the user had.
 */
export const leftoversOfReplace = (folder: string): string[] => {
  const parent = path.dirname(folder);
  const prefix = `${path.basename(path.resolve(folder))}.old-`;
  // A parent that is a file (`--out afile/clone`) holds no leftovers: the check of --out says what is wrong.
  if (!existsSync(parent) || !statSync(parent).isDirectory()) return [];
  return readdirSync(parent)
    .filter((name) => name.startsWith(prefix) && /^\d+-\d+$/.test(name.slice(prefix.length)))
    .sort()
    .map((name) => path.join(parent, name));
};

/** One line on the leftovers of an interrupted --replace beside `folder`, or undefined if there are none. */
export const describeLeftoversOfReplace = (folder: string): string | undefined => {
  const found = leftoversOfReplace(folder);
  if (found.length === 0) return undefined;
  const missing = !existsSync(folder);
  return (
    `found ${found.join(", ")} left by an interrupted --replace of ${folder}: ${found.length > 1 ? "they hold" : "it holds"} the checkpoint ${folder} held before` +
    (missing
      ? ` (${folder} itself is missing): move it back with \`mv ${shellWord(found.at(-1) as string)} ${shellWord(folder)}\`, or delete it`
      : `; ${folder} holds the new one: delete ${found.length > 1 ? "them" : "it"} once not needed, or move ${found.length > 1 ? "one" : "it"} back over ${folder}`)
  );
};

/** `; found DIR.old-... left by an interrupted --replace ...` when a replace of `dir` was cut short. */
export const leftoverNote = (dir: string): string => {
  const found = describeLeftoversOfReplace(dir);
  return found ? `; ${found}` : "";
};

/** Removes the leftovers of saves killed mid-way (`*.tmp-*`, `*.old-*` folders) in a folder of checkpoints. */
export const removeUnfinishedSaves = async (folder: string): Promise<string[]> => {
  if (!existsSync(folder)) return [];
  const removed: string[] = [];
  for (const name of await readdir(folder)) {
    if (!/\.(tmp|old)-\d+(-\d+)?$/.test(name)) continue;
    await rm(path.join(folder, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
};

/**
 * Why a folder without a manifest is no checkpoint, naming the checkpoint it leads to when it is a train run's
 * folder or its checkpoints/ (loadCheckpoint takes one checkpoint; loadPolicy and the CLI take a run's latest).
 */
const notACheckpoint = (folder: string): string => {
  for (const checkpoints of [path.join(folder, "checkpoints"), folder]) {
    let latest: LatestCheckpoint | undefined;
    try {
      latest = readLatestCheckpoint(checkpoints);
    } catch {
      continue;
    }
    if (latest)
      return `this folder holds a train run's checkpoints, not one checkpoint: its latest is ${path.join(checkpoints, latest.dir)} (load that, or a run with loadPolicy, which takes its latest)`;
  }
  return "this folder is not a checkpoint, or one whose save never finished";
};

const readBytes = async (file: string): Promise<Uint8Array> => {
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    throw new CheckpointError({
      problem: "missing",
      file,
      detail:
        missing && path.basename(file) === FILES.manifest
          ? `the file is not there: ${notACheckpoint(path.dirname(file))}`
          : (error as Error).message,
    });
  }
};

const parseJson = (bytes: Uint8Array, file: string): unknown => {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new CheckpointError({
      problem: "parse",
      file,
      detail: `not valid JSON (${oneLine((error as Error).message)})`,
    });
  }
};

/** Decodes JSON against a schema, refusing unknown fields; the error names the field. */
const decode = <S extends Schema.Top>(schema: S, json: unknown, file: string): S["Type"] => {
  const decoded = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<unknown, unknown>, {
    onExcessProperty: "error",
  })(json);
  if (Result.isFailure(decoded))
    throw new CheckpointError({ problem: "schema", file, detail: oneLine(String(decoded.failure.message)) });
  return decoded.success as S["Type"];
};

const checkSum = (bytes: Uint8Array, expected: string, file: string, what = "the file"): void => {
  const actual = sha256(bytes);
  if (actual !== expected)
    throw new CheckpointError({
      problem: "checksum",
      file,
      detail: `SHA-256 of ${what} is ${actual}, the manifest says ${expected}${respelledBy(bytes, expected)}`,
    });
};

/**
 * What changed a text file whose checksum fails, when undoing it gives the checksum back: line endings made
 * CRLF (a git checkout with core.autocrlf on Windows, an editor) or a byte order mark put first. The file
 * still counts as damaged (checksums are over bytes), but the message says how to mend it.
 */
const respelledBy = (bytes: Uint8Array, expected: string): string => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const bom = text.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]));
  const crlf = text.includes("\r\n");
  if (!bom && !crlf) return "";
  let undone = bom ? text.subarray(3) : text;
  if (crlf) undone = Buffer.from(undone.toString("latin1").replace(/\r\n/g, "\n"), "latin1");
  if (sha256(undone) !== expected) return "";
  if (!crlf)
    return ": a byte order mark was put first (an editor); remove those 3 bytes (`sed -i '1s/^\\xEF\\xBB\\xBF//' FILE`) and it matches";
  return `: its line endings were made CRLF${bom ? " and a byte order mark put first" : ""} (a git checkout with core.autocrlf, as on Windows; an editor); undo that (\`sed -i '1s/^\\xEF\\xBB\\xBF//; s/\\r$//' FILE\`) and it matches; in git, keep checkpoints as bytes (\`**/checkpoints/** -text\` in .gitattributes, at any depth)`;
};

/** The manifest of either format version, as one shape. */
interface Layout {
  readonly version: number;
  readonly tensors: readonly {
    name: string;
    shape: readonly number[];
    offset: number;
    size: number;
    sha256?: string;
  }[];
  readonly weightsBytes: number;
  readonly weightsSha256?: string;
  readonly configSha256: string;
  readonly tokenizerSha256: string;
  readonly optimizer: Manifest["optimizer"];
  readonly constrained?: boolean;
}

const readManifest = async (file: string): Promise<Layout> => {
  const json = parseJson(await readBytes(file), file);
  const formatVersion = (json as { formatVersion?: unknown } | null)?.formatVersion;
  if (formatVersion === 1) {
    let v1: typeof ManifestV1.Type;
    try {
      v1 = decode(ManifestV1, json, file);
    } catch (error) {
      // A later manifest whose formatVersion was edited to 1 fails as a version-1 one: say which field led there.
      if (!(error instanceof CheckpointError)) throw error;
      throw new CheckpointError({
        problem: "schema",
        file,
        detail: `formatVersion is 1, so it was read as a version-1 manifest: ${error.detail}`,
      });
    }
    return {
      version: v1.version,
      tensors: v1.tensors.map((t) => ({ ...t, size: sizeOf(t.shape, t.name, file) })),
      weightsBytes: v1.files.weights.bytes,
      weightsSha256: v1.files.weights.sha256,
      configSha256: v1.files.config.sha256,
      tokenizerSha256: v1.files.tokenizer.sha256,
      optimizer: null,
    };
  }
  const manifest = decode(Manifest, json, file);
  const actual = manifestDigest(manifest);
  if (actual !== manifest.digest)
    throw new CheckpointError({
      problem: "checksum",
      file,
      detail: `the manifest's content hashes to ${actual}, its digest says ${manifest.digest} (edited or damaged)`,
    });
  return {
    version: manifest.version,
    tensors: manifest.tensors.map((t) => ({ ...t, size: sizeOf(t.shape, t.name, file) })),
    weightsBytes: manifest.files.weights.bytes,
    configSha256: manifest.files.config.sha256,
    tokenizerSha256: manifest.files.tokenizer.sha256,
    optimizer: manifest.optimizer,
    ...(manifest.constrained === undefined ? {} : { constrained: manifest.constrained }),
  };
};

const MAX_TENSOR_VALUES = 2 ** 30;
/** The largest model a config may ask for (weights, gradients and two moments: 2 GiB of float32). */
export const MAX_PARAMETERS = 2 ** 27;

const sizeOf = (shape: readonly number[], name: string, file: string): number => {
  const size = shape.reduce((a, b) => a * b, 1);
  if (size > MAX_TENSOR_VALUES)
    throw new CheckpointError({ problem: "mismatch", file, detail: `tensor ${name} has ${size} values, too many` });
  return size;
};

/** The tensors tile weights.bin: names unique, each starting where the previous ended, covering every byte. */
const checkTiling = (layout: Layout, file: string): void => {
  const fail = (detail: string) => new CheckpointError({ problem: "mismatch", file, detail });
  const names = new Set<string>();
  let expected = 0;
  for (const { name, offset, size } of layout.tensors) {
    if (names.has(name)) throw fail(`tensor ${name} appears twice`);
    names.add(name);
    if (offset !== expected) throw fail(`tensor ${name} starts at ${offset}, expected ${expected}`);
    expected += size;
  }
  if (expected * 4 !== layout.weightsBytes)
    throw fail(`tensors hold ${expected * 4} bytes, files.weights.bytes says ${layout.weightsBytes}`);
  if (layout.optimizer && layout.optimizer.bytes !== 2 * layout.weightsBytes)
    throw fail(
      `optimizer.bytes is ${layout.optimizer.bytes}, two moments of every weight take ${2 * layout.weightsBytes}`,
    );
};

/**
 * Parameters any GPT of this config has at least (embeddings, attention and MLP matrices): checked against
 * the manifest before a model is built, so a config edited to be huge is refused, not allocated.
 */
export const minimumParameters = (c: GptConfig): number =>
  (c.vocabSize + (c.positions === "alibi" ? 0 : c.contextLength)) * c.width +
  c.layers * (4 + 2 * c.mlpRatio) * c.width * c.width;

/**
 * Loads and verifies a checkpoint folder; throws CheckpointError if anything is off. With `optimizer: false`
 * (evaluating, averaging, cloning from it) the optimizer state is neither read nor checked, and not returned.
 */
export const loadCheckpoint = async (
  folder: string,
  options: { readonly optimizer?: boolean } = {},
): Promise<CheckpointContents> => {
  const at = (name: string) => path.join(folder, name);
  const unfinished = unfinishedSft(folder);
  if (unfinished) throw new UsageError({ detail: unfinished });
  const layout = await readManifest(at(FILES.manifest));
  checkTiling(layout, at(FILES.manifest));

  const configBytes = await readBytes(at(FILES.config));
  let config: GptConfig;
  try {
    config = gptConfig(decode(ConfigFile, parseJson(configBytes, at(FILES.config)), at(FILES.config)));
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError({ problem: "schema", file: at(FILES.config), detail: (error as Error).message });
  }
  checkSum(configBytes, layout.configSha256, at(FILES.config));
  const tokenizerBytes = await readBytes(at(FILES.tokenizer));
  const tokenizerFile = decode(TokenizerFile, parseJson(tokenizerBytes, at(FILES.tokenizer)), at(FILES.tokenizer));
  checkSum(tokenizerBytes, layout.tokenizerSha256, at(FILES.tokenizer));

  const weights = await readBytes(at(FILES.weights));
  if (weights.byteLength !== layout.weightsBytes)
    throw new CheckpointError({
      problem: "truncated",
      file: at(FILES.weights),
      detail: sizeDetail(weights.byteLength, layout.weightsBytes),
    });
  if (layout.weightsSha256) checkSum(weights, layout.weightsSha256, at(FILES.weights));
  for (const { name, offset, size, sha256: expected } of layout.tensors)
    if (expected)
      checkSum(
        weights.subarray(offset * 4, (offset + size) * 4),
        expected,
        at(FILES.weights),
        `tensor ${name} (bytes ${offset * 4} to ${(offset + size) * 4})`,
      );
  let moments: Uint8Array | undefined;
  if (layout.optimizer && options.optimizer !== false) {
    moments = await readBytes(at(FILES.optimizer));
    if (moments.byteLength !== layout.optimizer.bytes)
      throw new CheckpointError({
        problem: "truncated",
        file: at(FILES.optimizer),
        detail: sizeDetail(moments.byteLength, layout.optimizer.bytes),
      });
    checkSum(moments, layout.optimizer.sha256, at(FILES.optimizer));
  }

  const tokenizer = new WordTokenizer(tokenizerFile.words, { spaces: tokenizerFile.spaces ?? "explicit" });
  if (tokenizer.id !== tokenizerFile.id)
    throw new CheckpointError({
      problem: "mismatch",
      file: at(FILES.tokenizer),
      detail: `the words give tokenizer id ${tokenizer.id}, the file says ${tokenizerFile.id}`,
    });
  if (tokenizer.size > config.vocabSize)
    throw new CheckpointError({
      problem: "mismatch",
      file: at(FILES.tokenizer),
      detail: `${tokenizer.size} token ids do not fit vocabSize ${config.vocabSize}`,
    });
  const values = layout.weightsBytes / 4;
  if (minimumParameters(config) > values)
    throw new CheckpointError({
      problem: "mismatch",
      file: at(FILES.config),
      detail: `this config needs at least ${minimumParameters(config)} parameters, weights.bin holds ${values}`,
    });

  const model = new Gpt(config, "checkpoint");
  try {
    checkTensors(model, layout, at(FILES.manifest));
    tf.tidy(() => {
      for (const { name, shape, offset, size } of layout.tensors)
        model.parameters.get(name)!.assign(tf.tensor(fromLittleEndian(weights, offset, size), [...shape]));
    });
  } catch (error) {
    model.dispose();
    throw error;
  }
  const optimizer =
    layout.optimizer && moments
      ? {
          step: layout.optimizer.step,
          moments: new Map(
            layout.tensors.map(({ name, offset, size }) => [
              name,
              { m: fromLittleEndian(moments, offset, size), v: fromLittleEndian(moments, values + offset, size) },
            ]),
          ),
        }
      : undefined;
  return {
    model,
    tokenizer,
    version: layout.version,
    ...(optimizer ? { optimizer } : {}),
    ...(layout.constrained === undefined ? {} : { constrained: layout.constrained }),
  };
};

/** A checkpoint's model config (its config.json), without loading it: undefined when it cannot be read. */
export const savedModelConfig = (folder: string): Record<string, unknown> | undefined => {
  try {
    const config: unknown = JSON.parse(readJsonText(path.join(folder, FILES.config)));
    return typeof config === "object" && config !== null ? (config as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The attention a checkpoint's model has (full when its config.json states none), or undefined when unreadable. */
export const savedAttention = (folder: string): "full" | "turn-local" | undefined => {
  const config = savedModelConfig(folder);
  return config === undefined ? undefined : config.attention === "turn-local" ? "turn-local" : "full";
};

/** The tokenizer id a checkpoint's tokenizer.json states, without loading it: undefined when it cannot be read. */
export const savedTokenizerId = (folder: string): string | undefined => {
  try {
    const id = (JSON.parse(readJsonText(path.join(folder, FILES.tokenizer))) as { id?: unknown }).id;
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
};

/**
 * What a checkpoint's manifest says of its decoding (`constrained`), without loading or verifying it; for a run
 * folder (no manifest of its own), its latest checkpoint's: undefined when it says nothing or cannot be read
 * (loading says what is wrong with it).
 */
export const savedConstrained = (folder: string): boolean | undefined => {
  try {
    const manifest = JSON.parse(readJsonText(path.join(folder, FILES.manifest))) as { constrained?: unknown };
    return typeof manifest.constrained === "boolean" ? manifest.constrained : undefined;
  } catch {
    try {
      const latest = readLatestCheckpoint(path.join(folder, "checkpoints"));
      return latest && savedConstrained(path.join(folder, "checkpoints", latest.dir));
    } catch {
      return undefined;
    }
  }
};

/**
 * Whether a checkpoint decodes under the legal actions when nobody says: only for an environment that declares
 * them, and only when the checkpoint (or its run's latest) was trained or cloned so. Train, sft and loadPolicy
 * decide their default by it.
 */
export const constrainedByDefault = (env: { readonly legalActions?: unknown }, folder: string): boolean =>
  env.legalActions !== undefined && savedConstrained(folder) === true;

/** The manifest's tensors are exactly the model's parameters, with their shapes. */
const checkTensors = (model: Gpt, layout: Layout, file: string): void => {
  const fail = (detail: string) => new CheckpointError({ problem: "mismatch", file, detail });
  const names = new Set(layout.tensors.map((t) => t.name));
  for (const name of model.parameters.keys()) if (!names.has(name)) throw fail(`tensor ${name} is missing`);
  for (const { name, shape } of layout.tensors) {
    const variable = model.parameters.get(name);
    if (!variable) throw fail(`tensor ${name} is not a parameter of this model`);
    if (!tf.util.arraysEqual([...shape], variable.shape))
      throw fail(`tensor ${name} has shape [${shape}], the config gives [${variable.shape}]`);
  }
};

// ---------------------------------------------------------------------------------------------------------
// latest.json: which checkpoint of a run folder is the newest
// ---------------------------------------------------------------------------------------------------------

/** Reads `checkpoints/latest.json` of a run (undefined when there is none); a damaged one is a CheckpointError. */
export const readLatestCheckpoint = (checkpoints: string): LatestCheckpoint | undefined => {
  const file = path.join(checkpoints, "latest.json");
  if (!existsSync(file)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new CheckpointError({ problem: "missing", file, detail: (error as Error).message });
  }
  const latest = decode(LatestFile, parseJson(bytes, file), file);
  // A latest.json that names a folder no longer there: say so here, not as a manifest missing further on.
  if (!existsSync(path.join(checkpoints, latest.dir))) {
    const present = existsSync(checkpoints)
      ? readdirSync(checkpoints).filter((name) => existsSync(path.join(checkpoints, name, "manifest.json")))
      : [];
    throw new CheckpointError({
      problem: "missing",
      file,
      detail: `names checkpoint ${latest.dir}, which is not in ${checkpoints}${present.length ? `; the checkpoints there: ${present.sort().slice(-4).join(", ")} (point latest.json at one: {"dir": "${present.sort().at(-1)}", "version": N})` : ""}`,
    });
  }
  return latest;
};

/** Points `checkpoints/latest.json` at a checkpoint folder, atomically (written, fsynced, renamed). */
export const writeLatestCheckpoint = (checkpoints: string, latest: LatestCheckpoint): Promise<void> =>
  writeFileAtomically(path.join(checkpoints, "latest.json"), `${JSON.stringify(latest, null, 2)}\n`);

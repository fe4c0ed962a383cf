/**
 * A checkpoint is a folder:
 *
 *   manifest.json   format, policy version, tensor names/shapes/offsets, SHA-256 of every other file
 *   weights.bin     every parameter as float32 little-endian, concatenated in manifest order
 *   config.json     the GptConfig
 *   tokenizer.json  the WordTokenizer's word list and id
 *
 * The manifest is written last, so a save interrupted half-way leaves a folder whose checksums do not
 * match. Loading checks everything (presence, JSON shape, sizes, checksums, names and shapes) before it
 * builds a model: a damaged checkpoint is refused with a CheckpointError, never half-loaded.
 * Optimizer state is not part of a checkpoint.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { endianness } from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { Data, Schema } from "effect";
import { WordTokenizer } from "../kernel/tokenizer.ts";
import { Gpt, type GptConfig, gptConfig } from "./gpt.ts";

export const CHECKPOINT_FORMAT = "agent-r1/gpt-checkpoint" as const;
export const CHECKPOINT_FORMAT_VERSION = 1 as const;

export type CheckpointProblem =
  | "missing" // a file is absent or unreadable
  | "parse" // a JSON file is not JSON
  | "schema" // JSON of the wrong shape (or another format version)
  | "truncated" // weights.bin has the wrong size
  | "checksum" // a file's SHA-256 differs from the manifest's
  | "mismatch"; // the tensors do not fit the config, or the tokenizer id does not match its words

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

const Manifest = Schema.Struct({
  format: Schema.Literal(CHECKPOINT_FORMAT),
  formatVersion: Schema.Literal(CHECKPOINT_FORMAT_VERSION),
  /** The policy version these weights are. */
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
});

const TokenizerFile = Schema.Struct({
  kind: Schema.Literal("words"),
  id: Schema.String,
  words: Schema.Array(Schema.String),
});

const FILES = {
  manifest: "manifest.json",
  weights: "weights.bin",
  config: "config.json",
  tokenizer: "tokenizer.json",
} as const;

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

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

/** Writes to a temporary name, then renames: a reader never sees half a file. */
const writeAtomically = async (file: string, data: Uint8Array | string): Promise<void> => {
  const temporary = `${file}.tmp-${process.pid}`;
  await writeFile(temporary, data);
  await rename(temporary, file);
};

export interface CheckpointContents {
  readonly model: Gpt;
  readonly tokenizer: WordTokenizer;
  /** Policy version of the weights. */
  readonly version: number;
}

export const saveCheckpoint = async (folder: string, contents: CheckpointContents): Promise<void> => {
  const { model, tokenizer, version } = contents;
  if (!Number.isInteger(version) || version < 0) throw new RangeError(`policy version must be >= 0, got ${version}`);
  await mkdir(folder, { recursive: true });
  const tensors: Manifest["tensors"][number][] = [];
  const parts: Float32Array[] = [];
  let offset = 0;
  for (const [name, variable] of model.parameters) {
    const values = (await variable.data()) as Float32Array;
    tensors.push({ name, shape: [...variable.shape], offset });
    parts.push(values);
    offset += values.length;
  }
  const all = new Float32Array(offset);
  parts.forEach((part, i) => {
    all.set(part, tensors[i].offset);
  });
  const weights = toLittleEndian(all);
  const config = JSON.stringify(model.config, null, 2);
  const tokenizerJson = JSON.stringify({ kind: "words", id: tokenizer.id, words: tokenizer.words });
  const encoder = new TextEncoder();
  await writeAtomically(path.join(folder, FILES.weights), weights);
  await writeAtomically(path.join(folder, FILES.config), config);
  await writeAtomically(path.join(folder, FILES.tokenizer), tokenizerJson);
  const manifest: Manifest = {
    format: CHECKPOINT_FORMAT,
    formatVersion: CHECKPOINT_FORMAT_VERSION,
    version,
    tensors,
    files: {
      weights: { bytes: weights.byteLength, sha256: sha256(weights) },
      config: { sha256: sha256(encoder.encode(config)) },
      tokenizer: { sha256: sha256(encoder.encode(tokenizerJson)) },
    },
  };
  await writeAtomically(path.join(folder, FILES.manifest), JSON.stringify(manifest, null, 2));
};

const readBytes = async (folder: string, name: string): Promise<Uint8Array> => {
  const file = path.join(folder, name);
  try {
    return new Uint8Array(await readFile(file));
  } catch (error) {
    throw new CheckpointError({ problem: "missing", file, detail: (error as Error).message });
  }
};

const decodeJson = <S extends Schema.Top>(schema: S, bytes: Uint8Array, file: string): S["Type"] => {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new CheckpointError({ problem: "parse", file, detail: (error as Error).message });
  }
  try {
    return Schema.decodeUnknownSync(schema as never)(json) as S["Type"];
  } catch (error) {
    throw new CheckpointError({ problem: "schema", file, detail: String((error as Error).message ?? error) });
  }
};

const checkSum = (bytes: Uint8Array, expected: string, file: string): void => {
  const actual = sha256(bytes);
  if (actual !== expected) {
    throw new CheckpointError({
      problem: "checksum",
      file,
      detail: `SHA-256 is ${actual}, the manifest says ${expected}`,
    });
  }
};

/** Loads and verifies a checkpoint folder; throws CheckpointError if anything is off. */
export const loadCheckpoint = async (folder: string): Promise<CheckpointContents> => {
  const at = (name: string) => path.join(folder, name);
  const manifest = decodeJson(Manifest, await readBytes(folder, FILES.manifest), at(FILES.manifest));
  const weights = await readBytes(folder, FILES.weights);
  if (weights.byteLength !== manifest.files.weights.bytes) {
    throw new CheckpointError({
      problem: "truncated",
      file: at(FILES.weights),
      detail: `${weights.byteLength} bytes, the manifest says ${manifest.files.weights.bytes}`,
    });
  }
  checkSum(weights, manifest.files.weights.sha256, at(FILES.weights));
  const configBytes = await readBytes(folder, FILES.config);
  checkSum(configBytes, manifest.files.config.sha256, at(FILES.config));
  const tokenizerBytes = await readBytes(folder, FILES.tokenizer);
  checkSum(tokenizerBytes, manifest.files.tokenizer.sha256, at(FILES.tokenizer));

  let config: GptConfig;
  try {
    config = gptConfig(decodeJson(ConfigFile, configBytes, at(FILES.config)));
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError({ problem: "schema", file: at(FILES.config), detail: (error as Error).message });
  }
  const tokenizerFile = decodeJson(TokenizerFile, tokenizerBytes, at(FILES.tokenizer));
  const tokenizer = new WordTokenizer(tokenizerFile.words);
  if (tokenizer.id !== tokenizerFile.id) {
    throw new CheckpointError({
      problem: "mismatch",
      file: at(FILES.tokenizer),
      detail: `the words give tokenizer id ${tokenizer.id}, the file says ${tokenizerFile.id}`,
    });
  }
  if (tokenizer.size > config.vocabSize) {
    throw new CheckpointError({
      problem: "mismatch",
      file: at(FILES.tokenizer),
      detail: `${tokenizer.size} token ids do not fit vocabSize ${config.vocabSize}`,
    });
  }

  const model = new Gpt(config, "checkpoint");
  try {
    checkTensors(model, manifest, at(FILES.manifest));
    tf.tidy(() => {
      for (const { name, shape, offset } of manifest.tensors) {
        const size = shape.reduce((a, b) => a * b, 1);
        model.parameters.get(name)!.assign(tf.tensor(fromLittleEndian(weights, offset, size), [...shape]));
      }
    });
  } catch (error) {
    model.dispose();
    throw error;
  }
  return { model, tokenizer, version: manifest.version };
};

/** The manifest's tensors are exactly the model's parameters, with their shapes, tiling weights.bin. */
const checkTensors = (model: Gpt, manifest: Manifest, file: string): void => {
  const fail = (detail: string) => new CheckpointError({ problem: "mismatch", file, detail });
  const names = new Set(manifest.tensors.map((t) => t.name));
  if (names.size !== manifest.tensors.length) throw fail("a tensor name appears twice");
  for (const name of model.parameters.keys()) if (!names.has(name)) throw fail(`tensor ${name} is missing`);
  let expectedOffset = 0;
  for (const { name, shape, offset } of manifest.tensors) {
    const variable = model.parameters.get(name);
    if (!variable) throw fail(`tensor ${name} is not a parameter of this model`);
    if (!tf.util.arraysEqual([...shape], variable.shape)) {
      throw fail(`tensor ${name} has shape [${shape}], the config gives [${variable.shape}]`);
    }
    if (offset !== expectedOffset) throw fail(`tensor ${name} starts at ${offset}, expected ${expectedOffset}`);
    expectedOffset += variable.size;
  }
  if (expectedOffset * 4 !== manifest.files.weights.bytes) {
    throw fail(`tensors hold ${expectedOffset * 4} bytes, weights.bin has ${manifest.files.weights.bytes}`);
  }
};

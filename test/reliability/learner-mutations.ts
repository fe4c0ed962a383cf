/**
 * Mutations of the learner's files, and the oracle that judges each (learner-fuzz tests):
 * - a run folder's config.json (what `train --resume` reads);
 * - a checkpoint folder: manifest.json, weights.bin, optimizer.bin, config.json, tokenizer.json;
 * - a run's checkpoints/latest.json.
 *
 * Mutations, one to three at a time:
 * - raw: a bit flipped, a byte changed, inserted or deleted, truncation, the file removed or emptied, bytes
 *   appended, a run of NULs, a BOM, an invalid UTF-8 byte, the file replaced by another checkpoint's (a
 *   model of another shape) or by another file of the same folder;
 * - structured (valid JSON): a value of another JSON type, a field removed, an unknown field added
 *   (`__proto__` and `constructor` included), an out-of-range number, a well-typed edit, a tensor's shape
 *   changed, the root replaced, the same content spelled differently;
 * - resealed (checkpoints only): a structured mutation after which the manifest's checksums and digest are
 *   recomputed, as a forger would, so the schema and the consistency checks (shapes, sizes, tokenizer) must
 *   object on their own.
 *
 * The oracle: loading either refuses with a typed error (CheckpointError for checkpoints and latest.json,
 * UsageError for config.json) on one line, naming a file of the folder (for unresealed damage, a file that
 * was damaged) and, for a schema error of a single structured mutation, the field; with no tensor left
 * allocated. Or it accepts, and then what it loaded is exactly what the files say (weights, moments,
 * config, tokenizer, version); without resealing, that is the original content (a respelled manifest).
 */
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import fc from "fast-check";
import { expect } from "vitest";
import { canonicalJson } from "../../src/kernel/canonical.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { freshModelConfig, readRunConfig } from "../../src/learn/trainer.ts";
import { CheckpointError, loadCheckpoint, manifestDigest, readLatestCheckpoint } from "../../src/policy/checkpoint.ts";

export type Files = Map<string, Buffer>;
type Path = (string | number)[];

export interface FileMutation {
  readonly label: string;
  /** The file it changes. */
  readonly file: string;
  readonly resealed: boolean;
  /** For structured mutations: the JSON path edited (empty: the root). */
  readonly path?: Path;
  readonly apply: (files: Files, other: Files) => void;
}

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length];
const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, "", "x", "0", [], [1], {}, { a: 1 }];
const OUT_OF_RANGE = [-1, 0, 0.5, -0.5, 1e9, 2 ** 31, 2 ** 53, 1e21, 1e300];
const UNKNOWN_KEYS = ["extra", "__proto__", "constructor", "Version", "files2", "toString"];

/** Paths to every value in a JSON document (the root excluded). */
const pathsOf = (value: unknown, path: Path = []): Path[] => {
  if (typeof value !== "object" || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...path, key], ...pathsOf(child, [...path, key])]);
};

const parentOf = (root: unknown, path: Path) => {
  let node = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  return node as Record<string | number, unknown>;
};

const setOwn = (target: object, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });

/** Serialises like the original file: indented or compact, with or without a final newline. */
const serialize = (value: unknown, like: Buffer) => {
  const text = like.toString("utf8");
  const indented = text.trimEnd().includes("\n");
  return Buffer.from(JSON.stringify(value, null, indented ? 2 : undefined) + (text.endsWith("\n") ? "\n" : ""));
};

const parse = (bytes: Buffer | undefined): unknown => {
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
};

/** Reverses the key order of every object (the same content, spelled differently). */
const reordered = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== "object" || value === null) return value;
  const out = {};
  for (const [k, v] of Object.entries(value).reverse()) setOwn(out, k, reordered(v));
  return out;
};

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** Recomputes what a mutation of `file` invalidated: its checksum in the manifest, then the manifest's digest. */
const reseal = (files: Files, file: string) => {
  const manifestBytes = files.get("manifest.json");
  const manifest = parse(manifestBytes) as Record<string, unknown> | undefined;
  if (!manifest || typeof manifest !== "object" || Array.isArray(manifest)) return;
  const key = { "config.json": "config", "tokenizer.json": "tokenizer" }[file];
  const entry = (manifest.files as Record<string, Record<string, unknown>> | undefined)?.[key ?? ""];
  const bytes = files.get(file);
  if (key && entry && typeof entry === "object" && bytes) entry.sha256 = sha256(bytes);
  manifest.digest = manifestDigest(manifest);
  files.set("manifest.json", serialize(manifest, manifestBytes!));
};

const RAW = [
  "flip-bit",
  "byte-set",
  "truncate",
  "remove",
  "append",
  "byte-insert",
  "byte-delete",
  "nul-run",
  "foreign",
  "swap-files",
  "empty",
  "bom",
  "invalid-utf8",
] as const;

/** A raw mutation of `file`: bytes change, nothing is recomputed. */
export const rawMutation = (kind: number, file: string, a: number, b: number): FileMutation => {
  const name = pick(RAW, kind);
  return {
    label: `${name}(${file}, ${a}, ${b})`,
    file,
    resealed: false,
    apply: (files, other) => {
      const bytes = files.get(file);
      if (name === "remove") return void files.delete(file);
      if (name === "foreign") return void (other.has(file) ? files.set(file, other.get(file)!) : files.delete(file));
      if (name === "swap-files") {
        const names = [...files.keys()].filter((n) => n !== file);
        if (names.length > 0) files.set(file, files.get(pick(names, a))!);
        return;
      }
      if (name === "empty") return void files.set(file, Buffer.alloc(0));
      if (!bytes) return;
      const n = bytes.length;
      const at = n === 0 ? 0 : a % n;
      let out: Buffer;
      switch (name) {
        case "flip-bit":
          out = Buffer.from(bytes);
          if (n > 0) out[at] ^= 1 << (b % 8);
          break;
        case "byte-set":
          out = Buffer.from(bytes);
          if (n > 0) out[at] = (out[at] + 1 + (b % 255)) % 256;
          break;
        case "truncate":
          out = bytes.subarray(0, at);
          break;
        case "append":
          out = Buffer.concat([bytes, Buffer.alloc(1 + (b % 16), b % 256)]);
          break;
        case "byte-insert":
          out = Buffer.concat([bytes.subarray(0, a % (n + 1)), Buffer.from([b % 256]), bytes.subarray(a % (n + 1))]);
          break;
        case "byte-delete":
          out = n === 0 ? bytes : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
          break;
        case "nul-run":
          out = Buffer.from(bytes);
          out.fill(0, at, Math.min(n, at + 1 + (b % 64)));
          break;
        case "bom":
          out = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
          break;
        default:
          out = Buffer.concat([bytes.subarray(0, a % (n + 1)), Buffer.from([0xff]), bytes.subarray(a % (n + 1))]);
      }
      files.set(file, out);
    },
  };
};

const STRUCTURED = ["type", "remove", "unknown", "range", "edit", "shape", "respell", "root"] as const;

/** A structured mutation of a JSON file (valid JSON after it), resealed or not. */
export const structuredMutation = (
  kind: number,
  file: string,
  a: number,
  b: number,
  resealed: boolean,
): FileMutation => {
  const name = pick(STRUCTURED, kind);
  let edited: Path | undefined;
  const mutation: FileMutation = {
    label: `${resealed ? "resealed-" : ""}${name}(${file}, ${a}, ${b})`,
    file,
    resealed,
    get path() {
      return edited;
    },
    apply: (files) => {
      const bytes = files.get(file);
      const doc = parse(bytes);
      if (doc === undefined) return;
      let root = doc;
      const paths = pathsOf(doc);
      if (name === "root") {
        root = pick([[], null, 42, "x", {}, [doc]], a);
        edited = [];
      } else if (name === "respell") {
        files.set(file, Buffer.from(pick([JSON.stringify(doc), JSON.stringify(reordered(doc), null, 4)], a)));
        if (resealed) reseal(files, file);
        return;
      } else if (name === "shape") {
        // Another shape for a matrix of the manifest (same size when swapped, another size otherwise).
        // (An earlier mutation of the same file may have made a shape null or a number: not a matrix's then.)
        const shapes = paths.filter((p) => {
          const shape = parentOf(doc, p).shape;
          return p.at(-1) === "shape" && Array.isArray(shape) && shape.length === 2;
        });
        if (shapes.length === 0) return;
        const path = pick(shapes, a);
        const shape = parentOf(doc, path).shape as number[];
        parentOf(doc, path).shape = b % 2 === 0 ? [shape[1], shape[0]] : [shape[0], shape[1] + (b % 4) - 1 || 1];
        edited = path;
      } else {
        if (paths.length === 0) return;
        const path = pick(paths, a);
        const parent = parentOf(doc, path);
        const key = path.at(-1)!;
        const old = parent[key];
        edited = path;
        if (name === "type")
          parent[key] = pick(
            VALUES.filter((v) => jsonType(v) !== jsonType(old)),
            b,
          );
        else if (name === "remove") {
          if (Array.isArray(parent)) parent.splice(Number(key), 1);
          else delete parent[key];
        } else if (name === "unknown") {
          const target = typeof old === "object" && old !== null && !Array.isArray(old) ? old : parent;
          if (Array.isArray(target)) {
            target.push(pick(VALUES, b));
            edited = [...path.slice(0, -1), target.length - 1];
          } else {
            const added = pick(UNKNOWN_KEYS, b);
            setOwn(target, added, pick(VALUES, a));
            edited = target === old ? [...path, added] : [...path.slice(0, -1), added];
          }
        } else if (name === "range") {
          const numbers = paths.filter((p) => typeof parentOf(doc, p)[p.at(-1)!] === "number");
          if (numbers.length === 0) return;
          const at = pick(numbers, a);
          parentOf(doc, at)[at.at(-1)!] = pick(OUT_OF_RANGE, b);
          edited = at;
        } else {
          // A well-typed edit: the schema accepts it; only checksums and consistency checks can object.
          if (typeof old === "number") parent[key] = pick([old + 1, old * 2, 0, old - 1], b);
          else if (typeof old === "string") parent[key] = pick([`${old}x`, "", old.slice(1)], b);
          else if (typeof old === "boolean") parent[key] = !old;
          else if (Array.isArray(old)) old.length > 0 && (b % 2 === 0 ? old.pop() : old.push(old[0]));
          else return;
        }
      }
      files.set(file, serialize(root, bytes!));
      if (resealed) reseal(files, file);
    },
  };
  return mutation;
};

const nat = fc.nat({ max: 1 << 30 });

/**
 * One to three mutations of the given files; resealed ones first (resealing after raw damage would hash the
 * damage in: a forgery, which checksums cannot detect).
 */
export const fileMutations = (
  files: readonly string[],
  jsonFiles: readonly string[],
  resealable: boolean,
): fc.Arbitrary<FileMutation[]> =>
  fc
    .array(
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc.tuple(nat, nat, nat, nat).map(([k, f, a, b]) => rawMutation(k, pick(files, f), a, b)),
        },
        {
          weight: 3,
          arbitrary: fc
            .tuple(nat, nat, nat, nat)
            .map(([k, f, a, b]) => structuredMutation(k, pick(jsonFiles, f), a, b, false)),
        },
        {
          weight: resealable ? 2 : 0,
          arbitrary: fc
            .tuple(nat, nat, nat, nat)
            .map(([k, f, a, b]) => structuredMutation(k, pick(jsonFiles, f), a, b, true)),
        },
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((ms) => [...ms.filter((m) => m.resealed), ...ms.filter((m) => !m.resealed)]);

/** `absent`: the file was removed, and reads as a run without it (resume starts over, or uses the flags). */
export type Outcome = "identical" | "same-content" | "accepted" | "absent" | "refused";

export interface Tally {
  mutations: number;
  byOutcome: Record<Outcome, number>;
  /** Refusals by file and problem (`weights.bin checksum`), or by the first words of a UsageError. */
  byProblem: Record<string, number>;
  byLabel: Record<string, number>;
}

export const newTally = (): Tally => ({
  mutations: 0,
  byOutcome: { identical: 0, "same-content": 0, accepted: 0, absent: 0, refused: 0 },
  byProblem: {},
  byLabel: {},
});

const count = (record: Record<string, number>, key: string) => {
  record[key] = (record[key] ?? 0) + 1;
};

const applyAll = (source: Files, other: Files, applied: readonly FileMutation[], tally: Tally) => {
  const files: Files = new Map(source);
  for (const m of applied) {
    m.apply(files, other);
    count(tally.byLabel, m.label.split("(")[0]);
  }
  tally.mutations += 1;
  return files;
};

const writeFolder = (dir: string, files: Files) => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of files) writeFileSync(join(dir, name), bytes);
};

const sameFiles = (a: Files, b: Files) =>
  a.size === b.size && [...a].every(([name, bytes]) => b.get(name)?.equals(bytes) ?? false);

const describeAll = (applied: readonly FileMutation[]) => applied.map((m) => m.label).join(" + ");

/** A single structured mutation refused by the schema names the field it edited. */
const expectNamesField = (applied: readonly FileMutation[], file: string, detail: string, what: string) => {
  const [only] = applied;
  if (applied.length !== 1 || !only.path || only.path.length === 0 || only.file !== file) return;
  const key = only.path.at(-1)!;
  expect(detail, `${what}: the error does not name ${String(key)}`).toContain(String(key));
};

/** JSON as the loaders read it: UTF-8, a leading BOM ignored. */
const jsonOf = (bytes: Buffer) => JSON.parse(new TextDecoder().decode(bytes));

const floatBytes = (values: ArrayLike<number>) => Buffer.from(new Float32Array(Array.from(values)).buffer);

/** Applies mutations to a checkpoint folder's files, loads it, and checks the oracle. */
export const checkCheckpointMutation = async (
  dir: string,
  source: Files,
  other: Files,
  applied: readonly FileMutation[],
  tally: Tally,
): Promise<Outcome> => {
  const files = applyAll(source, other, applied, tally);
  writeFolder(dir, files);
  const what = `checkpoint after ${describeAll(applied)}`;
  const tensors = tf.memory().numTensors;
  let outcome: Outcome;
  try {
    const loaded = await loadCheckpoint(dir);
    // Accepted: what was loaded is exactly what the files say.
    const manifest = jsonOf(files.get("manifest.json")!);
    expect(loaded.version, what).toBe(manifest.version);
    expect(loaded.model.config, what).toEqual(jsonOf(files.get("config.json")!));
    expect(loaded.tokenizer.words, what).toEqual(jsonOf(files.get("tokenizer.json")!).words);
    const weights = files.get("weights.bin")!;
    const moments = manifest.optimizer ? files.get("optimizer.bin")! : undefined;
    const total = weights.length / 4;
    for (const { name, offset, shape } of manifest.tensors as { name: string; offset: number; shape: number[] }[]) {
      const size = shape.reduce((x, y) => x * y, 1);
      const slice = (bytes: Buffer, from: number) => bytes.subarray(from * 4, (from + size) * 4);
      expect(floatBytes(loaded.model.parameters.get(name)!.dataSync()).equals(slice(weights, offset)), what).toBe(true);
      if (moments) {
        const saved = loaded.optimizer!.moments.get(name)!;
        expect(floatBytes(saved.m).equals(slice(moments, offset)), what).toBe(true);
        expect(floatBytes(saved.v).equals(slice(moments, total + offset)), what).toBe(true);
      }
    }
    expect(loaded.optimizer?.step, what).toBe(manifest.optimizer?.step);
    loaded.model.dispose();
    if (sameFiles(files, source)) outcome = "identical";
    else {
      const manifestSame = canonicalJson(jsonOf(source.get("manifest.json")!)) === canonicalJson(manifest);
      const othersSame = [...source].every(([n, b]) => n === "manifest.json" || files.get(n)?.equals(b));
      // Without resealing, only a respelled manifest can pass: the same content.
      if (applied.every((m) => !m.resealed)) expect(manifestSame && othersSame, `${what}: accepted`).toBe(true);
      outcome = manifestSame && othersSame && files.size === source.size ? "same-content" : "accepted";
    }
  } catch (error) {
    expect(error, `${what}: threw ${error}`).toBeInstanceOf(CheckpointError);
    const refusal = error as CheckpointError;
    expect(refusal.message, what).not.toContain("\n");
    expect(refusal.file.startsWith(`${dir}/`), `${what}: ${refusal.message}`).toBe(true);
    const file = basename(refusal.file);
    expect(source.has(file), `${what}: ${refusal.message}`).toBe(true);
    // Unless checksums were recomputed or the manifest replaced by another checkpoint's, the damaged file is named.
    if (applied.every((m) => !m.resealed && !(m.label.startsWith("foreign") && m.file === "manifest.json")))
      expect(
        applied.map((m) => m.file),
        `${what}: ${refusal.message}`,
      ).toContain(file);
    if (refusal.problem === "schema") expectNamesField(applied, file, refusal.detail, `${what}: ${refusal.message}`);
    count(tally.byProblem, `${file} ${refusal.problem}`);
    outcome = "refused";
  }
  expect(tf.memory().numTensors, `${what}: tensors left allocated`).toBe(tensors);
  tally.byOutcome[outcome] += 1;
  return outcome;
};

/** Applies mutations to a run folder's config.json, reads it as `train --resume` does, and checks the oracle. */
export const checkConfigMutation = async (
  dir: string,
  source: Files,
  applied: readonly FileMutation[],
  vocabSize: number,
  tally: Tally,
): Promise<Outcome> => {
  const files = applyAll(source, new Map(), applied, tally);
  writeFolder(dir, files);
  const file = join(dir, "config.json");
  const what = `config.json after ${describeAll(applied)}`;
  let outcome: Outcome;
  try {
    const config = readRunConfig(dir);
    if (!files.has("config.json")) {
      expect(config, what).toBeUndefined();
      tally.byOutcome.absent += 1;
      return "absent";
    }
    freshModelConfig(config!, vocabSize);
    // Accepted: a valid config, exactly as written.
    expect(config, what).toEqual(jsonOf(files.get("config.json")!));
    const sameContent = canonicalJson(config) === canonicalJson(jsonOf(source.get("config.json")!));
    outcome = sameFiles(files, source) ? "identical" : sameContent ? "same-content" : "accepted";
  } catch (error) {
    expect(error, `${what}: threw ${error}`).toBeInstanceOf(UsageError);
    const message = (error as UsageError).message;
    expect(message, what).not.toContain("\n");
    const atModel = message.startsWith("config: model: ") || message.startsWith(`${file}: model: `);
    if (!message.startsWith("config: model: "))
      expect(message.startsWith(`${file}: `), `${what}: ${message}`).toBe(true);
    if (atModel || !message.includes("not valid JSON")) expectNamesField(applied, "config.json", message, what);
    const problem = atModel
      ? "model cannot be built"
      : message.includes("not valid JSON")
        ? "not JSON"
        : message.includes("excess property") || message.includes("no field")
          ? "unknown field"
          : message.includes("Missing key")
            ? "missing field"
            : "wrong type or value";
    count(tally.byProblem, problem);
    outcome = "refused";
  }
  tally.byOutcome[outcome] += 1;
  return outcome;
};

/** Applies mutations to checkpoints/latest.json and reads it as `train --resume` does. */
export const checkLatestMutation = async (
  dir: string,
  source: Files,
  applied: readonly FileMutation[],
  tally: Tally,
): Promise<Outcome> => {
  const files = applyAll(source, new Map(), applied, tally);
  writeFolder(dir, files);
  const what = `latest.json after ${describeAll(applied)}`;
  let outcome: Outcome;
  try {
    const latest = readLatestCheckpoint(dir);
    if (!files.has("latest.json")) {
      expect(latest, what).toBeUndefined();
      tally.byOutcome.absent += 1;
      return "absent";
    }
    expect(latest, what).toEqual(jsonOf(files.get("latest.json")!));
    expect(latest!.dir, what).toMatch(/^[A-Za-z0-9._-]+$/);
    expect([".", ".."]).not.toContain(latest!.dir);
    outcome = sameFiles(files, source)
      ? "identical"
      : canonicalJson(latest) === canonicalJson(jsonOf(source.get("latest.json")!))
        ? "same-content"
        : "accepted";
  } catch (error) {
    expect(error, `${what}: threw ${error}`).toBeInstanceOf(CheckpointError);
    const refusal = error as CheckpointError;
    expect(refusal.file, what).toBe(join(dir, "latest.json"));
    expect(refusal.message, what).not.toContain("\n");
    if (refusal.problem === "schema") expectNamesField(applied, "latest.json", refusal.detail, what);
    count(tally.byProblem, refusal.problem);
    outcome = "refused";
  }
  tally.byOutcome[outcome] += 1;
  return outcome;
};

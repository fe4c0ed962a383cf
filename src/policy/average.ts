/**
 * Weight averaging of checkpoints: the mean of each parameter over several checkpoints of one model shape
 * and one tokenizer. The last few checkpoints of one RL run (Polyak / tail averaging), or the last ones of
 * runs from the same warm start on other seeds (a "model soup"), often score steadier than any one of them:
 * an RL run's exact match swings between checkpoints a few updates apart.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { canonicalJson } from "../kernel/canonical.ts";
import { UsageError } from "../kernel/errors.ts";
import { type CheckpointContents, loadCheckpoint, readLatestCheckpoint } from "./checkpoint.ts";

/** The averaged model of averageCheckpoints, with which versions went into it and how alike they were. */
export interface AveragedCheckpoint extends CheckpointContents {
  /** The policy versions averaged, in the order given. */
  readonly versions: readonly number[];
  /**
   * Cosine similarity of each checkpoint's weight matrices and embeddings (as one vector; layer norms'
   * gains and the biases, alike in any two models, left out) to the first one's, in the order given (the
   * first is 1). Checkpoints of one run, or of runs from one warm start, are near 1 (0.997 to 0.9996 on
   * hopqa's); clones made apart are far lower (0.66-0.70 there), and their average is not a soup.
   */
  readonly similarity: readonly number[];
}

/** Below this cosine similarity to the first checkpoint, `agent-r1 average` warns that the models are not one lineage. */
export const SOUP_SIMILARITY = 0.9;

/**
 * Loads the checkpoints one at a time and averages their parameters (in float64, then rounded to float32).
 * A run folder stands for its latest checkpoint. The result has the first checkpoint's shape and tokenizer, the highest of their policy versions, no
 * optimizer state, and their decoding (`constrained`) when they all record the same one. A checkpoint of another shape or tokenizer is a UsageError naming it and the difference;
 * a damaged one is the loader's CheckpointError.
 */
export const averageCheckpoints = async (given: readonly string[]): Promise<AveragedCheckpoint> => {
  if (given.length === 0) throw new UsageError({ detail: "averaging needs at least one checkpoint" });
  // A run folder (train's out) means its latest checkpoint, as `agent-r1 average` takes it.
  const folders = given.map((folder) => {
    if (existsSync(join(folder, "manifest.json"))) return folder;
    const latest = readLatestCheckpoint(join(folder, "checkpoints"));
    return latest ? join(folder, "checkpoints", latest.dir) : folder;
  });
  // Weights only: the average has no optimizer state, so one shipped without its optimizer.bin averages too.
  const first = await loadCheckpoint(folders[0], { optimizer: false });
  const shape = canonicalJson(first.model.config);
  const sums = new Map<string, Float64Array>();
  const versions: number[] = [];
  const decodings: (boolean | undefined)[] = [];
  const similarity: number[] = [];
  /** The first checkpoint's values (its model's variables are overwritten with the mean at the end). */
  const firstValues = new Map<string, Float32Array>();
  const add = async (contents: CheckpointContents) => {
    decodings.push(contents.constrained);
    let dot = 0;
    let norm = 0;
    let firstNorm = 0;
    for (const [name, variable] of contents.model.parameters) {
      const values = (await variable.data()) as Float32Array;
      const sum = sums.get(name) ?? new Float64Array(values.length);
      sums.set(name, sum);
      for (let i = 0; i < values.length; i++) sum[i] += values[i];
      if (variable.shape.length < 2) continue;
      const reference = firstValues.get(name) ?? values;
      if (!firstValues.has(name)) firstValues.set(name, values);
      for (let i = 0; i < values.length; i++) {
        dot += values[i] * reference[i];
        norm += values[i] * values[i];
        firstNorm += reference[i] * reference[i];
      }
    }
    similarity.push(norm === 0 || firstNorm === 0 ? (norm === firstNorm ? 1 : 0) : dot / Math.sqrt(norm * firstNorm));
    versions.push(contents.version);
  };
  try {
    await add(first);
    for (const folder of folders.slice(1)) {
      const next = await loadCheckpoint(folder, { optimizer: false });
      try {
        if (canonicalJson(next.model.config) !== shape) {
          // Only the fields that differ: two whole configs side by side hide the one that matters.
          const a = first.model.config as unknown as Record<string, unknown>;
          const b = next.model.config as unknown as Record<string, unknown>;
          const differing = [...new Set([...Object.keys(a), ...Object.keys(b)])]
            .filter((key) => canonicalJson(a[key] ?? null) !== canonicalJson(b[key] ?? null))
            .map((key) => `${key} ${JSON.stringify(b[key] ?? null)} against ${JSON.stringify(a[key] ?? null)}`);
          throw new UsageError({
            detail: `${folder} has another model shape than ${folders[0]} (${differing.join(", ")}); only checkpoints of one shape average`,
          });
        }
        if (next.tokenizer.id !== first.tokenizer.id)
          throw new UsageError({
            detail: `${folder} has another tokenizer than ${folders[0]} (${next.tokenizer.id} against ${first.tokenizer.id}); only checkpoints of one environment average`,
          });
        await add(next);
      } finally {
        next.model.dispose();
      }
    }
  } catch (error) {
    first.model.dispose();
    throw error;
  }
  tf.tidy(() => {
    for (const [name, variable] of first.model.parameters) {
      const sum = sums.get(name) as Float64Array;
      const mean = Float32Array.from(sum, (x) => x / folders.length);
      variable.assign(tf.tensor(mean, variable.shape));
    }
  });
  // The decoding the checkpoints were trained under, when they all record the same one.
  const constrained = decodings.every((d) => d !== undefined && d === decodings[0]) ? decodings[0] : undefined;
  return {
    model: first.model,
    tokenizer: first.tokenizer,
    version: Math.max(...versions),
    versions,
    similarity,
    ...(constrained === undefined ? {} : { constrained }),
  };
};

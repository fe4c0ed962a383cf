/**
 * Batched sampling with a KV cache. Each row brings its own context, seed and settings; the model runs
 * once per step for the whole batch, and token choice happens per row in float64 on the CPU.
 *
 * Independence: a row's randomness is Rng.fromSeed(row.seed) alone (one uniform draw per sampled
 * token), and its logits do not depend on the other rows (see gpt.ts, left padding), so a row samples
 * the same tokens alone or in any batch.
 *
 * Per step, for a row:
 *   1. allowed = allowedNext(tokens so far) (null: every id); other logits are masked to -inf;
 *   2. logprob = log softmax(masked logits) at temperature 1, reported for the chosen token;
 *   3. greedy: the highest logit (lowest id on ties). Otherwise softmax(masked logits / temperature),
 *      cut to the top-p nucleus (most likely first, ties by id), one inverse-CDF draw.
 *
 * Which temperature the logprobs refer to: always 1, whatever the sampling temperature and top-p. That is
 * the distribution the learner recomputes (gpt.tokenStats under the same allowed mask), so PPO's ratio
 * exp(logp_new - logp_recorded) compares like with like. Sampling at another temperature or with top-p < 1
 * makes the data off-policy with respect to those logprobs; sample at temperature 1, top-p 1 for exact
 * on-policy ratios.
 */
import type * as tf from "@tensorflow/tfjs-core";
import { Rng } from "../kernel/prng.ts";
import { disposeCache, type Gpt, type GptConfig, type KvCache } from "./gpt.ts";

/** Constrained decoding: the ids allowed after the tokens sampled so far in this action, or null for all. */
export type AllowedNext = (prefix: readonly number[]) => readonly number[] | null;

export interface SampleRow {
  /** Token context (non-empty); context.length + maxNewTokens must fit the model's contextLength. */
  readonly context: readonly number[];
  /** The only randomness this row uses. */
  readonly seed: string;
  readonly maxNewTokens: number;
  /** Default 1. 0 means greedy. */
  readonly temperature?: number;
  /** Nucleus: keep the most likely tokens up to this total probability. Default 1 (off). */
  readonly topP?: number;
  /** Sampling one of these ends the row; the stop token is part of the result. */
  readonly stopTokens?: readonly number[];
  /** Argmax instead of sampling (evaluation, ReMax's baseline rollout). Uses no randomness. */
  readonly greedy?: boolean;
  readonly allowedNext?: AllowedNext;
}

export interface SampleResult {
  readonly tokens: number[];
  /** Per token: log p(token) under the masked distribution at temperature 1. */
  readonly logprobs: number[];
  /** Per token: the sorted allowed ids, or null where unconstrained. Absent when the row had no allowedNext. */
  readonly allowed?: (number[] | null)[];
  /** "stop": a stop token was sampled; "length": maxNewTokens reached. */
  readonly finish: "stop" | "length";
}

/** One row's choice from its logits. */
interface Choice {
  readonly token: number;
  readonly logprob: number;
  readonly allowed: number[] | null;
}

const sortedUnique = (ids: readonly number[], vocab: number): number[] => {
  const unique = [...new Set(ids)].sort((a, b) => a - b);
  for (const id of unique) {
    if (!Number.isInteger(id) || id < 0 || id >= vocab)
      throw new RangeError(`allowed token id ${id} is not in [0, ${vocab})`);
  }
  if (unique.length === 0) throw new RangeError("allowedNext returned an empty list: no token can be sampled");
  return unique;
};

/** Picks one token from `logits` (length V) for a row. */
export const chooseToken = (
  logits: ArrayLike<number>,
  row: Pick<SampleRow, "temperature" | "topP" | "greedy">,
  rng: Rng,
  allowed: number[] | null,
): Choice => {
  const candidates = allowed ?? Array.from({ length: logits.length }, (_, i) => i);
  let best = candidates[0];
  for (const id of candidates) if (logits[id] > logits[best]) best = id;
  let total = 0;
  for (const id of candidates) total += Math.exp(logits[id] - logits[best]);
  const logZ = logits[best] + Math.log(total);
  const temperature = row.temperature ?? 1;
  if (row.greedy || temperature === 0) return { token: best, logprob: logits[best] - logZ, allowed };

  const weights = candidates.map((id) => Math.exp((logits[id] - logits[best]) / temperature));
  let order = candidates.map((_, i) => i);
  let mass = weights.reduce((a, b) => a + b, 0);
  const topP = row.topP ?? 1;
  if (topP < 1) {
    order.sort((i, j) => weights[j] - weights[i] || candidates[i] - candidates[j]);
    let kept = 0;
    let cumulative = 0;
    while (kept < order.length && (kept === 0 || cumulative < topP * mass)) cumulative += weights[order[kept++]];
    order = order.slice(0, kept);
    mass = cumulative;
  }
  const target = rng.float() * mass;
  let cumulative = 0;
  let pick = order[order.length - 1];
  for (const i of order) {
    cumulative += weights[i];
    if (target < cumulative) {
      pick = i;
      break;
    }
  }
  const token = candidates[pick];
  return { token, logprob: logits[token] - logZ, allowed };
};

const validate = (model: Gpt, rows: readonly SampleRow[]): void => {
  const { contextLength } = model.config;
  rows.forEach((row, i) => {
    if (row.context.length === 0) throw new RangeError(`row ${i}: the context is empty`);
    if (!Number.isInteger(row.maxNewTokens) || row.maxNewTokens < 0) {
      throw new RangeError(`row ${i}: maxNewTokens must be a non-negative integer`);
    }
    if (row.context.length + row.maxNewTokens > contextLength) {
      throw new RangeError(
        `row ${i}: ${row.context.length} context tokens + ${row.maxNewTokens} new tokens exceed contextLength ${contextLength}`,
      );
    }
    const temperature = row.temperature ?? 1;
    if (!(temperature >= 0)) throw new RangeError(`row ${i}: temperature must be >= 0`);
    const topP = row.topP ?? 1;
    if (!(topP > 0 && topP <= 1)) throw new RangeError(`row ${i}: topP must be in (0, 1]`);
  });
};

/**
 * How many [rows, heads, T, T] attention-score tensors a prefill holds at its peak (measured with tf.profile:
 * about 6 for 2 and for 4 layers; gpt.ts frees each layer's scores before the next layer runs). Before it did,
 * every layer's four stayed alive until the prefill ended: 21 at 2 layers, 41 at 4. The old budget (256 MB of
 * one score tensor) then made groups of 113 rows of hopqa's 384-token contexts, whose prefill passed wasm's
 * 4 GiB heap (100 rows of 370 tokens already grew it to 3.4 GiB; 1.2 GiB now) and aborted every episode of a
 * turn-local model's `eval --episodes 300` on 4-hop questions with "memory access out of bounds".
 */
export const PREFILL_SCORE_COPIES = 6;

/**
 * Estimated peak bytes a prefill takes per row whose batch's longest context is `longest` tokens: the score
 * tensors (PREFILL_SCORE_COPIES of heads x T x T), the KV cache of every layer (2 x layers x T x width) and a
 * block's activations (about (mlpRatio + 8) x T x width), float32.
 */
export const prefillRowBytes = (
  config: Pick<GptConfig, "heads" | "layers" | "width" | "mlpRatio">,
  longest: number,
): number =>
  4 *
  longest *
  (PREFILL_SCORE_COPIES * config.heads * longest + (2 * config.layers + config.mlpRatio + 8) * config.width);

/**
 * Bytes a prefill's rows may take together (by prefillRowBytes). tfjs's wasm heap is bounded (4 GiB, and an
 * allocation past it aborts every row of the batch); 2 GiB leaves room for the model and the heap's
 * fragmentation, keeps 100 rows of hopqa's 384 tokens (16.5 MiB a row on its default model) in one batch, and
 * makes groups of 40 of warehouse's 704. Batches above it are sampled in consecutive groups of rows; a row
 * samples the same tokens in any group (rows are independent).
 */
export const PREFILL_BYTES = 2 * 1024 ** 3;

/** Splits rows into consecutive groups whose prefill stays within `budget` bytes (by prefillRowBytes) each. */
export const prefillGroups = <Row extends { readonly context: readonly number[] }>(
  rows: readonly Row[],
  config: Pick<GptConfig, "heads" | "layers" | "width" | "mlpRatio">,
  budget = PREFILL_BYTES,
): Row[][] => {
  const longest = Math.max(0, ...rows.map((row) => row.context.length));
  const size = Math.max(1, Math.floor(budget / Math.max(1, prefillRowBytes(config, longest))));
  const groups: Row[][] = [];
  for (let start = 0; start < rows.length; start += size) groups.push(rows.slice(start, start + size));
  return groups;
};

/**
 * Samples every row to its stop token or maxNewTokens. Rows whose prefill would pass `prefillBytes` (default
 * PREFILL_BYTES, by prefillRowBytes) are sampled in consecutive groups, one after the other.
 */
export const sample = async (
  model: Gpt,
  rows: readonly SampleRow[],
  options: { readonly prefillBytes?: number } = {},
): Promise<SampleResult[]> => {
  validate(model, rows);
  const groups = prefillGroups(rows, model.config, options.prefillBytes);
  if (groups.length <= 1) return sampleGroup(model, rows);
  const results: SampleResult[] = [];
  for (const group of groups) results.push(...(await sampleGroup(model, group)));
  return results;
};

/** Samples one group of (validated) rows in one batch. */
const sampleGroup = async (model: Gpt, rows: readonly SampleRow[]): Promise<SampleResult[]> => {
  const vocab = model.config.vocabSize;
  const states = rows.map((row) => ({
    rng: Rng.fromSeed(row.seed),
    stops: new Set(row.stopTokens ?? []),
    tokens: [] as number[],
    logprobs: [] as number[],
    allowed: [] as (number[] | null)[],
    finish: (row.maxNewTokens === 0 ? "length" : null) as "stop" | "length" | null,
  }));
  const result = (): SampleResult[] =>
    rows.map((row, i) => {
      const s = states[i];
      return {
        tokens: s.tokens,
        logprobs: s.logprobs,
        ...(row.allowedNext ? { allowed: s.allowed } : {}),
        finish: s.finish ?? "length",
      };
    });
  if (states.every((s) => s.finish !== null)) return result();

  let cache: KvCache | null = null;
  try {
    const first = model.prefill(rows.map((row) => row.context));
    cache = first.cache;
    let logits: tf.Tensor2D = first.logits;
    for (;;) {
      const values = await logits.data();
      logits.dispose();
      rows.forEach((row, i) => {
        const s = states[i];
        if (s.finish !== null) return;
        const constraint = row.allowedNext?.(s.tokens) ?? null;
        const allowed = constraint === null ? null : sortedUnique(constraint, vocab);
        const choice = chooseToken(values.subarray(i * vocab, (i + 1) * vocab), row, s.rng, allowed);
        s.tokens.push(choice.token);
        s.logprobs.push(choice.logprob);
        s.allowed.push(choice.allowed);
        if (s.stops.has(choice.token)) s.finish = "stop";
        else if (s.tokens.length >= row.maxNewTokens) s.finish = "length";
      });
      if (states.every((s) => s.finish !== null)) break;
      const next = model.decode(
        cache,
        states.map((s) => s.tokens[s.tokens.length - 1] ?? 0),
      );
      cache = next.cache;
      logits = next.logits;
    }
  } finally {
    if (cache) disposeCache(cache);
  }
  return result();
};

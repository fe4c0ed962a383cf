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
import { disposeCache, type Gpt, type KvCache } from "./gpt.ts";

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
 * Bytes one attention-score tensor of a prefill may take ([rows, heads, T, T] float32, T the longest context of
 * the rows). A prefill keeps a few such tensors alive at once (scores, their softmax, the mask), and tfjs's wasm
 * heap is bounded: 64 rows of warehouse's 704-token contexts (about 500 MB a tensor) aborted every episode of
 * `eval --episodes 100` with wasm's `Aborted()`, while 40 rows (about 320 MB) ran; 256 MB makes groups of 32
 * there (that eval: 32 s, no abort) and keeps 64 rows of hopqa's 384 tokens (151 MB) in one batch. Batches above
 * this are sampled in consecutive groups of rows; a row samples the same tokens in any group (rows are
 * independent).
 */
export const PREFILL_SCORE_BYTES = 256 * 1024 * 1024;

/** Splits rows into consecutive groups whose prefill attention scores stay within `budget` bytes each. */
export const prefillGroups = <Row extends { readonly context: readonly number[] }>(
  rows: readonly Row[],
  heads: number,
  budget = PREFILL_SCORE_BYTES,
): Row[][] => {
  const longest = Math.max(0, ...rows.map((row) => row.context.length));
  const perRow = heads * longest * longest * 4;
  const size = Math.max(1, Math.floor(budget / Math.max(1, perRow)));
  const groups: Row[][] = [];
  for (let start = 0; start < rows.length; start += size) groups.push(rows.slice(start, start + size));
  return groups;
};

/**
 * Samples every row to its stop token or maxNewTokens. Rows whose prefill would pass `prefillBytes` (default
 * PREFILL_SCORE_BYTES) are sampled in consecutive groups, one after the other.
 */
export const sample = async (
  model: Gpt,
  rows: readonly SampleRow[],
  options: { readonly prefillBytes?: number } = {},
): Promise<SampleResult[]> => {
  validate(model, rows);
  const groups = prefillGroups(rows, model.config.heads, options.prefillBytes);
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

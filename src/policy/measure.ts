/**
 * Speed measurements for `npm run bench` (no side effects on import). These machines are shared and
 * noisy, so each function reports a median over repeats, and `measureTraining` puts the training step
 * next to the backend's own plain 2-D matMul throughput, measured in the same run: the ratio is what
 * compares across machines. They run on the active tfjs backend: call initBackend("wasm") (or another) first.
 */
import * as tf from "@tensorflow/tfjs-core";
import { Rng } from "../kernel/prng.ts";
import { AdamW } from "../learn/adamw.ts";
import { type PassGrouping, scoreTokens, trainStep } from "../learn/train-step.ts";
import { Gpt, type GptConfig } from "./gpt.ts";

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

const timeMs = async (run: () => Promise<unknown>, warmup: number, repeats: number): Promise<number[]> => {
  for (let i = 0; i < warmup; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  return times;
};

export interface MatMulMeasurement {
  readonly backend: string;
  readonly shape: readonly [number, number, number];
  readonly medianMs: number;
  readonly gflops: number;
}

interface Probe {
  /** One timed unit of work (resolves when its result has been read back). */
  readonly run: () => Promise<unknown>;
  readonly flops: number;
  readonly dispose: () => void;
}

/** A plain (non-transposed) 2-D matMul [m, k] x [k, n], the fastest path on wasm. */
const matMulProbe = (m: number, k: number, n: number): Probe => {
  const a = tf.randomNormal([m, k], 0, 1, "float32", 1);
  const b = tf.randomNormal([k, n], 0, 1, "float32", 2);
  return {
    // Read back one element: enough to wait for an asynchronous backend, without timing a large copy.
    run: async () => {
      const corner = tf.tidy(() => tf.slice(tf.matMul(a, b), [0, 0], [1, 1]));
      await corner.data();
      corner.dispose();
    },
    flops: 2 * m * k * n,
    dispose: () => tf.dispose([a, b]),
  };
};

export interface TrainMeasurement {
  readonly backend: string;
  readonly parameters: number;
  readonly batch: number;
  readonly time: number;
  readonly medianMs: number;
  /** Approximate FLOPs of one step: 6 x (matMul parameters) x tokens + attention. */
  readonly flopsPerStep: number;
  readonly gflops: number;
}

/** The design's reference model: d=64, 2 layers, 4 heads, T=64, batch 16 (about 110k parameters at V=96). */
const REFERENCE_MODEL: Partial<GptConfig> = { vocabSize: 96, contextLength: 64, width: 64, layers: 2, heads: 4 };

export interface TrainOptions {
  readonly config?: Partial<GptConfig>;
  readonly batch?: number;
  readonly time?: number;
  readonly repeats?: number;
}

/** One PPO training step (forward, backward, AdamW) on fixed random tokens. */
const trainProbe = (options: TrainOptions): Probe & { readonly model: Gpt } => {
  const config = { ...REFERENCE_MODEL, ...options.config };
  const { batch = 16, time = 64 } = options;
  const model = new Gpt(config, "measure");
  const optimizer = new AdamW(model.parameters, { lr: 1e-4 });
  const rng = Rng.fromSeed("measure-batch");
  const vocab = model.config.vocabSize;
  const rows = Array.from({ length: batch }, () => Array.from({ length: time }, () => rng.int(0, vocab - 1)));
  const perToken = (f: (t: number) => number) => rows.map((row) => row.map((_, t) => f(t)));
  const data = {
    tokens: rows,
    lossMask: perToken((t) => (t === 0 ? 0 : 1)),
    advantages: perToken(() => rng.float() - 0.5),
    logprobs: perToken(() => -Math.log(vocab)),
    returns: perToken(() => rng.float()),
    oldValues: perToken(() => 0),
  };
  const { width, layers, mlpRatio } = model.config;
  const matrixParams = layers * (4 * width * width + 2 * mlpRatio * width * width) + vocab * width;
  const tokens = batch * (time - 1);
  const attention = layers * 4 * batch * (time - 1) * (time - 1) * width;
  return {
    model,
    run: () => trainStep(model, data, { optimizer }),
    flops: 6 * matrixParams * tokens + 3 * attention,
    dispose: () => {
      optimizer.dispose();
      model.dispose();
    },
  };
};

const trainMeasurement = (probe: ReturnType<typeof trainProbe>, options: TrainOptions, medianMs: number) => ({
  backend: tf.getBackend(),
  parameters: probe.model.parameterCount(),
  batch: options.batch ?? 16,
  time: options.time ?? 64,
  medianMs,
  flopsPerStep: probe.flops,
  gflops: probe.flops / (medianMs * 1e6),
});

/**
 * Two timings taken in turn for `rounds` rounds (each callback times one unit of its work), so that both
 * see the same machine load; the median of each.
 */
const interleave = async (
  rounds: number,
  a: () => Promise<number>,
  b: () => Promise<number>,
): Promise<[number, number]> => {
  const as: number[] = [];
  const bs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    as.push(await a());
    bs.push(await b());
  }
  return [median(as), median(bs)];
};

export interface TrainingRatio {
  readonly matMul: MatMulMeasurement;
  readonly train: TrainMeasurement;
  /** Training step throughput as a fraction of the plain matMul's: comparable across machines. */
  readonly efficiency: number;
}

/**
 * Both measurements interleaved (each round: a burst of matMuls, then one training step), so that both
 * see the same machine load; medians over the rounds.
 */
export const measureTraining = async (options: TrainOptions = {}): Promise<TrainingRatio> => {
  const rounds = options.repeats ?? 10;
  const matMul = matMulProbe(1024, 64, 256);
  const train = trainProbe(options);
  try {
    await timeMs(matMul.run, 5, 0);
    await timeMs(train.run, 2, 0);
    const [matMulMedian, stepMedian] = await interleave(
      rounds,
      async () => median(await timeMs(matMul.run, 0, 9)),
      async () => (await timeMs(train.run, 0, 1))[0],
    );
    const trainResult = trainMeasurement(train, options, stepMedian);
    const matMulResult: MatMulMeasurement = {
      backend: tf.getBackend(),
      shape: [1024, 64, 256],
      medianMs: matMulMedian,
      gflops: matMul.flops / (matMulMedian * 1e6),
    };
    return { matMul: matMulResult, train: trainResult, efficiency: trainResult.gflops / matMulResult.gflops };
  } finally {
    matMul.dispose();
    train.dispose();
  }
};

export interface CopyHeadCost {
  readonly without: TrainMeasurement;
  readonly withCopy: TrainMeasurement;
  /** Step time with the copy head over step time without it. */
  readonly slowdown: number;
}

/** A training step of the same model with and without the copy head, interleaved round by round. */
export const measureCopyHead = async (options: TrainOptions = {}): Promise<CopyHeadCost> => {
  const rounds = options.repeats ?? 10;
  const plain = trainProbe({ ...options, config: { ...options.config, copy: false } });
  const copy = trainProbe({ ...options, config: { ...options.config, copy: true } });
  try {
    await timeMs(plain.run, 2, 0);
    await timeMs(copy.run, 2, 0);
    const [plainMedian, copyMedian] = await interleave(
      rounds,
      async () => (await timeMs(plain.run, 0, 1))[0],
      async () => (await timeMs(copy.run, 0, 1))[0],
    );
    const without = trainMeasurement(plain, options, plainMedian);
    const withCopy = trainMeasurement(copy, options, copyMedian);
    return { without, withCopy, slowdown: withCopy.medianMs / without.medianMs };
  } finally {
    plain.dispose();
    copy.dispose();
  }
};

/**
 * The token lengths of one update's 64 episodes in a hopqa REINFORCE++ run (runs of 8 x 8 episodes from
 * the half-hasty clone, update 10; docs/hopqa.md): 141 to 357 tokens, 208 on average.
 */
export const HOPQA_UPDATE_LENGTHS: readonly number[] = [
  232, 228, 175, 175, 175, 228, 233, 244, 202, 202, 202, 202, 202, 202, 202, 202, 220, 220, 220, 220, 357, 220, 221,
  220, 220, 225, 209, 158, 209, 221, 221, 210, 213, 213, 213, 213, 212, 213, 213, 213, 225, 285, 225, 225, 225, 156,
  156, 225, 202, 218, 201, 201, 201, 201, 201, 202, 141, 141, 141, 141, 192, 192, 192, 263,
];

export interface PassGroupingRatio {
  readonly rows: number;
  readonly minibatches: number;
  /** Median ms of one update (the reference's scoring of every row, then a step per minibatch). */
  readonly byLengthMs: number;
  readonly inOrderMs: number;
  /** inOrderMs / byLengthMs. */
  readonly speedup: number;
}

/**
 * One RL update's learner work on rows of the given lengths (a reference model scores every row, then
 * one training step per minibatch of shuffled rows), with each pass's rows grouped by length against cut
 * in order, interleaved round by round. The model is hopqa's shape (2 layers, width 128, copy head).
 */
export const measurePassGrouping = async (
  options: { readonly lengths?: readonly number[]; readonly minibatches?: number; readonly repeats?: number } = {},
): Promise<PassGroupingRatio> => {
  const { lengths = HOPQA_UPDATE_LENGTHS, minibatches = 4, repeats = 5 } = options;
  const config: Partial<GptConfig> = {
    vocabSize: 437,
    contextLength: 384,
    width: 128,
    layers: 2,
    heads: 4,
    copy: true,
  };
  const model = new Gpt(config, "measure-passes");
  const reference = new Gpt(config, "measure-passes-ref");
  const optimizer = new AdamW(model.parameters, { lr: 1e-6 });
  const rng = Rng.fromSeed("measure-passes");
  const tokens = lengths.map((n) => Array.from({ length: n }, () => rng.int(0, 436)));
  const order = rng.shuffle(tokens.map((_, i) => i));
  const chunk = Math.ceil(tokens.length / minibatches);
  const update = async (passes: PassGrouping): Promise<number> => {
    const start = performance.now();
    await scoreTokens(reference, tokens, undefined, undefined, passes);
    for (let m = 0; m < minibatches; m++) {
      const rows = order.slice(m * chunk, (m + 1) * chunk).map((i) => tokens[i]);
      const mask = rows.map((row) => row.map((_, t) => (t === 0 ? 0 : 1)));
      await trainStep(model, { tokens: rows, lossMask: mask, advantages: mask, logprobs: mask }, { optimizer, passes });
    }
    return performance.now() - start;
  };
  try {
    await update("by-length");
    await update("in-order");
    const [byLengthMs, inOrderMs] = await interleave(
      repeats,
      () => update("by-length"),
      () => update("in-order"),
    );
    return { rows: tokens.length, minibatches, byLengthMs, inOrderMs, speedup: inOrderMs / byLengthMs };
  } finally {
    optimizer.dispose();
    model.dispose();
    reference.dispose();
  }
};

/** Timing and reporting helpers for the benchmarks: medians over repeats, side-by-side pairs, tables. */
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * A full garbage collection, run before each timed sample so that the garbage one side leaves behind is
 * not collected on the other side's clock. (`--expose-gc` set at run time, so `npm run bench` needs no flag.)
 */
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

export const median = (values: readonly number[]): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** One timed run: how many units of work it did and how long it took. */
export interface Sample {
  readonly units: number;
  readonly ms: number;
}

export const timed = async (run: () => Promise<number> | number): Promise<Sample> => {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  const t0 = performance.now();
  const units = await run();
  return { units, ms: performance.now() - t0 };
};

export const rate = (s: Sample): number => (s.units / s.ms) * 1000;

export interface PairResult {
  readonly a: Sample[];
  readonly b: Sample[];
  /** Per repeat: b's time per unit / a's time per unit (i.e. rate(a) / rate(b)). */
  readonly ratios: number[];
}

export const fmtRate = (perSecond: number): string =>
  perSecond >= 100_000
    ? `${Math.round(perSecond / 1000).toLocaleString("en-US")}k`
    : Math.round(perSecond).toLocaleString("en-US");

export const fmtRatio = (x: number): string => `${x.toFixed(2)}x`;

/** A plain text table (also valid as a Markdown table). */
export const table = (header: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${"-".repeat(w + 1)}-` : `${"-".repeat(w + 1)}:`)).join("|")}|`;
  return [line(header), rule, ...rows.map(line)].join("\n");
};

/** "min–max" spread of per-repeat rates, for judging noise. */
export const spread = (samples: readonly Sample[]): string => {
  const rates = samples.map(rate);
  return `${fmtRate(Math.min(...rates))}–${fmtRate(Math.max(...rates))}`;
};

/**
 * One repeat of a side-by-side measurement, interleaved: the items in chunks, each chunk run by every side
 * back to back (the order rotating from chunk to chunk and repeat to repeat), each side's samples summed.
 * The machine's load drifts within seconds; interleaving puts every side under the same drift.
 */
export const interleaved = async <T>(
  items: readonly T[],
  chunk: number,
  repeat: number,
  sides: readonly ((slice: readonly T[], start: number) => Promise<Sample>)[],
): Promise<Sample[]> => {
  const sums = sides.map(() => ({ units: 0, ms: 0 }));
  for (let start = 0, c = 0; start < items.length; start += chunk, c++) {
    const slice = items.slice(start, start + chunk);
    for (let k = 0; k < sides.length; k++) {
      const side = (repeat + c + k) % sides.length;
      const s = await sides[side](slice, start);
      sums[side].units += s.units;
      sums[side].ms += s.ms;
    }
  }
  return sums;
};

/** `repeats` interleaved repeats of two sides: per repeat one sample each and the ratio rate(a) / rate(b). */
export const interleavedPairs = async <T>(
  repeats: number,
  items: readonly T[],
  chunk: number,
  a: (slice: readonly T[], start: number) => Promise<Sample>,
  b: (slice: readonly T[], start: number) => Promise<Sample>,
  setup?: (repeat: number) => void,
): Promise<PairResult> => {
  const result: PairResult = { a: [], b: [], ratios: [] };
  for (let r = 0; r < repeats; r++) {
    setup?.(r);
    const [sa, sb] = await interleaved(items, chunk, r, [a, b]);
    result.a.push(sa);
    result.b.push(sb);
    result.ratios.push(rate(sa) / rate(sb));
  }
  return result;
};

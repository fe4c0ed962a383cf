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

/**
 * Runs a and b side by side, `repeats` times, alternating which goes first (a b, b a, a b, ...) so a drift
 * in machine load or heap size does not favour one side. Each run gets a fresh `repeat` index.
 */
export const pairs = async (
  repeats: number,
  a: (repeat: number) => Promise<Sample>,
  b: (repeat: number) => Promise<Sample>,
): Promise<PairResult> => {
  const as: Sample[] = [];
  const bs: Sample[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < repeats; r++) {
    let sa: Sample;
    let sb: Sample;
    if (r % 2 === 0) {
      sa = await a(r);
      sb = await b(r);
    } else {
      sb = await b(r);
      sa = await a(r);
    }
    as.push(sa);
    bs.push(sb);
    ratios.push(rate(sa) / rate(sb));
  }
  return { a: as, b: bs, ratios };
};

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

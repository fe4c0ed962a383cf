/**
 * Charts of training runs: the numeric fields of each run's `metrics.jsonl` over updates, as SVG.
 *
 * A chart is a vega-lite spec compiled to vega and rendered in Node by a headless view (no canvas):
 * `lineChartSvg` draws any rows, `metricCharts` reads run folders and draws one chart per metric with
 * one coloured line per run, `plotRuns` writes them as files.
 */
import { existsSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve, sep } from "node:path";
import * as vega from "vega";
import type { TopLevelSpec } from "vega-lite";
import * as vl from "vega-lite";
import { liveLockHolder } from "../journal/lock.ts";
import { readMetricsText } from "../kernel/canonical.ts";
import { UsageError, writingFile } from "../kernel/errors.ts";
import { makeFolders } from "../kernel/folders.ts";
import { enclosingRun, shownPath } from "./journals.ts";
import { escapeUnseen } from "./unseen.ts";

/**
 * Options of lineChartSvg: the rows, which fields are x, y and the series, and titles and size (default 440 x 200).
 */
export interface LineChartOptions {
  readonly title: string;
  /** The data, one object per point. */
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** Field of the x value, of the y value, and of the line a row belongs to (one colour per value). */
  readonly x: string;
  readonly y: string;
  readonly series?: string;
  readonly xTitle?: string;
  readonly yTitle?: string;
  readonly seriesTitle?: string;
  /** Fixed y range, e.g. [0, 1] for a rate; default: fitted to the data, zero not forced. */
  readonly yDomain?: readonly [number, number];
  readonly width?: number;
  readonly height?: number;
  /** Draw a dot on each point; default: when no line has more than 60 points. */
  readonly points?: boolean;
}

const fmtNumber = (x: number) => String(Number(x.toPrecision(12)));
const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * A line chart of `rows` as an SVG document. Rows whose x or y is not a finite number are left out;
 * the lines' colours follow the order in which their series first appear.
 */
export const lineChartSvg = async (options: LineChartOptions): Promise<string> => {
  const xTitle = escapeUnseen(options.xTitle ?? options.x);
  const yTitle = escapeUnseen(options.yTitle ?? options.y);
  const seriesTitle = escapeUnseen(options.seriesTitle ?? options.series ?? "");
  // Fixed field names inside the spec: user field names may hold dots or brackets, which vega reads as paths.
  const values = options.rows
    .filter((row) => finite(row[options.x]) && finite(row[options.y]))
    .map((row) => ({
      x: row[options.x] as number,
      y: row[options.y] as number,
      s: options.series === undefined ? "" : escapeUnseen(String(row[options.series])),
    }));
  const series = [...new Set(values.map((v) => v.s))];
  // A flat line would get a domain of zero width, and axis labels like -0.400000: give it room either side.
  const ys = values.map((v) => v.y);
  const flat = ys.length > 0 && ys.every((y) => y === ys[0]);
  const room = Math.abs(ys[0] ?? 0) / 2 || 1;
  const longest = Math.max(0, ...series.map((s) => values.filter((v) => v.s === s).length));
  const many = series.length > 1;
  // Each point's description (its aria-label), written here: vega-lite would build it as an expression that
  // pastes the titles in unescaped, which a title with a newline or a backslash breaks (and could inject into).
  const described = values.map((v) => ({
    ...v,
    d: `${xTitle}: ${fmtNumber(v.x)}; ${yTitle}: ${fmtNumber(v.y)}${many ? `; ${seriesTitle}: ${v.s}` : ""}`,
  }));
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: escapeUnseen(options.title),
    width: options.width ?? 440,
    height: options.height ?? 200,
    background: "white",
    data: { values: described },
    mark: { type: "line", point: options.points ?? longest <= 60, strokeWidth: 2 },
    encoding: {
      x: {
        field: "x",
        type: "quantitative",
        title: xTitle,
        scale: { zero: false, nice: false },
        ...(values.every((v) => Number.isInteger(v.x)) ? { axis: { tickMinStep: 1, format: "d" } } : {}),
      },
      y: {
        field: "y",
        type: "quantitative",
        title: yTitle,
        scale: options.yDomain
          ? { domain: [...options.yDomain] }
          : flat
            ? { domain: [ys[0] - room, ys[0] + room] }
            : { zero: false },
      },
      ...(many
        ? {
            color: {
              field: "s",
              type: "nominal",
              title: seriesTitle,
              scale: { domain: series },
              legend: { orient: "bottom", labelLimit: 400 },
            },
          }
        : {}),
      description: { field: "d", type: "nominal" },
    },
    config: { font: "sans-serif", axis: { labelFontSize: 11, titleFontSize: 12 }, title: { fontSize: 14 } },
  };
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
};

// --- run folders ------------------------------------------------------------------------------------------

/** One run's metrics: the numeric fields of each line of its metrics.jsonl (nested objects flattened a.b). */
export interface RunMetrics {
  readonly dir: string;
  /** The run's name in legends: the folder's name, with parent folders where two runs share one. */
  readonly name: string;
  readonly rows: readonly Readonly<Record<string, number>>[];
}

/** What a chart of metrics.jsonl shows, in this order; other numeric fields follow when they vary. */
const HEADLINE: readonly (readonly [RegExp, string, (readonly [number, number])?])[] = [
  [/^meanReturn$/, "mean return"],
  [/^successRate$/, "success rate", [0, 1]],
  [/exact_?match|(^|\.)em$/i, "exact match", [0, 1]],
  [/(^|\.|mean)f1$/i, "F1", [0, 1]],
  [/accuracy$/i, "accuracy", [0, 1]],
  [/^meanProcessReward$/, "process reward per episode"],
  [/^meanOutcomeReward$/, "outcome reward per episode"],
  [/^kl$/, "KL to the initial policy"],
  [/^approxKl$/, "approximate KL, old to new policy"],
  [/^entropy$/, "entropy per action token"],
  [/^tokensPerSecond$/, "sampled tokens per second"],
];

const TITLES: Readonly<Record<string, string>> = {
  meanTurns: "turns per episode",
  aborted: "aborted episodes",
  droppedTooLong: "episodes too long to train on",
  cutToContext: "episodes cut to the context",
  degenerateGroups: "groups with one reward (no signal)",
  loss: "loss",
  policyLoss: "policy loss",
  valueLoss: "value loss",
  clipfrac: "clipped fraction",
  gradNorm: "gradient norm",
  skippedUpdates: "skipped updates",
  trainedTokens: "trained tokens",
  sampledTokens: "sampled tokens",
  sampleSeconds: "sampling seconds",
  trainSeconds: "training seconds",
  toolCalls: "tool calls",
  toolFailures: "failed tool calls",
  cutActions: "actions cut at the token budget",
};

/** Titles of the fields of the per-update counts and the environment's own metrics. */
const PREFIX_TITLES: readonly (readonly [string, string])[] = [
  ["endReasons.", "episodes that ended"],
  ["rewardCounts.", "non-zero rewards"],
  ["endMetrics.", "the environment's metric"],
];
const titleOf = (field: string): string => {
  const prefixed = PREFIX_TITLES.find(([prefix]) => field.startsWith(prefix));
  return prefixed ? `${prefixed[1]}: ${field.slice(prefixed[0].length)}` : (TITLES[field] ?? field);
};

/** Counts by key: an update that has none of a key counted zero of it (the key is absent from its line). */
const COUNTS = ["endReasons", "rewardCounts"] as const;

/** Fields that are the x axis or bookkeeping, never charted. */
const NOT_CHARTED = new Set(["step", "version", "episodes", "endMetrics.success"]);

const flatten = (value: Record<string, unknown>, prefix = "", out: Record<string, number> = {}, depth = 0) => {
  for (const [key, v] of Object.entries(value)) {
    if (finite(v)) out[prefix + key] = v;
    else if (v !== null && typeof v === "object" && !Array.isArray(v) && depth < 2)
      flatten(v as Record<string, unknown>, `${prefix}${key}.`, out, depth + 1);
  }
  return out;
};

/** Warnings go to stderr unless the caller takes them: a skipped line is never silent. */
const stderrWarn = (line: string) => {
  process.stderr.write(`${line}\n`);
};

/** Reads a run folder's metrics.jsonl; malformed lines are skipped, each with a warning naming it (stderr by default). */
export const readRunMetrics = (dir: string, warn: (line: string) => void = stderrWarn): RunMetrics => {
  if (!existsSync(dir)) throw new UsageError({ detail: `no such run folder: ${dir}` });
  if (!statSync(dir).isDirectory()) throw new UsageError({ detail: `${dir} is not a run folder (it is a file)` });
  const file = join(dir, "metrics.jsonl");
  if (!existsSync(file)) {
    // A folder inside a run (its checkpoints/, a checkpoint, episodes/): name the run to plot.
    const run = enclosingRun(dir);
    // A run stopped before its first update (during its warm start, or its evaluation before training): train
    // writes metrics.jsonl at the first update, so there is nothing to plot yet.
    const unstarted =
      existsSync(join(dir, "config.json")) &&
      (existsSync(join(dir, "checkpoints", "latest.json")) || existsSync(join(dir, "warm-start")));
    // Or one still in its warm start: the train running it holds the folder's lock (resuming it would be refused).
    const running = unstarted ? liveLockHolder(dir) : undefined;
    throw new UsageError({
      detail:
        run && run !== resolve(dir) && existsSync(join(run, "metrics.jsonl"))
          ? `${dir} has no metrics.jsonl: it is inside the run folder ${shownPath(run)}, which has one: plot ${shownPath(run)}`
          : running
            ? `${dir} is a run that has made no update yet: ${running.command} (pid ${running.pid}) is running it (train writes metrics.jsonl at its first update): nothing to plot yet; plot it again once it has made one`
            : unstarted
              ? `${dir} is a run that has made no update yet (train writes metrics.jsonl at its first; it stopped before): nothing to plot; \`agent-r1 train --out ${dir} --resume\` goes on with it`
              : `${dir} has no metrics.jsonl (a run folder written by \`agent-r1 train\` has one)`,
    });
  }
  const rows: Record<string, number>[] = [];
  const counted: (typeof COUNTS)[number][][] = [];
  readMetricsText(file)
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() === "") return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        warn(`${file}:${i + 1}: skipped a malformed line (not JSON): ${JSON.stringify(line.slice(0, 80))}`);
        return;
      }
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        warn(`${file}:${i + 1}: skipped a line that is not a JSON object`);
        return;
      }
      rows.push(flatten(value as Record<string, unknown>));
      counted.push(COUNTS.filter((c) => typeof (value as Record<string, unknown>)[c] === "object"));
    });
  for (const count of COUNTS) {
    const keys = new Set(rows.flatMap((row) => Object.keys(row).filter((k) => k.startsWith(`${count}.`))));
    rows.forEach((row, i) => {
      if (counted[i].includes(count)) for (const key of keys) row[key] ??= 0;
    });
  }
  return { dir, name: basename(resolve(dir)), rows };
};

/** Legend names: each folder's name, lengthened with its parents until the names differ. */
const runNames = (dirs: readonly string[]): string[] => {
  const parts = dirs.map((d) => resolve(d).split(sep).filter(Boolean));
  for (let depth = 1; ; depth++) {
    const names = parts.map((p) => p.slice(-depth).join("/"));
    if (new Set(names).size === names.length || depth >= Math.max(...parts.map((p) => p.length))) return names;
  }
};

/** The x of each row: the policy version after the update, else the update index, else the line's rank. */
const xOf = (rows: readonly Readonly<Record<string, number>>[]): { field: string; title: string } =>
  rows.length > 0 && rows.every((r) => finite(r.version))
    ? { field: "version", title: "policy version (updates)" }
    : rows.length > 0 && rows.every((r) => finite(r.step))
      ? { field: "step", title: "update" }
      : { field: "#", title: "line" };

export interface MetricChart {
  /** The metrics.jsonl field, and a file-name-safe form of it. */
  readonly field: string;
  readonly slug: string;
  readonly title: string;
  readonly svg: string;
}

/** The fields worth a chart: the headline ones present in any run, then the others that vary. */
export const chartedFields = (
  runs: readonly RunMetrics[],
): { field: string; title: string; domain?: [number, number] }[] => {
  const fields: string[] = [];
  for (const run of runs)
    for (const row of run.rows) for (const key of Object.keys(row)) if (!fields.includes(key)) fields.push(key);
  const picked: { field: string; title: string; domain?: [number, number] }[] = [];
  for (const [pattern, title, domain] of HEADLINE)
    for (const field of fields)
      if (pattern.test(field) && !picked.some((p) => p.field === field))
        picked.push({
          field,
          title: /^\^\w+\$$/.test(pattern.source) ? title : `${title} (${field})`,
          ...(domain ? { domain: [...domain] } : {}),
        });
  for (const field of fields) {
    if (NOT_CHARTED.has(field) || picked.some((p) => p.field === field)) continue;
    const values = runs.flatMap((run) => run.rows.map((r) => r[field]).filter(finite));
    if (values.some((v) => v !== values[0])) picked.push({ field, title: titleOf(field) });
  }
  return picked;
};

/** One chart per charted metric, one line per run (colour = run name when several runs are given). */
export const metricCharts = async (
  runDirs: readonly string[],
  warn: (line: string) => void = stderrWarn,
  size: { readonly width?: number; readonly height?: number } = {},
): Promise<MetricChart[]> => {
  if (runDirs.length === 0) throw new UsageError({ detail: "give at least one run folder" });
  const seen = new Map<string, string>();
  for (const dir of runDirs) {
    // The same folder by two names (a symbolic link, ./a and a/) is one run.
    const real = existsSync(dir) ? realpathSync(dir) : resolve(dir);
    const earlier = seen.get(real);
    if (earlier !== undefined)
      throw new UsageError({
        detail: `${dir} is given twice (also as ${earlier}); each run is one line, give each folder once`,
      });
    seen.set(real, dir);
  }
  const names = runNames(runDirs);
  const runs = runDirs.map((dir, i) => ({ ...readRunMetrics(dir, warn), name: names[i] }));
  for (const run of runs) if (run.rows.length === 0) warn(`${join(run.dir, "metrics.jsonl")}: no metrics yet`);
  const fields = chartedFields(runs);
  if (fields.length === 0)
    throw new UsageError({
      detail: `no numeric metrics to plot in ${runDirs.map((d) => join(d, "metrics.jsonl")).join(", ")}`,
    });
  const axes = runs.map((run) => xOf(run.rows));
  const xTitle = axes.every((a) => a.field === axes[0].field) ? axes[0].title : "update";
  const rows = runs.flatMap((run, i) =>
    run.rows.map((row, n) => ({ ...row, x: row[axes[i].field] ?? n + 1, run: run.name })),
  );
  const charts: MetricChart[] = [];
  const slugs = new Set<string>();
  for (const { field, title, domain } of fields) {
    const svg = await lineChartSvg({
      title,
      rows: rows.map((r) => ({ x: r.x, y: (r as Record<string, unknown>)[field], run: r.run })),
      x: "x",
      y: "y",
      series: "run",
      xTitle,
      yTitle: field,
      seriesTitle: "run",
      ...size,
      ...(domain ? { yDomain: domain } : {}),
    });
    // A file name per chart: short enough for any file system, and never another chart's (a<b and a>b are
    // both a-b, Loss and loss one file where case is ignored), or one chart would replace the other.
    const base = field.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 100);
    let slug = base;
    for (let n = 2; slugs.has(slug.toLowerCase()); n++) slug = `${base}-${n}`;
    slugs.add(slug.toLowerCase());
    charts.push({ field, slug, title, svg });
  }
  return charts;
};

/** Whether a file is a chart as plot writes them: vega's SVG (`<svg ... class="marks"`). */
const isVegaSvg = (file: string): boolean => {
  if (!statSync(file).isFile()) return false;
  const head = readFileSync(file, "utf8").slice(0, 400);
  // An empty file holds nothing to lose: an earlier plot cut short by a full disk (before charts were
  // written aside and renamed) left its chart so, and the same plot then refused to replace it.
  return head === "" || (head.startsWith("<svg") && head.includes('class="marks"'));
};

/**
 * Writes one SVG per charted metric of the given run folders into `outDir` (default: the first run's
 * `plots/` folder) and returns the written files, in chart order.
 */
export const plotRuns = async (
  runDirs: readonly string[],
  outDir: string = join(runDirs[0] ?? ".", "plots"),
  options: { readonly warn?: (line: string) => void } = {},
): Promise<string[]> => {
  const charts = await metricCharts(runDirs, options.warn);
  if (existsSync(outDir) && !statSync(outDir).isDirectory())
    throw new UsageError({ detail: `--out ${outDir} is a file, not a folder` });
  // A chart replaces a chart (vega's SVG, as plot writes it), never a file of the user's that has its name.
  const foreign = charts
    .map((chart) => join(outDir, `${chart.slug}.svg`))
    .filter((file) => existsSync(file) && !isVegaSvg(file));
  if (foreign.length > 0)
    throw new UsageError({
      detail: `--out ${outDir} holds ${foreign.map((f) => basename(f)).join(", ")}, which plot did not write and would replace: give another --out, or remove ${foreign.length === 1 ? "it" : "them"} first`,
    });
  makeFolders(outDir);
  return charts.map((chart) => {
    const file = join(outDir, `${chart.slug}.svg`);
    // Written aside and renamed: a full disk mid-write left an empty chart behind, not a chart.
    const temporary = `${file}.tmp-${process.pid}`;
    try {
      writingFile(file, () => writeFileSync(temporary, chart.svg));
      renameSync(temporary, file);
    } catch (cause) {
      rmSync(temporary, { force: true });
      throw cause;
    }
    return file;
  });
};

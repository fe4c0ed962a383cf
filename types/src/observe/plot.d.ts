/*
 * Charts of training runs: the numeric fields of each run's `metrics.jsonl` over updates, as SVG.
 *
 * A chart is a vega-lite spec compiled to vega and rendered in Node by a headless view (no canvas):
 * `lineChartSvg` draws any rows, `metricCharts` reads run folders and draws one chart per metric with
 * one coloured line per run, `plotRuns` writes them as files.
 */
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
/**
 * A line chart of `rows` as an SVG document. Rows whose x or y is not a finite number are left out;
 * the lines' colours follow the order in which their series first appear.
 */
export declare const lineChartSvg: (options: LineChartOptions) => Promise<string>;
/** One run's metrics: the numeric fields of each line of its metrics.jsonl (nested objects flattened a.b). */
export interface RunMetrics {
    readonly dir: string;
    /** The run's name in legends: the folder's name, with parent folders where two runs share one. */
    readonly name: string;
    readonly rows: readonly Readonly<Record<string, number>>[];
}
/** Reads a run folder's metrics.jsonl; malformed lines are skipped, each with a warning naming it (stderr by default). */
export declare const readRunMetrics: (dir: string, warn?: (line: string) => void) => RunMetrics;
export interface MetricChart {
    /** The metrics.jsonl field, and a file-name-safe form of it. */
    readonly field: string;
    readonly slug: string;
    readonly title: string;
    readonly svg: string;
}
/** The fields worth a chart: the headline ones present in any run, then the others that vary. */
export declare const chartedFields: (runs: readonly RunMetrics[]) => {
    field: string;
    title: string;
    domain?: [number, number];
}[];
/** One chart per charted metric, one line per run (colour = run name when several runs are given). */
export declare const metricCharts: (runDirs: readonly string[], warn?: (line: string) => void, size?: {
    readonly width?: number;
    readonly height?: number;
}) => Promise<MetricChart[]>;
/**
 * Writes one SVG per charted metric of the given run folders into `outDir` (default: the first run's
 * `plots/` folder) and returns the written files, in chart order.
 */
export declare const plotRuns: (runDirs: readonly string[], outDir?: string, options?: {
    readonly warn?: (line: string) => void;
}) => Promise<string[]>;

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { lockFolder, unlockFolder } from "../../src/journal/lock.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { chartedFields, lineChartSvg, plotRuns, readRunMetrics } from "../../src/observe/plot.ts";
import { tempDir } from "../support/index.ts";
import { metricsLine } from "./fixtures.ts";

const runWith = (lines: readonly string[], dir = join(tempDir(), "run")) => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "metrics.jsonl"), lines.map((l) => `${l}\n`).join(""));
  return dir;
};

describe("lineChartSvg", () => {
  it("draws rows as an SVG line chart, one coloured line per series, text escaped", async () => {
    const rows = [1, 2, 3].flatMap((x) => [
      { x, y: x * 2, run: "a" },
      { x, y: x * 3, run: "<script>b</script>" },
      { x, y: Number.NaN, run: "a" },
    ]);
    const svg = await lineChartSvg({ title: "reward & more", rows, x: "x", y: "y", series: "run", yTitle: "reward" });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain("reward &amp; more");
    expect(svg).toContain("&lt;script&gt;b&lt;/script&gt;");
    expect(svg).not.toContain("<script");
    expect(svg.match(/role-legend-symbol/g)?.length ?? 0).toBeGreaterThan(0);
  });

  it("takes any text in titles and series: newlines, backslashes, controls, lone surrogates; the SVG stays XML", async () => {
    const odd = 'a\nb\rc\u2028d\u2029e \\" + f \\ nul\u0000 bel\u0007 lone\ud800 <&"\'';
    const rows = [1, 2].flatMap((x) => [
      { x, y: x, run: `r1 ${odd}` },
      { x, y: 2 * x, run: "r2" },
    ]);
    const svg = await lineChartSvg({
      title: odd,
      rows,
      x: "x",
      y: "y",
      series: "run",
      xTitle: odd,
      yTitle: odd,
      seriesTitle: odd,
    });
    // Characters XML forbids (a file with one is no image) are written as \uXXXX.
    expect(svg).not.toMatch(/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u);
    expect(svg).toContain("nul\\u0000 bel\\u0007 lone\\ud800");
    // Each point still says what it is (its aria-label).
    expect(svg).toMatch(/aria-label="a[^"]*: 2; a[^"]*: 4; a[^"]*: r2"/);
  });

  it("reads fields with dots or brackets as names, not paths", async () => {
    const rows = [
      { "a.b": 1, "c[0]": 2 },
      { "a.b": 2, "c[0]": 3 },
    ];
    const svg = await lineChartSvg({ title: "t", rows, x: "a.b", y: "c[0]" });
    expect(svg).toContain("a.b");
    expect(svg).toContain("c[0]");
  });

  it("gives a flat line room either side: readable axis labels, not -0.400000", async () => {
    const svg = await lineChartSvg({ title: "t", rows: [1, 2, 3].map((x) => ({ x, y: -0.4 })), x: "x", y: "y" });
    const labels = [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(labels).toEqual(expect.arrayContaining(["−0.6", "−0.4", "−0.2"]));
    expect(labels.every((label) => !/\d\.\d{4,}/.test(label))).toBe(true);
  });
});

describe("plotRuns", () => {
  it("writes one SVG per metric into <run>/plots, skipping malformed lines with a warning naming them", async () => {
    const run = runWith([metricsLine(0), "{not json", metricsLine(1), "[1,2]", "", metricsLine(2)]);
    const warnings: string[] = [];
    const files = await plotRuns([run], undefined, { warn: (line) => warnings.push(line) });
    expect(files.map((f) => f.slice(run.length + 1))).toEqual([
      "plots/meanReturn.svg",
      "plots/successRate.svg",
      "plots/meanProcessReward.svg",
      "plots/kl.svg",
      "plots/entropy.svg",
      "plots/tokensPerSecond.svg",
      "plots/gradNorm.svg",
    ]);
    expect(warnings).toEqual([
      `${join(run, "metrics.jsonl")}:2: skipped a malformed line (not JSON): "{not json"`,
      `${join(run, "metrics.jsonl")}:4: skipped a line that is not a JSON object`,
    ]);
    const svg = readFileSync(files[1], "utf8");
    expect(svg).toContain("success rate");
    expect(svg).toContain("policy version (updates)");
  });

  it("reads a metrics.jsonl saved with a byte order mark, first update included", () => {
    const run = runWith([metricsLine(0), metricsLine(1)]);
    writeFileSync(join(run, "metrics.jsonl"), `\uFEFF${readFileSync(join(run, "metrics.jsonl"), "utf8")}`);
    const warnings: string[] = [];
    expect(readRunMetrics(run, (line) => warnings.push(line)).rows.map((r) => r.step)).toEqual([0, 1]);
    expect(warnings).toEqual([]);
  });

  it("agent-r1 plot of a run whose metrics.jsonl is a folder names it (Node's EISDIR names no path)", async () => {
    const run = join(tempDir(), "run");
    mkdirSync(join(run, "metrics.jsonl"), { recursive: true });
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["plot", run])).toBe(2);
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        `error: ${join(run, "metrics.jsonl")} is a folder; a run's metrics.jsonl is a file, one JSON line per update\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
  });

  it("overlays several runs, one colour per run, and tells apart runs of the same name", async () => {
    const root = tempDir();
    const a = runWith([metricsLine(0), metricsLine(1)], join(root, "a", "grpo"));
    const b = runWith([metricsLine(0, { meanReturn: 0.9 }), metricsLine(1)], join(root, "b", "grpo"));
    const out = join(root, "charts");
    const files = await plotRuns([a, b], out);
    expect(files[0]).toBe(join(out, "meanReturn.svg"));
    const svg = readFileSync(files[0], "utf8");
    expect(svg).toContain("a/grpo");
    expect(svg).toContain("b/grpo");
  });

  it("gives each chart a file of its own: names that slug alike, or too long for a file name (reasons as counted)", async () => {
    const long = `malformed: ${"y".repeat(300)}`;
    const run = runWith(
      [0, 1, 2].map((step) =>
        JSON.stringify({ step, meanReturn: step, rewardCounts: { "a<b": step, "a>b": 5 - step, [long]: 2 * step } }),
      ),
    );
    const files = await plotRuns([run]);
    expect(new Set(files).size).toBe(4);
    expect(files.every((f) => existsSync(f) && basename(f).length <= 120)).toBe(true);
    expect(files.map((f) => basename(f)).slice(1, 3)).toEqual(["rewardCounts-a-b.svg", "rewardCounts-a-b-2.svg"]);
    expect(readFileSync(files[2], "utf8")).toContain("a&gt;b");
  });

  it("replaces its own charts, never a file of the user's with a chart's name", async () => {
    const root = tempDir();
    const run = runWith([metricsLine(0), metricsLine(1, { meanReturn: 0.9 })], join(root, "grpo"));
    const out = join(root, "charts");
    mkdirSync(out);
    writeFileSync(join(out, "meanReturn.svg"), "<svg>my own drawing</svg>");
    await expect(plotRuns([run], out)).rejects.toThrow(
      `--out ${out} holds meanReturn.svg, which plot did not write and would replace: give another --out, or remove it first`,
    );
    expect(readFileSync(join(out, "meanReturn.svg"), "utf8")).toBe("<svg>my own drawing</svg>");
    rmSync(join(out, "meanReturn.svg"));
    const files = await plotRuns([run], out);
    expect(await plotRuns([run], out)).toEqual(files);
  });

  it("agent-r1 plot into a full disk (ulimit -f) leaves no empty chart behind, and the same plot then writes them all", () => {
    const run = runWith([metricsLine(0), metricsLine(1, { meanReturn: 0.9 })]);
    const out = join(run, "plots");
    const plot = (limit: string) =>
      spawnSync("bash", ["-c", `${limit}exec node bin/agent-r1.js plot ${JSON.stringify(run)}`], {
        encoding: "utf8",
        timeout: 60_000,
      });
    // 1 KiB per file: the first chart's write fails (EFBIG; Node ignores SIGXFSZ).
    const full = plot("ulimit -f 1; ");
    expect(full.status, full.stderr).toBe(2);
    expect(full.stderr).toMatch(/^error: EFBIG: file too large, write .*\(ulimit -f\)/m);
    // It used to leave meanReturn.svg empty, which the next plot refused as "not written by plot".
    expect(readdirSync(out)).toEqual([]);
    const done = plot("");
    expect(done.status, done.stderr).toBe(0);
    expect(readdirSync(out)).toContain("meanReturn.svg");
    expect(readdirSync(out).some((name) => name.includes(".tmp-"))).toBe(false);
  });

  it("replaces an empty chart (an earlier plot cut short by a full disk left it so)", async () => {
    const run = runWith([metricsLine(0), metricsLine(1)]);
    const out = join(run, "plots");
    mkdirSync(out);
    writeFileSync(join(out, "meanReturn.svg"), "");
    const files = await plotRuns([run], out);
    expect(readFileSync(files[0], "utf8")).toContain('class="marks"');
  });

  it("refuses a folder given twice (it would draw one line for two), and warns on stderr by default", async () => {
    const run = runWith([metricsLine(0), "{not json", metricsLine(1)]);
    await expect(plotRuns([run, `${run}/`], join(tempDir(), "charts"))).rejects.toThrow(
      `${run}/ is given twice (also as ${run}); each run is one line, give each folder once`,
    );
    // Through a symbolic link too.
    const link = join(tempDir(), "link");
    symlinkSync(run, link);
    await expect(plotRuns([run, link], join(tempDir(), "charts"))).rejects.toThrow(`${link} is given twice`);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      await plotRuns([run], join(tempDir(), "charts"));
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        `${join(run, "metrics.jsonl")}:2: skipped a malformed line (not JSON): "{not json"\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
  });

  it("charts headline fields always, other fields when they vary, nested metrics too", () => {
    const run = readRunMetrics(
      runWith([metricsLine(0, { metrics: { exactMatch: 0.1 } }), metricsLine(1, { metrics: { exactMatch: 0.3 } })]),
    );
    const fields = chartedFields([run]).map((f) => f.field);
    expect(fields.slice(0, 3)).toEqual(["meanReturn", "successRate", "metrics.exactMatch"]);
    expect(fields).not.toContain("valueLoss"); // always 0
    expect(fields).not.toContain("version");
  });

  it("counts by reason: an update without a reason counted it zero; titled by what they count", () => {
    const run = readRunMetrics(
      runWith([
        metricsLine(0, { endReasons: { answered: 6 }, rewardCounts: {} }),
        metricsLine(1, { endReasons: { answered: 4, "turn-limit": 2 }, rewardCounts: { malformed: 3 } }),
        metricsLine(2), // a run written before the counts: nothing made up
      ]),
    );
    expect(run.rows.map((r) => r["endReasons.turn-limit"])).toEqual([0, 2, undefined]);
    expect(run.rows.map((r) => r["rewardCounts.malformed"])).toEqual([0, 3, undefined]);
    const titles = Object.fromEntries(chartedFields([run]).map((f) => [f.field, f.title]));
    expect(titles["endReasons.turn-limit"]).toBe("episodes that ended: turn-limit");
    expect(titles["rewardCounts.malformed"]).toBe("non-zero rewards: malformed");
  });

  it("refuses a missing folder and a folder without metrics.jsonl with a usage error", async () => {
    const empty = tempDir();
    await expect(plotRuns([join(empty, "nope")])).rejects.toThrow(UsageError);
    await expect(plotRuns([empty])).rejects.toThrow(/has no metrics\.jsonl/);
    expect(existsSync(join(empty, "plots"))).toBe(false);
  });

  it("a run stopped before its first update (no metrics.jsonl yet) is refused as such, with the command that goes on", async () => {
    // As train leaves it when stopped during its warm start: config.json, the warm start, checkpoint v00000.
    const run = tempDir();
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "lookup" }));
    mkdirSync(join(run, "warm-start"));
    mkdirSync(join(run, "checkpoints", "v00000"), { recursive: true });
    writeFileSync(join(run, "checkpoints", "latest.json"), JSON.stringify({ version: 0, dir: "v00000" }));
    await expect(plotRuns([run])).rejects.toThrow(
      `${run} is a run that has made no update yet (train writes metrics.jsonl at its first; it stopped before): nothing to plot; \`agent-r1 train --out ${run} --resume\` goes on with it`,
    );
  });

  it("a run still in its warm start (train holds its lock) is said to be running, not stopped and to resume", async () => {
    // As train leaves it while its warm start runs: config.json, warm-start/, and the lock of the live train.
    const run = tempDir();
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "lookup" }));
    mkdirSync(join(run, "warm-start"));
    lockFolder(run, "train");
    try {
      const refused = plotRuns([run]);
      await expect(refused).rejects.toThrow(
        `${run} is a run that has made no update yet: train (pid ${process.pid}) is running it (train writes metrics.jsonl at its first update): nothing to plot yet; plot it again once it has made one`,
      );
      await expect(plotRuns([run])).rejects.not.toThrow(/--resume/);
    } finally {
      unlockFolder(run);
    }
  });

  it("a folder inside a run (its checkpoints/, a checkpoint) is refused naming the run to plot", async () => {
    const run = runWith([metricsLine(0)]);
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "lookup" }));
    const checkpoint = join(run, "checkpoints", "v00001");
    mkdirSync(checkpoint, { recursive: true });
    writeFileSync(join(run, "checkpoints", "latest.json"), JSON.stringify({ version: 1, dir: "v00001" }));
    for (const dir of [join(run, "checkpoints"), checkpoint])
      await expect(plotRuns([dir])).rejects.toThrow(
        `${dir} has no metrics.jsonl: it is inside the run folder ${run}, which has one: plot ${run}`,
      );
  });

  it("agent-r1 plot prints the written files", () => {
    const run = runWith([metricsLine(0), metricsLine(1)]);
    const done = spawnSync(process.execPath, ["bin/agent-r1.js", "plot", run], { encoding: "utf8", timeout: 60_000 });
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout.split("\n")[0]).toBe(join(run, "plots", "meanReturn.svg"));
  });

  it("agent-r1 plot of a missing folder, or of one without metrics.jsonl, exits 2 with one line", async () => {
    const run = runWith([metricsLine(0)]);
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await main(["plot", run, join(run, "missing")])).toBe(2);
      expect(await main(["plot", join(run, "..")])).toBe(2);
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        `error: no such run folder: ${join(run, "missing")}\n`,
        `error: ${join(run, "..")} has no metrics.jsonl (a run folder written by \`agent-r1 train\` has one)\n`,
      ]);
    } finally {
      stderr.mockRestore();
    }
  });
});

/**
 * `npm run bench`: three figures, each measured side by side in one run, medians over repeats
 * (the machines are shared and noisy). Prints a table and writes docs/bench.md (with bench/notes.md appended).
 *
 * Options: `--quick` (smaller workloads, for a smoke run), `--repeats N`, `--no-write` (do not touch
 * docs/bench.md), `--figure 1` (figure 1 alone, printed only: its ratio per repeat, in a minute or two).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, tmpdir } from "node:os";
import { join } from "node:path";
import canonicalize from "canonicalize";
import { canonicalJson } from "../src/kernel/canonical.ts";
import { interleavedAppend, journalWriter, rawWriter } from "./journal.ts";
import { type ActionScript, recordLookup, restamp, scriptsOf } from "./record.ts";
import { bareFold, readAndReplay, replayVerify } from "./replay.ts";
import {
  fmtRate,
  fmtRatio,
  interleavedPairs,
  median,
  type PairResult,
  rate,
  type Sample,
  spread,
  table,
  timed,
} from "./stats.ts";
import { bareSteps, expectSteps, freshJournal, runtimeSteps } from "./steps.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const write = !args.includes("--no-write");
// `--repeats N` or `--repeats=N` (as commander takes it in bench/all.ts, which passes its arguments on): the
// second form was not seen, and the run measured 5 repeats.
const repeatsArg = args.findIndex((a) => a === "--repeats" || a.startsWith("--repeats="));
const repeatsText =
  repeatsArg < 0 ? "5" : args[repeatsArg].startsWith("--repeats=") ? args[repeatsArg].slice(10) : args[repeatsArg + 1];
// A count it cannot run (abc, 0) printed NaN rates and an empty per-repeat list: refused, as --figure 2 is.
if (repeatsText === undefined || !/^\d+$/.test(repeatsText) || Number(repeatsText) < 1 || Number(repeatsText) > 1000) {
  process.stderr.write(
    `bench: --repeats ${repeatsText === undefined ? "without a number" : JSON.stringify(repeatsText)}: give a whole number from 1 to 1000\n`,
  );
  process.exit(2);
}
const REPEATS = Number(repeatsText);
const figureArg = args.findIndex((a) => a === "--figure" || a.startsWith("--figure="));
/** Only this figure ("1"), printed and not written: figure 1 is the one the runtime's changes move. */
const onlyFigure =
  figureArg < 0 ? undefined : args[figureArg].startsWith("--figure=") ? args[figureArg].slice(9) : args[figureArg + 1];
if (figureArg >= 0 && onlyFigure !== "1") {
  process.stderr.write(
    `bench: --figure ${onlyFigure === undefined ? "without a number" : JSON.stringify(onlyFigure)}: only figure 1 runs alone (--figure 1)\n`,
  );
  process.exit(2);
}
const CONCURRENCY = 32;
/** Episodes per repeat of figure 1 (each about 2.5 steps), of figure 2 (one fsync each) and of figure 3. */
const STEP_EPISODES = quick ? 400 : 1600;
const JOURNAL_EPISODES = quick ? 50 : 250;
const REPLAY_EPISODES = quick ? 200 : 800;
/** Both sides of a figure run chunk by chunk (episodes per chunk), interleaved. */
const STEP_CHUNK = quick ? 100 : 400;
const REPLAY_CHUNK = quick ? 50 : 200;
const FILE_CHUNK = quick ? 25 : 50;
/** Start-ups of the CLI per side and repeat (figure 4). */
const STARTS = quick ? 2 : 4;

const log = (line: string) => process.stderr.write(`${line}\n`);
const medianRate = (samples: readonly Sample[]) => median(samples.map(rate));

const main = async () => {
  const started = Date.now();
  const root = mkdtempSync(join(tmpdir(), "agent-r1-bench-"));
  try {
    const recordEpisodes = Math.max(STEP_EPISODES, REPLAY_EPISODES, JOURNAL_EPISODES);
    log(`recording ${recordEpisodes} lookup episodes (MemoryJournal) ...`);
    const records = await recordLookup(recordEpisodes, CONCURRENCY);
    const stepRecords = records.slice(0, STEP_EPISODES);
    const scripts = scriptsOf(stepRecords);
    const expectedSteps = stepRecords.reduce((n, r) => n + r.turns, 0);

    // Figure 1 ------------------------------------------------------------------------------------------
    log(`figure 1: ${STEP_EPISODES} episodes, ${expectedSteps} steps per repeat, ${REPEATS} repeats ...`);
    let journal = freshJournal(root);
    const runtimeSide = async (slice: readonly ActionScript[], start: number) =>
      expectSteps(slice, await runtimeSteps(journal, start, slice.length, CONCURRENCY), "runtime");
    const bareSide = async (slice: readonly ActionScript[]) =>
      expectSteps(slice, await bareSteps(slice, CONCURRENCY), "bare");
    await interleavedPairs(1, scripts.slice(0, 200), STEP_CHUNK, runtimeSide, bareSide); // warm-up
    const steps = await interleavedPairs(REPEATS, scripts, STEP_CHUNK, runtimeSide, bareSide, () => {
      journal = freshJournal(root);
    });
    const overhead = median(steps.ratios.map((r) => 1 / r));
    if (onlyFigure === "1") {
      process.stdout.write(
        [
          `command: npm run bench -- ${args.join(" ")}`,
          `node: ${process.version}, cpu: ${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} logical cores)`,
          `figure 1, env steps/s: runtime ${fmtRate(medianRate(steps.a))}, bare actor ${fmtRate(medianRate(steps.b))}: ${fmtRatio(overhead)} time/step (target ≤ 3x: ${overhead <= 3 ? "met" : "MISSED"})`,
          `figure 1 overhead per repeat: ${steps.ratios.map((r) => fmtRatio(1 / r)).join(", ")}`,
          `load average (1, 5, 15 min) at the end: ${loadavg()
            .map((l) => l.toFixed(2))
            .join(", ")}`,
          "",
        ].join("\n"),
      );
      return;
    }
    // Thousands of journal files: removed now, so the reported total includes removing them.
    for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });

    // Figure 2 ------------------------------------------------------------------------------------------
    const journalEpisodes = records.slice(0, JOURNAL_EPISODES).map((r, i) => restamp(r.events, `j-${i}`));
    const journalEvents = journalEpisodes.reduce((n, e) => n + e.length, 0);
    log(`figure 2: ${JOURNAL_EPISODES} episodes, ${journalEvents} events per repeat ...`);
    const writers = (tag: string) => [
      journalWriter(join(root, `journal-${tag}`)),
      rawWriter(join(root, `raw-${tag}`), false),
      rawWriter(join(root, `rawdir-${tag}`), true),
    ];
    await interleavedAppend(writers("warm"), journalEpisodes.slice(0, 20));
    const appends: PairResult = { a: [], b: [], ratios: [] };
    const appendsDir: PairResult = { a: [], b: [], ratios: [] };
    for (let r = 0; r < REPEATS; r++) {
      const [journal, raw, rawDir] = await interleavedAppend(writers(String(r)), journalEpisodes);
      appends.a.push(journal);
      appends.b.push(raw);
      appends.ratios.push(rate(journal) / rate(raw));
      appendsDir.a.push(journal);
      appendsDir.b.push(rawDir);
      appendsDir.ratios.push(rate(journal) / rate(rawDir));
    }

    // Figure 3 ------------------------------------------------------------------------------------------
    const replayEpisodes = records.slice(0, REPLAY_EPISODES).map((r, i) => restamp(r.events, `r-${i}`));
    const replayEvents = replayEpisodes.reduce((n, e) => n + e.length, 0);
    log(`figure 3: ${REPLAY_EPISODES} episodes, ${replayEvents} events per repeat ...`);
    await replayVerify(replayEpisodes.slice(0, 200));
    await bareFold(replayEpisodes.slice(0, 200));
    const replays = await interleavedPairs(REPEATS, replayEpisodes, REPLAY_CHUNK, replayVerify, bareFold);
    const dir = join(root, "journal-0");
    const files = readdirSync(dir)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .map((f) => join(dir, f));
    const disk = await interleavedPairs(
      REPEATS,
      files,
      FILE_CHUNK,
      (slice) => readAndReplay(slice, true),
      (slice) => readAndReplay(slice, false),
    );

    // Figure 1b -----------------------------------------------------------------------------------------
    // What every event costs to hash: canonicalJson against the RFC 8785 reference library it replaced.
    const hashed = replayEpisodes.flat();
    log(`figure 1b: ${hashed.length} events per repeat ...`);
    const canonicalSide = (fn: (value: unknown) => string | undefined) => (slice: readonly object[]) =>
      timed(() => {
        for (const event of slice) fn(event);
        return slice.length;
      });
    const canonical = await interleavedPairs(
      REPEATS,
      hashed,
      2000,
      canonicalSide(canonicalJson),
      canonicalSide(canonicalize),
    );

    // Figure 4 ------------------------------------------------------------------------------------------
    // The CLI's start-up, as bin/agent-r1.js runs it (bin/preload.js loads the heavy packages before tsx's
    // loader) against the same main() reached through tsx alone: every command, and every test that runs
    // one, pays it.
    log(`figure 4: ${STARTS} start-ups of agent-r1 --version per side and repeat ...`);
    const bare = [
      'import { register } from "tsx/esm/api";',
      "register();",
      'const { main } = await import("./src/cli/main.ts");',
      'process.exitCode = await main(["--version"]);',
    ].join("\n");
    const start = (args: readonly string[]) => () =>
      timed(() => {
        const run = spawnSync(process.execPath, args, { encoding: "utf8" });
        if (run.status !== 0 || !/^\d+\.\d+\.\d+/.test(run.stdout))
          throw new Error(`figure 4: node ${args.join(" ")} failed: ${run.stderr}`);
        return 1;
      });
    const starts = await interleavedPairs(
      REPEATS,
      Array.from({ length: STARTS }, (_, i) => i),
      1,
      start(["bin/agent-r1.js", "--version"]),
      start(["--input-type=module", "-e", bare]),
    );

    // Report --------------------------------------------------------------------------------------------
    const verdict = (ok: boolean) => (ok ? "met" : "MISSED");
    const appendRatio = median(appends.ratios);
    const summary = table(
      ["figure", "framework", "baseline", "ratio (median of pairs)", "target"],
      [
        [
          "1. env steps/s: runtime vs bare actor",
          fmtRate(medianRate(steps.a)),
          fmtRate(medianRate(steps.b)),
          `${fmtRatio(overhead)} time/step`,
          `≤ 3x: ${verdict(overhead <= 3)}`,
        ],
        [
          "1b. events/s canonical JSON (each event hashed): canonicalJson vs canonicalize",
          fmtRate(medianRate(canonical.a)),
          fmtRate(medianRate(canonical.b)),
          `${fmtRatio(median(canonical.ratios))} throughput`,
          "(reported)",
        ],
        [
          "2. events/s appended, fsync/episode: journal vs raw",
          fmtRate(medianRate(appends.a)),
          fmtRate(medianRate(appends.b)),
          `${fmtRatio(appendRatio)} throughput`,
          `≥ 0.5x: ${verdict(appendRatio >= 0.5)}`,
        ],
        [
          "2b. same, raw also fsyncs the folder (journal's guarantee)",
          fmtRate(medianRate(appendsDir.a)),
          fmtRate(medianRate(appendsDir.b)),
          `${fmtRatio(median(appendsDir.ratios))} throughput`,
          "(reported)",
        ],
        [
          "3. events/s replay-verify vs bare transition fold",
          fmtRate(medianRate(replays.a)),
          fmtRate(medianRate(replays.b)),
          `${fmtRatio(median(replays.ratios))} throughput`,
          "(reported)",
        ],
        [
          "3b. events/s from disk: read + replay vs read only",
          fmtRate(medianRate(disk.a)),
          fmtRate(medianRate(disk.b)),
          `${fmtRatio(median(disk.ratios))} throughput`,
          "(reported)",
        ],
        [
          "4. CLI start-ups/s (agent-r1 --version): with bin/preload.js vs tsx alone",
          medianRate(starts.a).toFixed(2),
          medianRate(starts.b).toFixed(2),
          `${fmtRatio(median(starts.ratios))} throughput`,
          "(reported)",
        ],
      ],
    );
    const detail = table(
      ["measurement", "work per repeat", "median /s", "min–max /s"],
      [
        row("runtime: rollout + JsonlJournal 'none', c=32", `${expectedSteps} steps`, steps.a),
        row("bare: createActor + send, await tool", `${expectedSteps} steps`, steps.b),
        row("JsonlJournal 'episode' (create/append/close)", `${journalEvents} events`, appends.a),
        row("raw: stringify + writeSync + fsync per file", `${journalEvents} events`, appends.b),
        row("raw + fsync of the folder per file", `${journalEvents} events`, appendsDir.b),
        row("replayEpisode (verify), in memory", `${replayEvents} events`, replays.a),
        row("bare initialTransition/transition fold", `${replayEvents} events`, replays.b),
        row("readJournalFile + replayEpisode", `${journalEvents} events`, disk.a),
        row("readJournalFile only", `${journalEvents} events`, disk.b),
        row("canonicalJson (safe-stable-stringify)", `${hashed.length} events`, canonical.a),
        row("canonicalize (the reference library)", `${hashed.length} events`, canonical.b),
        slowRow("bin/agent-r1.js --version", `${STARTS} start-ups`, starts.a),
        slowRow("the same main() under tsx alone", `${STARTS} start-ups`, starts.b),
      ],
    );
    const perRepeat = [
      `figure 1 overhead per repeat: ${steps.ratios.map((r) => fmtRatio(1 / r)).join(", ")}`,
      `figure 2 journal/raw per repeat: ${ratiosOf(appends)}`,
      `figure 2b journal/(raw + folder fsync) per repeat: ${ratiosOf(appendsDir)}`,
      `figure 3 replay/bare per repeat: ${ratiosOf(replays)}`,
      `figure 3b read+replay/read per repeat: ${ratiosOf(disk)}`,
      `figure 1b canonicalJson/canonicalize per repeat: ${ratiosOf(canonical)}`,
      `figure 4 preload/tsx alone per repeat: ${ratiosOf(starts)}`,
    ].join("\n");
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    const cpu = cpus();
    const machine = `${cpu[0]?.model ?? "unknown CPU"} (${cpu.length} logical cores), ${platform()} ${release()}`;
    const header = [
      `command: npm run bench${args.length ? ` -- ${args.join(" ")}` : ""}`,
      `date: ${new Date(started).toISOString()}`,
      `node: ${process.version}`,
      `cpu: ${machine}`,
      // Absolute figures (and fig. 4's share of peak in bench-learner.md) move with what else ran.
      `load average (1, 5, 15 min) at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")}`,
      `repeats: ${REPEATS}, each side by side, interleaved in chunks (episodes: ${STEP_CHUNK} fig. 1, 1 fig. 2, ${REPLAY_CHUNK} fig. 3, ${FILE_CHUNK} files fig. 3b); total ${seconds} s`,
    ].join("\n");
    const text = `${header}\n\n${summary}\n\n${detail}\n\n${perRepeat}\n`;
    process.stdout.write(`\n${text}`);

    if (write) {
      const notesFile = new URL("./notes.md", import.meta.url);
      const notes = existsSync(notesFile) ? readFileSync(notesFile, "utf8") : "";
      const doc = [
        "# Benchmarks",
        "",
        "Generated by `npm run bench` (bench/index.ts); the notes at the end are bench/notes.md.",
        "Ratios are medians of per-repeat ratios; in each repeat the sides take turns chunk by chunk over the",
        "same work (the order rotating), so load drift hits both alike; rates are medians over the repeats.",
        "Shared, noisy machine: trust the ratios more than the absolute rates.",
        "",
        "```",
        header,
        "```",
        "",
        summary,
        "",
        detail,
        "",
        "```",
        perRepeat,
        "```",
        "",
        notes,
      ].join("\n");
      writeFileSync(new URL("../docs/bench.md", import.meta.url), doc);
      log("wrote docs/bench.md");
    }
  } finally {
    const t0 = Date.now();
    rmSync(root, { recursive: true, force: true });
    log(`removed the temp folder in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
};

const row = (name: string, work: string, samples: readonly Sample[]) => [
  name,
  work,
  fmtRate(medianRate(samples)),
  spread(samples),
];
/** A row of rates near 1/s (figure 4), with two decimals where fmtRate rounds to whole units. */
const slowRow = (name: string, work: string, samples: readonly Sample[]) => {
  const rates = samples.map(rate);
  return [
    name,
    work,
    medianRate(samples).toFixed(2),
    `${Math.min(...rates).toFixed(2)}–${Math.max(...rates).toFixed(2)}`,
  ];
};
const ratiosOf = (p: PairResult) => p.ratios.map(fmtRatio).join(", ");

await main();

/**
 * Bounded memory: `agent-r1 replay` over 1,000,000 events, measured as the peak resident set size of the
 * child process that runs it (getrusage's ru_maxrss, reported by the child itself at exit).
 *
 *   npm run bench:memory                      # 1,000,000 events, limit 256 MB
 *   node bin/run-ts.js bench/replay-memory.ts [events=1000000] [limitMb=256]
 *
 * The journals are generated into a temp folder (removed afterwards): real `lookup` episodes (random
 * policy) recorded once, then re-stamped under new episode ids until the folder holds the asked number
 * of events, so every file verifies. Three runs:
 * - `replay <dir>`: read and validate every file (streamed, one line at a time);
 * - `replay <dir> --verify`: read each file and replay-verify it (one episode in memory at a time);
 * - the same with V8's heap sized for streaming (`node --max-old-space-size=128 --max-semi-space-size=4`):
 *   live memory that grew with the number of events would end in an out-of-memory crash. With V8's
 *   default sizes (up to 16 MB semi-spaces, an old space that grows before it is collected) the peak of
 *   --verify says more about V8's heuristics than about replay: it is reported, not held to the limit
 *   (the live heap after a full GC stays near 40 MB from the first file to the last);
 * - `replay <file>`: one file of the same number of events (one synthetic episode), read without
 *   --verify, to show that reading does not grow with the size of a file either.
 * Exit code 1 when a run fails or goes over the limit.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lastValueFrom, toArray } from "rxjs";
import { lookupEnv } from "../actors/lookup/index.ts";
import { randomPolicy } from "../actors/lookup/policies.ts";
import { type EpisodeEvent, type EventBody, MemoryJournal, PolicyActor } from "../src/index.ts";
import { EpisodeChain } from "../src/journal/stamp.ts";
import { rollout } from "../src/runtime/rollout.ts";

const target = Number(process.argv[2] ?? 1_000_000);
const limitMb = Number(process.argv[3] ?? 256);
const root = fileURLToPath(new URL("../", import.meta.url));

const bodyOf = (event: EpisodeEvent): EventBody => {
  const { v: _v, episode: _e, seq: _s, prev: _p, digest: _d, meta: _m, ...body } = event;
  return body as EventBody;
};

/** Writes lookup journals holding at least `target` events; returns files and events. */
const generateFolder = async (dir: string): Promise<{ files: number; events: number }> => {
  const base = await lastValueFrom(
    rollout({
      env: lookupEnv,
      policy: new PolicyActor(randomPolicy()),
      journal: new MemoryJournal(),
      seed: "memory-bench",
      episodes: 400,
      concurrency: 32,
    }).episodes.pipe(toArray()),
  );
  const bodies = base.map((record) => record.events.map(bodyOf));
  let events = 0;
  let files = 0;
  for (let copy = 0; events < target; copy++)
    for (const [i, episode] of bodies.entries()) {
      if (events >= target) break;
      const chain = new EpisodeChain(`ep-m${copy}-${i}`);
      let text = "";
      for (const body of episode) text += `${JSON.stringify(chain.stamp(body))}\n`;
      writeFileSync(join(dir, `${chain.episode}.jsonl`), text);
      events += episode.length;
      files += 1;
    }
  return { files, events };
};

/** One file of `target` events: a synthetic episode of observations (valid for reading, not for --verify). */
const generateFile = (file: string): number => {
  const chain = new EpisodeChain("ep-one-file");
  const lines: string[] = [];
  const flush = () => {
    writeFileSync(file, lines.join(""), { flag: "a" });
    lines.length = 0;
  };
  const push = (body: EventBody) => {
    lines.push(`${JSON.stringify(chain.stamp(body))}\n`);
    if (lines.length >= 10_000) flush();
  };
  push({
    type: "episode.started",
    env: { id: "lookup", version: "1" },
    task: { key: "k1", hops: 1 },
    seed: "one-file",
    policy: { id: "synthetic", version: 0 },
    tokenizer: lookupEnv.tokenizer.id,
  });
  for (let i = 1; i < target - 1; i++)
    push({ type: "env.observed", turn: i, text: `observation ${i}`, tokens: [i % 300, (i * 7) % 300, 5] });
  push({ type: "episode.ended", reason: "synthetic", return: 0, turns: 0, metrics: {} });
  flush();
  return target;
};

/** V8 heap sizes for streaming: a young generation of 4 MB semi-spaces, an old space of at most 128 MB. */
const STREAMING_HEAP = ["--max-old-space-size=128", "--max-semi-space-size=4"];

interface Measured {
  readonly what: string;
  /** Held to the limit (the run with V8's default heap sizes is reported, not held: see the header). */
  readonly held: boolean;
  readonly seconds: number;
  readonly peakMb: number;
  readonly ok: boolean;
  readonly summary: string;
}

/** Runs the CLI in a child process that reports its own peak RSS when it exits. */
const measure = (what: string, args: string[], dir: string, nodeFlags: string[] = [], held = true): Measured => {
  const rssFile = join(dir, "rss.txt");
  const reporter = join(dir, "report-rss.mjs");
  writeFileSync(
    reporter,
    `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [...nodeFlags, "--import", pathToFileURL(reporter).href, join(root, "bin/agent-r1.js"), ...args],
    { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - started) / 1000;
  let peakKb = Number.NaN;
  try {
    peakKb = Number(readFileSync(rssFile, "utf8"));
    rmSync(rssFile);
  } catch {}
  const summary = run.stdout.trim().split("\n").at(-1) ?? "";
  return {
    what,
    held,
    seconds,
    peakMb: peakKb / 1024,
    ok: run.status === 0,
    summary: summary || run.stderr.slice(0, 300),
  };
};

const dir = mkdtempSync(join(tmpdir(), "agent-r1-memory-bench-"));
try {
  const journals = join(dir, "journals");
  mkdirSync(journals);
  let t = performance.now();
  const { files, events } = await generateFolder(journals);
  console.log(`generated ${events} events in ${files} journals (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  t = performance.now();
  const single = join(dir, "ep-one-file.jsonl");
  generateFile(single);
  console.log(`generated one journal of ${target} events (${((performance.now() - t) / 1000).toFixed(1)} s)`);

  const runs = [
    measure(`replay <dir>: ${events} events in ${files} files`, ["replay", journals, "--quiet"], dir),
    measure(
      `replay <dir> --verify: ${events} events in ${files} files`,
      ["replay", journals, "--verify", "--quiet"],
      dir,
      [],
      false,
    ),
    measure(
      `replay <dir> --verify, node ${STREAMING_HEAP.join(" ")}: ${events} events in ${files} files`,
      ["replay", journals, "--verify", "--quiet"],
      dir,
      STREAMING_HEAP,
    ),
    measure(`replay <file>: ${target} events in one file`, ["replay", single, "--quiet"], dir),
  ];
  console.log("\n| run | seconds | events/s | peak RSS (MB) | result |\n| --- | ---: | ---: | ---: | --- |");
  for (const r of runs) {
    const n = Number(/(\d+) events/.exec(r.what)?.[1] ?? target);
    console.log(
      `| ${r.what} | ${r.seconds.toFixed(1)} | ${Math.round(n / r.seconds)} | ${r.peakMb.toFixed(0)}${r.held ? "" : " (not held)"} | ${r.ok ? r.summary : `FAILED: ${r.summary}`} |`,
    );
  }
  const over = runs.filter((r) => !r.ok || (r.held && !(r.peakMb < limitMb)));
  console.log(
    over.length === 0
      ? `\nevery run passed; every held run stayed under ${limitMb} MB peak RSS`
      : `\n${over.length} run(s) failed or went over ${limitMb} MB: ${over.map((r) => r.what).join("; ")}`,
  );
  process.exitCode = over.length === 0 ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}

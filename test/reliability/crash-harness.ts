/**
 * Crash trials: `agent-r1 record` runs as a child process and is killed with SIGKILL at a random moment;
 * then the journals it left are checked against a reference recording of the same seed (recording is
 * deterministic, so every journal on disk must be a byte prefix of its reference), repaired with
 * `replay --repair` (the CLI or the same code in process), and replay-verified.
 *
 * What a trial asserts, for every durability policy (a process kill keeps what was written, in the OS
 * page cache; what an fsync adds is survival of a machine crash, which no test here can cause):
 * - every file on disk is a byte prefix of the reference journal of its episode: nothing is corrupted,
 *   interleaved or invented, whatever the moment of the kill;
 * - every journal holding a complete `episode.ended` line is complete and reads back fully;
 * - the others (episodes in flight) are a valid prefix, a torn last line, or an empty file, and each
 *   reads back as exactly that (a prefix, a `torn-tail` error at the right line, an `empty` error);
 * - repair truncates each torn tail to the last complete line, removes files left with no event, and
 *   changes nothing else; afterwards every file reads back, and --verify passes exactly the ended ones;
 * - every episode the process reported as done (its progress lines on stderr) is among the ended ones;
 * - `record --resume` then completes the folder byte for byte as the uninterrupted reference.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { record } from "../../src/cli/record.ts";
import { envResolver, loadEnv } from "../../src/cli/registry.ts";
import { JournalError, Rng, readJournalFile } from "../../src/index.ts";
import type { Durability } from "../../src/journal/journal.ts";
import { checkPath } from "../../src/replay/verify-files.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const BULKY_ENV = "./test/reliability/fixtures/bulky-env.ts";

export interface CrashTrial {
  readonly id: number;
  readonly env: "lookup" | "bulky";
  readonly policy: string;
  readonly seed: string;
  readonly episodes: number;
  readonly concurrency: number;
  readonly durability: Durability;
  /** Time between the first journal file appearing and the SIGKILL. */
  readonly delayMs: number;
  /** Repair with `agent-r1 replay --repair` (a process) or with the same code in this process. */
  readonly repairVia: "cli" | "api";
  /**
   * After the kill, also simulate what a machine crash may do to data that was not fsynced: cut it at a
   * random byte, sometimes followed by NUL bytes (blocks allocated but never written). Per policy:
   * "event": the last line of an episode in flight; "episode": anything of an episode in flight;
   * "none": anything of any file, ended or not (nothing is promised).
   */
  readonly powerLoss: boolean;
}

export interface TrialOutcome {
  readonly trial: CrashTrial;
  /** The kill landed while the process ran (false: it had finished first). */
  readonly killedMidRun: boolean;
  readonly files: number;
  readonly complete: number;
  /** In flight at the kill: a valid prefix ending at a line boundary. */
  readonly prefix: number;
  readonly torn: number;
  readonly empty: number;
  readonly repaired: number;
  readonly removed: number;
  /** Episodes the process had reported as done on stderr before the kill. */
  readonly acknowledged: number;
  readonly eventsOnDisk: number;
  /** Files cut by the simulated machine crash, and ended episodes it took (only with durability "none"). */
  readonly cutByPowerLoss: number;
  readonly endedLostToPowerLoss: number;
}

const DURABILITIES: readonly Durability[] = ["event", "episode", "none"];

/** Trial plans from a seed: durabilities in turn, concurrency, environment, delay and repair path drawn. */
export const planTrials = (
  count: number,
  seed: string,
  options: {
    bulkyEvery?: number;
    powerLossEvery?: number;
    cliRepairEvery?: number;
    maxDelayMs?: number;
    seeds?: number;
    episodes?: number;
  } = {},
): CrashTrial[] => {
  const rng = Rng.fromSeed(`crash-plan:${seed}`);
  return Array.from({ length: count }, (_, id) => {
    const bulky = options.bulkyEvery !== undefined && id % options.bulkyEvery === options.bulkyEvery - 1;
    return {
      id,
      env: bulky ? "bulky" : "lookup",
      policy: bulky ? "expert" : rng.pick(["random", "random", "expert"]),
      seed: `crash-${rng.int(1, options.seeds ?? 3)}`,
      episodes: bulky ? 12 : (options.episodes ?? 300),
      concurrency: rng.pick([1, 4, 8, 16]),
      durability: DURABILITIES[id % DURABILITIES.length],
      delayMs: rng.int(0, options.maxDelayMs ?? (bulky ? 3000 : 2000)),
      repairVia: options.cliRepairEvery !== undefined && id % options.cliRepairEvery === 0 ? "cli" : "api",
      powerLoss: options.powerLossEvery !== undefined && id % options.powerLossEvery === options.powerLossEvery - 1,
    };
  });
};

const envSpec = (trial: CrashTrial) => (trial.env === "bulky" ? BULKY_ENV : "lookup");

const envOfTrial = (trial: CrashTrial) => loadEnv(trial.env === "bulky" ? join(ROOT, BULKY_ENV) : "lookup");

const references = new Map<string, Promise<string>>();

/** The reference recording of a trial's seed, made once in this process with the code the CLI runs. */
const referenceOf = (trial: CrashTrial, root: string): Promise<string> => {
  const key = `${trial.env}-${trial.policy}-${trial.seed}-${trial.episodes}`;
  let made = references.get(key);
  if (!made) {
    made = (async () => {
      const out = join(root, `ref-${key}`);
      const env = await envOfTrial(trial);
      await record({
        env,
        policy: env.policies![trial.policy](),
        episodes: trial.episodes,
        seed: trial.seed,
        out,
        concurrency: 16,
        durability: "none",
        quiet: true,
      });
      return out;
    })();
    references.set(key, made);
  }
  return made;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const listJournals = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : [];

const cli = (args: readonly string[]) =>
  spawnSync(process.execPath, ["bin/agent-r1.js", ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });

/** `unterminated`: whole events, the last cut just before its newline (a power loss can leave that): read, and repair adds the newline. */
export type Kind = "complete" | "prefix" | "unterminated" | "torn" | "empty";

/** What a cut left of a journal, against its uncut reference (of which it is a byte prefix). */
export const kindOf = (bytes: Buffer, ref: Buffer): Kind =>
  bytes.length === ref.length
    ? "complete"
    : bytes.length === 0
      ? "empty"
      : bytes.at(-1) === 10
        ? "prefix"
        : ref[bytes.length] === 10 && bytes.at(-1) !== 0
          ? "unterminated"
          : "torn";

/** Trailing NUL bytes dropped (what a file system leaves in blocks it allocated but never wrote). */
const withoutNuls = (bytes: Buffer): Buffer => {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end -= 1;
  return bytes.subarray(0, end);
};

const newlines = (bytes: Buffer) => {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n += 1;
  return n;
};

/** Runs one trial: record, kill, inspect, repair, inspect again, verify. Throws (expect) on any broken promise. */
export const runTrial = async (trial: CrashTrial, root: string): Promise<TrialOutcome> => {
  const ref = await referenceOf(trial, root);
  const out = join(root, `trial-${trial.id}`);
  const where = `trial ${JSON.stringify(trial)}`;

  // 1. Record in a child process; SIGKILL it `delayMs` after its first journal file appears.
  const child = spawn(
    process.execPath,
    [
      "bin/agent-r1.js",
      "record",
      ...["--env", envSpec(trial), "--policy", trial.policy, "--episodes", String(trial.episodes)],
      ...["--seed", trial.seed, "--out", out, "--concurrency", String(trial.concurrency)],
      ...["--durability", trial.durability],
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const deadline = Date.now() + 60_000;
  while (running && listJournals(out).length === 0 && Date.now() < deadline) await sleep(5);
  await sleep(trial.delayMs);
  const acknowledgedBeforeKill = stderr;
  child.kill("SIGKILL");
  const { code, signal } = await exited;
  const killedMidRun = signal === "SIGKILL";
  if (!killedMidRun) expect(code, `${where}: record failed: ${stderr}`).toBe(0);
  const acknowledged = Math.max(
    0,
    ...[...acknowledgedBeforeKill.matchAll(/^record \w+: (\d+)\/\d+/gm)].map((m) => Number(m[1])),
  );

  // 1b. A simulated machine crash: unsynced data cut at a random byte, maybe followed by NULs.
  let cutByPowerLoss = 0;
  let endedLostToPowerLoss = 0;
  if (trial.powerLoss) {
    const rng = Rng.fromSeed(`power-loss:${trial.id}`);
    for (const name of listJournals(out)) {
      const file = join(out, name);
      const bytes = readFileSync(file);
      const ended = bytes.equals(readFileSync(join(ref, name)));
      const lastLineStart = bytes.lastIndexOf(10, bytes.length - 2) + 1;
      const from =
        trial.durability === "event" ? (ended ? -1 : lastLineStart) : trial.durability === "episode" && ended ? -1 : 0;
      if (from < 0 || bytes.length === 0 || rng.float() < 0.3) continue;
      const cut = rng.int(from, bytes.length - 1);
      const nuls = rng.float() < 0.3 ? rng.int(1, 4096) : 0;
      writeFileSync(file, Buffer.concat([bytes.subarray(0, cut), Buffer.alloc(nuls)]));
      cutByPowerLoss += 1;
      if (ended) endedLostToPowerLoss += 1;
    }
  }

  // 2. Every file is a byte prefix of its reference; each reads back as what it is.
  const names = listJournals(out);
  const refNames = new Set(listJournals(ref));
  const kinds = new Map<string, Kind>();
  let eventsOnDisk = 0;
  for (const name of names) {
    expect(refNames.has(name), `${where}: unexpected journal ${name}`).toBe(true);
    const bytes = readFileSync(join(out, name));
    const reference = readFileSync(join(ref, name));
    const data = withoutNuls(bytes);
    expect(data.length < bytes.length ? trial.powerLoss : true, `${where}: ${name} ends with NULs`).toBe(true);
    expect(data.length <= reference.length, `${where}: ${name} is longer than its reference`).toBe(true);
    expect(data.equals(reference.subarray(0, data.length)), `${where}: ${name} is not a prefix of its reference`).toBe(
      true,
    );
    const kind = kindOf(bytes, reference);
    kinds.set(name, kind);
    const completeLines = bytes.subarray(0, bytes.lastIndexOf(10) + 1).toString("utf8");
    if (completeLines.includes('"type":"episode.ended"'))
      expect(kind, `${where}: ${name} has its episode.ended line but is not complete`).toBe("complete");
    const file = join(out, name);
    if (kind === "complete" || kind === "prefix") {
      const events = await readJournalFile(file);
      expect(events.length).toBe(newlines(bytes));
      expect(events.at(-1)?.type === "episode.ended").toBe(kind === "complete");
      eventsOnDisk += events.length;
    } else if (kind === "unterminated") {
      const events = await readJournalFile(file);
      expect(events.length).toBe(newlines(bytes) + 1);
      eventsOnDisk += events.length;
    } else {
      const error = await readJournalFile(file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, `${where}: ${name} (${kind}) read without error`).toBeInstanceOf(JournalError);
      const journalError = error as JournalError;
      expect(journalError.problem).toBe(kind === "torn" ? "torn-tail" : "empty");
      if (kind === "torn") expect(journalError.line).toBe(newlines(bytes) + 1);
      eventsOnDisk += newlines(bytes);
    }
  }
  const count = (kind: Kind) => [...kinds.values()].filter((k) => k === kind).length;
  if (endedLostToPowerLoss === 0)
    expect(acknowledged, `${where}: episodes reported done but not ended on disk`).toBeLessThanOrEqual(
      count("complete"),
    );
  if (trial.durability !== "none") expect(endedLostToPowerLoss).toBe(0);

  // 3. Repair: torn tails truncated, files with no event removed, nothing else touched.
  const before = new Map(names.map((name) => [name, readFileSync(join(out, name))]));
  let repaired = 0;
  if (trial.repairVia === "cli") {
    const run = cli(["replay", out, "--repair", "--quiet"]);
    // A file mended says "repaired ..."; one left with no whole event (empty, or torn on its first line), "removed ...".
    const lines = run.stderr.split("\n").filter((l) => l.startsWith("repaired ") || l.startsWith("removed /"));
    repaired = lines.length;
    if (names.length > 0) expect(run.status, `${where}: replay --repair: ${run.stderr}`).toBe(0);
    expect(run.stderr).not.toMatch(/^FAIL/m);
  } else if (names.length > 0) {
    const envOf = envResolver(await loadEnv(join(ROOT, BULKY_ENV)));
    for await (const verdict of checkPath(out, { repair: true, verify: false, envOf })) {
      expect(verdict.ok, `${where}: ${verdict.problem}`).toBe(true);
      if (verdict.repaired) repaired += 1;
    }
  }
  expect(repaired, `${where}: repaired files`).toBe(count("torn") + count("empty") + count("unterminated"));
  let removed = 0;
  for (const [name, bytes] of before) {
    const file = join(out, name);
    const kind = kinds.get(name)!;
    const lastLine = bytes.lastIndexOf(10) + 1;
    if (kind === "empty" || (kind === "torn" && lastLine === 0)) {
      expect(existsSync(file), `${where}: ${name} (${kind}, no event) should be removed`).toBe(false);
      removed += 1;
      continue;
    }
    const after = readFileSync(file);
    const expected =
      kind === "unterminated"
        ? Buffer.concat([bytes, Buffer.from("\n")])
        : bytes.subarray(0, kind === "torn" ? lastLine : bytes.length);
    expect(after.equals(expected), `${where}: ${name}`).toBe(true);
    expect((await readJournalFile(file)).length).toBe(newlines(after));
  }

  // 4. Verify: exactly the ended episodes pass; the others are reported as cut short.
  if (listJournals(out).length > 0) {
    const envOf = envResolver(await loadEnv(join(ROOT, BULKY_ENV)));
    let passed = 0;
    for await (const verdict of checkPath(out, { repair: false, verify: true, envOf })) {
      if (verdict.ok) passed += 1;
      else expect(verdict.problem, where).toMatch(/has no episode\.ended/);
    }
    // An unterminated journal whose last event is its episode.ended is whole once repair added the newline.
    const endedUnterminated = [...kinds]
      .filter(([, kind]) => kind === "unterminated")
      .filter(([name]) => readFileSync(join(out, name)).includes('"type":"episode.ended"')).length;
    expect(passed, `${where}: verified`).toBe(count("complete") + endedUnterminated);
  }
  // 5. record --resume completes the recording: every journal then equals the uninterrupted reference.
  const env = await envOfTrial(trial);
  const resumed = await record({
    env,
    policy: env.policies![trial.policy](),
    episodes: trial.episodes,
    seed: trial.seed,
    out,
    concurrency: trial.concurrency,
    durability: "none",
    quiet: true,
    resume: true,
  });
  expect(resumed.episodes, `${where}: resumed`).toBe(trial.episodes);
  expect(listJournals(out).sort(), `${where}: resumed journals`).toEqual(listJournals(ref).sort());
  for (const name of listJournals(ref))
    expect(readFileSync(join(out, name)).equals(readFileSync(join(ref, name))), `${where}: resumed ${name}`).toBe(true);
  expect(statSync(out).isDirectory()).toBe(true);
  rmSync(out, { recursive: true, force: true });
  return {
    trial,
    killedMidRun,
    files: names.length,
    complete: count("complete"),
    prefix: count("prefix"),
    torn: count("torn"),
    empty: count("empty"),
    repaired,
    removed,
    acknowledged,
    eventsOnDisk,
    cutByPowerLoss,
    endedLostToPowerLoss,
  };
};

/** One line per run of trials, for the report and docs/reliability.md. */
export const summarize = (outcomes: readonly TrialOutcome[]) => {
  const sum = (f: (o: TrialOutcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
  return {
    trials: outcomes.length,
    killedMidRun: outcomes.filter((o) => o.killedMidRun).length,
    byDurability: Object.fromEntries(
      DURABILITIES.map((d) => [d, outcomes.filter((o) => o.trial.durability === d).length]),
    ),
    journals: sum((o) => o.files),
    ended: sum((o) => o.complete),
    inFlightPrefix: sum((o) => o.prefix),
    torn: sum((o) => o.torn),
    tornByKillAlone: outcomes.filter((o) => !o.trial.powerLoss).reduce((s, o) => s + o.torn, 0),
    empty: sum((o) => o.empty),
    repaired: sum((o) => o.repaired),
    removed: sum((o) => o.removed),
    acknowledged: sum((o) => o.acknowledged),
    eventsOnDisk: sum((o) => o.eventsOnDisk),
    repairedByCli: outcomes.filter((o) => o.trial.repairVia === "cli").length,
    withPowerLoss: outcomes.filter((o) => o.trial.powerLoss).length,
    cutByPowerLoss: sum((o) => o.cutByPowerLoss),
    endedLostToPowerLossWithDurabilityNone: sum((o) => o.endedLostToPowerLoss),
  };
};

/**
 * Crash trials of the learner: `agent-r1 train` runs as a child process and is killed with SIGKILL at a
 * random moment (sometimes its first `--resume` too), then resumed until it finishes. Training is
 * deterministic (seeded sampling, float32 state saved exactly), so everything is compared with a reference
 * run of the same flags that was never interrupted.
 *
 * After each kill, a trial asserts that:
 * - every journal under episodes/ is a byte prefix of the reference's; every one holding its
 *   `episode.ended` line is complete and reads back; the others read back as a prefix, a `torn-tail`
 *   error at the right line or an `empty` error, and `replay --repair` (the CLI or the same code in
 *   process) makes every one readable;
 * - every update the process had reported done (its progress lines) and every update with a metrics line
 *   has all its episodes complete; metrics.jsonl is a prefix of the reference's (timing fields aside);
 * - every checkpoint folder under its name (`v00004`) loads and is byte-identical to the reference's;
 *   a save cut by the kill leaves only a `*.tmp-*` folder; latest.json names a checkpoint that loads,
 *   no older than the last update's due checkpoint.
 * After the final `train --resume`: metrics.jsonl holds every update exactly once and equals the
 * reference's apart from timing fields; episodes, checkpoints, latest.json and eval.json are
 * byte-identical to the reference's (so no ended episode was lost, and the resumed run continued exactly
 * as the uninterrupted one, optimizer state included).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { envResolver, loadEnv } from "../../src/cli/registry.ts";
import { JournalError, Rng, readJournalFile } from "../../src/index.ts";
import { TIMING_FIELDS } from "../../src/learn/trainer.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { loadCheckpoint, readLatestCheckpoint } from "../../src/policy/checkpoint.ts";
import { checkPath } from "../../src/replay/verify-files.ts";
import { type Kind, kindOf, ROOT } from "./crash-harness.ts";

export interface TrainTrial {
  readonly id: number;
  readonly algo: "grpo" | "ppo";
  readonly seed: string;
  readonly steps: number;
  readonly checkpointEvery: number;
  readonly evalEpisodes: number;
  /**
   * When the first run is killed: `ms` after it starts, or after its metrics.jsonl holds `updates` lines
   * (0: after its config.json appears, when training begins). Progress, not wall time, so the moments
   * spread over the run whatever the machine's load.
   */
  readonly kill: KillAt;
  /** Also kill the first `--resume`, this many ms after it says where it resumes from (null: it runs to the end). */
  readonly secondKillMs: number | null;
  readonly repairVia: "cli" | "api";
}

export interface TrainTrialOutcome {
  readonly trial: TrainTrial;
  /** Kills that landed while train ran (the others came after it finished), out of kills made. */
  readonly kills: number;
  readonly killsMidRun: number;
  readonly journals: number;
  readonly complete: number;
  readonly prefix: number;
  readonly unterminated: number;
  readonly torn: number;
  readonly empty: number;
  readonly repaired: number;
  /** Updates whose metrics line was written before a kill, and those reported on stderr. */
  readonly updatesLogged: number;
  readonly updatesAcknowledged: number;
  readonly checkpointsOnDisk: number;
  /** `*.tmp-*` / `*.old-*` folders: checkpoint saves the kill cut mid-way. */
  readonly unfinishedSaves: number;
  /** Updates done again after a resume (logged after the checkpoint it resumed from). */
  readonly updatesRedone: number;
  readonly resumes: number;
}

export type KillAt =
  | { readonly from: "spawn"; readonly ms: number }
  | { readonly from: "update"; readonly updates: number; readonly ms: number }
  | { readonly from: "resumed"; readonly ms: number };

/** Trial plans from a seed: algorithms in turn, checkpoint intervals, kill moments and repair paths drawn. */
export const planTrainTrials = (
  count: number,
  seed: string,
  options: {
    secondKillEvery?: number;
    cliRepairEvery?: number;
    evalEvery?: number;
    steps?: number;
    algos?: readonly TrainTrial["algo"][];
    checkpointEvery?: readonly number[];
    /** Kill moments to use in turn instead of drawn ones. */
    kills?: readonly KillAt[];
  } = {},
): TrainTrial[] => {
  const rng = Rng.fromSeed(`train-crash-plan:${seed}`);
  const algos = options.algos ?? ["grpo", "ppo"];
  const steps = options.steps ?? 6;
  return Array.from({ length: count }, (_, id) => ({
    id,
    algo: algos[id % algos.length],
    seed: "tc-1",
    steps,
    checkpointEvery: rng.pick(options.checkpointEvery ?? [1, 2, 4]),
    evalEpisodes: options.evalEvery !== undefined && id % options.evalEvery === 0 ? 4 : 0,
    kill: options.kills
      ? options.kills[id % options.kills.length]
      : rng.float() < 0.1
        ? { from: "spawn", ms: rng.int(0, 3000) }
        : { from: "update", updates: rng.int(0, steps), ms: rng.int(0, 700) },
    secondKillMs:
      options.secondKillEvery !== undefined && id % options.secondKillEvery === options.secondKillEvery - 1
        ? rng.int(0, 2500)
        : null,
    repairVia: options.cliRepairEvery !== undefined && id % options.cliRepairEvery === 0 ? "cli" : "api",
  }));
};

const flags = (trial: TrainTrial, out: string) => [
  "train",
  ...["--env", "lookup", "--algo", trial.algo, "--seed", trial.seed, "--steps", String(trial.steps)],
  // RL from a fresh model: the trials kill and resume updates, not lookup's default warm start.
  ...["--tasks", "2", "--group-size", "2", "--entropy", "0.01", "--backend", "wasm", "--no-warm-start"],
  ...["--eval-episodes", String(trial.evalEpisodes), "--checkpoint-every", String(trial.checkpointEvery)],
  ...["--out", out],
];

interface Run {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly running: () => boolean;
  readonly stderr: () => string;
}

const start = (args: readonly string[]): Run => {
  const child = spawn(process.execPath, ["bin/agent-r1.js", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => {
      running = false;
      resolve({ code, signal });
    }),
  );
  return { child, exited, running: () => running, stderr: () => stderr };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs train to the end; its exit code must be 0. */
const runToEnd = async (args: readonly string[], where: string) => {
  const run = start(args);
  const { code } = await run.exited;
  expect(code, `${where}: ${args.join(" ")} failed:\n${run.stderr()}`).toBe(0);
  return run.stderr();
};

const references = new Map<string, Promise<string>>();

/** The uninterrupted run of a trial's flags, made once per flag set (in a child process, like the trials). */
export const trainReferenceOf = (trial: TrainTrial, root: string): Promise<string> => {
  const key = `${trial.algo}-${trial.seed}-${trial.steps}-${trial.checkpointEvery}-${trial.evalEpisodes}`;
  let made = references.get(key);
  if (!made) {
    const out = join(root, `ref-${key}`);
    made = runToEnd(flags(trial, out), `reference ${key}`).then(() => out);
    references.set(key, made);
  }
  return made;
};

const strip = (line: string) => {
  const metrics = JSON.parse(line) as Record<string, unknown>;
  for (const field of TIMING_FIELDS) {
    expect(typeof metrics[field]).toBe("number");
    delete metrics[field];
  }
  return metrics;
};

const metricsLines = (dir: string) => {
  const file = join(dir, "metrics.jsonl");
  if (!existsSync(file)) return { lines: [] as string[], tail: "" };
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  const tail = lines.pop()!;
  return { lines, tail };
};

const list = (dir: string) => (existsSync(dir) ? readdirSync(dir).sort() : []);

const newlines = (bytes: Buffer) => {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n += 1;
  return n;
};

/** Every file under `dir` (recursively) is byte-identical to the one under `ref`, and there are no others. */
const expectSameTree = (dir: string, ref: string, where: string) => {
  const names = list(dir);
  expect(names, `${where}: ${dir}`).toEqual(list(ref));
  for (const name of names) {
    const [a, b] = [join(dir, name), join(ref, name)];
    if (statSync(b).isDirectory()) expectSameTree(a, b, where);
    else expect(readFileSync(a).equals(readFileSync(b)), `${where}: ${a} differs from the reference`).toBe(true);
  }
};

interface KillReport {
  journals: number;
  complete: number;
  prefix: number;
  unterminated: number;
  torn: number;
  empty: number;
  repaired: number;
  updatesLogged: number;
  checkpointsOnDisk: number;
  unfinishedSaves: number;
  latest: number | undefined;
}

/** What a kill left: checked against the reference, then the journals repaired. */
const inspectAfterKill = async (out: string, ref: string, trial: TrainTrial, where: string): Promise<KillReport> => {
  // metrics.jsonl: a prefix of the reference's lines, timing aside (a line cut mid-write is allowed, last).
  const { lines, tail } = metricsLines(out);
  const refLines = metricsLines(ref).lines;
  expect(lines.length, `${where}: more metrics lines than the reference`).toBeLessThanOrEqual(refLines.length);
  lines.forEach((line, i) => {
    expect(strip(line), `${where}: metrics line ${i + 1}`).toEqual(strip(refLines[i]));
  });
  if (tail !== "") expect(refLines[lines.length].startsWith(tail), `${where}: torn metrics line`).toBe(true);
  const logged = lines.length;

  // Journals: byte prefixes of the reference's; ended ones complete; every logged update complete.
  const report: KillReport = {
    journals: 0,
    complete: 0,
    prefix: 0,
    unterminated: 0,
    torn: 0,
    empty: 0,
    repaired: 0,
    updatesLogged: logged,
    checkpointsOnDisk: 0,
    unfinishedSaves: 0,
    latest: undefined,
  };
  const envOf = envResolver(await loadEnv("lookup"));
  for (const update of list(join(out, "episodes"))) {
    const dir = join(out, "episodes", update);
    const refDir = join(ref, "episodes", update);
    expect(existsSync(refDir), `${where}: unexpected folder ${update}`).toBe(true);
    const step = Number(update.slice(1));
    const names = list(dir);
    if (step < logged) expect(names, `${where}: journals of logged update ${update}`).toEqual(list(refDir));
    let damaged = 0;
    for (const name of names) {
      const file = join(dir, name);
      const bytes = readFileSync(file);
      const reference = readFileSync(join(refDir, name));
      expect(
        bytes.length <= reference.length && bytes.equals(reference.subarray(0, bytes.length)),
        `${where}: ${file}`,
      ).toBe(true);
      const kind: Kind = kindOf(bytes, reference);
      report[kind] += 1;
      report.journals += 1;
      if (step < logged) expect(kind, `${where}: ${file} of a logged update`).toBe("complete");
      const complete = bytes.subarray(0, bytes.lastIndexOf(10) + 1).toString("utf8");
      if (complete.includes('"type":"episode.ended"')) expect(kind, `${where}: ${file} ended`).toBe("complete");
      if (kind === "complete" || kind === "prefix") {
        const events = await readJournalFile(file);
        expect(events.length).toBe(newlines(bytes));
        expect(events.at(-1)?.type === "episode.ended").toBe(kind === "complete");
      } else if (kind === "unterminated") {
        // Whole events, the last missing only its newline: read as they are; repair adds the newline.
        damaged += 1;
        expect((await readJournalFile(file)).length, `${where}: ${file} (unterminated)`).toBe(newlines(bytes) + 1);
      } else {
        damaged += 1;
        const error = await readJournalFile(file).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, `${where}: ${file} (${kind})`).toBeInstanceOf(JournalError);
        expect((error as JournalError).problem).toBe(kind === "torn" ? "torn-tail" : "empty");
      }
    }
    if (names.length === 0) continue;
    // Repair (torn tails truncated, files without an event removed); then every file reads back.
    if (trial.repairVia === "cli") {
      const run = start(["replay", dir, "--repair", "--quiet"]);
      const { code } = await run.exited;
      expect(code, `${where}: replay --repair ${dir}: ${run.stderr()}`).toBe(0);
      report.repaired += run
        .stderr()
        .split("\n")
        .filter((l) => l.startsWith("repaired ")).length;
    } else
      for await (const verdict of checkPath(dir, { repair: true, verify: false, envOf })) {
        expect(verdict.ok, `${where}: ${verdict.problem}`).toBe(true);
        if (verdict.repaired) report.repaired += 1;
      }
    for (const name of list(dir)) await readJournalFile(join(dir, name));
    expect(report.repaired).toBeGreaterThanOrEqual(damaged);
  }

  // Checkpoints: whatever is under a checkpoint's name loads and is the reference's; latest.json is sound.
  const checkpoints = join(out, "checkpoints");
  for (const name of list(checkpoints)) {
    if (name === "latest.json") continue;
    if (/\.(tmp|old)-\d+/.test(name)) {
      report.unfinishedSaves += 1;
      continue;
    }
    expect(name, `${where}: unexpected ${name} in checkpoints/`).toMatch(/^v\d{5}$/);
    const loaded = await loadCheckpoint(join(checkpoints, name));
    expect(loaded.version).toBe(Number(name.slice(1)));
    expect(loaded.optimizer?.step, `${where}: ${name} has optimizer state`).toBeTypeOf("number");
    loaded.model.dispose();
    expectSameTree(join(checkpoints, name), join(ref, "checkpoints", name), where);
    report.checkpointsOnDisk += 1;
  }
  const latest = readLatestCheckpoint(checkpoints);
  report.latest = latest?.version;
  if (latest) {
    expect(existsSync(join(checkpoints, latest.dir)), `${where}: latest.json names ${latest.dir}`).toBe(true);
    expect(latest.version).toBeLessThanOrEqual(logged);
  }
  // The checkpoint due before the last logged update was written before that update began.
  const due = logged === 0 ? 0 : Math.floor((logged - 1) / trial.checkpointEvery) * trial.checkpointEvery;
  expect(latest?.version ?? 0, `${where}: latest.json after ${logged} updates`).toBeGreaterThanOrEqual(due);
  if (existsSync(join(out, "eval.json"))) {
    const evals = JSON.parse(readFileSync(join(out, "eval.json"), "utf8"));
    const refEvals = JSON.parse(readFileSync(join(ref, "eval.json"), "utf8"));
    expect(evals.before, `${where}: eval.json`).toEqual(refEvals.before);
  }
  return report;
};

/** Starts train and SIGKILLs it at `killAt`; returns whether the kill landed mid-run. */
const killRun = async (args: readonly string[], out: string, killAt: KillAt, where: string) => {
  const run = start(args);
  const reached = () => {
    if (killAt.from === "spawn") return true;
    if (killAt.from === "resumed") return /^(resuming|no checkpoint)/m.test(run.stderr());
    if (killAt.updates === 0) return existsSync(join(out, "config.json"));
    return metricsLines(out).lines.length >= killAt.updates;
  };
  const deadline = Date.now() + 120_000;
  while (run.running() && !reached() && Date.now() < deadline) await sleep(5);
  await sleep(killAt.ms);
  const acknowledged = run.stderr();
  run.child.kill("SIGKILL");
  const { code, signal } = await run.exited;
  const midRun = signal === "SIGKILL";
  if (!midRun) expect(code, `${where}: train failed:\n${run.stderr()}`).toBe(0);
  const ticks = [...acknowledged.matchAll(/^train \S+: (\d+)\/\d+/gm)].map((m) => Number(m[1]));
  return { midRun, acknowledged: Math.max(0, ...ticks) };
};

/** One trial: kill, inspect and repair, (kill the resume, inspect and repair,) resume to the end, compare. */
export const runTrainTrial = async (trial: TrainTrial, root: string): Promise<TrainTrialOutcome> => {
  await initBackend("cpu", { log: () => {} }); // to load checkpoints here
  const reference = trainReferenceOf(trial, root);
  const out = join(root, `trial-${trial.id}`);
  const where = `train trial ${JSON.stringify(trial)}`;
  const args = flags(trial, out);
  const reports: KillReport[] = [];
  let killsMidRun = 0;
  let updatesRedone = 0;

  const first = await killRun(args, out, trial.kill, where);
  if (first.midRun) killsMidRun += 1;
  const ref = await reference;
  reports.push(await inspectAfterKill(out, ref, trial, `${where} (first kill)`));
  expect(first.acknowledged, `${where}: updates reported done`).toBeLessThanOrEqual(reports[0].updatesLogged);
  const redone = (report: KillReport) => report.updatesLogged - (report.latest ?? 0);

  /**
   * `--resume`, or a fresh start where the kill came before the run wrote its config.json (train --resume
   * refuses a folder with no run in it and says to drop --resume, as a user then does).
   */
  const again = () => {
    if (existsSync(join(out, "config.json"))) return [...args, "--resume"];
    rmSync(out, { recursive: true, force: true });
    return args;
  };
  let resumes = 0;
  if (trial.secondKillMs !== null) {
    updatesRedone += redone(reports.at(-1)!);
    const second = await killRun(again(), out, { from: "resumed", ms: trial.secondKillMs }, where);
    resumes += 1;
    if (second.midRun) killsMidRun += 1;
    reports.push(await inspectAfterKill(out, ref, trial, `${where} (second kill)`));
  }
  updatesRedone += redone(reports.at(-1)!);
  await runToEnd(again(), `${where} (resume)`);
  resumes += 1;

  // The finished run is the uninterrupted one: every update once, identical files.
  const { lines, tail } = metricsLines(out);
  expect(tail).toBe("");
  expect(lines.map((l) => (JSON.parse(l) as { step: number }).step)).toEqual(
    Array.from({ length: trial.steps }, (_, i) => i),
  );
  const refLines = metricsLines(ref).lines;
  expect(lines.map(strip), `${where}: final metrics`).toEqual(refLines.map(strip));
  expectSameTree(join(out, "episodes"), join(ref, "episodes"), where);
  expectSameTree(join(out, "checkpoints"), join(ref, "checkpoints"), where);
  if (trial.evalEpisodes > 0)
    expect(JSON.parse(readFileSync(join(out, "eval.json"), "utf8"))).toEqual(
      JSON.parse(readFileSync(join(ref, "eval.json"), "utf8")),
    );
  rmSync(out, { recursive: true, force: true });
  const sum = (f: (r: KillReport) => number) => reports.reduce((s, r) => s + f(r), 0);
  return {
    trial,
    kills: reports.length,
    killsMidRun,
    journals: sum((r) => r.journals),
    complete: sum((r) => r.complete),
    prefix: sum((r) => r.prefix),
    unterminated: sum((r) => r.unterminated),
    torn: sum((r) => r.torn),
    empty: sum((r) => r.empty),
    repaired: sum((r) => r.repaired),
    updatesLogged: reports[0].updatesLogged,
    updatesAcknowledged: first.acknowledged,
    checkpointsOnDisk: sum((r) => r.checkpointsOnDisk),
    unfinishedSaves: sum((r) => r.unfinishedSaves),
    updatesRedone,
    resumes,
  };
};

/** One line per run of trials, for the report and docs/reliability.md. */
export const summarizeTrain = (outcomes: readonly TrainTrialOutcome[]) => {
  const sum = (f: (o: TrainTrialOutcome) => number) => outcomes.reduce((s, o) => s + f(o), 0);
  return {
    trials: outcomes.length,
    kills: sum((o) => o.kills),
    killsMidRun: sum((o) => o.killsMidRun),
    resumes: sum((o) => o.resumes),
    byAlgo: {
      grpo: outcomes.filter((o) => o.trial.algo === "grpo").length,
      ppo: outcomes.filter((o) => o.trial.algo === "ppo").length,
    },
    journals: sum((o) => o.journals),
    complete: sum((o) => o.complete),
    prefix: sum((o) => o.prefix),
    unterminated: sum((o) => o.unterminated),
    torn: sum((o) => o.torn),
    empty: sum((o) => o.empty),
    repaired: sum((o) => o.repaired),
    updatesLoggedAtFirstKill: sum((o) => o.updatesLogged),
    updatesAcknowledged: sum((o) => o.updatesAcknowledged),
    updatesRedone: sum((o) => o.updatesRedone),
    checkpointsOnDisk: sum((o) => o.checkpointsOnDisk),
    unfinishedSaves: sum((o) => o.unfinishedSaves),
    repairedByCli: outcomes.filter((o) => o.trial.repairVia === "cli").length,
    withEval: outcomes.filter((o) => o.trial.evalEpisodes > 0).length,
  };
};

/**
 * The paper's experiment on hopqa: every algorithm trained from the same warm start with the same budget,
 * over several seeds, plus the mask and process-reward ablations and the baselines; results in
 * docs/results.md (a table shaped like the paper's) with curves as SVG.
 *
 *   npm run experiment                          # everything; resumable: finished runs are kept and skipped
 *   npm run experiment -- --only grpo,ppo --seeds 1
 *   npm run experiment -- --report              # rewrite docs/results.md from what has finished
 *   npm run experiment -- --long      # 45 updates of 16 x 8 per run, into runs/hopqa-long and docs/long
 *   npm run experiment -- --hasty     # from the hasty demonstrator's clone, into runs/hopqa-hasty and docs/hasty
 *   npm run experiment -- --half-hasty  # from the half-hasty clone (test 0.28), into runs/hopqa-half-hasty and docs/half-hasty
 *   npm run experiment -- --possessive  # hopqa?wording=possessive&legal=relations from a weak turn-local clone, into runs/hopqa-possessive and docs/possessive
 *   npm run experiment -- --sloppy      # the same variant from the sloppy demonstrator's clone (test 0.56), into runs/hopqa-sloppy and docs/sloppy
 *   npm run experiment -- --left        # the sloppy recipe on hopqa?...&left=phrases (clone test 0.56-0.58), into runs/hopqa-left and docs/left
 *
 * Runs go two at a time (one per core), each in its own process, into runs/hopqa-experiment/NAME; a run
 * interrupted half-way resumes from its last checkpoint. A finished run is also recorded next to the page
 * (docs/run-records/NAME.json: plan, scores, train time, curve), so the table outlives the run folders: a later
 * sitting, even on a fresh clone, skips recorded runs, and `--report` rewrites the page from the records.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { intArg, parseScriptArgs } from "../../src/cli/args.ts";
import { runTrain } from "../../src/cli/learn-commands.ts";
import { progress, stopAllBars } from "../../src/cli/progress.ts";
import { exitCodeOf, interruptedBy, onStopSignals, STOP_SIGNALS, type StopSignal } from "../../src/cli/signals.ts";
import { DEFAULT_TRAIN_CONFIG, decodeTrainConfig, type TrainConfig } from "../../src/learn/config.ts";
import { policyFromModel, readLatest } from "../../src/learn/trainer.ts";
import { lineChartSvg, readRunMetrics } from "../../src/observe/plot.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { loadCheckpoint, saveCheckpoint } from "../../src/policy/checkpoint.ts";
import { sameEnvSpec } from "../../src/runtime/env.ts";
import type { Policy } from "../../src/runtime/policy.ts";
import { children, runLogged } from "./child-runs.ts";
import { EXPLORE, HASTY_STEPS, LEFT_STEPS, LONG, POSSESSIVE_STEPS, RL_STEP, SLOPPY_STEPS } from "./rl-recipe.ts";
import {
  type BaselinesRecord,
  planDifferences,
  readBaselinesRecord,
  readBestCheckpoint,
  readPagePlan,
  readRunRecords,
  recordsDir,
  samePlan,
  writeBaselinesRecord,
  writeBestCheckpoint,
  writePagePlan,
  writeRunRecord,
} from "./run-records.ts";
import { COLUMNS, type ColumnId, evaluateSuiteShown, type SuiteResult } from "./suite.ts";
import {
  type BuildOptions,
  buildWarmStart,
  COPY_WARM_START,
  describeRecipe,
  HALF_HASTY_WARM_START,
  HASTY_WARM_START,
  LEFT_WARM_START,
  POSSESSIVE_WARM_START,
  recipeEnv,
  recipeEnvSpec,
  recipeModel,
  SHIPPED_COPY_WARM_START,
  SHIPPED_HALF_HASTY_WARM_START,
  SHIPPED_HASTY_WARM_START,
  SHIPPED_LEFT_WARM_START,
  SHIPPED_SLOPPY_WARM_START,
  SLOPPY_WARM_START,
  unshipped,
  WARM_START,
  type WarmStartRecipe,
} from "./warm-start.ts";

/**
 * The plan: one warm start (the copy-head recipe `npm start` uses), then the same training budget for every
 * run: 1 epoch, lr 3e-4, KL 0.05 to the warm start (from the copy-head clone, lr 1e-3 without KL lost
 * exact match; docs/hopqa.md).
 */
export const FULL_PLAN = {
  warm: COPY_WARM_START,
  train: {
    steps: 15,
    tasksPerStep: 8,
    groupSize: 8,
    temperature: 1,
    epochs: 1,
    minibatches: 1,
    ...RL_STEP,
    constrained: true,
  },
  evalEpisodes: 100,
  algos: ["ppo", "grpo", "reinforce++", "reinforce++-baseline", "rloo", "remax"] as const,
  ablations: [
    { name: "grpo-no-advantage-mask", label: "GRPO, no advantage mask", change: { maskAdvantages: false } },
    { name: "grpo-no-loss-mask", label: "GRPO, no loss mask", change: { maskLoss: false } },
    { name: "grpo-no-process-reward", label: "GRPO, no process rewards", change: { processRewardWeight: 0 } },
  ],
};

/** `--quick`: the same stages at toy sizes, to check the pipeline (its numbers mean nothing). */
const QUICK_PLAN: typeof FULL_PLAN = {
  ...FULL_PLAN,
  // A toy clone: not the one the full recipe's ships as.
  warm: unshipped({ ...FULL_PLAN.warm, demos: 16, sftEpochs: 1, curriculum: [{ actions: 1, steps: 2 }] }),
  train: { ...FULL_PLAN.train, steps: 1, tasksPerStep: 2, groupSize: 2, epochs: 1 },
  evalEpisodes: 4,
};
let PLAN = FULL_PLAN;
/** `--quick`: the page says its numbers mean nothing. */
let QUICK = false;
/** The plan's switches, passed on to the runs' child processes. */
const CHILD_FLAGS: string[] = [];

const LABELS: Record<string, string> = {
  ppo: "PPO",
  grpo: "GRPO",
  "reinforce++": "REINFORCE++",
  "reinforce++-baseline": "REINFORCE++-baseline",
  rloo: "RLOO",
  remax: "ReMax",
};

export interface RunSpec {
  readonly name: string;
  readonly group: string;
  readonly label: string;
  readonly seed: number;
  readonly config: Partial<TrainConfig>;
}

export const runSpecs = (seeds: number): RunSpec[] => {
  const specs: RunSpec[] = [];
  // Seed-major order: one seed of everything first, so a partial experiment already fills the table.
  for (let seed = 0; seed < seeds; seed++) {
    for (const algo of PLAN.algos)
      specs.push({ name: `${algo}-s${seed}`, group: algo, label: LABELS[algo], seed, config: { algo } });
    for (const a of PLAN.ablations)
      specs.push({
        name: `${a.name}-s${seed}`,
        group: a.name,
        label: a.label,
        seed,
        config: { algo: "grpo", ...a.change },
      });
  }
  return specs;
};

const readJson = <T>(file: string): T | undefined =>
  existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as T) : undefined;
const writeJson = (file: string, value: unknown) => {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  // rename is atomic: a killed experiment never leaves half a result.
  renameSync(`${file}.tmp`, file);
};

/** Greedy decoding of a checkpoint; constrained to the legal actions like the RL runs unless told otherwise. */
const policyOf = async (checkpoint: string, constrained = PLAN.train.constrained): Promise<() => Policy> => {
  const { model, tokenizer, version } = await loadCheckpoint(checkpoint);
  return () =>
    policyFromModel(recipeEnv(PLAN.warm), model, tokenizer, { ...DEFAULT_TRAIN_CONFIG, constrained }, true, version);
};

/** `--warm-start DIR` must be a whole checkpoint of the recipe's model shape; checked before anything is copied. */
const checkWarmStart = async (from: string) => {
  let loaded: Awaited<ReturnType<typeof loadCheckpoint>>;
  try {
    loaded = await loadCheckpoint(from);
  } catch (error) {
    throw new InvalidArgumentError(`--warm-start ${from}: ${(error as Error).message.split("\n")[0]}`);
  }
  const config = loaded.model.config as unknown as Record<string, unknown>;
  loaded.model.dispose();
  const defaults: Record<string, unknown> = { copy: false, positions: "learned", attention: "full" };
  // A recipe of full attention names none: a turn-local checkpoint is refused for it too.
  const want = { attention: defaults.attention, ...recipeModel(PLAN.warm) } as Record<string, unknown>;
  const differ = Object.keys(want).filter((key) => (config[key] ?? defaults[key]) !== want[key]);
  if (differ.length > 0)
    throw new InvalidArgumentError(
      `--warm-start ${from}: not this recipe's model (${differ.map((k) => `${k} ${String(config[k] ?? defaults[k])}, not ${String(want[k])}`).join("; ")})`,
    );
};

/** The shared warm start and the baselines (naive RAG; the warm start itself = "base tool call"). */
const warmStart = async (
  root: string,
  say: (line: string) => void,
  from?: string,
  build: BuildOptions = {},
): Promise<"stopped" | "built" | undefined> => {
  const dir = join(root, "warm-start");
  const done = join(root, "baselines.json");
  if (existsSync(done)) return undefined;
  writeJson(join(root, "recipe.json"), PLAN.warm);
  await initBackend("auto");
  const w = PLAN.warm;
  if (from) {
    await checkWarmStart(from);
    say(`warm start: copied from ${from} (it must have been built with this recipe: ${describeRecipe(w)})`);
    cpSync(from, dir, { recursive: true });
    writeJson(join(root, "warm-start-source.json"), { from });
  } else {
    say(`warm start: ${describeRecipe(w)}`);
    if ((await buildWarmStart(root, dir, w, build)).stopped) return "stopped";
    // A stop asked during the cloning's last step is held until that step ends: it stops here, before the
    // baselines (minutes), not after them.
    if (build.shouldStop?.()) return "built";
  }
  say("evaluating the baselines");
  const started = Date.now();
  const base = await scoreSuite("warm start", await policyOf(dir));
  const free = PLAN.train.constrained
    ? await scoreSuite("warm start, unconstrained", await policyOf(dir, false))
    : undefined;
  const rag = await scoreSuite("naive RAG", () => recipeEnv(PLAN.warm).policies.rag());
  writeJson(done, { base, free, rag, evalSeconds: (Date.now() - started) / 1000 });
  return undefined;
};

/** The suite, PLAN.evalEpisodes questions per column, with a progress bar. */
const scoreSuite = (label: string, policy: () => Policy): Promise<SuiteResult> =>
  evaluateSuiteShown(label, policy, PLAN.evalEpisodes, "suite", recipeEnv(PLAN.warm));

/** A run folder's metrics.jsonl, one row per update; a torn line (the trainer drops it on resume) is skipped quietly. */
const metricsOf = (dir: string): readonly Readonly<Record<string, number>>[] =>
  existsSync(join(dir, "metrics.jsonl")) ? readRunMetrics(dir, () => {}).rows : [];

/** Sampling and training seconds of the updates a run folder's metrics.jsonl holds (0 when it has none). */
export const updateSeconds = (dir: string): number =>
  metricsOf(dir).reduce((total, m) => total + (m.sampleSeconds ?? 0) + (m.trainSeconds ?? 0), 0);

/** One run: train (resuming if it was interrupted), then evaluate its last checkpoint on the suite. */
/**
 * Trains one run of the plan (or resumes it) and scores its last checkpoint on the suite. A run stopped by
 * a signal is not scored: its suite.json would mark it finished, and the next sitting would skip it with
 * fewer updates than the plan's. It returns the signal then (its checkpoint is written; it resumes).
 */
export const runOne = async (root: string, spec: RunSpec): Promise<StopSignal | undefined> => {
  const dir = join(root, spec.name);
  if (existsSync(join(dir, "suite.json"))) return undefined;
  const t = PLAN.train;
  const config = decodeTrainConfig(
    {
      ...DEFAULT_TRAIN_CONFIG,
      env: recipeEnvSpec(PLAN.warm),
      seed: String(spec.seed),
      steps: t.steps,
      tasksPerStep: t.tasksPerStep,
      groupSize: t.groupSize,
      temperature: t.temperature,
      epochs: t.epochs,
      minibatches: t.minibatches,
      lr: t.lr,
      klCoef: t.klCoef,
      constrained: t.constrained,
      init: join(root, "warm-start"),
      evalEpisodes: 0,
      checkpointEvery: 5,
      // The warm start's model, its attention included: train refuses one that is not the checkpoint's.
      model: recipeModel(PLAN.warm),
      ...spec.config,
    },
    spec.name,
  );
  const started = Date.now();
  const resume = existsSync(join(dir, "config.json"));
  // A run killed before it finished has no timing.json: the updates it made count from metrics.jsonl.
  const previous =
    readJson<{ trainSeconds: number }>(join(dir, "timing.json"))?.trainSeconds ?? (resume ? updateSeconds(dir) : 0);
  const trained = await runTrain(config, dir, resume);
  // No timing.json either: the resumed run counts these updates from metrics.jsonl, as after a kill.
  if (trained.stoppedBy) return trained.stoppedBy;
  const trainSeconds = previous + (Date.now() - started) / 1000;
  writeJson(join(dir, "timing.json"), { trainSeconds });
  const latest = readLatest(dir);
  if (!latest) throw new Error(`${spec.name}: no checkpoint after training`);
  const suite = await scoreSuite(`${spec.name} suite`, await policyOf(join(dir, "checkpoints", latest.dir)));
  writeJson(join(dir, "suite.json"), { ...suite, trainSeconds, steps: config.steps });
  return undefined;
};

/** The plan's settings a run folder's config.json records; a folder made with other values is refused. */
const PLAN_KEYS = [
  "steps",
  "tasksPerStep",
  "groupSize",
  "temperature",
  "epochs",
  "minibatches",
  "lr",
  "klCoef",
  "constrained",
] as const;

/**
 * Refuses an experiment folder whose runs were trained with another plan (say `--long` pointed at the
 * 15-update table's folder): its finished runs would be skipped and reported as this plan's.
 */
export const checkPlanMatches = (root: string, specs: readonly RunSpec[]): void => {
  for (const spec of specs) {
    const saved = readJson<Record<string, unknown>>(join(root, spec.name, "config.json"));
    if (!saved) continue;
    const differ = planDifferences(saved, { ...planOf(), env: recipeEnvSpec(PLAN.warm) });
    if (differ.length > 0)
      throw new InvalidArgumentError(
        `${join(root, spec.name)} was trained with another plan (${differ.join("; ")}): give this experiment its own --out (and --docs)`,
      );
  }
};

/** The plan's values of PLAN_KEYS: what a run record must match to stand in this plan's table. */
const planOf = (): Record<string, number | boolean> =>
  Object.fromEntries(PLAN_KEYS.map((key) => [key, PLAN.train[key]]));

/** The warm start's recipe of the plan `selectPlan` set. */
export const planRecipe = (): WarmStartRecipe => PLAN.warm;

/** What a results page was written with: the runs' plan, the questions per column, the warm start's head and demonstrator. */
export const pagePlanOf = (): Record<string, number | boolean | string> => ({
  ...planOf(),
  evalEpisodes: PLAN.evalEpisodes,
  copyHead: PLAN.warm.copy ?? false,
  demos: PLAN.warm.demos,
  demonstrator: PLAN.warm.demonstrator,
  // Only a variant's page says so: the pages written before variants keep their plan.json as it is.
  ...(PLAN.warm.env ? { env: recipeEnvSpec(PLAN.warm) } : {}),
  ...(PLAN.warm.attention ? { attention: PLAN.warm.attention } : {}),
});

/**
 * Refuses an experiment folder whose warm start came from another demonstrator (its runs' config.json cannot
 * tell: the RL settings may be the same). A folder from before recipe.json was written holds the expert's.
 */
export const checkRecipe = (root: string): void => {
  const saved = readJson<WarmStartRecipe>(join(root, "recipe.json"));
  if (!saved && !existsSync(join(root, "baselines.json"))) return;
  const had = saved?.demonstrator ?? "expert";
  const want = PLAN.warm.demonstrator;
  if (had !== want)
    throw new InvalidArgumentError(
      `${root} holds a warm start cloned from the ${had} demonstrator, not the ${want}: give this experiment its own --out (and --docs)`,
    );
  // The same demonstrator on another hopqa (the possessive variant's folder given to the shipped plan).
  const [hadEnv, wantEnv] = [recipeEnvSpec(saved ?? PLAN.warm), recipeEnvSpec(PLAN.warm)];
  if (saved && !sameEnvSpec(hadEnv, wantEnv))
    throw new InvalidArgumentError(
      `${root} holds a warm start cloned on ${hadEnv}, not ${wantEnv}: give this experiment its own --out (and --docs)`,
    );
};

/**
 * Refuses a --docs folder whose page was written with another plan (say `--long` or `--quick` pointed at
 * docs/, the 15-update table): the report would replace that page, its curves and its best checkpoint.
 */
export const checkPagePlan = (docs: string): void => {
  const read = readPagePlan(docs);
  if (!read) return;
  // Pages written before the demonstrator was recorded are the expert's.
  const saved = { demonstrator: "expert", ...read };
  const differ = planDifferences(saved, pagePlanOf());
  if (differ.length > 0)
    throw new InvalidArgumentError(
      `${join(docs, "results.md")} is the page of another plan (${differ.join("; ")}; ${join(recordsDir(docs), "plan.json")}): give this experiment its own --docs`,
    );
};

/**
 * A stop signal while runs are in progress is passed on to them: each finishes its update, writes a
 * checkpoint and exits, and no new run starts; this process then writes the report and exits with the
 * signal's code. (It used to exit at once, leaving its runs training on as orphans, unseen, after a kill.)
 * While the warm start is cloned, its cloning finishes the step under way and saves its progress (the next
 * sitting goes on from there); with no run in progress otherwise (the warm start's recording, the baselines),
 * it exits at once. A second signal passes on too: the runs quit without a checkpoint of the update in
 * progress, and the cloning quits at once (it goes on from its last epoch's end).
 */
const stopOnSignals = (kept: string, again: string) => {
  let stoppedBy: StopSignal | undefined;
  let signals = 0;
  let cloning = false;
  const dispose = onStopSignals((signal) => {
    signals += 1;
    const second = signals === 2;
    stoppedBy = signal;
    if (cloning && !second) {
      process.stderr.write(
        `\n${interruptedBy(signal)}: the warm start's cloning finishes its step and saves its progress; no run starts (Ctrl-C again to quit now)\n`,
      );
      return;
    }
    // A third: a run that does not end (stuck in a long computation) must not keep this process alive.
    if (signals >= 3 && children.size > 0) {
      for (const child of children) child.kill("SIGKILL");
      stopAllBars();
      process.stderr.write(
        `\n${interruptedBy(signal)} a third time: the runs in progress are killed; each resumes from its last periodic checkpoint: ${again}\n`,
      );
      process.exit(exitCodeOf(signal));
    }
    if (children.size === 0) {
      stopAllBars();
      process.stderr.write(
        `\n${interruptedBy(signal)}: ${kept}; a run in progress resumes from its last checkpoint: ${again}\n`,
      );
      process.exit(exitCodeOf(signal));
    }
    for (const child of children) child.kill(signal);
    process.stderr.write(
      second
        ? `\n${interruptedBy(signal)} again: the ${children.size === 1 ? "run quits" : `${children.size} runs quit`} now, without a checkpoint of the update in progress\n`
        : `\n${interruptedBy(signal)}: ${children.size === 1 ? "the run in progress finishes its update and writes a checkpoint" : `the ${children.size} runs in progress finish their update and write a checkpoint`}; no new run starts (Ctrl-C again to quit now, a third time to kill)\n`,
    );
  });
  return {
    stoppedBy: () => stoppedBy,
    dispose,
    /** The warm start's hooks: a stop while it clones is its to save (buildWarmStart's shouldStop). */
    warmStart: {
      shouldStop: () => stoppedBy !== undefined,
      onCloning: (on: boolean) => {
        cloning = on;
      },
    } satisfies BuildOptions,
  };
};

/**
 * The script a run's child process runs: this one, with --run NAME. A test seam: AGENT_R1_EXPERIMENT_RUN_SCRIPT
 * names another (test/actors/experiment-signals.test.ts's stand-in runs, which are given the same arguments).
 */
const RUN_SCRIPT = process.env.AGENT_R1_EXPERIMENT_RUN_SCRIPT || "actors/hopqa/experiment.ts";

/** The file in a run's folder saying a stop signal stopped it (it resumes), not an error: the page says which. */
const STOPPED = "stopped.txt";

/**
 * One run in a child process. The child has a process group of its own (detached), so a Ctrl-C at the
 * terminal reaches it once, from this process (stopOnSignals), not twice: a second signal makes train quit
 * without its checkpoint.
 */
const runChild = async (root: string, name: string, seeds: number) => {
  mkdirSync(join(root, name), { recursive: true });
  rmSync(join(root, name, STOPPED), { force: true });
  const args = ["bin/run-ts.js", RUN_SCRIPT, "--out", root, "--seeds", String(seeds), "--run", name, ...CHILD_FLAGS];
  return (await runLogged(args, join(root, name, "log.txt"))).code;
};

/** The scores the report reads; a record imported from an earlier page may lack F1 and the rest. */
type Scores = Record<ColumnId, { readonly em: number }> & { readonly average: number };

interface Finished {
  readonly spec: RunSpec;
  readonly suite: Scores & { trainSeconds: number; steps: number };
  /** Mean return and sampled exact match per update ([] when the run's metrics did not survive). */
  readonly curve: readonly { update: number; return: number; em: number }[];
  /** True when read from a run folder of this --out; false when from its record under DOCS/run-records. */
  readonly local: boolean;
  readonly source?: string;
}

/** A run folder's training curve, from its metrics.jsonl. */
const curveOf = (dir: string): Finished["curve"] =>
  metricsOf(dir).map((m) => ({ update: m.step, return: m.meanReturn, em: m.successRate ?? 0 }));

/** Seeds looked for past --seeds, to find runs a page of fewer seeds would drop. */
const MAX_SEEDS = 50;

/**
 * The finished runs of the plan: from this --out's run folders, else from their records under DOCS/run-records.
 * A record of another plan is refused (it would be reported as this plan's).
 */
export const finishedRuns = (root: string, docs: string, seeds: number): Finished[] => {
  const records = readRunRecords(docs);
  return runSpecs(seeds).flatMap((spec): Finished[] => {
    const dir = join(root, spec.name);
    const suite = readJson<Finished["suite"]>(join(dir, "suite.json"));
    if (suite) return [{ spec, suite, curve: curveOf(dir), local: true }];
    const record = records.get(spec.name);
    if (!record) return [];
    const differ = planDifferences(record.plan, planOf());
    if (differ.length > 0)
      throw new InvalidArgumentError(
        `${join(recordsDir(docs), `${spec.name}.json`)} records a run of another plan (${differ.join("; ")}): give this experiment its own --docs`,
      );
    return [{ spec, suite: record.suite, curve: record.curve, local: false, source: record.source }];
  });
};

/** Records every finished run of this --out (and the baselines) under DOCS/run-records, for later sittings. */
const recordRuns = (root: string, docs: string, finished: readonly Finished[]) => {
  for (const f of finished.filter((f) => f.local)) {
    const saved = readJson<Record<string, unknown>>(join(root, f.spec.name, "config.json")) ?? {};
    const plan = { ...planOf(), ...Object.fromEntries(PLAN_KEYS.filter((k) => k in saved).map((k) => [k, saved[k]])) };
    writeRunRecord(docs, {
      run: f.spec.name,
      plan: plan as Record<string, number | boolean>,
      suite: f.suite,
      curve: f.curve,
    });
  }
  const baselines = readJson<Omit<BaselinesRecord, "warmStartFrom">>(join(root, "baselines.json"));
  if (baselines) {
    const from = readJson<{ from: string }>(join(root, "warm-start-source.json"))?.from;
    writeBaselinesRecord(docs, {
      base: baselines.base,
      ...(baselines.free ? { free: baselines.free } : {}),
      rag: baselines.rag,
      ...(from ? { warmStartFrom: from } : {}),
    });
  }
};

/** How the page says the experiment continues: runs kept locally, recorded under DOCS/run-records. */
const RESUMABLE = (root: string, docs: string) =>
  `Finished runs are kept under ${root} and recorded in \`${recordsDir(docs)}\` (committed with this page); recorded runs are ` +
  "skipped, so the table can be completed over several sittings, on a fresh clone too; `--report` only rewrites this page from the records.";

const meanStd = (xs: readonly number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const s = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)) : 0;
  return { m, s };
};
const cell = (xs: readonly number[]) => {
  if (xs.length === 0) return "–";
  const { m, s } = meanStd(xs);
  return xs.length > 1 ? `${m.toFixed(3)} ± ${s.toFixed(3)}` : m.toFixed(3);
};

/**
 * Writes docs/results.md (and curves) from the finished runs. `running`: the runs whose child still works (its
 * log.txt is written as it goes), named as running, not as failed.
 */
export const writeReport = async (
  root: string,
  seeds: number,
  docs: string,
  command: string,
  running: ReadonlySet<string> = new Set(),
) => {
  const finished = finishedRuns(root, docs, seeds);
  recordRuns(root, docs, finished);
  // Rewritten only when it says something new: a page written before the demonstrator was recorded is the
  // expert's, and a --report that changes nothing leaves the committed record as it is.
  const plan = pagePlanOf();
  const saved = readPagePlan(docs);
  // An env spec in another order of its options is the same plan (records written before specs were sorted).
  const kept = saved !== undefined && samePlan({ demonstrator: "expert", ...saved }, plan);
  if (!kept) writePagePlan(docs, plan);
  // The page names the env as its plan.json does: a page kept says it as it was written.
  const envSpec = kept && typeof saved.env === "string" ? saved.env : recipeEnvSpec(PLAN.warm);
  const baselines = readBaselinesRecord(docs);
  // Rows whose numbers were imported (their run folders gone) are marked, with where the numbers came from.
  const sources = [...new Set([...finished.map((f) => f.source), baselines?.source].filter((s) => s !== undefined))];
  const mark = (source: string | undefined) => (source ? ` ${"†".repeat(sources.indexOf(source) + 1)}` : "");
  const groups = [...new Set(runSpecs(seeds).map((s) => s.group))];
  const row = (label: string, results: readonly Scores[], extra: string) =>
    `| ${label} | ${COLUMNS.map((c) => cell(results.map((r) => r[c.id].em))).join(" | ")} | ${cell(results.map((r) => r.average))} | ${extra} |`;
  // The command that redoes it all: this one without --report, --only and a borrowed warm start.
  const regenerate = command
    .replace(/ --report\b/, "")
    .replace(/ --only[ =]\S+/, "")
    .replace(/ --warm-start \S+/, "")
    .replace(/ --$/, "");
  const lines: string[] = [];
  lines.push("# hopqa results: exact match per algorithm");
  lines.push("");
  lines.push(
    `Written by \`${command}\` on ${new Date().toISOString().slice(0, 10)} from the runs that \`npm run experiment\` made ` +
      "(two at a time, resumable; 2-core machine, tfjs wasm backend). " +
      "Exact match, greedy decoding, " +
      `${PLAN.evalEpisodes} questions per column; mean ± sample std over the seeds that finished (n).`,
  );
  lines.push("");
  lines.push(
    QUICK
      ? `A pipeline check at toy sizes (\`--quick\`): its numbers mean nothing. Regenerate it with \`${regenerate}\`; its runs are kept under ${root} and recorded in \`${recordsDir(docs)}\`.`
      : PLAN.warm.shipped
        ? `Regenerate everything with \`${regenerate}\` (it builds the warm start first, about ${PLAN.warm.buildMinutes} minutes here) or add ` +
          `\`--warm-start ${PLAN.warm.shipped}\` (the shipped copy of the same recipe). ${RESUMABLE(root, docs)}`
        : `Regenerate everything with \`${PLAN.warm.copy ? regenerate : "npm run experiment -- --no-copy-head --out runs/hopqa-experiment-plain --docs docs/plain"}\` ` +
          `(it builds the warm start first, about ${PLAN.warm.buildMinutes} minutes here). ${RESUMABLE(root, docs)}`,
  );
  lines.push("");
  lines.push(
    "Columns: **test (seen worlds)**: held-out 2-3 hop questions of the worlds training draws from (1-1000); " +
      "**test (new worlds)**: 2-3 hop questions in worlds training never saw (1000001-1000200); " +
      "**ood 4-hop (new worlds)**: 4-hop questions, relation chains never seen in training, in unseen worlds (Musique's role).",
  );
  lines.push("");
  lines.push(`| Method | ${COLUMNS.map((c) => c.label).join(" | ")} | Avg | runs, train time |`);
  lines.push(`|---|${COLUMNS.map(() => "---").join("|")}|---|---|`);
  if (baselines) {
    const decoding = PLAN.train.constrained ? ", constrained decoding" : "";
    const m = mark(baselines.source);
    lines.push(row(`Base tool call (warm start, no RL${decoding})${m}`, [baselines.base], "–"));
    if (baselines.free) lines.push(row(`Warm start, unconstrained decoding${m}`, [baselines.free], "–"));
    lines.push(row(`Naive RAG (one search with the question)${m}`, [baselines.rag], "–"));
  }
  for (const group of groups) {
    const runs = finished.filter((f) => f.spec.group === group);
    const label = runSpecs(1).find((s) => s.group === group)?.label ?? group;
    const minutes = runs.map((r) => r.suite.trainSeconds / 60);
    // Begun and not finished: still running beside the one that just ended, stopped by a signal (they resume from
    // their checkpoint), or failed.
    const begun = runSpecs(seeds).filter(
      (s) =>
        s.group === group && existsSync(join(root, s.name, "log.txt")) && !runs.some((r) => r.spec.name === s.name),
    );
    const now = begun.filter((s) => running.has(s.name));
    const stopped = begun.filter((s) => !now.includes(s) && existsSync(join(root, s.name, STOPPED)));
    const failed = begun.filter((s) => !now.includes(s) && !stopped.includes(s));
    const note =
      (now.length ? `; running: ${now.map((s) => s.name).join(", ")}` : "") +
      (stopped.length ? `; stopped: ${stopped.map((s) => s.name).join(", ")} (they resume)` : "") +
      (failed.length ? `; failed: ${failed.map((s) => s.name).join(", ")} (see their log.txt)` : "");
    const time = runs.length ? `n=${runs.length}, ${cell(minutes)} min${note}` : `n=0${note || " (not run yet)"}`;
    lines.push(
      row(
        label,
        runs.map((r) => r.suite),
        time,
      ),
    );
  }
  lines.push("");
  if (baselines) lines.push(...targetLines(baselines.base, finished), "");
  const w = PLAN.warm;
  const t = PLAN.train;
  lines.push("## Setup");
  lines.push("");
  if (w.env)
    lines.push(
      `- Environment: \`${envSpec}\` for the demonstrations, every run and every column (hopqa's options: ${Object.entries(
        w.env,
      )
        .map(([k, v]) => `${k}=${v}`)
        .join(", ")}; README, "hopqa").`,
    );
  lines.push(
    `- Warm start (limited by construction): ${describeRecipe(w, envSpec)}; GPT ${JSON.stringify(recipeModel(w))}.`,
  );
  const from = baselines?.warmStartFrom;
  if (from)
    lines.push(
      `- The warm start was not rebuilt by this command: it was copied from \`${from}\`, a run of the same recipe and seeds${w.shipped ? `; the same checkpoint ships as \`${w.shipped}\`` : ""}.`,
    );
  lines.push(
    `- Every RL run: ${t.steps} update${t.steps === 1 ? "" : "s"} of ${t.tasksPerStep} questions x ${t.groupSize} episodes (temperature ${t.temperature}), ` +
      `${t.epochs} optimisation epoch${t.epochs === 1 ? "" : "s"} of ${t.minibatches} minibatch${t.minibatches === 1 ? "" : "es"} per batch, lr ${t.lr}${t.klCoef > 0 ? `, KL ${t.klCoef} (k3) to the warm start` : ""}, from the same warm start; training questions from worlds 1-1000` +
      (t.constrained && w.env?.legal === "relations"
        ? "; constrained decoding (`--constrained`) under `legal=relations`: every search names an entity seen so far with one of the question's relations not yet searched (or retries a searched (entity, relation) pair in another query form), never a bare name and never a query already made, and no answer is legal while a relation of the question is unsearched; an answer names an entity some result showed, of the type the question asks for (`legalActions` in actors/hopqa/env.ts); evaluation decodes the same way."
        : t.constrained
          ? "; constrained decoding (`--constrained`): every action is a search for an entity seen so far, in one of the query forms the expert uses for its relations (the entity with a relation word, or a fallback such as the bare name; never a query already made), or an answer naming an entity some result showed, of the type the question asks for (`legalActions` in actors/hopqa/env.ts); evaluation decodes the same way."
          : "."),
  );
  lines.push(
    "- Rewards: +0.2 per gold passage retrieved the first time, -0.05 per search, -0.1 repeated query / failed search / malformed action, " +
      "outcome 1 for an exact-match answer that some search result showed (a right guess earns 0).",
  );
  lines.push(
    "- Ablations: GRPO without the advantage mask, without the loss mask (observation tokens trained too), and without process rewards. " +
      "With the loss mask on, GRPO's advantage (one number per episode) only ever reaches action tokens, so its no-advantage-mask run equals GRPO's apart from timing; the ablation bites for PPO's GAE and when the loss mask is off.",
  );
  lines.push(
    `- A run that failed keeps its error in ${root}/NAME/log.txt and resumes from its last checkpoint when the command runs again.`,
  );
  lines.push("");
  lines.push("## Runs");
  lines.push("");
  lines.push(`| Run | ${COLUMNS.map((c) => c.label).join(" | ")} | Avg | train min |`);
  lines.push(`|---|${COLUMNS.map(() => "---").join("|")}|---|---|`);
  for (const f of finished)
    lines.push(
      `| ${f.spec.name}${mark(f.source)} | ${COLUMNS.map((c) => f.suite[c.id].em.toFixed(3)).join(" | ")} | ${f.suite.average.toFixed(3)} | ${(f.suite.trainSeconds / 60).toFixed(1)} |`,
    );
  const missing = runSpecs(seeds).filter((s) => !finished.some((f) => f.spec.name === s.name));
  if (missing.length > 0) {
    lines.push("");
    lines.push(
      `Not finished yet (${missing.length}): ${missing.map((s) => s.name).join(", ")}. Run the command again to continue.`,
    );
  }
  for (const [i, source] of sources.entries()) {
    lines.push("");
    lines.push(`${"†".repeat(i + 1)} ${source}.`);
  }
  mkdirSync(docs, { recursive: true });
  if (finished.length > 0) {
    // The best run's last checkpoint ships with the results (it is small), so anyone can evaluate it.
    const best = finished.reduce((a, b) => (b.suite.average > a.suite.average ? b : a));
    const latest = best.local ? readLatest(join(root, best.spec.name)) : undefined;
    const target = join(docs, "checkpoints", "hopqa-best");
    const shipped = readBestCheckpoint(docs);
    const evalLine = (run: string, average: number) =>
      `The best run, \`${run}\` (average ${average.toFixed(3)}), ships as \`${target}\`: ` +
      `\`npx agent-r1 eval --env ${w.env ? `"${envSpec}"` : "hopqa"} --checkpoint ${target} --constrained --suite\` scores it on the table's three columns ` +
      `(${PLAN.evalEpisodes === 100 ? "100 questions each, the same seeds" : `100 questions each; the table used ${PLAN.evalEpisodes}`}), \`--split ood --world-seed 2000123\` instead of \`--suite\` on any world.`;
    if (!latest && shipped && existsSync(target)) {
      // The best run's folder is gone (a record): the checkpoint shipped from it, or from the best one that had a folder.
      const run = finished.find((f) => f.spec.name === shipped.run);
      lines.push("");
      if (shipped.run === best.spec.name) lines.push(evalLine(best.spec.name, best.suite.average));
      else if (run)
        lines.push(
          `${evalLine(run.spec.name, run.suite.average)} (The best average, \`${best.spec.name}\`'s, is from a record; its checkpoint was not kept.)`,
        );
    }
    if (latest) {
      // Weights, config and tokenizer only: the optimizer's moments would triple the size.
      await initBackend("auto", { log: () => {} });
      const loaded = await loadCheckpoint(join(root, best.spec.name, "checkpoints", latest.dir));
      rmSync(target, { recursive: true, force: true });
      await saveCheckpoint(target, {
        model: loaded.model,
        tokenizer: loaded.tokenizer,
        version: loaded.version,
        ...(loaded.constrained === undefined ? {} : { constrained: loaded.constrained }),
      });
      loaded.model.dispose();
      writeBestCheckpoint(docs, { run: best.spec.name, checkpoint: latest.dir });
      lines.push("");
      lines.push(evalLine(best.spec.name, best.suite.average));
    }
  }
  const curves = await writeCurves(finished, docs);
  if (curves.length > 0) {
    lines.push("");
    lines.push("## Curves");
    lines.push("");
    for (const file of curves) lines.push(`![${file}](${file})`);
  }
  // A page whose numbers, rows and notes are what it holds already is left as it is: its first lines say
  // which command wrote it and when, and a --report (or a later sitting with nothing new) must not change that.
  const page = join(docs, "results.md");
  const text = `${lines.join("\n")}\n`;
  const unchanged = existsSync(page) && withoutProvenance(readFileSync(page, "utf8")) === withoutProvenance(text);
  if (!unchanged) writeFileSync(page, text);
  return { finished: finished.length, total: runSpecs(seeds).length, unchanged };
};

/** A page without its lines that say how it was written (the command, the date, how to regenerate it). */
const withoutProvenance = (page: string): string =>
  page
    .split("\n")
    .filter((line) => !/^(Written by `|Regenerate everything with `|A pipeline check at toy sizes)/.test(line))
    .join("\n");

/** The issue's targets, checked against the finished runs (means over seeds). */
const targetLines = (base: Scores, finished: readonly Finished[]): string[] => {
  const test = (r: Scores) => (r["test-seen"].em + r["test-new"].em) / 2;
  const groups = PLAN.algos.map((algo) => {
    const runs = finished.filter((f) => f.spec.group === algo).map((f) => f.suite);
    const mean = (f: (r: Scores) => number) => runs.reduce((a, r) => a + f(r), 0) / Math.max(1, runs.length);
    return { algo, n: runs.length, test: mean(test), ood: mean((r) => r["ood-new"].em) };
  });
  const ran = groups.filter((g) => g.n > 0);
  if (ran.length === 0) return [];
  const best = ran.reduce((a, b) => (b.test > a.test ? b : a));
  const yes = (ok: boolean) => (ok ? "**met**" : "**not met**");
  const improved = ran.filter((g) => g.test > test(base) && g.ood > base["ood-new"].em);
  return [
    "## Targets",
    "",
    `Test = mean of the two test columns. Warm start: test ${test(base).toFixed(3)}, ood ${base["ood-new"].em.toFixed(3)} ` +
      `(${test(base) <= 0.4 ? "a weak warm start, at most 0.4 on test: the issue's stretch case" : "a moderate warm start"}).`,
    "",
    `- Every RL algorithm improves on test and on ood: ${yes(improved.length === PLAN.algos.length)} ` +
      `(${improved.length} of ${PLAN.algos.length}${ran.length < PLAN.algos.length ? `; ${ran.length} have results` : ""}).`,
    `- Best algorithm (${LABELS[best.algo]}, test ${best.test.toFixed(3)}, ood ${best.ood.toFixed(3)}) gains at least 0.2 on test: ` +
      `${yes(best.test - test(base) >= 0.2)} (${(best.test - test(base) >= 0 ? "+" : "") + (best.test - test(base)).toFixed(3)}); ` +
      `reaches 0.9 on test: ${yes(best.test >= 0.9)}; 0.7 on ood: ${yes(best.ood >= 0.7)}.`,
  ];
};

/** Mean return and training success per update: one line per group, its lowest seed with a curve. */
const writeCurves = async (finished: readonly Finished[], docs: string): Promise<string[]> => {
  const rows: Record<string, unknown>[] = [];
  const drawn = new Map<string, number>();
  for (const f of [...finished].sort((a, b) => a.spec.seed - b.spec.seed)) {
    if (f.curve.length === 0 || drawn.has(f.spec.group)) continue;
    drawn.set(f.spec.group, f.spec.seed);
    const run = `${f.spec.label} s${f.spec.seed}`;
    for (const p of f.curve) rows.push({ run, update: p.update, return: p.return, em: p.em });
  }
  if (rows.length === 0) return [];
  const seeds = [...new Set(drawn.values())];
  const which = seeds.length === 1 ? `seed ${seeds[0]}` : "one seed per run";
  const files: string[] = [];
  for (const [y, title] of [
    ["return", `mean return per update (training episodes, ${which})`],
    ["em", `exact match per update (training episodes, ${which})`],
  ] as const) {
    const name = `results-${y}.svg`;
    writeFileSync(
      join(docs, name),
      await lineChartSvg({ title, rows, x: "update", y, series: "run", xTitle: "update" }),
    );
    files.push(name);
  }
  return files;
};

/** The plans of hopqa's variants (`--possessive`, `--sloppy`, `--left`): each its warm start and RL budget. */
const VARIANT_PLANS = {
  possessive: [POSSESSIVE_WARM_START, POSSESSIVE_STEPS],
  sloppy: [SLOPPY_WARM_START, SLOPPY_STEPS],
  left: [LEFT_WARM_START, LEFT_STEPS],
} as const satisfies Record<string, readonly [WarmStartRecipe, { readonly steps: number }]>;
type Variant = keyof typeof VARIANT_PLANS;
const VARIANTS = Object.keys(VARIANT_PLANS) as Variant[];

/**
 * Sets the plan from the command's switches (and the switches its runs' child processes get); returns the
 * demonstrator of a plan that starts from another clone than the expert's, which names its folders.
 */
export const selectPlan = (opts: {
  quick?: boolean;
  copyHead?: boolean;
  explore?: boolean;
  long?: boolean;
  hasty?: boolean;
  halfHasty?: boolean;
  possessive?: boolean;
  sloppy?: boolean;
  left?: boolean;
}): "hasty" | "half-hasty" | Variant | undefined => {
  PLAN = FULL_PLAN;
  QUICK = false;
  CHILD_FLAGS.length = 0;
  if (opts.quick) {
    PLAN = QUICK_PLAN;
    QUICK = true;
    CHILD_FLAGS.push("--quick");
  }
  if (opts.copyHead === false) {
    // hopqa v2's main table: the recipe without the copy head, trained at lr 1e-3, 2 epochs, no KL.
    const train = opts.quick ? PLAN.train : { ...PLAN.train, epochs: 2, lr: 1e-3, klCoef: 0 };
    PLAN = { ...PLAN, train, warm: { ...(opts.quick ? QUICK_PLAN.warm : WARM_START), copy: false } };
    CHILD_FLAGS.push("--no-copy-head");
  }
  if (opts.hasty && opts.halfHasty)
    throw new InvalidArgumentError("--hasty and --half-hasty are two warm starts: give one");
  const demonstrator: "hasty" | "half-hasty" | undefined = opts.hasty
    ? "hasty"
    : opts.halfHasty
      ? "half-hasty"
      : undefined;
  if (demonstrator) {
    if (opts.copyHead === false)
      throw new InvalidArgumentError(`--${demonstrator} clones into a model with the copy head: drop --no-copy-head`);
    // A clone whose gap is one decision per episode (when to stop searching); sampled at temperature 2 with
    // 4 gradient steps per batch, 20 updates lifted the hasty clone's two test columns from 0.30 to 0.67
    // (docs/hopqa.md). The half-hasty clone (12 epochs) is the weaker, better-reading one behind the 0.9 soups.
    const full = demonstrator === "hasty" ? HASTY_WARM_START : HALF_HASTY_WARM_START;
    const warm: WarmStartRecipe = opts.quick
      ? {
          ...QUICK_PLAN.warm,
          demonstrator,
          allEpisodes: true,
          ...(full.more ? { more: { epochs: 1, seed: full.more.seed } } : {}),
        }
      : full;
    PLAN = { ...PLAN, warm, train: { ...PLAN.train, ...EXPLORE, ...(opts.quick ? {} : HASTY_STEPS) } };
    CHILD_FLAGS.push(`--${demonstrator}`);
  }
  // The possessive variant's plans: each its own warm start and budget, sampled as --explore.
  const variant = VARIANTS.find((v) => opts[v]);
  if (variant) {
    const other = (
      [
        ...VARIANTS.filter((v) => v !== variant).map((v) => [`--${v}`, opts[v]] as const),
        ["--no-copy-head", opts.copyHead === false],
        ["--hasty", opts.hasty],
        ["--half-hasty", opts.halfHasty],
        ["--explore", opts.explore],
        ["--long", opts.long],
      ] as const
    ).find(([, given]) => given)?.[0];
    const [full, steps] = VARIANT_PLANS[variant];
    if (other)
      throw new InvalidArgumentError(
        `--${variant} is a plan of its own (its warm start, ${steps.steps} updates sampled as --explore): drop ${other}`,
      );
    const warm: WarmStartRecipe = opts.quick
      ? {
          ...QUICK_PLAN.warm,
          demonstrator: full.demonstrator,
          ...(full.allEpisodes ? { allEpisodes: true } : {}),
          ...(full.more ? { more: { epochs: 1, seed: full.more.seed } } : {}),
          ...(full.env ? { env: full.env } : {}),
          ...(full.attention ? { attention: full.attention } : {}),
          ...(full.positionOffsets ? { positionOffsets: full.positionOffsets } : {}),
        }
      : full;
    PLAN = { ...PLAN, warm, train: { ...PLAN.train, ...EXPLORE, ...(opts.quick ? {} : steps) } };
    CHILD_FLAGS.push(`--${variant}`);
    return variant;
  }
  if (opts.explore || opts.long) {
    PLAN = { ...PLAN, train: { ...PLAN.train, ...EXPLORE } };
    if (opts.explore) CHILD_FLAGS.push("--explore");
  }
  if (opts.long) {
    if (!opts.quick) PLAN = { ...PLAN, train: { ...PLAN.train, ...LONG } };
    CHILD_FLAGS.push("--long");
  }
  return demonstrator;
};

/** The experiment, given its arguments: the exit code (0 done, 2 bad usage, a stop signal's code). */
const experiment = async (argv: readonly string[]): Promise<number> => {
  const program = new Command("experiment")
    .description("hopqa: every algorithm from one warm start, several seeds, ablations -> docs/results.md")
    .option("--out <dir>", "experiment folder (runs are kept and skipped when finished)", "runs/hopqa-experiment")
    .option("--seeds <n>", "seeds per algorithm", intArg("--seeds", 1), 3)
    .option("--jobs <n>", "runs at a time", intArg("--jobs", 1), 2)
    .option("--only <names>", "comma-separated groups to run (e.g. grpo,ppo,grpo-no-loss-mask)")
    .option("--docs <dir>", "where results.md and the curves go", "docs")
    .option("--report", "only rewrite the report from finished runs")
    .option(
      "--quick",
      "toy sizes, to check the pipeline end to end (every run in a minute or less: about 15 minutes for all, 2 with --only grpo --seeds 1); its own --out and --docs under runs/hopqa-quick unless given",
    )
    .option("--warm-start <dir>", "use this checkpoint (built with the same recipe) instead of building the warm start")
    .option("--copy-head", `the warm start with the GPT's copy head, as ${SHIPPED_COPY_WARM_START} (the default)`)
    .option(
      "--no-copy-head",
      "the warm start without the copy head (hopqa v2's main table); use another --out and --docs",
    )
    .option(
      "--explore",
      `sample at temperature ${EXPLORE.temperature} and take ${EXPLORE.minibatches} gradient steps per batch (docs/hopqa.md); its own --out and --docs (runs/hopqa-explore, docs/explore) unless given`,
    )
    .option(
      "--long",
      `the larger budget: ${LONG.steps} updates of ${LONG.tasksPerStep} questions, sampled as --explore (about 13 hours for the table here, two runs at a time, about an hour a run); its own --out and --docs (runs/hopqa-long, docs/long) unless given`,
    )
    .option(
      "--hasty",
      `start from the hasty demonstrator's clone (${SHIPPED_HASTY_WARM_START}: it stops searching one hop early on most questions), ${HASTY_STEPS.steps} updates of ${FULL_PLAN.train.tasksPerStep} questions sampled as --explore; its own --out and --docs (runs/hopqa-hasty, docs/hasty) unless given`,
    )
    .option(
      "--half-hasty",
      `start from the half-hasty clone (${SHIPPED_HALF_HASTY_WARM_START}: test 0.28, it answers one hop early on many questions but reads well), the budget and sampling of --hasty; its own --out and --docs (runs/hopqa-half-hasty, docs/half-hasty) unless given`,
    )
    .option(
      "--possessive",
      `hopqa?wording=possessive&legal=relations, from its weak turn-local clone (${POSSESSIVE_WARM_START.demos} demonstrations from worlds ${POSSESSIVE_WARM_START.demoWorlds}: test about 0.4), ${POSSESSIVE_STEPS.steps} updates of ${FULL_PLAN.train.tasksPerStep} questions sampled as --explore; its own --out and --docs (runs/hopqa-possessive, docs/possessive) unless given`,
    )
    .option(
      "--sloppy",
      `hopqa?wording=possessive&legal=relations, from the sloppy demonstrator's turn-local clone (${SHIPPED_SLOPPY_WARM_START}: it searches as the expert does and names a wrong entity at the end on most questions; test about 0.56), ${SLOPPY_STEPS.steps} updates of ${FULL_PLAN.train.tasksPerStep} questions sampled as --explore; its own --out and --docs (runs/hopqa-sloppy, docs/sloppy) unless given`,
    )
    .option(
      "--left",
      `hopqa?wording=possessive&legal=relations&left=phrases (each search's observation ends with the question's phrases not yet searched), from the sloppy recipe's clone on it (${SHIPPED_LEFT_WARM_START}: test 0.56-0.58), ${LEFT_STEPS.steps} updates of ${FULL_PLAN.train.tasksPerStep} questions sampled as --explore; its own --out and --docs (runs/hopqa-left, docs/left) unless given`,
    )
    .option("--run <name>", "(internal) run one named run in this process")
    .exitOverride();
  // `--seeds 1 --seeds 3`, `--copy-head --no-copy-head` or `--out --quick` (a value forgotten: a folder named
  // --quick, and the full plan run): refused, as agent-r1 does.
  const ended = parseScriptArgs(program, argv);
  if (ended !== undefined) return ended;
  const opts = program.opts<{
    out: string;
    seeds: number;
    jobs: number;
    only?: string;
    docs: string;
    report?: boolean;
    quick?: boolean;
    warmStart?: string;
    copyHead?: boolean;
    explore?: boolean;
    long?: boolean;
    hasty?: boolean;
    halfHasty?: boolean;
    possessive?: boolean;
    sloppy?: boolean;
    left?: boolean;
    run?: string;
  }>();
  const start = selectPlan(opts);
  // Each plan has folders of its own, so that its runs and page never mix with another plan's: toy
  // numbers (--quick) must never land on a committed page or replace a shipped checkpoint.
  const suffix = [start, opts.long ? "long" : opts.explore && "explore"].filter(Boolean).join("-");
  const [planOut, planDocs] = opts.quick
    ? [`runs/hopqa-quick${start ? `-${start}` : ""}`, undefined]
    : suffix
      ? [`runs/hopqa-${suffix}`, `docs/${suffix}`]
      : [undefined, undefined];
  if (planOut && program.getOptionValueSource("out") === "default") opts.out = planOut;
  if (program.getOptionValueSource("docs") === "default")
    opts.docs = planDocs ?? (opts.quick ? join(opts.out, "docs") : opts.docs);
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const specs = runSpecs(opts.seeds);
  if (opts.run) {
    const spec = specs.find((s) => s.name === opts.run);
    if (!spec) throw new InvalidArgumentError(`no run named ${opts.run}`);
    await initBackend("auto");
    const stoppedBy = await runOne(opts.out, spec);
    return stoppedBy ? exitCodeOf(stoppedBy) : 0;
  }
  const command = `npm run experiment${argv.length > 0 ? ` -- ${argv.join(" ")}` : ""}`;
  // A file where a folder goes is refused before any work: --out failed at its mkdir with a stack trace, and a
  // --docs file only when the report was written, after every run.
  for (const [flag, dir] of [
    ["--out", opts.out],
    ["--docs", opts.docs],
  ] as const)
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new InvalidArgumentError(`${flag} ${dir} is a file, not a folder: give a folder (created if missing)`);
  // Another plan's run folders, page or records are refused at once, reporting or not.
  checkPlanMatches(opts.out, specs);
  checkRecipe(opts.out);
  checkPagePlan(opts.docs);
  // Runs of seeds past --seeds, finished or recorded, are looked for too: a page of fewer seeds would drop them.
  const all = finishedRuns(opts.out, opts.docs, Math.max(opts.seeds, MAX_SEEDS));
  const finished = all.filter((f) => f.spec.seed < opts.seeds);
  const beyond = all.length - finished.length;
  if (beyond > 0)
    throw new InvalidArgumentError(
      `--seeds ${opts.seeds}: ${beyond} finished or recorded runs are of later seeds (${opts.out}, ${recordsDir(opts.docs)}), and ${join(opts.docs, "results.md")} would drop them; give --seeds to cover them, or another --out and --docs`,
    );
  const only = opts.only?.split(",").map((s) => s.trim());
  const unknown = only?.filter((g) => !specs.some((s) => s.group === g)) ?? [];
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown group(s) ${unknown.join(", ")}; known: ${[...new Set(specs.map((s) => s.group))].join(", ")}`,
    );
  if (opts.report && only)
    throw new InvalidArgumentError("--only chooses runs to train; --report reports every finished run: leave one out");
  // (Training checks the checkpoint itself, and its recipe, when it copies it.)
  if (opts.report && opts.warmStart && !existsSync(join(opts.warmStart, "manifest.json")))
    throw new InvalidArgumentError(`--warm-start ${opts.warmStart}: no checkpoint there (no manifest.json)`);
  if (opts.report && finished.length === 0)
    // Neither run folders nor records: an empty table must not replace the committed one.
    throw new InvalidArgumentError(
      `--report: no finished run in ${opts.out} and no run record in ${recordsDir(opts.docs)}, so nothing to report; ${join(opts.docs, "results.md")} is left as it is (run the experiment first, or pass the --out and --docs that hold its runs)`,
    );
  // Whether this command rewrote the page after a run: its last report then finds nothing new to say.
  let rewritten = false;
  if (!opts.report) {
    // --report reads the runs there, if any, and leaves no empty folder behind.
    mkdirSync(opts.out, { recursive: true });
    // Ctrl-C (or SIGTERM, SIGHUP) exited 130 saying nothing: say what is kept and how to go on.
    const kept = `finished runs are kept in ${opts.out} (and recorded in ${recordsDir(opts.docs)})`;
    const again = `run \`${command}\` again to go on`;
    const stop = stopOnSignals(kept, again);
    const quiet = stop.dispose;
    // The handlers are removed however the warm start ends: one that throws left them on (a later stop
    // signal in this process then went to a finished experiment's handler).
    const warm = await warmStart(opts.out, say, opts.warmStart, stop.warmStart).catch((error: unknown) => {
      quiet();
      throw error;
    });
    if (warm === "stopped" || warm === "built") {
      quiet();
      const stoppedBy = stop.stoppedBy() ?? "SIGINT";
      process.stderr.write(
        warm === "stopped"
          ? `${interruptedBy(stoppedBy)}: the warm start's cloning stopped; its demonstrations and the cloning's progress (its steps up to the stop) are kept in ${opts.out}; ${again} (the cloning goes on from there)\n`
          : `${interruptedBy(stoppedBy)}: the warm start's cloning had reached its last step and finished it; the baselines were not evaluated and no run started; its demonstrations are kept in ${opts.out}; ${again} (it clones the warm start again, then evaluates the baselines)\n`,
      );
      return exitCodeOf(stoppedBy);
    }
    const todo = specs.filter(
      (s) => (!only || only.includes(s.group)) && !finished.some((f) => f.spec.name === s.name),
    );
    const recorded = finished.filter((f) => !f.local).length;
    say(
      `${todo.length} run(s) to do, ${opts.jobs} at a time (finished runs are skipped${recorded ? `: ${recorded} recorded in ${recordsDir(opts.docs)}` : ""})`,
    );
    const bar = progress("runs", todo.length);
    // A run takes minutes: every minute, the runs in progress and how many of their updates are done.
    const active = new Set<string>();
    const heartbeat = setInterval(() => {
      if (active.size === 0) return;
      bar.tick(
        0,
        Object.fromEntries(
          [...active].map((name) => [name, `${metricsOf(join(opts.out, name)).length}/${PLAN.train.steps} updates`]),
        ),
      );
    }, 60_000);
    heartbeat.unref();
    let next = 0;
    const worker = async () => {
      while (!stop.stoppedBy() && next < todo.length) {
        const spec = todo[next++];
        const started = Date.now();
        active.add(spec.name);
        const code = await runChild(opts.out, spec.name, opts.seeds).finally(() => active.delete(spec.name));
        const suite = readJson<SuiteResult>(join(opts.out, spec.name, "suite.json"));
        const minutes = ((Date.now() - started) / 60000).toFixed(1);
        const stopped = stop.stoppedBy() && !suite && STOP_SIGNALS.some((signal) => exitCodeOf(signal) === code);
        if (stopped)
          writeFileSync(join(opts.out, spec.name, STOPPED), `stopped by a signal (exit ${code}); it resumes\n`);
        say(
          code === 0 && suite
            ? `  ${spec.name}: avg EM ${suite.average.toFixed(3)} (${minutes} min)`
            : stopped
              ? `  ${spec.name}: stopped at its last checkpoint (it resumes from there)`
              : `  ${spec.name}: FAILED (exit ${code}); see ${join(opts.out, spec.name, "log.txt")}`,
        );
        bar.tick(stop.stoppedBy() && !suite ? 0 : 1);
        if (!(await writeReport(opts.out, opts.seeds, opts.docs, command, active)).unchanged) rewritten = true;
      }
    };
    await Promise.all(Array.from({ length: opts.jobs }, worker)).finally(() => {
      clearInterval(heartbeat);
      quiet();
    });
    bar.stop();
    const stoppedBy = stop.stoppedBy();
    if (stoppedBy) {
      await writeReport(opts.out, opts.seeds, opts.docs, command);
      process.stderr.write(`${interruptedBy(stoppedBy)}: every run stopped; ${kept}; ${again}\n`);
      return exitCodeOf(stoppedBy);
    }
  }
  const report = await writeReport(opts.out, opts.seeds, opts.docs, command);
  say(
    `${report.finished}/${report.total} runs finished; ${report.unchanged && !rewritten ? `${join(opts.docs, "results.md")} already says this (left as it is)` : `wrote ${join(opts.docs, "results.md")}`}`,
  );
  return 0;
};

/**
 * `npm run experiment -- ...argv`: the exit code to end with (0 done, 2 bad usage or a wrong folder, said in
 * one line; a stop signal's code). The tests of its refusals run it in their own process.
 */
export const runExperiment = async (argv: readonly string[]): Promise<number> => {
  try {
    return await experiment(argv);
  } catch (error) {
    // A wrong flag or folder is the user's to fix: one line, no stack, `error: ` as commander's and agent-r1's.
    if (!(error instanceof InvalidArgumentError)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    return 2;
  }
};

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("experiment.ts")) {
  process.exitCode = await runExperiment(process.argv.slice(2));
}

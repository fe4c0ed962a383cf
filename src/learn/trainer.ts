/**
 * Training as one stream: rollout -> journal -> replay -> trajectories -> advantages -> update, once per
 * step. Each update bumps the policy version; every episode's journal, the metrics of every update and
 * the checkpoints land in the run folder:
 *
 *   runs/NAME/config.json            the decoded TrainConfig
 *   runs/NAME/origin.json            the folder train was started in (the config's relative paths)
 *   runs/NAME/metrics.jsonl          one line per update
 *   runs/NAME/episodes/u00012/*.jsonl the journals of update 12's rollouts
 *   runs/NAME/checkpoints/v00013/    weights, optimizer state, config, tokenizer, version; latest.json names
 *                                    the newest (each written atomically: a kill never leaves half of one)
 *   runs/NAME/eval.json              success before and after training, on seeds training never used
 *   runs/NAME/warm-start/            the warm start's demonstrations and cloned checkpoint, when one ran
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { appendFile, open, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type * as tf from "@tensorflow/tfjs-core";
import type { Json } from "effect/Schema";
import { readJournalFile, recordedEnvOf } from "../journal/jsonl.ts";
import { holdsNothingButLock, isLockFile, lockFolder, unlockFolder } from "../journal/lock.ts";
import { canonicalJson, hashValue, jsonSyntaxError, readJsonText, readMetricsText } from "../kernel/canonical.ts";
import {
  allKeys,
  checkBooleans,
  checkKnownKeys,
  EpisodesAbortedError,
  JournalError,
  shownValue,
  UsageError,
  writingFileAsync,
} from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { makeFolders } from "../kernel/folders.ts";
import { Rng, splitSeed } from "../kernel/prng.ts";
import type { Tokenizer, WordTokenizer } from "../kernel/tokenizer.ts";
import {
  type BackendChoice,
  type BackendName,
  initBackend,
  isWasmMemoryTrap,
  WASM_MEMORY_HINT,
} from "../policy/backend.ts";
import {
  CheckpointError,
  constrainedByDefault,
  type LatestCheckpoint,
  leftoverNote,
  loadCheckpoint,
  MAX_PARAMETERS,
  minimumParameters,
  type OptimizerState,
  readLatestCheckpoint,
  removeUnfinishedSaves,
  saveCheckpoint,
  savedAttention,
  savedTokenizerId,
  unfinishedSft,
  writeLatestCheckpoint,
} from "../policy/checkpoint.ts";
import { Gpt, type GptConfig } from "../policy/gpt.ts";
import { constrainTo, requireLegalActions } from "../policy/legal.ts";
import { TransformerPolicy } from "../policy/transformer-policy.ts";
import { ABORTED } from "../runtime/derive.ts";
import {
  checkEnvArgument,
  type EnvDefinition,
  isBuiltInEnv,
  isModulePath,
  moduleSpecOf,
  sameEnvSpec,
  unconfiguredOf,
} from "../runtime/env.ts";
import { DEFAULT_MAX_TURNS, type EpisodeRecord, successOfSome, successOutOfRangeNote } from "../runtime/episode.ts";
import { describeFailure, ToolTally } from "../runtime/tool-tally.ts";
import { sameVariantSpec } from "../runtime/variants.ts";
import { AdamW, ZERO_GRADIENT } from "./adamw.ts";
import { type AdvantageExtras, computeAdvantages, type Estimator, runEstimator } from "./advantages/index.ts";
import { type Collected, collect } from "./collect.ts";
import {
  actionBudgetOf,
  checkedModelShape,
  DEFAULT_TRAIN_CONFIG,
  decodeTrainConfig,
  GROUP_RELATIVE,
  scheduledLr,
  TrainConfig,
} from "./config.ts";
import {
  checkSignalOption,
  countCutActions,
  describeEval,
  type EvalSummary,
  evaluateDerived,
  summarizeEpisodes,
} from "./evaluate.ts";
import { drawPositionOffset } from "./position-offsets.ts";
import { turnStartsOf } from "./sft.ts";
import { scoreTokens, type TrainStepResult, trainStep } from "./train-step.ts";
import { episodeToSequence, fitToContext, type Sequence } from "./trajectory.ts";
import { refuseWarmStartWithoutExpert, runWarmStart } from "./warm-start.ts";

/**
 * Whether a batch of `episodes` without one success says the policy collapsed, when its best batch before succeeded
 * at `bestRate`: only if a policy still that good would give such a batch less than 1% of the time ((1 - rate)^n).
 * A tiny run's batches (4 episodes, one success among them once) often have none by chance, and said "collapsed"
 * after one update.
 */
export const collapseLikely = (bestRate: number, episodes: number): boolean =>
  bestRate > 0 && episodes > 0 && (1 - Math.min(bestRate, 1)) ** episodes < 0.01;

/**
 * Options of train: the environment, the run's config, the run folder (`out`), and progress callbacks. `Task` is
 * the environment's task type (the callbacks' records' `task` has it).
 */
export interface TrainOptions<Task extends Json = Json> {
  readonly env: EnvDefinition<Task>;
  readonly config: TrainConfig;
  readonly out: string;
  /** Continue the run in `out` from its latest checkpoint, with its saved config. */
  readonly resume?: boolean;
  /** Called once before the first update, after any warm start and evaluation (progress display). */
  readonly onUpdatesStart?: () => void;
  /** Called after each update with its metrics (progress display). */
  readonly onUpdate?: (metrics: UpdateMetrics) => void;
  /**
   * Called as the greedy evaluation before or after training starts (with its episodes and their turn limit), and
   * after each of its episodes (progress display).
   */
  readonly onEvalStart?: (phase: "before" | "after", episodes: number, maxTurns: number) => void;
  readonly onEvalEpisode?: (phase: "before" | "after", record: EpisodeRecord<Task>) => void;
  /** Every event of the evaluation's episodes as it is journaled (progress display while they run: `agent.acted`). */
  readonly onEvalEvent?: (phase: "before" | "after", event: EpisodeEvent) => void;
  /** Called after each episode an update samples, with how many of its episodes are done (progress display). */
  readonly onEpisode?: (record: EpisodeRecord<Task>, sampled: number, of: number) => void;
  /**
   * Where the run's lines go (default: stderr). Given, it hears everything the run says, and nothing is written
   * to stderr: the warm start's progress (recording and cloning), drawn there by default, is left out.
   */
  readonly log?: (line: string) => void;
  /** Checked before each update: true stops cleanly (checkpoint written). */
  readonly shouldStop?: () => boolean;
  /** Stops the run as shouldStop does, when it aborts (checked before each update and before the evaluation). */
  readonly signal?: AbortSignal;
  /**
   * Your own advantage estimator, in place of `config.algo`'s (the shipped ones are `ESTIMATORS`). The
   * algorithm still decides what the estimator is given (ppo: the critic's `values`; reinforce++ with a KL:
   * `refLogprobs` and `klCoef`; remax: `greedyReward`) and how the loss is formed (ppo trains the critic on
   * `returns`). Its output is checked: one finite Float32Array per sequence, of the sequence's length.
   * Not saved in the run: a resumed run needs it passed again.
   */
  readonly estimator?: { readonly name: string; readonly estimate: Estimator };
}

/** One update's line of the run's metrics.jsonl: what was sampled, how the episodes went, and the losses. */
export interface UpdateMetrics {
  /** The update's index, from 0 (its policy version is step + 1). */
  readonly step: number;
  /** The policy version after this update. */
  readonly version: number;
  readonly episodes: number;
  readonly meanReturn: number;
  /** Mean over this update's episodes of the sum of their process rewards. */
  readonly meanProcessReward: number;
  /** Mean over this update's episodes of the sum of their outcome rewards. */
  readonly meanOutcomeReward: number;
  /** Mean `success` metric of the episodes that reported one; null when none did. */
  readonly successRate: number | null;
  readonly meanTurns: number;
  readonly aborted: number;
  /** Of the aborted episodes, those left out of training: all but those the runtime's turn limit cut. */
  readonly leftOut: number;
  /** Episodes by the reason they ended ("answered", "turn-limit"; every aborted one as "aborted"). */
  readonly endReasons?: Readonly<Record<string, number>>;
  /** Rewards given, by their reason ("malformed", ...): how often each was given this update. */
  readonly rewardCounts?: Readonly<Record<string, number>>;
  /** The mean of each metric the environment's end reported (success, em, f1, searches...). */
  readonly endMetrics?: Readonly<Record<string, number>>;
  /** Tool calls made this update, and how many failed (absent in runs written before they were counted). */
  readonly toolCalls?: number;
  readonly toolFailures?: number;
  /** Episodes longer than the context with not even their first action inside it: not trained on. */
  readonly droppedTooLong: number;
  /** Episodes longer than the context, trained on the actions that fit (with their whole return). */
  readonly cutToContext?: number;
  /** Sampled actions cut at the token budget before they ended (absent in runs written before it was counted). */
  readonly cutActions?: number;
  /** Groups with no learning signal (one episode, or all rewards equal): their advantages are 0. */
  readonly degenerateGroups: number;
  readonly loss: number;
  readonly policyLoss: number;
  readonly valueLoss: number;
  readonly entropy: number;
  /**
   * Mean KL estimate to the reference over the trained tokens: the loss term's (--kl-kind) for every algorithm
   * but REINFORCE++, whose k1 sits in the reward (mean over action tokens, from the sampled logprobs). 0 without --kl.
   */
  readonly kl: number;
  readonly approxKl: number;
  readonly clipfrac: number;
  readonly gradNorm: number;
  /** The learning rate of this update (`lrSchedule`; absent in runs written before it was recorded). */
  readonly lr?: number;
  /** Gradient steps of this update that were not applied (a NaN or infinite loss or gradient). */
  readonly skippedUpdates: number;
  /** Tokens under the loss mask, summed over this update's gradient steps. */
  readonly trainedTokens: number;
  /** Action tokens the policy sampled this update. */
  readonly sampledTokens: number;
  /** Timing fields: the only ones that differ between two runs of the same seed and config. */
  readonly tokensPerSecond: number;
  readonly sampleSeconds: number;
  readonly trainSeconds: number;
}

/** A run folder's record of the folder train was started in: `{ "startedIn": "/abs/path" }`. */
export const ORIGIN_FILE = "origin.json";

/**
 * config.json, and with the first one origin.json: the folder the config's relative paths (--env
 * ./my-env.ts, --init runs/warm) are relative to, so that a resume, eval or replay from another folder
 * finds them there rather than whatever has that name where it runs.
 */
const writeConfig = async (out: string, config: TrainConfig, fresh: boolean) => {
  // Only a fresh run knows it: a run of an older version resumed here was started elsewhere.
  if (fresh && !existsSync(join(out, ORIGIN_FILE)))
    await writeJsonAtomically(join(out, ORIGIN_FILE), { startedIn: process.cwd() });
  await writeJsonAtomically(join(out, "config.json"), config);
};

export const TIMING_FIELDS = ["tokensPerSecond", "sampleSeconds", "trainSeconds"] as const;

/** How a training run ended: the backend, the updates run, the policy version, the evaluations before and after. */
export interface TrainResult {
  readonly backend: BackendName;
  /** Updates run by this call (a resumed run's earlier ones not counted). */
  readonly steps: number;
  /** The policy version at the end (the updates it has had, counting those of a resumed run). */
  readonly version: number;
  /**
   * The greedy evaluation before the first update (a resumed run's from its eval.json); absent when evalEpisodes is
   * 0.
   */
  readonly before?: EvalSummary;
  /** The greedy evaluation after the last update; absent when stopped early or evalEpisodes is 0. */
  readonly after?: EvalSummary;
  /**
   * Stopped early (shouldStop or signal) rather than run to `config.steps`, or stopped during the last update, before
   * the evaluation after training (a resume then evaluates it).
   */
  readonly stopped: boolean;
}

const pad = (n: number) => String(n).padStart(5, "0");
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

const writeTextAtomically = async (file: string, text: string) => {
  await writingFileAsync(file, () => writeFile(`${file}.tmp`, text));
  await rename(`${file}.tmp`, file);
};
const writeJsonAtomically = (file: string, value: unknown) =>
  writeTextAtomically(file, `${JSON.stringify(value, null, 2)}\n`);

/** The run's newest checkpoint (checkpoints/latest.json); a damaged latest.json is a CheckpointError. */
export const readLatest = (out: string): LatestCheckpoint | undefined => readLatestCheckpoint(join(out, "checkpoints"));

/** A run folder's config.json (undefined if absent); a damaged one is a UsageError naming the file and field. */
export const readRunConfig = (out: string): TrainConfig | undefined => {
  const file = join(out, "config.json");
  // A checkpoint folder holds a config.json too: the model's, not a run's.
  if (existsSync(join(out, "manifest.json")))
    throw new UsageError({
      detail: `${out} is a checkpoint (manifest.json, weights.bin, ...), not a run folder; start a run from it with --init ${out} (from code: config.init)`,
    });
  if (!existsSync(file)) return undefined;
  let json: unknown;
  let text = "";
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(readFileSync(file));
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError({ detail: `${file}: not valid JSON (${jsonSyntaxError(error, text)})` });
  }
  // A run of a group-relative estimator with groups of one, which versions before the check allowed: its
  // config is refused now, and a resume keeps its config, so it cannot go on; its weights can start a new run.
  const { algo, groupSize, env } = (typeof json === "object" && json !== null ? json : {}) as Record<string, unknown>;
  if (typeof algo === "string" && GROUP_RELATIVE.includes(algo) && groupSize === 1) {
    throw new UsageError({
      detail: `${file}: this run is ${algo} with groupSize 1, which an older version allowed and this one refuses (each episode is compared with the others of its task, so every advantage is 0); a resume keeps the run's config, so it cannot be resumed: start a new run from its weights with train --init ${out}${envFlag(env)} --algo ${algo} --group-size 2 --out NEW (or --algo ppo, reinforce++ or remax)`,
    });
  }
  let config: TrainConfig;
  try {
    config = decodeTrainConfig(json, file);
  } catch (error) {
    // One line: each problem's "at [path]" joins it, and "; " parts the problems.
    if (error instanceof UsageError)
      throw new UsageError({ detail: error.detail.replace(/\s*\n\s+at /g, " at ").replace(/\s*\n\s*/g, "; ") });
    throw error;
  }
  freshModelConfig(config, 1, file); // the vocabulary's share is checked when the environment is known
  return config;
};

/**
 * A TransformerPolicy of `model` that samples as the config says (temperature, topP, maxNewTokens, constrained);
 * greedy for evaluation.
 */
export const policyFromModel = (
  env: EnvDefinition,
  model: Gpt,
  tokenizer: Tokenizer,
  config: TrainConfig,
  greedy = false,
  version = 0,
) =>
  new TransformerPolicy({
    id: `${env.id}-gpt`,
    model,
    tokenizer,
    version,
    sampling: { temperature: config.temperature, topP: config.topP, maxNewTokens: config.maxNewTokens, greedy },
    ...(config.constrained ? { constrain: constrainTo(env) } : {}),
  });

/**
 * `config.env` is what a resume loads (`train --resume` reads it from config.json): it must name the
 * environment being trained, or the resumed run would train another one. A module path is loaded and its
 * environment's id compared (unless it is the path the environment was loaded from).
 */
const checkConfigEnv = async (config: TrainConfig, env: EnvDefinition) => {
  const id = config.env.split("?")[0];
  const fix = `set env to "${moduleSpecOf(env) ?? env.id}" (trainConfigFor(env, ...) does), which is what a resume loads`;
  if (!isModulePath(id)) {
    if (id !== env.id)
      throw new UsageError({
        detail: `train config: env is "${config.env}" but the environment given is ${env.id}; ${fix}`,
      });
    return;
  }
  if (moduleSpecOf(env) === config.env) return;
  const { loadEnv } = await import("../cli/registry.ts");
  const named = await loadEnv(config.env).catch((cause: unknown) => {
    throw new UsageError({
      detail: `train config: env "${config.env}" does not load (${(cause as Error).message}); ${fix}`,
    });
  });
  if (named.id !== env.id)
    throw new UsageError({
      detail: `train config: env "${config.env}" defines environment ${named.id}, but the environment given is ${env.id}; ${fix}`,
    });
};

/** What `train` writes in its out folder: a folder holding anything else is not a run to resume. */
const RUN_ENTRY = /^(config\.json|origin\.json|metrics\.jsonl|eval\.json|checkpoints|episodes|warm-start)(\.tmp)?$/;
const isRunEntry = (name: string) => isLockFile(name) || RUN_ENTRY.test(name);

/**
 * A resume of a folder with no config.json: fine when empty (a run killed at its start), not when it does
 * not exist (a misspelt folder would start a whole new run) or holds other files. `flag` names the option.
 */
export const refuseForeignResume = (out: string, flag = "resume") => {
  if (!existsSync(out))
    throw new UsageError({
      detail: `${flag}: no run folder ${out}; give the ${flag === "--resume" ? "--out" : "folder"} of the run to continue, or drop ${flag} to start a new run there`,
    });
  refuseFileAsOut(out);
  // A run whose config.json is gone: its settings are lost, and a fresh start would overwrite its work.
  if (existsSync(join(out, "metrics.jsonl")) || readLatest(out))
    throw new UsageError({
      detail: `${flag}: ${out} holds a run but no config.json, which a resume continues from; put it back (it is the config the run started with), or start a new run in another folder`,
    });
  const foreign = readdirSync(out).filter((name) => !isRunEntry(name));
  if (foreign.length > 0)
    throw new UsageError({
      detail: `${flag}: ${out} holds no training run (no config.json) but other files (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", ..." : ""}); give the folder of the run to continue, or drop ${flag} and start a new run in an empty folder`,
    });
};

/**
 * A checkpoint keeps its own attention: a train config's model that states another (`model.attention`) is
 * refused, naming both, rather than trained as the checkpoint's architecture. A folder that is no checkpoint
 * is left to the loader, whose error says what is wrong with it.
 */
const refuseOtherAttention = (stated: "full" | "turn-local", checkpoint: string, what: string): void => {
  const has = savedAttention(checkpoint);
  if (has !== undefined && has !== stated)
    throw new UsageError({
      detail: `train config: model.attention "${stated}" cannot apply: ${what} ${checkpoint} has ${has} attention, and a checkpoint keeps its own; state "${has}" or leave attention out (a fresh model, without init, takes the one stated)`,
    });
};

/** Fields a resume may change: the run's length, where it computes, and its checkpoint paths. */
const RESUMABLE = new Set(["steps", "backend", "env", "init"]);

/**
 * From code, `train({ resume: true })` continues the run with its own config.json, as `--resume` does: a
 * config that asks for anything else than a longer or shorter run (steps) or another backend is refused,
 * naming each field, and so are steps below the version already reached.
 */
const resumedConfig = (out: string, config: TrainConfig, env: EnvDefinition): TrainConfig => {
  const saved = readRunConfig(out);
  if (!saved) {
    refuseForeignResume(out);
    return config;
  }
  const fields = [...new Set([...Object.keys(saved), ...Object.keys(config)])] as (keyof TrainConfig)[];
  // An attention one of the two leaves out is the model's own (its checkpoint's): compared below with that.
  const unstated = saved.model.attention === undefined || config.model.attention === undefined;
  const comparable = (c: TrainConfig, key: keyof TrainConfig) => {
    if (key !== "model" || !unstated) return c[key] ?? null;
    const { attention: _, ...shape } = c.model;
    return shape;
  };
  const clashes = fields
    .filter(
      (key) => !RESUMABLE.has(key) && canonicalJson(comparable(config, key)) !== canonicalJson(comparable(saved, key)),
    )
    .map((key) => `${key} ${JSON.stringify(config[key])} (the run has ${JSON.stringify(saved[key])})`);
  const bothPaths = isModulePath(saved.env.split("?")[0]) && isModulePath(config.env.split("?")[0]);
  // The same options in another order are the same environment (records written before specs were sorted), and so
  // are a built-in environment's options spelt another way (hopqa's `?world-seed=5` is `?worlds=5-5`), as `train
  // --resume --env` takes them.
  // A run recorded by its environment's id alone (train() from code given an environment imported, not loaded from
  // its path) goes on with that environment's module: the module's environment has the run's id.
  const byIdOnly =
    !isModulePath(saved.env.split("?")[0]) &&
    !isBuiltInEnv(env) &&
    saved.env === env.id &&
    isModulePath(config.env.split("?")[0]);
  const sameEnv = bothPaths || byIdOnly || sameVariantSpec(unconfiguredOf(env), config.env, saved.env);
  if (!sameEnv) clashes.push(`env ${JSON.stringify(config.env)} (the run has ${JSON.stringify(saved.env)})`);
  if (clashes.length > 0)
    throw new UsageError({
      detail: `resume: ${out} continues with its own config.json, so ${clashes.join(", ")} cannot apply; give the run's config (readRunConfig(out)) with only steps or backend changed, or start a new run in another folder`,
    });
  const latest = readLatest(out);
  const at = latest?.version ?? 0;
  // The attention stated where config.json states none: the one of the model the run goes on with.
  const stated = config.model.attention;
  if (stated !== undefined && saved.model.attention === undefined) {
    const init = config.init ?? saved.init;
    if (latest) refuseOtherAttention(stated, join(out, "checkpoints", latest.dir), "the run's latest checkpoint");
    else if (init) refuseOtherAttention(stated, init, "init");
    else if (stated !== "full")
      throw new UsageError({
        detail: `resume: model.attention "${stated}" cannot apply: ${out} trains a fresh model of full attention (its config.json states none); leave attention out, or start a new run in another folder`,
      });
  }
  if (config.steps < at)
    throw new UsageError({
      detail: `resume: steps ${config.steps}, but ${out} is already at policy version ${at}; steps counts all the run's updates, so give more than ${at} to continue it`,
    });
  // Options spelt another way keep the run's spelling, as `train --resume --env` does.
  // A run recorded by id takes the module's path from now on: the CLI (eval, --resume) finds it without --env.
  const envSpec = bothPaths || byIdOnly || sameEnvSpec(config.env, saved.env) ? config.env : saved.env;
  return { ...saved, steps: config.steps, backend: config.backend, env: envSpec, init: config.init ?? saved.init };
};

/**
 * The environment a run's journals were recorded with, from their episode.started lines (the first line of
 * each, not the whole file): those under episodes/, in order, then the warm start's demos. Given this
 * build's environment, the first journal recorded on another version of it, if any (a run resumed across
 * versions by a build without the check has it in a later update only), else the first journal's. Undefined
 * when there is none that can be read (replay and the resume's own checks say what is wrong with a damaged one).
 */
export const recordedEnvOfRun = (
  runDir: string,
  current?: { readonly id: string; readonly version: string },
): { readonly id: string; readonly version: string; readonly file: string } | undefined => {
  // A run's layout: episodes/uNNNNN/*.jsonl (one level; a uNNNNN link to its own folder would loop).
  const journals = (dir: string, updates = true): string[] => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return [];
    }
    return names.flatMap((name) =>
      name.endsWith(".jsonl")
        ? [join(dir, name)]
        : updates && /^u\d+$/.test(name)
          ? journals(join(dir, name), false)
          : [],
    );
  };
  let first: { readonly id: string; readonly version: string; readonly file: string } | undefined;
  for (const file of [...journals(join(runDir, "episodes")), ...journals(join(runDir, "warm-start", "demos"))]) {
    // Unreadable or damaged: the next journal says it.
    const env = recordedEnvOf(file);
    if (env === undefined) continue;
    const recorded = { ...env, file };
    if (current === undefined) return recorded;
    first ??= recorded;
    if (recorded.id === current.id && recorded.version !== current.version) return recorded;
  }
  return first;
};

/** ` --env ENV` for a message's command line (quoted when the shell would split it); "" when there is none. */
const envFlag = (env: unknown): string =>
  typeof env === "string" ? ` --env ${/^[\w./:@-]+$/.test(env) ? env : JSON.stringify(env)}` : "";

/**
 * A run recorded on another version of its environment (hopqa v2's journals, this build's v3) is not
 * resumed: its new episodes would be of the other version, one run folder mixing the two (and its own older
 * episodes no longer replay). Its weights can start a new run.
 */
const refuseOtherEnvVersion = (out: string, env: EnvDefinition, config: TrainConfig) => {
  const recorded = recordedEnvOfRun(out, env);
  if (!recorded || recorded.id !== env.id || recorded.version === env.version) return;
  throw new UsageError({
    // "resume", as train's other refusals of a resume say it: train --resume and train({ resume: true }) both come here.
    detail: `resume: ${recorded.file} was recorded with environment ${env.id} v${recorded.version}, and this build has ${env.id} v${env.version}: going on would mix episodes of two versions in one run folder (its older ones no longer replay), so ${out} cannot be resumed here; start a new run from its weights with train --init ${out}${envFlag(config.env)} --algo ${config.algo} --out NEW (from code: train({ ..., config: { ...config, init: ${JSON.stringify(out)} }, out: NEW })) (or resume with the version that recorded it)`,
  });
};

/** A checkpoint to start from; one written for another tokenizer is a UsageError naming both. */
export const loadCheckpointFor = async (env: EnvDefinition, dir: string, options: { optimizer?: boolean } = {}) => {
  const loaded = await loadCheckpoint(dir, options);
  try {
    checkTokenizerOf(env, dir, loaded.tokenizer.id);
  } catch (error) {
    loaded.model.dispose();
    throw error;
  }
  return loaded;
};

/**
 * A checkpoint of another environment's tokenizer is a UsageError naming both. With no id given, the one
 * the checkpoint's tokenizer.json states (read without loading: a command says it before any work; a
 * damaged file is left for the loader to name).
 */
export const checkTokenizerOf = (env: EnvDefinition, dir: string, id?: string): void => {
  const found = id ?? savedTokenizerId(dir);
  if (found === undefined || found === env.tokenizer.id) return;
  const trained = trainedFor(dir);
  // A run trained from code on loadEnv(path) names the module, not the id: its journals say which environment.
  const trainedId = trained && isModulePath(trained.env) ? recordedEnvOfRun(join(dir, "..", ".."))?.id : trained?.env;
  throw new UsageError({
    detail:
      trained && trainedId !== undefined && trainedId !== env.id
        ? `checkpoint ${dir} was trained on environment ${trained.env} (${trained.file}), not ${env.id}: its tokenizer is ${found}, ${env.id}'s is ${env.tokenizer.id}`
        : `checkpoint ${dir} was made for another tokenizer (${found}) than environment ${env.id}'s (${env.tokenizer.id}): it belongs to another environment, or to an older version of this one${
            // An option may change the tokenizer (hopqa's wording has its own): the checkpoint may be of another variant.
            env.configure
              ? `, or to this one with other options (--env "${env.id}?...": hopqa's wording, say, has a tokenizer of its own)`
              : ""
          }`,
  });
};

/** The environment a run folder's checkpoint (RUN/checkpoints/vNNNNN) was trained on, from RUN/config.json. */
const trainedFor = (dir: string): { env: string; file: string } | undefined => {
  const file = join(dir, "..", "..", "config.json");
  try {
    const env = (JSON.parse(readJsonText(file)) as { env?: unknown }).env;
    return typeof env === "string" ? { env: env.split("?")[0], file } : undefined;
  } catch {
    return undefined;
  }
};

/** The names of the checkpoint folders (those with a manifest.json) directly in `folder`, sorted; [] if none or no folder. */
export const checkpointsIn = (folder: string): string[] =>
  existsSync(folder) && statSync(folder).isDirectory()
    ? readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(folder, d.name, "manifest.json")))
        .map((d) => d.name)
        .sort()
    : [];

/** The names of the run folders (those with checkpoints/latest.json) directly in `folder`, sorted; [] if none or no folder. */
export const runsIn = (folder: string): string[] =>
  existsSync(folder) && statSync(folder).isDirectory()
    ? readdirSync(folder, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(folder, d.name, "checkpoints", "latest.json")))
        .map((d) => d.name)
        .sort()
    : [];

/**
 * `; checkpoints in runs/a/checkpoints: v00010, v00020` when the folder of a missing checkpoint holds others, and
 * `; runs in runs: a, b` when it holds run folders, which a checkpoint argument also takes (each its latest).
 */
export const checkpointsBeside = (missing: string): string => {
  const folder = dirname(missing);
  const listed = (names: readonly string[]) =>
    (names.length > 8 ? [...names.slice(0, 3), "...", ...names.slice(-4)] : names).join(", ");
  const found = checkpointsIn(folder);
  const runs = runsIn(folder);
  return (
    (found.length > 0 ? `; checkpoints in ${folder}: ${listed(found)}` : "") +
    (runs.length > 0 ? `; runs in ${folder} (each gives its latest checkpoint): ${listed(runs)}` : "")
  );
};

/** Whether a config.json is a run's (it names an `env`), read leniently: a damaged one is for the loader to name. */
const namesAnEnv = (file: string): boolean => {
  try {
    const json = JSON.parse(readJsonText(file)) as unknown;
    return typeof json === "object" && json !== null && typeof (json as { env?: unknown }).env === "string";
  } catch {
    return false;
  }
};

/**
 * A metrics line's mean return against its update's journals (episodes/uNNNNN, each one's episode.ended):
 * refused when they differ, naming both, as a metrics.jsonl of another run (or an edited one) would. Skipped
 * where the journals cannot say (removed, fewer than the line counts, one not ended). A damaged journal there (a
 * torn last line, which replay reports) is said through `log`, naming the file, and left as it is: a resume of a
 * finished run reads no other journal, so it went unsaid there.
 */
const checkMetricsAgainstJournals = async (
  out: string,
  metricsFile: string,
  lineNo: number,
  line: string,
  log: (line: string) => void,
) => {
  const { step, episodes, meanReturn } = JSON.parse(line) as Partial<UpdateMetrics>;
  if (typeof step !== "number") return;
  const folder = join(out, "episodes", `u${pad(step)}`);
  if (!existsSync(folder)) return;
  const files = readdirSync(folder)
    .filter((f) => f.endsWith(".jsonl"))
    .sort();
  const damaged: string[] = [];
  let sum = 0;
  let whole = true;
  for (const file of files) {
    try {
      const last = (await readJournalFile(join(folder, file))).at(-1);
      if (last?.type === "episode.ended") sum += last.return;
      else whole = false;
    } catch (error) {
      if (error instanceof JournalError) damaged.push(error.message);
      whole = false;
    }
  }
  // One line each (a journal's problem holds semicolons), the first 3: replay names them all.
  for (const problem of damaged.slice(0, 3))
    log(`warning: a journal of update ${step}, the last one kept, is damaged, and kept as it is: ${problem}`);
  if (damaged.length > 3)
    log(
      `warning: and ${damaged.length - 3} more ${damaged.length === 4 ? "journal" : "journals"} of update ${step} ${damaged.length === 4 ? "is" : "are"} damaged: replay ${folder} names them`,
    );
  if (!whole || typeof meanReturn !== "number" || files.length !== episodes || files.length === 0) return;
  const journaled = sum / files.length;
  if (Math.abs(journaled - meanReturn) > 1e-6 * Math.max(1, Math.abs(meanReturn)))
    throw new UsageError({
      detail: `${metricsFile}:${lineNo}: update ${step}'s mean return is ${meanReturn}, but its ${files.length} journals in ${folder} returned ${journaled} on average: the file is another run's, or was edited (put this run's own metrics.jsonl back to resume)`,
    });
};

/** latest.json names a checkpoint whose manifest says another version: a folder copied in from another run. */
const latestMismatch = (run: string, latest: { readonly dir: string; readonly version: number }, version: number) =>
  new CheckpointError({
    problem: "mismatch",
    file: join(run, "checkpoints", "latest.json"),
    detail: `names ${latest.dir} as policy version ${latest.version}, its manifest says ${version}`,
  });

/**
 * The checkpoint a user means by `dir`: a checkpoint folder as it is; a run folder (`train --out`) or its
 * checkpoints/ folder: the run's latest checkpoint (said through `log`). `what` names the argument in errors.
 */
export const checkpointIn = (dir: string, what: string, log: (line: string) => void = () => {}): string => {
  const unfinished = unfinishedSft(dir);
  if (unfinished) throw new UsageError({ detail: `${what} ${unfinished}` });
  if (existsSync(dir) && !statSync(dir).isDirectory())
    throw new UsageError({
      detail: `${what} ${dir} is a file; a checkpoint is a folder (manifest.json, weights.bin, ...)`,
    });
  if (existsSync(join(dir, "manifest.json"))) return dir;
  const run = basename(resolve(dir)) === "checkpoints" && existsSync(join(dir, "latest.json")) ? dirname(dir) : dir;
  if (!existsSync(join(run, "checkpoints"))) {
    if (existsSync(dir)) {
      // A folder that holds checkpoints (docs/checkpoints) or journals, given where one checkpoint belongs.
      const inside = checkpointsIn(dir);
      const runs = runsIn(dir).map((name) => join(dir, name));
      const listed = (paths: readonly string[]) =>
        `${paths.slice(0, 6).join(", ")}${paths.length > 6 ? `, ... (${paths.length} in all)` : ""}`;
      // Both (npm start's runs/start: its warm start beside its GRPO run): every one named.
      if (inside.length > 0 && runs.length > 0)
        throw new UsageError({
          detail: `${what} ${dir} holds checkpoints and run folders but is no checkpoint (no manifest.json): give a checkpoint, ${listed(inside.map((name) => join(dir, name)))}, or a run (its latest checkpoint), ${listed(runs)}`,
        });
      if (inside.length > 0)
        throw new UsageError({
          detail: `${what} ${dir} holds checkpoints but is none (no manifest.json): give one of them: ${listed(inside.map((name) => join(dir, name)))}`,
        });
      // A folder of run folders (`runs/`): name the runs, rather than load tfjs to say a manifest is missing.
      if (runs.length > 0)
        throw new UsageError({
          detail: `${what} ${dir} holds run folders but is no checkpoint: give one of them (its latest checkpoint) or a checkpoint in it: ${listed(runs)}`,
        });
      if (readdirSync(dir).some((name) => name.endsWith(".jsonl")))
        throw new UsageError({
          detail: `${what} ${dir} is a folder of journals (.jsonl), not a checkpoint (manifest.json, weights.bin, ...): clone one from it with \`agent-r1 sft --data ${dir}\``,
        });
      // A run's config.json (it names an env; a checkpoint's own config.json is the model's) before any checkpoint.
      if (namesAnEnv(join(dir, "config.json")))
        throw new UsageError({
          detail: `${what} ${dir}: a run folder with no checkpoint yet (train writes checkpoints/ every --checkpoint-every updates and at its end)`,
        });
    } else
      throw new UsageError({
        detail: `${what} ${dir}: no such checkpoint folder${existsSync(dirname(resolve(dir))) ? "" : ` (not even ${dirname(resolve(dir))})`}${checkpointsBeside(dir)}${leftoverNote(dir)}`,
      });
    return dir; // the loader says what is missing
  }
  const latest = readLatest(run);
  if (!latest) {
    // docs/ has a checkpoints/ folder too: name the checkpoints it holds rather than call it a run.
    const inside = checkpointsIn(join(run, "checkpoints")).map((name) => join(run, "checkpoints", name));
    throw new UsageError({
      detail: inside.length
        ? `${what} ${dir} is no checkpoint (no manifest.json) and no run folder (no checkpoints/latest.json); checkpoints in it: ${inside.slice(0, 4).join(", ")}`
        : `${what} ${dir}: a run folder with no checkpoint yet`,
    });
  }
  const picked = join(run, "checkpoints", latest.dir);
  // A checkpoint folder copied in from another run (of another size, say) keeps its own version: caught
  // here, as train --resume catches it, not evaluated or trained from as this run's latest. An unreadable
  // manifest is left to the loader, whose error names it.
  let version: unknown;
  try {
    version = (JSON.parse(readJsonText(join(picked, "manifest.json"))) as { version?: unknown }).version;
  } catch {}
  if (typeof version === "number" && version !== latest.version) throw latestMismatch(run, latest, version);
  log(
    `${what} ${dir} is ${run === dir ? "a run folder" : `the checkpoints folder of the run ${run}`}: using its latest checkpoint, ${picked}`,
  );
  return picked;
};

/** loadPolicy's options. */
export interface LoadPolicyOptions {
  /** Sample greedily (default true). */
  readonly greedy?: boolean;
  /**
   * Decode only the environment's legal actions (it must declare `legalActions`). Default: as the checkpoint was
   * trained or cloned (its manifest says so), as `agent-r1 eval` decodes it; else freely.
   */
  readonly constrained?: boolean;
  readonly backend?: BackendChoice;
  /**
   * Where its lines go (default: stderr), as train's `log`: the backend it started ("tfjs backend: wasm", said by
   * the first call of a process that starts one) and, for a run folder, the checkpoint taken as its latest.
   */
  readonly log?: (line: string) => void;
}

/**
 * A checkpoint (or a run folder: its latest) as a policy, for `evaluate` or `rollout` from code: the backend started, the tokenizer checked
 * against the environment's, greedy unless told, the environment's action budget.
 */
export const loadPolicy = async (env: EnvDefinition, dir: string, options: LoadPolicyOptions = {}) => {
  checkEnvArgument("loadPolicy", env);
  if (typeof dir !== "string" || dir === "")
    throw new TypeError(
      `loadPolicy: the second argument must be a checkpoint folder or a run folder, got ${String(dir)}`,
    );
  checkKnownKeys("loadPolicy", options, ["greedy", "constrained", "backend", "log"]);
  if (options.log !== undefined && typeof options.log !== "function")
    throw new TypeError(`loadPolicy: log must be a function of a line, got ${typeof options.log}`);
  // From plain JavaScript, `constrained: "no"` is truthy: it would decode under the masks, not refuse.
  checkBooleans(
    options,
    ["constrained", "greedy"],
    (rule, value) => new TypeError(`loadPolicy: ${rule}, got ${shownValue(value)}`),
  );
  if (options.constrained) requireLegalActions(env);
  // From code, a missing checkpoint is a CheckpointError (README), as loadCheckpoint's is.
  if (!existsSync(dir))
    throw new CheckpointError({ problem: "missing", file: dir, detail: "no such checkpoint folder or run folder" });
  // Without a log the backend's line goes to stderr, as before; the run folder's note is said only to a log.
  await initBackend(options.backend ?? "auto", options.log ? { log: options.log } : {});
  const checkpoint = checkpointIn(dir, "loadPolicy:", options.log);
  const { model, tokenizer, version } = await loadCheckpointFor(env, checkpoint, { optimizer: false });
  // Unless told, decoded as it was trained or cloned, as `agent-r1 eval` does: a checkpoint trained under the legal
  // actions, decoded freely, scored 0 on the weather example (every episode to its turn limit), without a word.
  let constrained = options.constrained;
  if (constrained === undefined && constrainedByDefault(env, checkpoint)) {
    constrained = true;
    const say = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    say(
      `loadPolicy: constrained decoding, as ${checkpoint} was trained or cloned (its manifest.json); { constrained: false } decodes freely`,
    );
  }
  const config = {
    ...DEFAULT_TRAIN_CONFIG,
    constrained: !!constrained,
    maxNewTokens: actionBudgetOf(env),
  };
  return policyFromModel(env, model, tokenizer, config, options.greedy ?? true, version);
};

/** Estimators whose advantage is one value per episode, broadcast over its tokens (reinforce++-baseline whitens over tokens). */
const EPISODE_ADVANTAGE: readonly string[] = ["grpo", "rloo", "remax"];

/** The model to start from: a checkpoint (`init`), or a fresh one from the seed. */
const initialModel = async (env: EnvDefinition, config: TrainConfig) => {
  // Its weights only: a run from --init starts its optimizer afresh, so a checkpoint shipped without the
  // optimizer.bin its manifest lists (docs/checkpoints/hopqa-sloppy-grpo-60) starts one.
  if (config.init) return loadCheckpointFor(env, config.init, { optimizer: false });
  const tokenizer = env.tokenizer as WordTokenizer;
  if (!Array.isArray((tokenizer as { words?: unknown }).words))
    throw new UsageError({
      detail: `environment ${env.id}'s tokenizer is not a WordTokenizer; the GPT policy needs one`,
    });
  // Turn-local attention finds turns at the environment's action tags, as sft's fresh model does.
  const turnStarts = config.model.attention === "turn-local" ? turnStartsOf(env, tokenizer) : undefined;
  const model = new Gpt(freshModelConfig(config, tokenizer.size, "config", turnStarts), splitSeed(config.seed, "init"));
  return { model, tokenizer, version: 0 };
};

/**
 * A fresh model's GptConfig; one that cannot be built (heads not dividing width, too large) is a UsageError.
 * `turnStarts`: the environment's turn starts, for turn-local attention (without them, as when a config is read
 * before its environment is known, the rest of the shape is checked).
 */
export const freshModelConfig = (
  config: TrainConfig,
  vocabSize: number,
  where = "config",
  turnStarts?: readonly number[],
): GptConfig => {
  const model = checkedModelShape(config.model, vocabSize, where, turnStarts);
  if (minimumParameters(model) > MAX_PARAMETERS)
    throw new UsageError({
      detail: `${where}: model: ${JSON.stringify(config.model)} needs at least ${minimumParameters(model)} parameters, over the limit of ${MAX_PARAMETERS}`,
    });
  return model;
};

/** A run's out is a folder; a file there would fail in mkdir with a stack trace. */
const refuseFileAsOut = (out: string): void => {
  if (existsSync(out) && !statSync(out).isDirectory())
    throw new UsageError({
      detail: `${out} is a file; a run's out (--out) is a folder (config.json, checkpoints/, ...)`,
    });
};

/**
 * The journal folders a resume removes (episodes/uNNNNN from the version resumed from on) hold the run's
 * journals and nothing else; anything more was put there by something else (`train --out RUN/episodes/u00009`,
 * an sft clone, a recording), and removing the folder would delete it with no trace: refused, naming it.
 */
const refuseForeignInRedone = (out: string, startStep: number, steps: number): void => {
  for (let step = startStep; step < steps + 1; step++) {
    const folder = join(out, "episodes", `u${pad(step)}`);
    if (!existsSync(folder)) continue;
    const foreign = readdirSync(folder, { withFileTypes: true }).filter(
      (entry) => !(entry.isFile() && entry.name.endsWith(".jsonl")),
    );
    if (foreign.length > 0)
      throw new UsageError({
        detail: `${folder} holds ${foreign
          .slice(0, 3)
          .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
          .join(
            ", ",
          )}${foreign.length > 3 ? ", ..." : ""}, which the run did not write there: the resume redoes that update and removes the folder with everything in it; move what is not the run's out of ${out}, then resume`,
      });
  }
};

/**
 * A fresh run into a folder that holds a run is refused, said in the words of who asked: the CLI's (`--resume`,
 * another `--out`) or code's (`train({ ..., resume: true })`, another `out`).
 */
export const refuseRunFolder = (out: string, from: "cli" | "code" = "code"): void => {
  if (existsSync(join(out, "metrics.jsonl")))
    throw new UsageError({
      detail:
        from === "cli"
          ? `${out} already holds a run; continue it with --resume, or give another --out`
          : `${out} already holds a run; continue it with train({ ..., resume: true }), or give train() another out`,
    });
  // A checkpoint folder (or one in a run's checkpoints/): the run's config.json would replace the
  // checkpoint's model config.json, and the checkpoint would no longer load.
  const parent = dirname(resolve(out));
  if (basename(parent) === "checkpoints" && existsSync(join(parent, "latest.json")))
    throw new UsageError({
      detail: `${out} is in a train run's checkpoints/ folder: a run there would break that run's checkpoints and --resume; train into a folder of its own${existsSync(join(out, "manifest.json")) ? ` (--init ${out} starts from that checkpoint)` : ""}`,
    });
  // A run's episodes/ folder: that run's resume removes its episodes/uNNNNN folders whole, this run with them.
  if (basename(parent) === "episodes" && existsSync(join(dirname(parent), "config.json")))
    throw new UsageError({
      detail: `${out} is in the episodes/ folder of the train run ${dirname(parent)}: that run's --resume removes the journal folders it redoes, with anything in them; train into a folder of its own`,
    });
  // A clone its sft is still making (stopped, to be resumed): a run there left that sft unable to finish.
  const stoppedSft = unfinishedSft(out, "train into a folder of its own");
  if (stoppedSft) throw new UsageError({ detail: stoppedSft });
  if (existsSync(join(out, "manifest.json")) || existsSync(join(out, "weights.bin")))
    throw new UsageError({
      detail: `${out} holds a checkpoint (manifest.json, weights.bin): a run's config.json there would replace the checkpoint's and it would no longer load; train into a folder of its own (--init ${out} starts from this checkpoint)`,
    });
  if (!existsSync(out)) return;
  refuseFileAsOut(out);
  // Recorded journals would mix with the run's own (sft --data of the run would clone them all).
  const journals = readdirSync(out).filter((name) => name.endsWith(".jsonl") && !isRunEntry(name));
  if (journals.length > 0)
    throw new UsageError({
      detail: `${out} holds recorded journals (${journals.slice(0, 3).join(", ")}${journals.length > 3 ? ", ..." : ""}); a run writes its own episodes there, and they would mix: give a new or empty --out`,
    });
};

/** Every option train reads (any other is a misspelling, refused by name). */
const TRAIN_OPTIONS = allKeys<TrainOptions>()([
  "env",
  "config",
  "out",
  "resume",
  "onUpdatesStart",
  "onUpdate",
  "onEvalStart",
  "onEvalEpisode",
  "onEvalEvent",
  "onEpisode",
  "log",
  "shouldStop",
  "signal",
  "estimator",
]);

/**
 * A whole RL run, as `agent-r1 train` runs it: evaluate, update `config.steps` times (checkpoints and metrics in
 * `out`), evaluate again. The run folder is locked while it runs.
 */
export const train: {
  /** The callbacks' records' `task` has the environment's task type. */
  <Task extends Json>(options: TrainOptions<Task>): Promise<TrainResult>;
  /** An environment whose parts disagree on the task's type (its `task` replaced by a spread, say): JSON tasks. */
  (options: TrainOptions): Promise<TrainResult>;
} = async <Task extends Json>(options: TrainOptions<Task>): Promise<TrainResult> => {
  try {
    return await trainLocked(options);
  } finally {
    if (typeof options?.out === "string" && options.out !== "") unlockFolder(options.out);
  }
};

/** train, holding its --out's lock (lockFolder) from the moment it writes there. */
const trainLocked = async <Task extends Json>(options: TrainOptions<Task>): Promise<TrainResult> => {
  // A field of the config given to train itself (`train({ env, config, out, init })`, as `train --init` reads): said
  // as the config's, with where it goes, not as a misspelling of train's options.
  const configField =
    typeof options === "object" && options !== null
      ? Object.keys(options).find(
          (key) => !TRAIN_OPTIONS.includes(key as never) && Object.hasOwn(TrainConfig.fields, key),
        )
      : undefined;
  if (configField !== undefined)
    throw new TypeError(
      `train: \`${configField}\` is a field of the config, not an option of train: trainConfigFor(env, { ${configField}: ... }), then train({ env, config, out })`,
    );
  checkKnownKeys("train", options, TRAIN_OPTIONS);
  checkSignalOption("train", options.signal);
  const shouldStop = () => options.shouldStop?.() === true || options.signal?.aborted === true;
  if (
    options.estimator !== undefined &&
    (typeof options.estimator?.name !== "string" || typeof options.estimator?.estimate !== "function")
  )
    throw new TypeError(
      "train: estimator must be { name, estimate: (sequences, extras, options) => { advantages, ... } }",
    );
  checkEnvArgument("train", options.env, "env");
  const { env, out } = options;
  if (typeof out !== "string" || out === "")
    throw new TypeError(
      `train: out must be the run's folder (a path), got ${typeof out === "string" ? '""' : String(out)}`,
    );
  refuseFileAsOut(out);
  // From code as from the CLI: a wrong field is refused before any work, naming it.
  let config = decodeTrainConfig(options.config, "train config");
  await checkConfigEnv(config, env);
  // A resume in a folder that holds no run yet (empty, or a run killed before it wrote its config) starts one there
  // with this config, written at once as a new run's is: a stop during its warm start left no config.json, and the
  // resume it suggested ran on the defaults.
  const startsHere = !options.resume || !existsSync(join(out, "config.json"));
  if (options.resume) {
    config = resumedConfig(out, config, env);
    refuseOtherEnvVersion(out, env, config);
  } else if (config.init && config.model.attention !== undefined)
    refuseOtherAttention(config.model.attention, config.init, "init");
  refuseWarmStartWithoutExpert(env, config, out);
  // A fresh model's shape (heads dividing width, its size) is checked with the config: not when the model is
  // built, after the backend loaded, the run folder was written and a warm start recorded its episodes.
  if (!config.init) freshModelConfig(config, env.tokenizer.size, "train config");
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (config.constrained) requireLegalActions(env);
  if (!options.resume) refuseRunFolder(out);
  if (options.resume && startsHere)
    log(`no run in ${out} yet (no config.json): starting one there from the beginning, with the config given`);
  const backend = await initBackend(config.backend, { log });
  const created = !existsSync(out);
  makeFolders(out);
  lockFolder(out, options.resume ? "train --resume" : "train");
  // A warm start replaces a fresh model: RL (and its KL reference) start from the cloned checkpoint.
  if (config.warmStart && !config.init) {
    // Saved first, so that a run killed or stopped during its warm start resumes with its own settings (its
    // recording, once ended, is kept, and its cloning goes on from its last saved point: it is deterministic,
    // so the clone is an unbroken run's), not with the defaults of a bare --resume.
    if (startsHere) await writeConfig(out, config, true);
    // A caller's own log hears of the warm start as of everything else: no progress of its own on stderr.
    const init = await runWarmStart(
      env,
      config,
      config.warmStart,
      out,
      log,
      options.log === undefined,
      shouldStop,
      options.signal,
    );
    // Stopped during its cloning (after a step, its progress saved): nothing else ran; a resume goes on.
    if (init === undefined) return { backend, steps: 0, version: 0, stopped: true };
    config = { ...config, init };
  }
  const metricsFile = join(out, "metrics.jsonl");

  // --- the policy: resumed, initialised from a checkpoint, or fresh ------------------------------------
  let { model, tokenizer, version } = await initialModel(env, config).catch((cause: unknown) => {
    // A refused --init (another environment's checkpoint, say) leaves no empty run folder behind.
    if (created && holdsNothingButLock(out)) rmSync(out, { recursive: true, force: true });
    throw cause;
  });
  let startStep = 0;
  let savedOptimizer: OptimizerState | undefined;
  await removeUnfinishedSaves(join(out, "checkpoints"));
  const latest = options.resume ? readLatest(out) : undefined;
  const unnamed =
    options.resume && !latest ? checkpointsIn(join(out, "checkpoints")).filter((name) => /^v\d+$/.test(name)) : [];
  // (A folder that held no run yet was said so above.)
  if (options.resume && !latest && !(startsHere && unnamed.length === 0)) {
    // A checkpoint that latest.json does not name (a kill right after the first save, or latest.json removed
    // by hand) is not trusted: it is moved aside below, and said so here rather than "no checkpoint".
    log(
      unnamed.length === 0
        ? `no checkpoint in ${out}/checkpoints yet: starting from the beginning`
        : `${out}/checkpoints has no latest.json, which names the checkpoint a resume starts from: starting from the beginning, and ${unnamed.join(", ")} ${unnamed.length === 1 ? "goes" : "go"} to ${out}/dropped-checkpoints (to go on from one instead, train a new run from it with --init)`,
    );
  }
  if (latest) {
    model.dispose();
    const loaded = await loadCheckpointFor(env, join(out, "checkpoints", latest.dir));
    if (loaded.version !== latest.version) {
      loaded.model.dispose();
      throw latestMismatch(out, latest, loaded.version);
    }
    ({ model, tokenizer, version } = loaded);
    savedOptimizer = loaded.optimizer;
    if (!savedOptimizer) log(`${latest.dir} holds no optimizer state: AdamW restarts from zero moments`);
    startStep = latest.version;
    log(`resuming ${out} from policy version ${latest.version}`);
  }
  // Work after the last checkpoint is redone: its metrics lines and journals are dropped, and said so.
  // Those journal folders are removed whole, so one that holds anything but journals (a run, a clone or
  // a recording written into episodes/uNNNNN) is refused first, before anything is changed.
  refuseForeignInRedone(out, startStep, config.steps);
  if (existsSync(metricsFile)) {
    const text = readMetricsText(metricsFile);
    const lines = text.split("\n");
    // A line without its newline is an append cut by a crash: dropped with the rest of the redone work, and said.
    const torn = lines.pop() ?? "";
    if (torn.trim() !== "")
      log(
        `${metricsFile}: its last line was cut by a crash (no newline at its end, ${torn.length} characters): dropped`,
      );
    const kept: string[] = [];
    let lastKept = -1;
    let dropped = 0;
    let previous = -1;
    for (const [i, line] of lines.entries()) {
      if (line.trim() === "") continue;
      let step: unknown;
      try {
        step = (JSON.parse(line) as UpdateMetrics).step;
      } catch {
        throw new UsageError({ detail: `${metricsFile}:${i + 1}: not a JSON line; the file is damaged` });
      }
      // Updates are appended in order, once each: anything else is an edit, and resuming would bury it.
      if (!Number.isInteger(step) || (step as number) <= previous)
        throw new UsageError({
          detail: `${metricsFile}:${i + 1}: update ${String(step)} after update ${previous}; updates are written once each, in order, so the file was edited or damaged (remove the line to resume)`,
        });
      previous = step as number;
      if ((step as number) < startStep) {
        kept.push(line);
        lastKept = i;
      } else dropped++;
    }
    // A metrics.jsonl copied in from another run passed every check above: its last kept update is
    // compared with that update's journals here, before anything is changed.
    if (lastKept >= 0) await checkMetricsAgainstJournals(out, metricsFile, lastKept + 1, lines[lastKept], log);
    await writeTextAtomically(metricsFile, kept.map((l) => `${l}\n`).join(""));
    if (dropped > 0)
      log(
        `dropped the metrics of ${dropped === 1 ? "1 update" : `${dropped} updates`} after version ${startStep}: they are redone`,
      );
    if (kept.length !== startStep)
      log(
        `${metricsFile} holds ${kept.length} of the ${startStep} updates before version ${startStep} (a line cut by a crash is lost): its plot has a gap`,
      );
  }
  // Checkpoints past the one resumed from (latest.json pointed back at an earlier one, say past a damaged
  // one): moved aside, not deleted, so none is averaged or evaluated as this run's; training writes them again.
  const later = checkpointsIn(join(out, "checkpoints")).filter((name) => {
    const v = /^v(\d+)$/.exec(name);
    return v !== null && Number(v[1]) > startStep;
  });
  if (later.length > 0) {
    const aside = join(out, "dropped-checkpoints");
    mkdirSync(aside, { recursive: true });
    for (const name of later) {
      const to = existsSync(join(aside, name)) ? join(aside, `${name}-${Date.now()}`) : join(aside, name);
      await rename(join(out, "checkpoints", name), to);
    }
    log(
      `moved the checkpoints after version ${startStep} (${later.join(", ")}) to ${aside}: training writes them again as it gets there`,
    );
  }
  const redone = [];
  for (let step = startStep; step < config.steps + 1; step++) {
    const folder = join(out, "episodes", `u${pad(step)}`);
    if (!existsSync(folder)) continue;
    redone.push(`u${pad(step)}`);
    rmSync(folder, { recursive: true, force: true });
  }
  if (redone.length > 0)
    log(
      `dropped the journals of episodes/${redone.length === 1 ? redone[0] : `${redone[0]}-${redone.at(-1)}`}, written after version ${startStep}: ${
        startStep >= config.steps
          ? `the run ends at version ${startStep} (steps ${config.steps}), so they are not recorded again`
          : "they are recorded again"
      }`,
    );
  await writeConfig(out, config, startsHere);

  // A frozen copy of the initial policy, for the KL penalty.
  const reference = config.klCoef > 0 ? (await initialModel(env, config)).model : undefined;
  const offsetKind = model.config.positions === "alibi" ? "none" : (config.positionOffsets ?? "none");
  if (offsetKind === "none" && (config.positionOffsets ?? "none") !== "none")
    log(`note: positionOffsets ${config.positionOffsets} does nothing with ALiBi positions (they are not absolute)`);
  // The group estimators give one advantage per episode, the same on each of its tokens: spreading it over the
  // observation tokens as well changes no update while the loss still reads only the action tokens.
  if (!config.maskAdvantages && config.maskLoss && !options.estimator && EPISODE_ADVANTAGE.includes(config.algo))
    log(
      `note: maskAdvantages false (--no-advantage-mask) changes nothing for ${config.algo} while the loss mask is on: its advantage is one value per episode, and the loss reads only the action tokens, so the updates are those of the masked run; add maskLoss false (--no-loss-mask) to train on the observation tokens too`,
    );
  // With neither --init nor a warm start the reference is the fresh model: the KL then pulls the policy back
  // towards its random initial weights, rarely what a KL term is given for.
  if (reference && !config.init)
    log(
      `note: klCoef (--kl) is ${config.klCoef} but the run starts from a fresh model (no init (--init), no warm start): the KL reference is that fresh model, so the KL term pulls the policy back towards its random initial weights; to keep it near a policy that works, start from a clone (init, or the environment's warm start)`,
    );
  const optimizer = new AdamW(model.parameters, {
    lr: config.lr,
    weightDecay: config.weightDecay,
    maxGradNorm: config.maxGradNorm,
  });
  if (savedOptimizer) optimizer.restore(savedOptimizer);
  const policy = policyFromModel(env, model, tokenizer, config, false, version);
  const greedy = policyFromModel(env, model, tokenizer, config, true, version);

  const evalSeed = `eval:${config.seed}`;
  // How eval.json's numbers were taken: `agent-r1 eval --seed eval:SEED --episodes N` takes them again.
  const evaluatedWith = {
    seed: evalSeed,
    episodes: config.evalEpisodes,
    decoding: "greedy",
    constrained: !!config.constrained,
    maxNewTokens: greedy.sampling.maxNewTokens,
    ...((env.evaluation ?? env).options ? { env: (env.evaluation ?? env).options } : {}),
  };
  const evaluateAs = (phase: "before" | "after") => {
    const evaluated = env.evaluation ?? env;
    options.onEvalStart?.(phase, config.evalEpisodes, evaluated.maxTurns ?? DEFAULT_MAX_TURNS);
    const onEvalEvent = options.onEvalEvent;
    return evaluateDerived(evaluated, greedy, {
      episodes: config.evalEpisodes,
      seed: evalSeed,
      onEpisode: (record) => options.onEvalEpisode?.(phase, record),
      ...(onEvalEvent ? { onEvent: (event: EpisodeEvent) => onEvalEvent(phase, event) } : {}),
    });
  };
  // Stopped during the warm start: no evaluation now; a resume evaluates before its first update.
  const before = startStep === 0 && config.evalEpisodes > 0 && !shouldStop() ? await evaluateAs("before") : undefined;
  if (before) {
    const what =
      options.config.warmStart && !options.config.init ? "after the warm start, before RL" : "before training";
    log(`${what}: ${describeEval(before)}`);
    // Written now: a run killed later and resumed does not evaluate the initial policy again.
    await writeJsonAtomically(join(out, "eval.json"), { before, evaluatedWith });
  }

  const checkpoint = async (v: number) => {
    const dir = `v${pad(v)}`;
    // The metrics of the updates before v reach the disk before the checkpoint that a resume starts after.
    if (existsSync(metricsFile)) {
      const metrics = await open(metricsFile, "r");
      await metrics.sync();
      await metrics.close();
    }
    const state = await optimizer.state();
    await saveCheckpoint(join(out, "checkpoints", dir), {
      model,
      tokenizer,
      version: v,
      optimizer: state,
      constrained: !!config.constrained,
    });
    await writeLatestCheckpoint(join(out, "checkpoints"), { version: v, dir });
  };

  let stopped = false;
  let step = startStep;
  options.onUpdatesStart?.();
  let warnedCut = false;
  let warnedToolThrow = false;
  let warnedTurnLimit = false;
  let warnedUnreportedSuccess = false;
  let warnedSuccessOutOfRange = false;
  let warnedWithoutActions = false;
  // A batch whose episodes all returned the same carries no signal; after a collapse (a policy that
  // writes only malformed actions) every batch is like that, and the run goes on learning nothing.
  let warnedFlat = false;
  let bestSuccess: { rate: number; update: number } | undefined;
  const warnIfFlat = (update: string, m: UpdateMetrics, returns: readonly number[]) => {
    if (m.successRate !== null && m.successRate > (bestSuccess?.rate ?? 0))
      bestSuccess = { rate: m.successRate, update: m.version };
    if (returns.length < 2 || returns.some((r) => r !== returns[0])) return;
    const learned = m.gradNorm === 0 ? ": nothing to learn from (gradient norm 0: the optimizer took no step)" : "";
    if (warnedFlat) {
      log(`${update}: again every episode returned ${Number(returns[0].toPrecision(12))}${learned}`);
      return;
    }
    warnedFlat = true;
    const collapsed =
      bestSuccess !== undefined && m.successRate === 0 && collapseLikely(bestSuccess.rate, returns.length)
        ? `; sampled success was ${bestSuccess.rate.toFixed(3)} at update ${bestSuccess.update} and is 0 now: the policy has likely collapsed (look at its actions with \`agent-r1 inspect ${out}\`). A lower learning rate (--lr, from code the config's lr; this run: ${config.lr}) or a KL pull to the starting policy (--kl 0.05, klCoef; this run: ${config.klCoef}) guards against that`
        : "";
    log(
      `${update}: every one of its ${returns.length} episodes returned ${Number(returns[0].toPrecision(12))}, so no episode was better than another${learned}${collapsed}`,
    );
  };
  for (; step < config.steps; step++) {
    if (shouldStop()) {
      stopped = true;
      break;
    }
    policy.version = step;
    greedy.version = step;
    // Counted from 1, as the progress bar counts: update N of M makes policy version N.
    const update = `update ${step + 1} of ${config.steps}`;
    const stepSeed = splitSeed(config.seed, `u${step}`);
    const sampleStart = performance.now();
    let sampled = 0;
    const batch = await collect({
      env,
      policy,
      seed: stepSeed,
      episodes: config.tasksPerStep * config.groupSize,
      groupSize: config.groupSize,
      concurrency: Math.min(config.concurrency, config.tasksPerStep * config.groupSize),
      dir: join(out, "episodes", `u${pad(step)}`),
      onEpisode: (record) => options.onEpisode?.(record, ++sampled, config.tasksPerStep * config.groupSize),
    });
    const sampleSeconds = (performance.now() - sampleStart) / 1000;
    const cutActions = batch.reduce(
      (n, c) => n + countCutActions(c.events, policy.sampling.maxNewTokens, policy.sampling.stopTokens),
      0,
    );
    if (cutActions > 0 && !warnedCut) {
      warnedCut = true;
      log(
        `${update}: ${cutActions === 1 ? "1 sampled action was" : `${cutActions} sampled actions were`} cut at ${policy.sampling.maxNewTokens} tokens before they ended ` +
          "(they come out malformed): if the environment's actions are longer, raise --max-new-tokens (maxNewTokens from code) or its " +
          "maxActionTokens; a policy that has not learned to end its actions runs past any budget (a fresh model; a clone sampled " +
          "at temperature 1 or above now and then misses the end of an action it writes whole when greedy) " +
          "(counted per update in metrics.jsonl as cutActions)",
      );
    }

    // A tool whose own code throws hands the machine { ok: false, error } like a flaky service: said once,
    // with where it threw, so that a bug in a tool does not pass as an environment that is hard to learn. A
    // tagged error (a Data.TaggedError, an Effect program's typed failure) is a failure the tool reports on
    // purpose, for the machine to branch on by its tag: not a bug, so not said.
    if (!warnedToolThrow) {
      const toolTally = new ToolTally();
      for (const c of batch) toolTally.add(c.events);
      const thrown = toolTally
        .summary(Number.POSITIVE_INFINITY)
        .failures.filter((f) => f.kind === "error" && f.thrownAt !== undefined && f.tag === undefined);
      if (thrown.length > 0) {
        warnedToolThrow = true;
        log(
          `${update}: a tool's code threw (the machine got { ok: false, error }): ${thrown
            .slice(0, 3)
            .map(describeFailure)
            .join(
              "; ",
            )}; if that is not a failure the environment means to teach, fix the tool; if it is (a flaky service, on purpose), throw a tagged error (a Data.TaggedError, or an Error with a string _tag), which is not said (counted per update in metrics.jsonl as toolFailures)`,
        );
      }
    }

    const records = batch.map((c) => c.record);
    const abortedRecords = records.filter((r) => r.reason.startsWith(ABORTED));
    const journalOf = (r: EpisodeRecord) => join(out, "episodes", `u${pad(step)}`, `${r.episode}.jsonl`);
    const maxTurns = env.maxTurns ?? DEFAULT_MAX_TURNS;
    // Cut at the turn limit: trained on as they are (their rewards given before the cut), so said apart from
    // the aborted ones left out, in words that do not read as "discarded".
    const cutRecords = abortedRecords.filter((r) => r.reason.startsWith(TURN_LIMIT));
    if (cutRecords.length > 0)
      log(
        `${update}: ${cutRecords.length} of ${records.length} episodes cut at the runtime's turn limit (maxTurns ${maxTurns}; the first: ${journalOf(cutRecords[0])}): ` +
          "the environment had not ended them, so they got no reward for an ending; trained on as they are, with the rewards given before the cut",
      );
    // Left out: aborted, and not by the turn limit (an episode it stopped is trained on, its rewards given).
    const leftOutRecords = abortedRecords.filter((r) => !trainsAborted(r.reason));
    const noneTrainable = leftOutRecords.length === records.length && records.length > 0;
    if (leftOutRecords.length > 0)
      log(
        `${update}: ${leftOutRecords.length} of ${records.length} episodes ${leftOutRecords[0].reason} (the first: ${journalOf(leftOutRecords[0])})${isWasmMemoryTrap(leftOutRecords[0].reason) ? ` (${WASM_MEMORY_HINT})` : ""}${noneTrainable ? "" : "; left out of training"}`,
      );
    if (noneTrainable)
      throw new EpisodesAbortedError({
        batch: update,
        reason: leftOutRecords[0].reason,
        ...(leftOutRecords[0].thrownAt ? { thrownAt: leftOutRecords[0].thrownAt } : {}),
        journal: journalOf(leftOutRecords[0]),
      });
    // Every episode stopped by the turn limit: trained on as in a mixed batch (their rewards were given), but
    // an environment that never ends its episodes is more likely a missing end() than a policy to teach.
    if (!warnedTurnLimit && records.length > 0 && cutRecords.length === records.length) {
      warnedTurnLimit = true;
      log(
        `${update}: note: every episode hit the runtime's turn limit (maxTurns ${maxTurns}); they are trained on ` +
          "as in a batch where only some hit it. If the environment means to end its " +
          "episodes, end them with end() on a turn limit of its own (as README's example does), or raise the " +
          "environment's maxTurns",
      );
    }

    // --- trajectories -----------------------------------------------------------------------------------
    const trainStart = performance.now();
    const sequences: Sequence[] = [];
    /** Episodes that ended before the policy's first action: no token of theirs to train, no return of its. */
    let withoutActions = 0;
    let extrasGreedy: Record<string, number> | undefined;
    // An episode longer than the context is trained on the actions its sampler saw whole, with its whole
    // return (fitToContext); one whose first action already overflowed is left out.
    let droppedTooLong = 0;
    let cutToContext = 0;
    /** Actions of the episodes longer than the context, and how many of them were trained on. */
    let longerActions = 0;
    let keptActions = 0;
    for (const { events, record } of batch) {
      if (!trainsAborted(record.reason)) continue;
      const whole = trainableSequence(events, config);
      if (whole === undefined) {
        withoutActions += 1;
        continue;
      }
      const fitted = fitToContext(whole, model.config.contextLength, policy.sampling.maxNewTokens);
      if (fitted !== whole) longerActions += whole.turns.length;
      if (fitted === undefined) droppedTooLong += 1;
      else {
        if (fitted.cutFrom !== undefined) {
          cutToContext += 1;
          keptActions += fitted.turns.length;
        }
        sequences.push(fitted);
      }
    }
    if (cutToContext + droppedTooLong > 0) {
      const longer = cutToContext + droppedTooLong;
      const parts = [
        cutToContext > 0
          ? `${cutToContext === longer ? (longer === 1 ? "it was" : "they were") : `${cutToContext} were`} trained on the actions that fit, with the whole episode's return`
          : "",
        droppedTooLong > 0
          ? `${droppedTooLong === longer ? (longer === 1 ? "it was" : "they were") : `${droppedTooLong} were`} left out (not even the first action fit)${droppedTooLong === batch.length ? ": this update changed nothing" : ""}`
          : "",
      ].filter(Boolean);
      log(
        `${update}: ${longer} of ${batch.length} episodes ${longer === 1 ? "is" : "are"} longer than the model's context ` +
          `(${model.config.contextLength} tokens; ${keptActions} of their ${longerActions} actions were trained on); ${parts.join(", ")}. A longer --context-length (model.contextLength from code; for a new model) or shorter episodes (fewer turns, shorter observations) train on all of them`,
      );
    }
    if (withoutActions > 0 && !warnedWithoutActions) {
      warnedWithoutActions = true;
      log(
        `${update}: ${withoutActions} of ${batch.length} episodes ended before the policy acted (no action token to train, and a return no action of the policy's earned): left out of training (said once)`,
      );
    }
    if (config.algo === "remax") {
      // ReMax needs its group's greedy return; a greedy rollout that aborted (or never acted) has none.
      extrasGreedy = await greedyBaseline(env, greedy, stepSeed, config);
      const before = sequences.length;
      sequences.splice(0, sequences.length, ...sequences.filter((s) => extrasGreedy![s.group] !== undefined));
      if (sequences.length < before)
        log(
          `${update}: ${before - sequences.length} episodes left out of training: the greedy rollout of their task, ReMax's baseline, aborted or never acted`,
        );
    }
    // Left out for any of the reasons above (too long, aborted, no action, no ReMax baseline), and none left.
    if (sequences.length === 0 && droppedTooLong < batch.length)
      log(`${update}: no episode of ${batch.length} was left to train on: this update changed nothing`);
    const extras: { -readonly [K in keyof AdvantageExtras]: AdvantageExtras[K] } = {};
    const tokens = sequences.map((s) => s.tokens);
    const allowed = sequences.some((s) => s.allowed.some((a) => a !== null))
      ? sequences.map((s) => s.allowed)
      : undefined;
    // Position offsets: each episode is trained as if its positions started elsewhere; its tokens are scored again
    // there (the sampled logprobs are at 0), so the ratio starts at 1 and the KL compares the same positions.
    const offsets =
      offsetKind === "none"
        ? undefined
        : (() => {
            const rng = Rng.fromSeed(splitSeed(stepSeed, "position-offsets"));
            return tokens.map((row) => drawPositionOffset(rng, offsetKind, model.config.contextLength, row.length));
          })();
    const scores =
      config.algo === "ppo" || !config.maskLoss || offsets
        ? await scoreTokens(model, tokens, allowed, undefined, undefined, offsets)
        : undefined;
    if (config.algo === "ppo") extras.values = scores!.values;
    // The loss's KL term compares the policy at the offsets; REINFORCE++'s KL is in the reward, against the sampled
    // logprobs: the reference at their positions (0).
    const refOffsets = config.algo === "reinforce++" ? undefined : offsets;
    const refLogprobs = reference
      ? (await scoreTokens(reference, tokens, allowed, undefined, undefined, refOffsets)).logprobs
      : undefined;
    if (config.algo === "reinforce++" && refLogprobs) {
      extras.refLogprobs = refLogprobs;
      extras.klCoef = config.klCoef;
    }
    if (extrasGreedy) extras.greedyReward = extrasGreedy;
    const advantageOptions = { maskAdvantages: config.maskAdvantages, gamma: config.gamma, lambda: config.lambda };
    const advantages = options.estimator
      ? runEstimator(options.estimator.name, options.estimator.estimate, sequences, extras, advantageOptions)
      : computeAdvantages(config.algo, sequences, extras, advantageOptions);
    // PPO's critic learns from the estimator's returns: one of your own must give them.
    if (config.algo === "ppo" && advantages.returns === undefined)
      throw new Error(
        `${options.estimator?.name ?? config.algo}: with algo ppo the estimator must return returns (the critic's targets) too`,
      );

    // --- the update ---------------------------------------------------------------------------------------
    const results: TrainStepResult[] = [];
    const lr = scheduledLr(config.lr, config.lrSchedule, step, config.steps);
    const inOrder = sequences.map((_, i) => i);
    const chunk = Math.ceil(inOrder.length / config.minibatches);
    for (let epoch = 0; epoch < config.epochs; epoch++) {
      // One minibatch: the batch in order. Several: a fresh order each epoch, seeded by the update.
      const order =
        config.minibatches > 1 ? Rng.fromSeed(splitSeed(stepSeed, `minibatches:${epoch}`)).shuffle(inOrder) : inOrder;
      for (let m = 0; m < config.minibatches && sequences.length > 0; m++) {
        const rows = order.slice(m * chunk, (m + 1) * chunk);
        if (rows.length === 0) continue;
        const pick = <T>(xs: readonly T[]) => rows.map((i) => xs[i]);
        const lossMask = aggregate(
          pick(sequences).map((s) => (config.maskLoss ? s.actionMask : s.responseMask)),
          config.lossAggregation,
        );
        // Without the loss mask, non-sampled tokens have no recorded logprob: use the policy's own. With position
        // offsets, every token's is the policy's own at its offset.
        const logprobs = pick(sequences).map((s, k) =>
          offsets
            ? scores!.logprobs[rows[k]]
            : config.maskLoss
              ? s.logprobs
              : s.logprobs.map((lp, t) => (s.actionMask[t] ? lp : scores!.logprobs[rows[k]][t])),
        );
        results.push(
          await trainStep(
            model,
            {
              tokens: pick(tokens),
              lossMask,
              advantages: pick(advantages.advantages),
              logprobs,
              ...(config.algo === "ppo" ? { returns: pick(advantages.returns!), oldValues: pick(scores!.values) } : {}),
              // The critic learns where GAE gave it a target: the action tokens, or every response token without
              // the advantage mask (GAE then reads the critic's values at observation tokens too, so they must be
              // fitted). Without the loss mask the policy terms cover every response token, but the critic is
              // still fitted only where GAE gave it a target (its returns are 0 elsewhere, which it would
              // otherwise be pulled to).
              ...(config.algo === "ppo" && (!config.maskLoss || !config.maskAdvantages)
                ? {
                    valueMask: aggregate(
                      pick(sequences).map((s) => (config.maskAdvantages ? s.actionMask : s.responseMask)),
                      config.lossAggregation,
                    ),
                  }
                : {}),
              ...(refLogprobs && config.algo !== "reinforce++" ? { refLogprobs: pick(refLogprobs) } : {}),
              ...(allowed ? { allowed: pick(allowed) } : {}),
              ...(offsets ? { positionOffsets: pick(offsets) } : {}),
            },
            {
              optimizer,
              clipEps: config.clip,
              valueCoef: config.algo === "ppo" ? config.valueCoef : 0,
              entropyCoef: config.entropyCoef,
              klCoef: config.algo === "reinforce++" ? 0 : config.klCoef,
              klKind: config.klKind,
              lr,
            },
          ),
        );
      }
    }
    const trainSeconds = (performance.now() - trainStart) / 1000;
    // A step whose gradient was 0 everywhere was not taken either (AdamW), but it measured its losses: it counts
    // in the means (its gradNorm 0 says it), not among the failed steps (a NaN or infinite loss or gradient).
    const failed = results.filter((r) => r.skipped && r.reason !== ZERO_GRADIENT);
    const applied = results.filter((r) => !failed.includes(r));
    for (const r of failed) log(`${update}: skipped (${r.reason})`);
    const rewardsOf = (c: Collected, kind: "process" | "outcome") =>
      c.events.reduce((s, e) => s + (e.type === "reward.assigned" && e.kind === kind ? e.value : 0), 0);
    const sampledTokens = batch.reduce(
      (s, c) => s + c.events.reduce((t, e) => t + (e.type === "agent.acted" ? e.tokens.length : 0), 0),
      0,
    );
    const successes = records.filter((r) => "success" in r.metrics).map((r) => r.metrics.success);
    const partialSuccess = successOfSome(successes.length, records.length - abortedRecords.length);
    if (partialSuccess !== undefined && !warnedUnreportedSuccess) {
      warnedUnreportedSuccess = true;
      log(`${update}: ${partialSuccess} (said once)`);
    }
    const ended = summarizeEpisodes(records);
    if (ended.successOutOfRange && !warnedSuccessOutOfRange) {
      warnedSuccessOutOfRange = true;
      log(`${update}: ${successOutOfRangeNote(ended.successOutOfRange, records.length)} (said once)`);
    }
    const metrics: UpdateMetrics = {
      step,
      version: step + 1,
      episodes: records.length,
      meanReturn: mean(records.map((r) => r.return)),
      meanProcessReward: mean(batch.map((c) => rewardsOf(c, "process"))),
      meanOutcomeReward: mean(batch.map((c) => rewardsOf(c, "outcome"))),
      successRate: successes.length ? mean(successes) : null,
      meanTurns: mean(records.map((r) => r.turns)),
      aborted: abortedRecords.length,
      leftOut: leftOutRecords.length,
      endReasons: ended.endReasons,
      rewardCounts: ended.rewardCounts,
      endMetrics: ended.metrics,
      toolCalls: ended.tools?.calls ?? 0,
      toolFailures: ended.tools?.failed ?? 0,
      droppedTooLong,
      cutToContext,
      cutActions,
      degenerateGroups: advantages.degenerateGroups,
      loss: mean(applied.map((r) => r.loss)),
      policyLoss: mean(applied.map((r) => r.policyLoss)),
      valueLoss: mean(applied.map((r) => r.valueLoss)),
      entropy: mean(applied.map((r) => r.entropy)),
      // REINFORCE++ puts k1 in the reward, not in the loss: its metric is the KL its estimator applied.
      kl: advantages.rewardKl ?? mean(applied.map((r) => r.kl)),
      approxKl: mean(applied.map((r) => r.approxKl)),
      clipfrac: mean(applied.map((r) => r.clipfrac)),
      gradNorm: mean(applied.map((r) => r.gradNorm)),
      lr,
      skippedUpdates: failed.length,
      trainedTokens: Math.round(results.reduce((s, r) => s + r.tokens, 0)),
      sampledTokens,
      tokensPerSecond: sampledTokens / Math.max(1e-9, sampleSeconds),
      sampleSeconds,
      trainSeconds,
    };
    await writingFileAsync(metricsFile, () => appendFile(metricsFile, `${JSON.stringify(metrics)}\n`));
    warnIfFlat(
      update,
      metrics,
      records.map((r) => r.return),
    );
    options.onUpdate?.(metrics);
    if ((step + 1) % config.checkpointEvery === 0) await checkpoint(step + 1);
  }
  const finalVersion = step;
  if (readLatest(out)?.version !== finalVersion) await checkpoint(finalVersion);
  policy.version = finalVersion;
  greedy.version = finalVersion;
  // A resume that had nothing left to train (a finished run resumed again) evaluated the same policy on the same
  // episodes again, minutes on hopqa, after saying "nothing to train": the evaluation eval.json holds is kept.
  const evaluated =
    step === startStep && existsSync(join(out, "eval.json"))
      ? (JSON.parse(readFileSync(join(out, "eval.json"), "utf8")) as {
          after?: EvalSummary;
          version?: number;
          evaluatedWith?: unknown;
        })
      : undefined;
  const kept =
    evaluated?.version === finalVersion &&
    isDeepStrictEqual(evaluated.evaluatedWith, JSON.parse(JSON.stringify(evaluatedWith)))
      ? evaluated.after
      : undefined;
  // A stop that came during the last update: every update is done and saved, and the evaluation after training,
  // which had not begun, is left to a resume (it ran on after Ctrl-C, minutes on hopqa).
  if (!stopped && config.evalEpisodes > 0 && kept === undefined && shouldStop()) {
    stopped = true;
    log(
      `stopped after the last update, before the evaluation after training: a resume (train --out ${out} --resume) evaluates policy version ${finalVersion}`,
    );
  }
  const after = !stopped && config.evalEpisodes > 0 ? (kept ?? (await evaluateAs("after"))) : undefined;
  // A resumed run evaluated its starting policy in an earlier sitting: that is its "before".
  const earlier =
    before ??
    (existsSync(join(out, "eval.json"))
      ? (JSON.parse(readFileSync(join(out, "eval.json"), "utf8")) as { before?: EvalSummary }).before
      : undefined);
  if (after) {
    log(
      `after training${kept ? ` (evaluated before, kept in ${join(out, "eval.json")})` : ""}: ${describeEval(after)}`,
    );
    await writeJsonAtomically(join(out, "eval.json"), { before: earlier, after, version: finalVersion, evaluatedWith });
  } else if (before) await writeJsonAtomically(join(out, "eval.json"), { before, evaluatedWith });
  reference?.dispose();
  optimizer.dispose();
  model.dispose();
  return { backend, steps: step - startStep, version: finalVersion, before: earlier, after, stopped };
};

/**
 * Loss weights per token. token-mean: the 0/1 mask. seq-mean-token-mean: each row's tokens share one
 * row's weight, scaled so the weights still sum to the number of masked tokens.
 */
export const aggregate = (
  masks: readonly (readonly number[])[],
  how: TrainConfig["lossAggregation"],
): (readonly number[])[] => {
  if (how === "token-mean") return [...masks];
  const lengths = masks.map((m) => m.reduce((a, b) => a + b, 0));
  const rows = lengths.filter((n) => n > 0).length;
  const total = lengths.reduce((a, b) => a + b, 0);
  return masks.map((m, i) => (lengths[i] > 0 ? m.map((x) => (x * total) / (rows * lengths[i])) : m));
};

/**
 * Whether an episode that ended so is trained on. An aborted one (the environment's code, its legal actions
 * or the policy threw: a NaN reward, say) has no return the environment stands by: it is left out, as sft
 * leaves it out of cloning, rather than compared with the others as if it had returned what it got before it
 * broke off. One the runtime's turn limit stopped is kept, as before: its rewards were given, and a policy
 * that never ends its episodes should learn from that.
 */
const trainsAborted = (reason: string): boolean => !reason.startsWith(ABORTED) || reason.startsWith(TURN_LIMIT);

/** How an episode the runtime's turn limit stopped ends (src/runtime/episode.ts). */
const TURN_LIMIT = `${ABORTED}turn limit `;

/**
 * An episode as training weighs it (the process reward weight), or undefined when it ended before the
 * policy acted: no action token to train, and a return no action of the policy's earned.
 */
const trainableSequence = (events: Collected["events"], config: TrainConfig): Sequence | undefined => {
  const sequence = episodeToSequence(events, { processRewardWeight: config.processRewardWeight });
  return sequence.actionMask.includes(1) ? sequence : undefined;
};

/** ReMax's baseline: the reward of one greedy rollout per task, keyed by the task's group id. */
const greedyBaseline = async (
  env: EnvDefinition,
  greedy: TransformerPolicy,
  stepSeed: string,
  config: TrainConfig,
): Promise<Record<string, number>> => {
  const runs = await collect({ env, policy: greedy, seed: stepSeed, episodes: config.tasksPerStep, groupSize: 1 });
  const baseline: Record<string, number> = {};
  for (const { events, record } of runs) {
    // An aborted rollout's return is not the environment's judgement, and one that never acted has none.
    if (!trainsAborted(record.reason)) continue;
    // The return as training weighs it (the process reward weight), also for an episode cut to the context.
    const sequence = trainableSequence(events, config);
    if (sequence) baseline[hashValue(record.task)] = sequence.totalReturn;
  }
  return baseline;
};

export type { tf };

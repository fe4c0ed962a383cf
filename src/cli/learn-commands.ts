/** `agent-r1 train`, `sft`, `average` and `eval`: the learner's commands. */
import { existsSync, realpathSync, rmSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { journalFilesAt, recordedEnvOf } from "../journal/jsonl.ts";
import { heldBesidesLock, holdsNothingButLock, lockFolder, unlockFolder } from "../journal/lock.ts";
import { shellWord, UsageError } from "../kernel/errors.ts";
import { checkWritableParent, makeFolders } from "../kernel/folders.ts";
import { ALGORITHMS } from "../learn/advantages/types.ts";
import {
  actionBudgetOf,
  DEFAULT_TRAIN_CONFIG,
  decodeTrainConfig,
  LR_SCHEDULES,
  modelConfigFor,
  type TrainConfig,
} from "../learn/config.ts";
import { describeEval, evaluate } from "../learn/evaluate.ts";
import { POSITION_OFFSETS } from "../learn/position-offsets.ts";
import { curriculumOrderProblem, sft, sftProgressIn } from "../learn/sft.ts";
import {
  checkpointIn,
  checkpointsBeside,
  checkpointsIn,
  checkTokenizerOf,
  loadCheckpointFor,
  policyFromModel,
  readLatest,
  readRunConfig,
  recordedEnvOfRun,
  refuseForeignResume,
  refuseRunFolder,
  train,
} from "../learn/trainer.ts";
import { warmStartCheckpoint } from "../learn/warm-start.ts";
import { averageCheckpoints, SOUP_SIMILARITY } from "../policy/average.ts";
import { BACKEND_ORDER, initBackend } from "../policy/backend.ts";
import {
  checkpointTarget,
  describeLeftoversOfReplace,
  leftoverNote,
  saveCheckpoint,
  savedAttention,
  savedConstrained,
  savedModelConfig,
  savedTokenizerId,
  unfinishedSft,
} from "../policy/checkpoint.ts";
import { gptConfig } from "../policy/gpt.ts";
import { requireLegalActions } from "../policy/legal.ts";
import {
  digitsAsRead,
  type EnvDefinition,
  envSpecOf,
  isBuiltInEnv,
  isModulePath,
  optionsQuery,
  sameEnvSpec,
  unconfiguredOf,
} from "../runtime/env.ts";
import { DEFAULT_MAX_TURNS, type EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { configureEnv, recordsVariant, sameVariant, sameVariantSpec, variantFromJournal } from "../runtime/variants.ts";
import { choiceArg, intArg, seedArg, summaryJson } from "./args.ts";
import {
  type EpisodeProgress,
  episodeProgress,
  epochStepsProgress,
  type Progress,
  progress,
  stopAllBars,
} from "./progress.ts";
import {
  builtinEnvOfCheckpoint,
  checkpointOriginEnv,
  ENVIRONMENTS,
  fromStartFolder,
  givesOptions,
  loadEnv,
  lostRelativeModule,
  modulePathOf,
  notFoundFromHere,
  refusedOptions,
  runConfigEnv,
  runEnvSpec,
  runStartedIn,
  sameEnvironment,
  tokenizerVariantFix,
  tokenizerVariantOf,
} from "./registry.ts";
import { againToQuit, exitCodeOf, exitStopped, interruptedBy, onStopSignals, type StopSignal } from "./signals.ts";

/** What the user may say about a fresh model's shape on the command line. */
export interface ModelOverrides {
  readonly contextLength?: number;
  readonly copy?: boolean;
  readonly positions?: "learned" | "alibi";
  readonly layers?: number;
  readonly heads?: number;
  readonly width?: number;
}
/** A fresh model's shape: the train config's, then the environment's, then the user's overrides. */
export const modelFor = (env: EnvDefinition, overrides: ModelOverrides = {}) => {
  const model = modelConfigFor(env, overrides);
  // The model's own checks (gptConfig), as a usage error that says which numbers the user gave.
  try {
    gptConfig(model);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    // Where each number the message names came from: a flag, the environment's model, or the defaults.
    const sources = (["contextLength", "layers", "heads", "width"] as const)
      .filter((key) => new RegExp(`\\b${key}\\b`).test(error.message))
      .map((key) =>
        overrides[key] !== undefined
          ? `${key} from --${key === "contextLength" ? "context-length" : key} ${overrides[key]}`
          : env.model?.[key] !== undefined
            ? `${key} from environment ${env.id}`
            : `${key} from the defaults`,
      );
    throw new UsageError({
      detail: `${error.message.replace(/^GPT config: /, "a fresh model: ")}${sources.length ? ` (${sources.join(", ")})` : ""}`,
    });
  }
  return model;
};
type ShapeOptions = Omit<ModelOverrides, "copy"> & { copyHead?: boolean };
const modelOverrides = (opts: ShapeOptions): ModelOverrides => ({
  contextLength: opts.contextLength,
  copy: opts.copyHead,
  positions: opts.positions,
  layers: opts.layers,
  heads: opts.heads,
  width: opts.width,
});

/** A shape option as the user typed it. */
const flagOf = (key: keyof ModelOverrides, value: unknown) =>
  key === "copy"
    ? value
      ? "--copy-head"
      : "--no-copy-head"
    : `--${key === "contextLength" ? "context-length" : key} ${value}`;
/** A checkpoint's context length, from its config.json (undefined when it is no checkpoint). */
const savedContextLength = (checkpoint: string): number | undefined => {
  const saved = savedModelConfig(checkpoint)?.contextLength;
  return typeof saved === "number" ? saved : undefined;
};

/**
 * With --init the checkpoint keeps its own shape, so a shape option that asks for another one is refused
 * (before anything runs) rather than silently ignored. A folder that is no checkpoint is left to the
 * checkpoint loader, whose error says what is wrong with it.
 */
export const checkInitShape = (init: string, overrides: ModelOverrides) => {
  const saved = savedModelConfig(init);
  if (!saved) return;
  const shape: Record<keyof ModelOverrides, unknown> = {
    contextLength: saved.contextLength,
    layers: saved.layers,
    heads: saved.heads,
    width: saved.width,
    copy: saved.copy === true,
    positions: saved.positions === "alibi" ? "alibi" : "learned",
  };
  const clashes = (Object.keys(shape) as (keyof ModelOverrides)[]).filter(
    (key) => overrides[key] !== undefined && overrides[key] !== shape[key],
  );
  if (clashes.length === 0) return;
  const counted = (n: unknown, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const has = `${counted(shape.layers, "layer")}, ${counted(shape.heads, "head")}, width ${shape.width}, context ${shape.contextLength}, ${shape.copy ? "a" : "no"} copy head, ${shape.positions} positions`;
  throw new UsageError({
    detail:
      `${clashes.map((key) => flagOf(key, overrides[key])).join(", ")} cannot apply with --init ${init}: ` +
      `a checkpoint keeps its own shape (${has}); drop ${clashes.length > 1 ? "them" : "it"}, or leave out --init for a fresh model`,
  });
};

/** Train flags a resumed run takes from its config.json, with where each value lives there. */
const RESUME_FLAGS: readonly (readonly [option: string, flag: string, saved: (c: TrainConfig) => unknown])[] = [
  ["algo", "--algo", (c) => c.algo],
  ["seed", "--seed", (c) => c.seed],
  ["tasks", "--tasks", (c) => c.tasksPerStep],
  ["groupSize", "--group-size", (c) => c.groupSize],
  ["lr", "--lr", (c) => c.lr],
  ["lrSchedule", "--lr-schedule", (c) => c.lrSchedule ?? "constant"],
  ["temperature", "--temperature", (c) => c.temperature],
  ["topP", "--top-p", (c) => c.topP],
  ["kl", "--kl", (c) => c.klCoef],
  ["klKind", "--kl-kind", (c) => c.klKind],
  ["entropy", "--entropy", (c) => c.entropyCoef],
  ["positionOffsets", "--position-offsets", (c) => c.positionOffsets ?? "none"],
  ["epochs", "--epochs", (c) => c.epochs],
  ["minibatches", "--minibatches", (c) => c.minibatches],
  ["processRewardWeight", "--process-reward-weight", (c) => c.processRewardWeight],
  ["constrained", "--constrained", (c) => c.constrained === true],
  ["maxNewTokens", "--max-new-tokens", (c) => c.maxNewTokens],
  ["advantageMask", "--no-advantage-mask", (c) => c.maskAdvantages],
  ["lossMask", "--no-loss-mask", (c) => c.maskLoss],
  ["evalEpisodes", "--eval-episodes", (c) => c.evalEpisodes],
  ["checkpointEvery", "--checkpoint-every", (c) => c.checkpointEvery],
  ["layers", "--layers", (c) => c.model.layers],
  ["heads", "--heads", (c) => c.model.heads],
  ["width", "--width", (c) => c.model.width],
  ["contextLength", "--context-length", (c) => c.model.contextLength],
  ["copyHead", "--copy-head", (c) => c.model.copy === true],
  ["positions", "--positions", (c) => c.model.positions ?? "learned"],
];

/** A run's environment named by an id that is no built-in one: train() from code given an imported environment. */
const recordedByIdOnly = (spec: string): boolean =>
  !isModulePath(modulePathOf(spec)) && !Object.hasOwn(ENVIRONMENTS, spec.split("?")[0] ?? "");

/**
 * Without --env, a run recorded by id alone cannot be loaded: said so, with what to give, rather than as an
 * "unknown environment" of the registry, which reads as a misspelt --env the user never gave.
 */
const refuseIdOnly = (file: string, spec: string, command: string): void => {
  if (recordedByIdOnly(spec))
    throw new UsageError({
      detail: `${file} names the environment ${spec} by its id alone, which is no built-in one (a run train() from code recorded with an environment imported, not loaded with loadEnv(path)): ${command} needs --env with the path of the module that defines ${spec}`,
    });
};

/**
 * A resumed run continues with its own config.json: a flag that asks for something else is refused, not
 * silently ignored. `--steps` (to extend the run) and `--backend` apply; `--env` may give the module's path
 * from another folder (the checkpoint's tokenizer check still guards against another environment).
 */
const checkResumeFlags = (
  runDir: string,
  saved: TrainConfig,
  opts: Record<string, unknown>,
  given: (option: string) => boolean,
) => {
  const clashes = RESUME_FLAGS.filter(
    ([option, , value]) => given(option) && String(opts[option]) !== String(value(saved)),
  ).map(([option, flag, value]) => `${flag} ${String(opts[option])} (the run has ${String(value(saved))})`);
  // The same options in another order, or spelt another way, are the same environment (`hopqa?b=2&a=1` is
  // `hopqa?a=1&b=2`; hopqa's `?world-seed=5` is `?worlds=5`).
  // A run that train() from code recorded by its environment's id (an environment imported, not loaded from its
  // path) names no module: without --env nothing finds it ("unknown environment"), so --env gives the module, whose
  // environment train then checks is the run's (it was refused here, and the refusal said to drop --env).
  const byIdOnly = recordedByIdOnly(saved.env);
  if (
    given("env") &&
    !(isModulePath(saved.env) && isModulePath(String(opts.env))) &&
    !(byIdOnly && isModulePath(modulePathOf(String(opts.env)))) &&
    !sameEnvironment(String(opts.env), saved.env)
  )
    clashes.push(`--env ${String(opts.env)} (the run has ${saved.env})`);
  if (given("init")) clashes.push("--init (a resumed run continues from its own checkpoints)");
  if (clashes.length > 0)
    throw new UsageError({
      detail: `--resume continues ${runDir} with its own config.json, so ${clashes.join(", ")} cannot apply; drop ${clashes.length > 1 ? "them" : "it"} (--steps, to extend the run, and --backend do apply), or start a new run with another --out`,
    });
};

/** A module `--env` spec with its path made absolute (its ?options kept); an id as it is. */
export const absoluteModuleSpec = (spec: string): string => {
  const path = modulePathOf(spec);
  return isModulePath(path) ? `${resolve(path)}${spec.includes("?") ? spec.slice(spec.indexOf("?")) : ""}` : spec;
};

/**
 * `--resume --env PATH` says where the run's module is from here; it may not name another module, nor other
 * options (other tasks): when the run's own module is still found, the two must be the same file.
 */
const checkResumeEnv = (runDir: string, meant: string, given: string) => {
  const query = (spec: string) => (spec.includes("?") ? spec.slice(spec.indexOf("?") + 1) : "");
  const file = join(runDir, "config.json");
  // The paths may differ (the module seen from another folder); the options, in any order, may not (a built-in
  // environment's may be spelt another way: hopqa's `world-seed=5` is `worlds=5`).
  if (!sameEnvSpec(`?${query(given)}`, `?${query(meant)}`) && !sameEnvironment(given, meant))
    throw new UsageError({
      detail: `--resume --env ${given}: ${file} has ${meant}; ${query(meant) ? `its options ?${query(meant)}` : "no options"} must stay (other options draw other tasks): start a new run with another --out`,
    });
  const ownPath = modulePathOf(meant);
  if (!isModulePath(ownPath) || !existsSync(ownPath)) {
    if (isModulePath(ownPath))
      process.stderr.write(
        `--resume: ${meant} is not found, so the run's environment is ${given} from now on (config.json names it)\n`,
      );
    return;
  }
  const real = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));
  if (real(modulePathOf(given)) !== real(ownPath))
    throw new UsageError({
      detail: `--resume --env ${given}: ${file} has ${meant}, which is still there and is another file; drop --env to go on with it, or start a new run with another --out`,
    });
};

/** The options each column of --suite sets itself (hopqa's split and worlds): any other holds in every column. */
const SUITE_COLUMN_KEYS = ["split", "worlds", "world-seed"];

/** An --env spec's options split in two: those --suite's columns set, and the others. */
const suiteSplit = (query: string): { readonly fixed: string; readonly others: string } => {
  const fixed = new URLSearchParams();
  const others = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(query))
    (SUITE_COLUMN_KEYS.includes(key) ? fixed : others).append(key, value);
  return { fixed: fixed.toString(), others: others.toString() };
};

/**
 * The environment a checkpoint was trained on, when --env is not given: its run folder's config.json (the
 * checkpoint, its checkpoints/ folder, or the run folder itself) names it, with its options (the worlds it
 * trained in, say), which eval's --split and --world-seed replace one by one; a clone's sft.json, the --env
 * it was cloned under. Said on stderr. --suite fixes its columns' split and worlds, so it drops those and keeps
 * the others (hopqa's wording and legal: a checkpoint of the possessive wording has that wording's tokenizer).
 */
const trainedEnv = (
  found: { readonly file: string; readonly env: string } | undefined,
  suite: boolean,
  whose: "run" | "clone" | "average" = "run",
  who: "eval" | "select" | "train" = "eval",
): string | undefined => {
  if (!found) return undefined;
  refuseIdOnly(found.file, found.env, who);
  const [env, query = ""] = found.env.split("?");
  if (lostRelativeModule(env))
    throw notFoundFromHere(found.file, `the environment module ${env}`, "pass --env with the module's path");
  const { fixed, others } = suite ? suiteSplit(query) : { fixed: "", others: query };
  const spec = others ? `${env}?${others}` : env;
  process.stderr.write(
    `${who}: --env not given: ${spec}, from ${found.file}` +
      // Only where they have one to replace: of a module's own options (`?fail=0.5`), hopqa's flags said nothing true.
      (!suite &&
      who !== "train" &&
      [...new URLSearchParams(others).keys()].some((key) => SUITE_COLUMN_KEYS.includes(key))
        ? ` (the ${whose}'s options: --split and --world-seed replace theirs)`
        : "") +
      (fixed
        ? ` (without its ${whose === "clone" ? "cloning" : "training"} options ?${fixed}: --suite fixes each column's)`
        : "") +
      "\n",
  );
  return spec;
};

/**
 * An --out that already holds a checkpoint is written over only with --replace: one slip of --out would
 * otherwise replace a shipped or trained checkpoint, and that cannot be undone.
 */
const refuseCheckpointOut = (command: "sft" | "average" | "select", out: string, replace: boolean) => {
  // A run's own checkpoints are train's: one replaced by a clone breaks the run's resume and its version count.
  const folder = dirname(resolve(out));
  if (basename(folder) === "checkpoints" && existsSync(join(folder, "latest.json")))
    throw new UsageError({
      detail: `--out ${out} is in a train run's checkpoints/ folder, which only train writes (${command} there would break the run's --resume, with or without --replace): write to a folder of its own`,
    });
  // sft's own refusal of a folder where an sft stopped is its own (it offers --resume): average's names that sft,
  // not a checkpoint, which the folder does not hold.
  const stopped =
    command !== "sft" && !replace && unfinishedSft(out, "give another --out, or --replace to write over it");
  if (stopped) throw new UsageError({ detail: `--out ${stopped}` });
  if (!replace && checkpointTarget(out) === "checkpoint")
    throw new UsageError({
      detail: `--out ${out} already holds a checkpoint; ${command} would replace it: give another --out, or --replace to write over it`,
    });
};

/**
 * sft and average hold their --out's lock (src/journal/lock.ts) from their checks to their exit, as record
 * and train hold theirs: two of them into one --out both passed the check at their start, and the later one
 * silently replaced the other's checkpoint. Now the second is refused, naming the first, and the check is
 * made again under the lock (a checkpoint written meanwhile is refused without --replace). A folder made
 * here that holds nothing at the end (a failure, Ctrl-C) is removed. Returns the release.
 */
export const holdCheckpointOut = (
  command: "sft" | "average" | "select",
  out: string,
  replace: boolean,
  resume = false,
): (() => void) => {
  // A --resume continues what --out holds: sft itself says when that is a finished clone, or nothing.
  refuseCheckpointOut(command, out, replace || resume);
  // A kill between a --replace's two renames left the previous checkpoint beside --out: said, never removed.
  const leftovers = describeLeftoversOfReplace(out);
  if (leftovers) process.stderr.write(`warning: ${leftovers}\n`);
  // The checkpoint is written once, at the end: a folder it cannot be written to is said now, not after the work.
  return holdOut(out, replace ? `${command} --replace` : resume ? `${command} --resume` : command, () =>
    refuseCheckpointOut(command, out, replace || resume),
  );
};

/**
 * Takes --out's lock for `holder` (src/journal/lock.ts) until the returned release, once its parent is checked
 * writable and the folder made; makes `refuse`, the command's check of --out, again under the lock (what another
 * process wrote there meanwhile). A folder made here that holds nothing but the lock at the release or the exit
 * (a failure, Ctrl-C) is removed.
 */
const holdOut = (out: string, holder: string, refuse: () => void): (() => void) => {
  checkWritableParent(out);
  const created = !existsSync(out);
  makeFolders(out);
  lockFolder(out, holder);
  const removeIfEmpty = () => {
    if (created && existsSync(out) && holdsNothingButLock(out)) rmSync(out, { recursive: true, force: true });
  };
  process.on("exit", removeIfEmpty);
  const release = () => {
    process.off("exit", removeIfEmpty);
    removeIfEmpty();
    unlockFolder(out);
  };
  try {
    refuse();
  } catch (error) {
    release();
    throw error;
  }
  return release;
};

/**
 * What eval's and select's helpers below share: which command speaks, the environment scored on and its spec
 * as given or found, and whether --env was given (a load failure then says to pass it).
 */
export interface EvalScope {
  readonly who: "eval" | "select";
  readonly env: EnvDefinition;
  readonly spec: string;
  readonly envGiven: boolean;
}

/**
 * What eval and select settle before any checkpoint loads: the environment (--env, else the one the checkpoint
 * was trained or cloned under, else the built-in one whose tokenizer it carries, else the default), configured
 * with --split and --world-seed; an option given both in --env and as a flag is refused. `run` and `clone` are
 * the records that named it (a run's config.json, a clone's or average's file), when there are.
 */
export const resolveEvalEnv = async (
  who: "eval" | "select",
  opts: { readonly env?: string; readonly split?: string; readonly worldSeed?: string; readonly suite?: boolean },
  checkpointArg: string,
): Promise<{
  readonly scope: EvalScope;
  readonly base: EnvDefinition;
  readonly options: URLSearchParams;
  readonly run: ReturnType<typeof runConfigEnv>;
  readonly clone: ReturnType<typeof checkpointOriginEnv>;
}> => {
  const envGiven = opts.env !== undefined;
  // A damaged config.json is an error only when it is what would name the environment.
  let run: ReturnType<typeof runConfigEnv>;
  try {
    run = runConfigEnv(checkpointArg);
  } catch (cause) {
    if (!envGiven) throw cause;
  }
  // A clone of sft (outside a run): the --env it was cloned under, from its sft.json.
  let clone: ReturnType<typeof checkpointOriginEnv>;
  try {
    clone = run ? undefined : checkpointOriginEnv(checkpointArg);
  } catch (cause) {
    if (!envGiven) throw cause;
  }
  const spec = opts.env ?? checkpointEnvSpec(run, clone, checkpointArg, !!opts.suite, who) ?? DEFAULT_TRAIN_CONFIG.env;
  if (opts.suite) checkSuiteOptions({ ...opts, env: spec });
  const base = await loadEnv(spec);
  // An option given twice (in --env "id?split=..." and as --split) is refused, not silently overridden.
  // An environment without options is told so by the flag given, not by the query it would become.
  const inEnv = new URLSearchParams(spec.split("?")[1] ?? "");
  // Said as hopqa says its own world-seed and worlds given together: what both choose, and to give one.
  for (const [flag, value, keys, chosen] of [
    ["--split", opts.split, ["split"], "the split: give it once"],
    ["--world-seed", opts.worldSeed, ["world-seed", "worlds"], "the worlds: give one"],
  ] as const) {
    if (value === undefined) continue;
    if (!base.configure)
      throw new UsageError({ detail: `${flag}: environment ${base.id} takes no options (no splits, no worlds)` });
    // The run's own options (--env not given) are replaced by the flag; options typed in --env are not.
    if (envGiven && keys.some((k) => inEnv.has(k)))
      throw new UsageError({ detail: `${flag} and --env ${spec} both choose ${chosen}` });
  }
  const options = new URLSearchParams();
  if (opts.split !== undefined) options.set("split", opts.split);
  if (opts.worldSeed !== undefined) options.set("world-seed", opts.worldSeed);
  // A refusal names the flags given (`--split tset`), not a query the user never typed.
  const flags = [
    ...(opts.split === undefined ? [] : [`--split ${opts.split}`]),
    ...(opts.worldSeed === undefined ? [] : [`--world-seed ${opts.worldSeed}`]),
  ].join(" ");
  const env = configureEnv(base, options.toString(), false, flags);
  return { scope: { who, env, spec, envGiven }, base, options, run, clone };
};

/**
 * eval's and select's checks of one checkpoint before the backend loads, each said with what to do: that it
 * exists (a run folder means its latest checkpoint), that its context has room for an action, that its
 * tokenizer is the environment's variant's; a run trained on another version of the environment is noted.
 * Returns the checkpoint folder.
 */
export const checkEvalCheckpoint = (
  { who, env, spec, envGiven }: EvalScope,
  given: string,
  run: ReturnType<typeof runConfigEnv>,
  maxNewTokensGiven: number | undefined,
  /** What was said already (select checks many checkpoints of one run): each difference once. */
  said = new Set<string>(),
): string => {
  // A policy trained on an older version of the environment may be scored on this one; said, not refused.
  const runDir = run && dirname(run.file);
  const trainedOn = runDir && recordedEnvOfRun(runDir, env);
  if (trainedOn && trainedOn.id === env.id && trainedOn.version !== env.version)
    process.stderr.write(
      `note: ${runDir} was trained on ${env.id} version ${trainedOn.version} (its journals), and is scored here on version ${env.version}\n`,
    );
  if (!existsSync(given))
    throw new UsageError({
      // eval's is its --checkpoint (named, as --init's refusal names its flag); select's, one of its paths.
      detail: `${who === "eval" ? "--checkpoint: " : ""}no checkpoint at ${given}${checkpointsBeside(given)}${leftoverNote(given)}`,
    });
  const checkpoint = resolveCheckpoint(given, who === "eval" ? "--checkpoint" : "select:");
  // Said before the backend loads, from the checkpoint's config.json (a folder without one fails to load).
  const maxNewTokens = maxNewTokensFor(env, maxNewTokensGiven);
  const savedContext = savedContextLength(checkpoint);
  if (savedContext !== undefined) checkRoomForContext(maxNewTokens, savedContext, maxNewTokensGiven !== undefined);
  refuseOtherVariant(spec, env, checkpoint);
  // Made under another variant than the one it is scored under: a score of another task. From --env (said, as
  // it may be meant), or, for select without --env, from its first candidate (refused: one development set).
  const other = otherThanRecorded(env, spec, checkpoint);
  if (other !== undefined && !said.has(other)) {
    said.add(other);
    if (!envGiven)
      throw new UsageError({
        detail: `${other}, the environment ${who} found from its first candidate: ${who} scores every candidate on one environment; give candidates of one environment, or --env`,
      });
    process.stderr.write(
      `warning: ${other}: it is scored under the --env given; leave --env out to score it under its own\n`,
    );
  }
  return checkpoint;
};

/** How an evaluation decodes, as its flags say (`notes: false` keeps a repeated note unsaid). */
export interface EvalDecodingOptions {
  readonly constrained?: boolean;
  readonly maxNewTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly notes?: boolean;
}

/**
 * Loads a checkpoint checked by checkEvalCheckpoint (weights only: a damaged optimizer.bin does not stop an
 * evaluation) and settles its decoding (--constrained as given, else as it was trained), with the config its
 * policy samples under. The caller disposes the model.
 */
export const loadEvalCheckpoint = async (
  scope: EvalScope,
  checkpoint: string,
  run: ReturnType<typeof runConfigEnv>,
  opts: EvalDecodingOptions,
) => {
  const { model, tokenizer, version } = await loadCheckpointFor(scope.env, checkpoint, { optimizer: false }).catch(
    (cause) => {
      throw scope.envGiven || !(cause instanceof UsageError)
        ? cause
        : new UsageError({
            detail: `${cause.detail} (--env not given, so ${scope.spec}: pass the environment the checkpoint was trained on)`,
          });
    },
  );
  try {
    return { model, tokenizer, version, ...evalDecoding(scope, checkpoint, run, opts) };
  } catch (error) {
    model.dispose();
    throw error;
  }
};

/**
 * The decoding of an evaluation: --constrained as given, else as the checkpoint was trained (said), with the
 * config its policy samples under; refused when constrained and the environment has no legal actions.
 */
export const evalDecoding = (
  { who, env, spec }: EvalScope,
  checkpoint: string,
  run: ReturnType<typeof runConfigEnv>,
  opts: EvalDecodingOptions,
) => {
  const constrained = evalConstrained(opts.constrained, run, checkpoint, env, who);
  if (constrained) requireLegalActions(env);
  // select decodes each candidate the same way: the note is said once, at the first.
  if (opts.notes !== false) noteInertLegal(spec, constrained, `${who} decodes`);
  const config = {
    ...DEFAULT_TRAIN_CONFIG,
    constrained,
    maxNewTokens: maxNewTokensFor(env, opts.maxNewTokens),
    temperature: opts.temperature ?? DEFAULT_TRAIN_CONFIG.temperature,
    topP: opts.topP ?? DEFAULT_TRAIN_CONFIG.topP,
  };
  return { constrained, config };
};

/**
 * Whether the questions scored are held out from the checkpoint's training, said on stderr: a warning when they
 * are drawn from what its run trained on (a score of memory), a note when they are its training split, or, for
 * hopqa, held-out questions of the training worlds. Returns the overlap with the run's worlds, when known.
 */
export const noteHeldOut = async (
  { who, env, spec }: EvalScope,
  options: URLSearchParams,
  run: ReturnType<typeof runConfigEnv>,
  clone: ReturnType<typeof checkpointOriginEnv>,
) => {
  // The run's own training draws (its config.json): a score on questions it trained on measures memory.
  const trained = await trainedEnvOf(run?.env);
  const overlap = trained?.id === env.id ? trainingOverlap(trained.options, env.options) : undefined;
  const trainedSplit = new URLSearchParams((run ?? clone)?.env.split("?")[1] ?? "").get("split") ?? "train";
  if (overlap?.overlaps) {
    const [from, to] = overlap.worlds;
    process.stderr.write(
      `warning: ${who} draws split ${env.options?.split} questions from ${from === to ? `world ${from}` : `worlds ${from}-${to}`}, which training drew from too (${run?.env}, ${run?.file}): the score then measures memory of the training questions, not search; --split test or ood, or a --world-seed outside ${trained?.options?.worlds}, scores unseen ones\n`,
    );
  } else if (overlap === undefined && env.options?.split === trainedSplit)
    process.stderr.write(
      trainedSplit === "train"
        ? `note: these are ${env.id}'s training questions (split train); --split test or ood scores held-out ones\n`
        : `note: the ${run ? "run trained" : "clone was cloned"} on split ${trainedSplit} (${(run ?? clone)?.file}), so these questions are not held out\n`,
    );
  else if (env.id === "hopqa" && !options.has("world-seed") && !/\bworld-seed=|\bworlds=/.test(spec))
    process.stderr.write(
      "note: held-out questions in the training worlds (1-1000, whose facts training saw); --world-seed 1000001-1000200 scores worlds training never saw, as --suite's unseen columns do\n",
    );
  return overlap;
};

/** The environment's options in effect, as eval's and select's summaries give them (the world seed as read). */
export const optionsInEffect = (
  env: EnvDefinition,
  options: URLSearchParams,
  worldSeed: string | undefined,
): Record<string, string | number> => ({
  ...env.options,
  ...Object.fromEntries(options),
  // The world seed as it was read (00042 is world 42, beside "worlds":"42-42"), not as it was typed.
  ...(worldSeed !== undefined ? { "world-seed": digitsAsRead(worldSeed) } : {}),
});

/**
 * The environment a checkpoint was made under, said on stderr by `who` (eval, select, train without --env): its run's
 * config.json (`run`), else its clone's or average's record (`clone`), else the built-in environment whose tokenizer
 * it carries; undefined when none names one.
 */
const checkpointEnvSpec = (
  run: ReturnType<typeof runConfigEnv>,
  clone: ReturnType<typeof checkpointOriginEnv>,
  checkpoint: string,
  suite: boolean,
  who: "eval" | "select" | "train",
): string | undefined =>
  trainedEnv(run, suite, "run", who) ?? trainedEnv(clone, suite, clone?.whose, who) ?? tokenizerEnv(checkpoint, who);

/** A checkpoint outside a run folder (a shipped one): the built-in environment whose tokenizer it carries. */
const tokenizerEnv = (checkpoint: string, who: "eval" | "select" | "train" = "eval"): string | undefined => {
  const env = builtinEnvOfCheckpoint(checkpoint);
  // Its tokenizer tells the wording, not the options that keep it (hopqa's legal, left): a run's checkpoint copied
  // out of its run folder records none, and was scored under the plain variant without a word.
  if (env)
    process.stderr.write(
      `${who}: --env not given: ${env}, whose tokenizer ${checkpoint} carries (it records no other options: ` +
        "give --env if it was made on a variant)\n",
    );
  return env;
};

/**
 * How a checkpoint was trained or cloned, as recorded: its run's config.json, else its own manifest (sft
 * and average write it there). Undefined when neither says.
 */
export const recordedDecoding = (
  run: ReturnType<typeof runConfigEnv>,
  checkpoint: string,
): { readonly constrained: boolean; readonly where: string; readonly fromRun: boolean } | undefined => {
  if (run?.constrained !== undefined) return { constrained: run.constrained, where: run.file, fromRun: true };
  const saved = savedConstrained(checkpoint);
  return saved === undefined
    ? undefined
    : { constrained: saved, where: join(checkpoint, "manifest.json"), fromRun: false };
};

/**
 * Constrained decoding unless told: as the checkpoint was trained (its run's config.json, or its manifest),
 * and said. A checkpoint trained under the legal actions scores far lower without them, so decoding freely
 * where the environment declares them, with nothing recorded of the checkpoint, gets a note.
 */
const evalConstrained = (
  given: boolean | undefined,
  run: ReturnType<typeof runConfigEnv>,
  checkpoint: string,
  env: EnvDefinition,
  who: "eval" | "select" = "eval",
): boolean => {
  if (given !== undefined) return given;
  const recorded = recordedDecoding(run, checkpoint);
  if (recorded?.constrained) {
    process.stderr.write(
      `${who}: --constrained, as the ${recorded.fromRun ? "run was trained" : "checkpoint was trained or cloned"} (${recorded.where}; --no-constrained decodes freely)\n`,
    );
    return true;
  }
  if (recorded === undefined && env.legalActions)
    process.stderr.write(
      `note: decoding freely: ${env.id} declares legal actions, and a checkpoint trained with --constrained scores far lower without them; add --constrained to decode under them (as docs/results.md and npm start do), --no-constrained to silence this\n`,
    );
  return false;
};

/**
 * `legal=` in --env (hopqa's grammar of legal actions) chooses what constrained decoding allows, and nothing else:
 * decoding freely, it changed nothing without a word (`train --env "hopqa?legal=relations"` trained as the default).
 */
const noteInertLegal = (spec: string, constrained: boolean, decodes: string): void => {
  const legal = new URLSearchParams(spec.split("?")[1] ?? "").get("legal");
  if (legal !== null && !constrained)
    process.stderr.write(
      `note: legal=${legal} in --env ${spec} chooses the legal actions of constrained decoding, and ${decodes} freely, so it changes nothing: add --constrained for it to apply\n`,
    );
};

/**
 * Constrained decoding for training from `--init` unless told: as the checkpoint was trained or cloned
 * (its run's config.json, or its manifest), and said. A checkpoint trained under the legal actions writes
 * few well-formed actions without them, so its episodes are cut short and RL (or cloning) starts from a
 * collapse.
 */
const initConstrained = (
  command: "train" | "sft",
  given: boolean | undefined,
  init: string | null | undefined,
  env: EnvDefinition,
): { readonly constrained: boolean; readonly say?: string } => {
  if (given !== undefined || !init) return { constrained: !!given };
  const recorded = recordedDecoding(runConfigEnv(init), init);
  if (recorded?.constrained)
    return {
      constrained: true,
      say: `${command}: --constrained, as --init${recorded.fromRun ? "'s run was trained" : " was trained or cloned"} (${recorded.where}; --no-constrained ${command === "train" ? "samples" : "clones"} freely)`,
    };
  if (recorded === undefined && env.legalActions)
    return {
      constrained: false,
      say: `note: ${command === "train" ? "sampling" : "cloning"} freely: ${env.id} declares legal actions, and --init ${init} records no decoding (cloned without --constrained, or made by an older version); add --constrained to ${command === "train" ? "sample" : "clone"} under them (as npm start does; a checkpoint made under them writes few well-formed actions without them), --no-constrained to silence this`,
    };
  return { constrained: false };
};

/**
 * The --env every checkpoint to average was made under (its run's config.json, or its own sft.json or
 * average.json), for the average's average.json, so eval of the average needs no --env. Undefined, and said,
 * when they differ or one is not known (a damaged record counts as not known: the average is still made).
 */
export const averagedEnv = (folders: readonly string[], given?: string): string | undefined => {
  const envs = folders.map((folder) => {
    try {
      const found = runConfigEnv(folder) ?? checkpointOriginEnv(folder);
      return found && { env: absoluteModuleSpec(found.env), file: found.file };
    } catch {
      return undefined;
    }
  });
  const known = envs.filter((found) => found !== undefined);
  if (given !== undefined) {
    // average --env: recorded as given; a checkpoint that records another is said, since eval will take --env's.
    const recorded = absoluteModuleSpec(given);
    const other = folders.flatMap((folder, i) => {
      const found = envs[i];
      return found && !sameEnvSpec(found.env, recorded)
        ? [`${folder} was made under ${found.env} (${found.file})`]
        : [];
    });
    if (other.length > 0)
      process.stderr.write(`note: the average records --env ${given}, though ${other.join("; ")}\n`);
    return recorded;
  }
  // One environment whatever the order of its ?options (`hopqa?split=test&top-k=3` is `hopqa?top-k=3&split=test`).
  if (known.length === folders.length && known.every((found) => sameEnvSpec(found.env, known[0].env)))
    return known[0].env;
  if (known.length > 0)
    process.stderr.write(
      `note: the average records no environment (eval it with --env, or average again with --env to record one): ${folders
        .map(
          (folder, i) =>
            `${folder} ${envs[i] ? `was made under ${envs[i].env} (${envs[i].file})` : "has no readable record of its environment"}`,
        )
        .join("; ")}\n`,
    );
  return undefined;
};

/**
 * The --env spec a resumed sft goes on under: the stopped sft's own spelling when --env names its environment
 * another way (hopqa's `?worlds=5` for `?world-seed=5`), so that it is not refused as another; else --env's.
 */
const resumedEnvSpec = (out: string | undefined, given: string): string => {
  const stopped = out === undefined ? undefined : (sftProgressIn(out)?.arguments as { env?: unknown } | undefined)?.env;
  return typeof stopped === "string" && sameEnvironment(stopped, given) ? stopped : given;
};

/**
 * --init of a clone cloned under another --env (its sft.json: hopqa's test split, or a module), with --env
 * not given: said, since the default is not what the clone learnt on. Not taken, as --init of a run's is not.
 */
const noteCloneEnv = (command: "train" | "sft", init: string, used: string) => {
  const clone = checkpointOriginEnv(init);
  if (clone === undefined || clone.env === used) return;
  const flag = /^[\w./:@-]+$/.test(clone.env) ? clone.env : JSON.stringify(clone.env);
  const made = clone.whose === "clone" ? "was cloned under" : "is an average of checkpoints made under";
  process.stderr.write(
    `note: --init ${init} ${made} --env ${clone.env} (${clone.file}); --env not given, so ${command} uses ${used}: pass --env ${flag} for the ${clone.whose}'s\n`,
  );
};

/**
 * The id of the environment whose episodes `--data` holds, from its first journal's episode.started: sft without
 * --env clones under it when it is built in (the default, lookup, refused another environment's journals), and
 * asks for the module's path otherwise. Undefined when the first journal cannot be read; sft's own reading then
 * says what is wrong.
 */
const envOfData = async (
  data: string,
): Promise<
  { readonly id: string; readonly tokenizer?: string; readonly options?: Readonly<Record<string, string>> } | undefined
> => {
  const [first] = await journalFilesAt(data, { recursive: true }).catch(() => []);
  return first === undefined ? undefined : recordedEnvOf(first);
};

/**
 * The environment module of the train run whose episodes `--data` holds (the run folder, its episodes/, or
 * one update's folder in it): its config.json's `env`, for sft without --env, since a journal names only the
 * environment's id. Undefined when --data is no run's or the run's environment is not a module; a module that
 * is no longer there is a UsageError naming the path and the config.json it came from.
 */
const runModuleOf = (data: string): { readonly env: string; readonly file: string } | undefined => {
  const run = runConfigEnv(data);
  if (run === undefined || !isModulePath(modulePathOf(run.env))) return undefined;
  const path = modulePathOf(run.env);
  if (lostRelativeModule(run.env))
    throw notFoundFromHere(run.file, `the environment module ${path}`, "pass --env with the module's path");
  if (!existsSync(path))
    throw new UsageError({
      detail: `--env not given, and ${run.file} names the environment module ${path}, which is not there any more: pass --env with the module's path`,
    });
  return run;
};

/**
 * A checkpoint whose tokenizer is another variant's of the built-in environment `spec` names (a hopqa
 * wording=possessive clone under plain hopqa): refused, naming the --env to pass (checkTokenizerOf says only
 * "another tokenizer"). The tokenizer is read from tokenizer.json without loading.
 */
const refuseOtherVariant = (spec: string, env: EnvDefinition, checkpoint: string): void => {
  const found = savedTokenizerId(checkpoint);
  if (found === undefined) return;
  // The options the checkpoint records (its run's, its clone's or its average's) go into the --env to pass, under
  // those typed: the tokenizer's variant alone (`hopqa?wording=possessive`) left out what it was trained under.
  const recorded = recordedEnvOfCheckpoint(checkpoint);
  const base = recorded && recorded.env.split("?")[0] === spec.split("?")[0] ? overlaidSpec(recorded.env, spec) : spec;
  const fix = tokenizerVariantFix(base, env, found);
  if (fix)
    throw new UsageError({
      detail: `checkpoint ${checkpoint} was made for another tokenizer (${found}) than environment ${env.id}'s (${env.tokenizer.id}): ${fix}${base === spec ? "" : ` (with the options ${recorded?.file} records)`}`,
    });
};

/** A checkpoint made for `spec`'s tokenizer, else refused: naming the --env to pass for a variant's, else another's. */
const checkTokenizerFor = (spec: string, env: EnvDefinition, checkpoint: string): void => {
  refuseOtherVariant(spec, env, checkpoint);
  checkTokenizerOf(env, checkpoint);
};

/**
 * The environment a checkpoint records, when it records one: its run's config.json, else its clone's sft.json or
 * its average's average.json. Undefined when none does or the record cannot be read (said where it is needed).
 */
const recordedEnvOfCheckpoint = (checkpoint: string): { readonly file: string; readonly env: string } | undefined => {
  try {
    return runConfigEnv(checkpoint) ?? checkpointOriginEnv(checkpoint);
  } catch {
    return undefined;
  }
};

/** A spec's id and its options other than the questions' (split, worlds, world-seed: suiteSplit's `fixed`). */
const withoutQuestions = (spec: string): { readonly id: string; readonly params: URLSearchParams } => {
  const [id, query = ""] = spec.split("?", 2);
  return { id, params: new URLSearchParams(suiteSplit(query).others) };
};

/** A spec as typed: options unescaped, as tokenizerVariantFix writes them (the command line reads them back). */
const specOf = ({ id, params }: { readonly id: string; readonly params: URLSearchParams }): string => {
  const options = [...params].map(([key, value]) => `${key}=${value}`).join("&");
  return options === "" ? id : `${id}?${options}`;
};

/** `recorded`'s options (the questions' aside) with `given`'s over them. */
const overlaidSpec = (recorded: string, given: string): string => {
  const aside = withoutQuestions(recorded);
  for (const [key, value] of new URLSearchParams(given.split("?", 2)[1] ?? "")) aside.params.set(key, value);
  return specOf(aside);
};

/**
 * When a checkpoint records the environment it was made under and `spec` (the --env given, of environment `env`)
 * is another variant of it or another environment, the questions' options aside: what to say, naming both and the
 * record. Variants compare by their options in effect (sameVariantSpec: `hopqa?legal=types` is `hopqa`); a module's
 * path by the file it names.
 */
const otherThanRecorded = (env: EnvDefinition, spec: string, checkpoint: string): string | undefined => {
  const recorded = recordedEnvOfCheckpoint(checkpoint);
  if (recorded === undefined) return undefined;
  const [mine, theirs] = [spec, recorded.env].map(withoutQuestions);
  const keyOf = (aside: typeof mine) =>
    specOf({ id: /[/\\]|\.[cm]?[jt]s$/.test(aside.id) ? resolve(aside.id) : aside.id, params: aside.params });
  if (sameVariantSpec(unconfiguredOf(env), keyOf(theirs), keyOf(mine))) return undefined;
  return `${checkpoint} was made under --env '${specOf(theirs)}' (${recorded.file}), not --env '${specOf(mine)}'`;
};

/**
 * What train and sft do first, in this order so that a bad flag is said before anything slow loads: find
 * --init and check it against the shape flags, load --env, check its tokenizer against --init's, and decide
 * the decoding (which needs the environment's legal actions when constrained).
 */
const initAndEnv = async (
  command: "train" | "sft",
  opts: ShapeOptions & { readonly init?: string; readonly env: string; readonly constrained?: boolean },
  envGiven: boolean,
): Promise<{
  readonly init: string | null;
  readonly env: EnvDefinition;
  /** The environment's spec: --env's, or (train without it) the one --init was made under. */
  readonly spec: string;
  readonly decoding: ReturnType<typeof initConstrained>;
}> => {
  const init = opts.init ? resolveCheckpoint(opts.init, "--init") : null;
  if (init && !existsSync(init)) throw new UsageError({ detail: `--init ${init}: no such checkpoint folder` });
  if (init) checkInitShape(init, modelOverrides(opts));
  // train without --env takes the environment --init was made under, as eval finds a checkpoint's: its run's
  // config.json, a clone's sft.json or an average's average.json, else the built-in one whose tokenizer it carries
  // (it trained under the default, lookup, and failed on the tokenizer). sft's --env comes from its --data.
  const run = init && !envGiven && command === "train" ? runConfigEnv(init) : undefined;
  const spec =
    init && !envGiven && command === "train"
      ? (checkpointEnvSpec(run, run ? undefined : checkpointOriginEnv(init), init, false, "train") ?? opts.env)
      : opts.env;
  if (init && !envGiven && command === "sft") noteCloneEnv(command, init, opts.env);
  const env = await loadEnv(spec);
  if (init) checkTokenizerFor(spec, env, init);
  const decoding = initConstrained(command, opts.constrained, init, env);
  if (decoding.constrained) requireLegalActions(env);
  noteInertLegal(spec, decoding.constrained, command === "train" ? "train samples" : "sft clones");
  return { init, env, spec, decoding };
};

/**
 * The run's own warm start, which config.json names by the path train was given (`runs/grpo/warm-start/
 * checkpoint`): resumed from another folder, that path is found again inside the run folder. Any other
 * starting checkpoint is kept as named.
 */
const ownWarmStart = (runDir: string, init: string | null): string | null => {
  if (!init?.endsWith(join("warm-start", "checkpoint"))) return init;
  const own = warmStartCheckpoint(runDir);
  // A copy of a run resumed where the original still is: its own warm start, not the original's.
  if (!existsSync(join(own, "manifest.json")) || resolve(init) === resolve(own)) return init;
  return own;
};

/**
 * A run started with `--env ./relative/env.ts` or `--init runs/warm` names those paths in config.json,
 * relative to the folder train was started in: say so when they are not found from here.
 */
const checkResumePaths = (runDir: string, config: TrainConfig) => {
  const { env, init } = config;
  const file = join(runDir, "config.json");
  if (lostRelativeModule(env))
    throw notFoundFromHere(
      file,
      `the environment module ${env}`,
      "run from that folder, or pass --env with the module's path",
    );
  // The run's starting checkpoint: the KL penalty's reference is loaded from it again on every resume.
  if (init && !isAbsolute(init) && !existsSync(join(init, "manifest.json")))
    throw notFoundFromHere(
      file,
      `the starting checkpoint ${init} (--init, or the warm start)`,
      "run the resume from that folder",
    );
};

/**
 * A checkpoint folder from what the user typed: a checkpoint, or a run folder (`train --out`), whose latest
 * checkpoint is used and named on stderr. Anything else goes on to the loader, whose error says what is missing.
 */
export const resolveCheckpoint = (dir: string, flag: string): string =>
  checkpointIn(dir, flag, (line) => process.stderr.write(`${line}\n`));

/** The last `n` checkpoints of a run folder (or of its checkpoints/ folder), oldest first. */
const lastCheckpoints = (dir: string, n: number): string[] => {
  const folder = basename(resolve(dir)) === "checkpoints" ? dir : join(dir, "checkpoints");
  const names = checkpointsIn(folder);
  if (names.length === 0)
    throw new UsageError({
      detail: existsSync(join(dir, "manifest.json"))
        ? `average --last: ${dir} is a checkpoint, not a run folder; give run folders with --last, or checkpoints without it`
        : `average --last: ${dir} holds no checkpoints (no ${folder} with checkpoint folders in it)`,
    });
  if (names.length < n)
    process.stderr.write(
      `average: ${dir} has ${names.length} checkpoint${names.length > 1 ? "s" : ""}, fewer than --last ${n}: averaging them all\n`,
    );
  return names.slice(-n).map((name) => join(folder, name));
};

/** Warm starts shipped with the package, for the note on a train without one. */
const SHIPPED_WARM_STARTS: Readonly<Record<string, string>> = {
  hopqa:
    "docs/checkpoints/hopqa-copy-warm-start, the expert's shipped clone that the results tables start from; docs/checkpoints/hopqa-hasty-warm-start, the weaker one npm start lifts",
};

/**
 * eval --out holds the folder's lock (src/journal/lock.ts) from its check to its exit, as record and train hold
 * theirs: two evals into one new or empty --out both passed the check made at their start, and wrote their
 * journals into one folder, which inspect and replay then read as one set. Now the second is refused, naming
 * the first, and the check is made again under the lock (journals written meanwhile are refused). A folder
 * made here that holds nothing at the end (a failure before any episode) is removed. Returns the release.
 */
const holdEvalOut = (out: string): (() => void) => {
  const refuseFull = () => {
    // The lock's own files (a lock left by an eval that was killed) are not episodes: such a folder is empty.
    const held = heldBesidesLock(out);
    if (held !== undefined)
      throw new UsageError({
        detail: `--out ${out} is not an empty folder: eval keeps its episodes in a new or empty one (inspect and replay read a folder as one set); ${held}`,
      });
  };
  refuseFull();
  return holdOut(out, "eval", refuseFull);
};

/** One sampled action must leave room for some context: refused before any work, not deep in the sampler. */
const checkRoomForContext = (maxNewTokens: number, contextLength: number, flagGiven: boolean) => {
  if (maxNewTokens < contextLength) return;
  throw new UsageError({
    detail: flagGiven
      ? `--max-new-tokens ${maxNewTokens} leaves no room for a context: the model reads ${contextLength} tokens at most; give at most ${contextLength - 1} (an action rarely needs more than a tenth of it)`
      : `the environment's maxActionTokens (${maxNewTokens}) leaves no room for a context in the model's ${contextLength} tokens: give a smaller --max-new-tokens, or a larger --context-length`,
  });
};

/**
 * A learned policy's token budget per action: --max-new-tokens, else the environment's, else the default (its
 * maxActionTokens checked with the rest of its definition when --env loaded it).
 */
const maxNewTokensFor = (env: EnvDefinition, flag: number | undefined) => flag ?? actionBudgetOf(env);
export const MAX_NEW_TOKENS_HELP = `most tokens one sampled action may take (default: the environment's maxActionTokens, else ${DEFAULT_TRAIN_CONFIG.maxNewTokens}); under --constrained a longer legal action still runs to its end (said when one does)`;

export const BACKENDS = ["auto", ...BACKEND_ORDER];

const int = intArg;
/** The options that shape a fresh model (with --init, refused if they contradict the checkpoint's shape). */
const addShapeOptions = (command: Command, contextHelp: string) =>
  command
    .option("--context-length <n>", contextHelp, int("--context-length", 16))
    .option("--copy-head", "a fresh model gets the copy (pointer) head (default: the environment's)")
    .option("--no-copy-head", "a fresh model without the copy head")
    .addOption(
      new Option(
        "--positions <kind>",
        "a fresh model's positions: learned embeddings or ALiBi (default: the environment's)",
      ).choices(["learned", "alibi"]),
    )
    .option("--layers <n>", "a fresh model's transformer layers (default: the environment's)", int("--layers", 1))
    .option("--heads <n>", "a fresh model's attention heads (default: the environment's)", int("--heads", 1))
    .option(
      "--width <n>",
      "a fresh model's width, a multiple of --heads (default: the environment's)",
      int("--width", 1),
    );
const DECIMAL = /^\+?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/** A number flag: >= 0, or > 0 where 0 means nothing (a temperature). */
const num =
  (name: string, positive = false) =>
  (value: string) => {
    // Number() reads "" and " " as 0 and "0x10" as 16: an unset $LR would train at 0 without a word.
    const n = DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isFinite(n) || n < 0 || (positive && n === 0))
      throw new InvalidArgumentError(
        `${name} must be a number ${positive ? ">" : ">="} 0 (decimal, like 0.001 or 1e-3), got "${value}"`,
      );
    return n;
  };

/** What eval's summary says of its decoding: `sample` and the `temperature` and `topP` given, or nothing when greedy. */
const sampledWith = (opts: { sample?: boolean; temperature?: number; topP?: number }) =>
  opts.sample
    ? {
        sample: true,
        ...(opts.temperature === undefined ? {} : { temperature: opts.temperature }),
        ...(opts.topP === undefined ? {} : { topP: opts.topP }),
      }
    : {};

/** Nucleus sampling's mass, as the API's topP: in (0, 1] (at 0 no token could be sampled). */
const topP = (value: string) => {
  const n = DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(n > 0 && n <= 1))
    throw new InvalidArgumentError(
      `--top-p must be a number in (0, 1] (decimal, like 0.9; 1: no nucleus cut; at 0 no token could be sampled), got "${value}"`,
    );
  return n;
};
const TOP_P_HELP =
  "nucleus sampling: sample only from the most likely tokens that together hold this much probability, in (0, 1] (1: all)";

const out = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Ctrl-C (or SIGTERM, SIGHUP: src/cli/signals.ts) in a stage that keeps nothing half done (cloning,
 * evaluating): say so, and what to run, then exit 128 + the signal's number at once. Returns the handlers'
 * removal, to call when the stage ends (or for a stage with its own handling, like training).
 */
export const exitOnInterrupt = (say: string | (() => string)): (() => void) =>
  onStopSignals((signal) => {
    stopAllBars();
    // Episodes running (eval's) halt, and their tool calls are ended and waited for, briefly (exitStopped).
    exitStopped(signal, `\n${interruptedBy(signal)}: ${typeof say === "string" ? say : say()}\n`);
  });

/** The command that resumes the sft run as `argv` (what followed `agent-r1`): the same, with --resume. */
const sftResumeCommand = (argv: readonly string[]) =>
  ["npx", "agent-r1", ...argv.filter((a) => a !== "--replace" && a !== "--resume"), "--resume"]
    .map(shellWord)
    .join(" ");

/** eval on Ctrl-C (it exited 130 saying nothing): without --out it writes nothing but its summary, so nothing is kept. */
const EVAL_STOPPED =
  "eval stopped before its summary, and it writes nothing else, so nothing was kept; run the command again";
/**
 * eval --out DIR on Ctrl-C, said as it stops: the finished episodes' journals stay in DIR, which a new eval --out
 * refuses (not empty); before any episode ended, nothing stays (a folder eval made is removed as it exits).
 */
const evalOutStopped = (out: string) => () =>
  existsSync(out) && !holdsNothingButLock(out)
    ? `eval stopped before its summary; the journals of the episodes it finished stay in ${out} (no summary was written); eval --out needs a new or empty folder, so to run the command again remove ${out} or give another --out`
    : `eval stopped before its summary and before any episode ended, so nothing was kept in ${out}; run the command again`;

/** Ctrl-C (or SIGTERM, SIGHUP): finish the current update, write a checkpoint, say how to resume. */
const stopOnInterrupt = (
  finishing = "finishing what runs now (a step of the warm start's cloning, the evaluation before or after training, or an update; the warm start's recording stops at once) and saving where it is",
  again = "without a checkpoint of the current work; --resume continues from the last checkpoint written",
  /** What to say when stopped before the work that saves anything began (then it quits at once), or undefined. */
  beforeWork?: () => string | undefined,
) => {
  let stoppedBy: StopSignal | undefined;
  const dispose = onStopSignals((signal) => {
    const early = beforeWork?.();
    if (early !== undefined) {
      stopAllBars();
      process.stderr.write(`\n${interruptedBy(signal)}: ${early}\n`);
      process.exit(exitCodeOf(signal));
    }
    if (stoppedBy) {
      stopAllBars();
      process.stderr.write(`\n${interruptedBy(signal)} again: quitting now, ${again}\n`);
      process.exit(exitCodeOf(signal));
    }
    stoppedBy = signal;
    process.stderr.write(`\n${interruptedBy(signal)}: ${finishing} (${againToQuit(signal)})\n`);
  });
  return { shouldStop: () => stoppedBy !== undefined, stoppedBy: () => stoppedBy, dispose };
};

/**
 * Under --constrained a legal action runs to its end (cut short, it would be malformed): the sampler's budget is then
 * the longest legal action's length where that is more than --max-new-tokens (TransformerPolicy), so the flag does
 * not cut it. Said once, at the first ended episode with an action longer than the flag, naming both numbers;
 * nothing when the flag was not given or decoding is free.
 */
const legalPastBudget = (given: number | undefined, constrained: boolean): ((record: EpisodeRecord) => void) => {
  let said = given === undefined || !constrained;
  return (record) => {
    if (said) return;
    const longer = record.events.find(
      (e) => e.type === "agent.acted" && e.allowed !== undefined && e.tokens.length > (given as number),
    );
    if (longer?.type !== "agent.acted") return;
    said = true;
    process.stderr.write(
      `note: --max-new-tokens ${given} does not cut actions under --constrained: a legal action took ${longer.tokens.length} tokens (its <eos> included); constrained decoding lets each action run to the end of a legal one (cut short, it would be malformed), so the budget is the longest legal action's length where that is more\n`,
    );
  };
};

/**
 * Ticks a bar per evaluated episode with the means so far (exact match, else the return), not the last episode's:
 * `em so far`, since the episodes that end first are the short ones, often the right answers found early, so the
 * mean on the way runs above the final one.
 */
const meansOn = (bar: Progress) => {
  let done = 0;
  let total = 0;
  return (r: EpisodeRecord) => {
    done += 1;
    total += "em" in r.metrics ? r.metrics.em : r.return;
    bar.tick(1, { [`${"em" in r.metrics ? "em" : "return"} so far`]: (total / done).toFixed(3) });
  };
};

/**
 * evaluate with eval's progress: a bar of the episodes (the means so far), and the note of a legal action longer
 * than --max-new-tokens. `label` heads the bar.
 */
export const evaluateShown = async (
  label: string,
  env: EnvDefinition,
  policy: Policy,
  opts: {
    readonly episodes: number;
    readonly seed: string;
    readonly maxNewTokens: number | undefined;
    readonly constrained: boolean;
    readonly dir?: string;
  },
) => {
  const bar = episodeProgress(label, opts.episodes, env.maxTurns ?? DEFAULT_MAX_TURNS);
  const tick = meansOn(bar);
  const pastBudget = legalPastBudget(opts.maxNewTokens, opts.constrained);
  try {
    return await evaluate(env, policy, {
      episodes: opts.episodes,
      seed: opts.seed,
      onEpisode: (record) => {
        pastBudget(record);
        tick(record);
      },
      onEvent: bar.onEvent,
      ...(opts.dir === undefined ? {} : { dir: opts.dir }),
    });
  } finally {
    bar.stop();
  }
};

/** `maxNewTokensGiven`: --max-new-tokens as given on the command line, said of when --constrained goes past it. */
export const runTrain = async (config: TrainConfig, runDir: string, resume: boolean, maxNewTokensGiven?: number) => {
  const env = await loadEnv(config.env);
  const pastBudget = legalPastBudget(maxNewTokensGiven, config.constrained === true);
  // The bar starts with the first update, after any warm start and the evaluation before training (its
  // ETA then measures updates only); a resumed run's bar starts where its last checkpoint left off.
  const resumedAt = resume ? (readLatest(runDir)?.version ?? 0) : 0;
  let bar = null as Progress | null;
  let evalBar = null as EpisodeProgress | null;
  let tickEval: (record: EpisodeRecord) => void = () => {};
  const startBar = () =>
    progress(`train ${config.algo}`, config.steps, process.stderr, Math.min(resumedAt, config.steps), true);
  let updateStarted = Date.now();
  let sampledShown = 0;
  let lastMetrics: Record<string, string | number> = {};
  // Episodes sampled and left out of training (aborted) over this sitting's updates: each update says its own
  // (with its first journal), the summary the sum.
  const sampled = { episodes: 0, leftOut: 0 };
  const interrupt = stopOnInterrupt();
  try {
    const result = await train({
      env,
      config,
      out: runDir,
      resume,
      shouldStop: interrupt.shouldStop,
      onUpdatesStart: () => {
        evalBar?.stop();
        evalBar = null;
        bar = startBar();
        updateStarted = Date.now();
      },
      // The greedy evaluations before and after training (config.evalEpisodes each) get bars of their own.
      onEvalStart: (phase, episodes, maxTurns) => {
        bar?.stop();
        bar = null;
        evalBar = episodeProgress(`eval ${phase} training`, episodes, maxTurns);
        tickEval = meansOn(evalBar);
      },
      onEvalEpisode: (_phase, record) => {
        pastBudget(record);
        tickEval(record);
      },
      onEvalEvent: (_phase, event) => evalBar?.onEvent(event),
      // A long update (long episodes, a long context) shows its sampling, at most every 10 s, after 10 s, next
      // to the last update's metrics; once shown, the last episode says the update's training pass began.
      onEpisode: (record, sampled, of) => {
        pastBudget(record);
        const now = Date.now();
        const last = sampled === of && sampledShown >= updateStarted;
        if (!last && (now - updateStarted < 10_000 || now - sampledShown < 10_000)) return;
        sampledShown = now;
        bar?.tick(0, { ...lastMetrics, sampling: `${sampled}/${of} episodes${last ? ", updating" : ""}` });
      },
      onUpdate: (m) => {
        updateStarted = Date.now();
        sampled.episodes += m.episodes;
        sampled.leftOut += m.leftOut;
        lastMetrics = {
          return: m.meanReturn.toFixed(3),
          // Success is of the episodes that report it, which aborted ones do not: their count is shown beside it.
          ...(m.successRate === null ? {} : { success: m.successRate.toFixed(3) }),
          ...(m.leftOut > 0 ? { aborted: `${m.leftOut}/${m.episodes}` } : {}),
          "tok/s": m.tokensPerSecond.toFixed(0),
          ...(m.cutActions ? { "cut actions": m.cutActions } : {}),
        };
        bar?.tick(1, lastMetrics);
      },
    });
    bar?.stop();
    evalBar?.stop();
    if (result.stopped)
      process.stderr.write(
        `stopped at policy version ${result.version}; resume with: npx agent-r1 train --out ${runDir} --resume\n`,
      );
    // The signal that stopped it, for the exit code (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
    return { ...result, stoppedBy: interrupt.stoppedBy(), sampled };
  } finally {
    interrupt.dispose();
  }
};

export const addLearnCommands = (program: Command, setExit: (code: number) => void) => {
  const d = DEFAULT_TRAIN_CONFIG;
  addShapeOptions(
    program
      .command("train")
      .description("train a GPT policy with RL: rollout -> journal -> replay -> update, as one stream")
      .addOption(
        new Option("--env <id|path>", "environment").default(d.env, `the one --init was made under, else ${d.env}`),
      )
      .addOption(
        new Option("--algo <name>", "advantage estimator / algorithm")
          .choices(ALGORITHMS)
          .argParser(choiceArg(ALGORITHMS))
          .default(d.algo),
      )
      .option("--steps <n>", "policy updates", int("--steps", 1), d.steps)
      .option("--seed <seed>", "run seed", seedArg, d.seed)
      .requiredOption("--out <dir>", "run folder (config.json, metrics.jsonl, checkpoints/, episodes/)")
      .addOption(new Option("--backend <name>", "tfjs backend").choices(BACKENDS).default(d.backend))
      .option("--init <dir>", "start from this checkpoint (e.g. written by sft)")
      .option(
        "--no-warm-start",
        "skip the environment's default warm start: RL starts from a fresh model (or from --init DIR, which skips it anyway)",
      )
      .option("--resume", "continue the run in --out from its last checkpoint")
      .option("--tasks <n>", "tasks per update", int("--tasks", 1), d.tasksPerStep)
      .option("--group-size <n>", "episodes per task", int("--group-size", 1), d.groupSize)
      .option("--lr <x>", "learning rate", num("--lr", true), d.lr)
      .addOption(
        new Option(
          "--lr-schedule <name>",
          "learning rate over the updates: constant, or decayed from --lr to 0 at --steps",
        )
          .choices(LR_SCHEDULES)
          .default("constant"),
      )
      .option(
        "--temperature <x>",
        "sampling temperature (> 0; evaluation decodes greedily); logprobs and losses stay at temperature 1, so another temperature trains off-policy, for exploration",
        num("--temperature", true),
        d.temperature,
      )
      .option(
        "--top-p <p>",
        `${TOP_P_HELP}; logprobs and losses stay those of the whole distribution, so p < 1 trains off-policy`,
        topP,
        d.topP,
      )
      .option("--kl <x>", "KL coefficient to the initial policy", num("--kl"), d.klCoef)
      .addOption(
        new Option(
          "--kl-kind <estimator>",
          "the KL loss term: k3 (GRPO's; its gradient is that of KL(ref||pi)), k2 (squared log ratio / 2; its gradient is that of KL(pi||ref)) or k1 (log ratio; no pull in expectation). REINFORCE++ puts k1 in the reward instead",
        )
          .choices(["k1", "k2", "k3"])
          .default(d.klKind),
      )
      .option("--entropy <x>", "entropy bonus coefficient", num("--entropy"), d.entropyCoef)
      .addOption(
        new Option(
          "--position-offsets <kind>",
          "where each trained episode's learned positions start, as sft's: mixed (half at 0, half at a random position), random or none; the update scores the sampled tokens again there. Sampling and evaluation start at 0",
        )
          .choices(POSITION_OFFSETS)
          .default("none"),
      )
      .option("--epochs <n>", "optimisation epochs per batch", int("--epochs", 1), d.epochs)
      .option(
        "--minibatches <n>",
        "gradient steps per epoch: the batch is cut into this many minibatches",
        int("--minibatches", 1),
        d.minibatches,
      )
      .option(
        "--process-reward-weight <x>",
        "weight of process rewards (0 = outcome only)",
        num("--process-reward-weight"),
        d.processRewardWeight,
      )
      .option(
        "--constrained",
        "constrained decoding: sample only the environment's legal actions (default: as --init's run was trained)",
      )
      .option("--no-constrained", "sample freely, whatever --init's run was trained with")
      .option("--max-new-tokens <n>", MAX_NEW_TOKENS_HELP, int("--max-new-tokens", 1))
      .option("--no-advantage-mask", "ablation: advantages on every response token, not actions only")
      .option("--no-loss-mask", "ablation: loss on every response token, not actions only")
      .option(
        "--eval-episodes <n>",
        "greedy evaluation episodes before and after (0 = none)",
        int("--eval-episodes", 0),
        d.evalEpisodes,
      ),
    "a fresh model's context in tokens (default: the environment's)",
  )
    .option("--checkpoint-every <n>", "updates between checkpoints", int("--checkpoint-every", 1), d.checkpointEvery)
    .option("--json", "print the result as JSON")
    .action(async (opts, command: Command) => {
      const runDir = opts.out as string;
      let config: TrainConfig;
      const saved = opts.resume ? readRunConfig(runDir) : undefined;
      if (opts.resume && !saved) refuseForeignResume(runDir, "--resume");
      if (saved) {
        // --steps may extend a resumed run; everything else comes from the run's own config, so a flag that
        // says otherwise is refused rather than silently ignored.
        const given = (name: string) => command.getOptionValueSource(name) === "cli";
        checkResumeFlags(runDir, saved, opts, given);
        // --steps is the run's total number of updates: it may extend the run or end it sooner, never undo it.
        const at = readLatest(runDir)?.version ?? 0;
        if (given("steps") && opts.steps < at)
          throw new UsageError({
            detail: `--resume --steps ${opts.steps}: ${runDir} is already at policy version ${at}; --steps counts all the run's updates, so give more than ${at} to continue it${saved.steps > at ? ` (or drop --steps to finish its ${saved.steps})` : ""}`,
          });
        // Relative paths are the folder train was started in's: from another folder, they are found there.
        // A copy of a run (cp -r runs/a runs/b) names the original's warm start: its own is taken instead.
        const ownInit = ownWarmStart(runDir, saved.init);
        const origin = runStartedIn(runDir);
        const copiedRun =
          ownInit !== saved.init &&
          !(origin !== undefined && saved.init !== null && resolve(origin, saved.init) === resolve(ownInit ?? ""));
        const meant = {
          env: runEnvSpec(runDir, saved.env),
          init: copiedRun ? ownInit : saved.init && fromStartFolder(runDir, saved.init),
        };
        if (given("env")) checkResumeEnv(runDir, meant.env, String(opts.env));
        else refuseIdOnly(join(runDir, "config.json"), saved.env, "train --resume");
        const envMoved = !given("env") && meant.env !== saved.env;
        const initMoved = !copiedRun && meant.init !== saved.init;
        if (copiedRun)
          process.stderr.write(
            `${join(runDir, "config.json")} names the warm start ${saved.init}, another run's (this run folder is a copy, or was moved): using its own, ${ownInit} (config.json now names it so)\n`,
          );
        if (envMoved || initMoved)
          process.stderr.write(
            `--resume from another folder than ${runDir} was started in (${origin}): its ${[
              envMoved ? `--env is ${meant.env}` : "",
              initMoved ? `--init is ${meant.init}` : "",
            ]
              .filter(Boolean)
              .join(" and ")} (config.json now names ${envMoved && initMoved ? "them" : "it"} so)\n`,
          );
        config = {
          ...saved,
          // A path given now is relative to this folder, not to the one the run was started in: kept absolute.
          // A built-in environment's --env, the run's own (checked above), keeps the run's spelling of it.
          env:
            given("env") && isModulePath(modulePathOf(String(opts.env)))
              ? absoluteModuleSpec(String(opts.env))
              : meant.env,
          init: meant.init,
          ...(given("backend") ? { backend: opts.backend } : {}),
          steps: given("steps") ? opts.steps : saved.steps,
        };
        if (config.steps < saved.steps)
          process.stderr.write(
            `--steps ${config.steps}: ${runDir} will end at ${config.steps === 1 ? "1 update" : `${config.steps} updates`}, not the ${saved.steps} it was started with\n`,
          );
        checkResumePaths(runDir, config);
        if (at >= config.steps)
          process.stderr.write(
            `${runDir} is already at policy version ${at} of ${config.steps} updates: nothing to train; raise --steps to continue it\n`,
          );
      } else {
        // Said before anything loads (the backend, the environment): these need no work to find.
        refuseRunFolder(runDir, "cli");
        const { init, env, spec, decoding } = await initAndEnv(
          "train",
          opts,
          command.getOptionValueSource("env") === "cli",
        );
        const { constrained } = decoding;
        config = decodeTrainConfig(
          {
            ...d,
            env: spec,
            algo: opts.algo,
            steps: opts.steps,
            seed: String(opts.seed),
            backend: opts.backend,
            init,
            tasksPerStep: opts.tasks,
            groupSize: opts.groupSize,
            lr: opts.lr,
            ...(opts.lrSchedule === "constant" ? {} : { lrSchedule: opts.lrSchedule }),
            ...(opts.positionOffsets === "none" ? {} : { positionOffsets: opts.positionOffsets }),
            temperature: opts.temperature,
            topP: opts.topP,
            maxNewTokens: maxNewTokensFor(env, opts.maxNewTokens),
            klCoef: opts.kl,
            klKind: opts.klKind,
            entropyCoef: opts.entropy,
            epochs: opts.epochs,
            minibatches: opts.minibatches,
            processRewardWeight: opts.processRewardWeight,
            maskAdvantages: opts.advantageMask,
            maskLoss: opts.lossMask,
            constrained,
            evalEpisodes: opts.evalEpisodes,
            checkpointEvery: opts.checkpointEvery,
            model: modelFor(env, modelOverrides(opts)),
            ...(opts.init || !opts.warmStart || !env.warmStart ? {} : { warmStart: env.warmStart }),
          },
          "train options",
        );
        checkRoomForContext(
          config.maxNewTokens,
          (init && savedContextLength(init)) || config.model.contextLength,
          opts.maxNewTokens !== undefined,
        );
        // Said once the options are known good: bad input gets one line, the error.
        if (decoding.say) process.stderr.write(`${decoding.say}\n`);
        const batch = config.tasksPerStep * config.groupSize;
        if (config.minibatches > batch)
          process.stderr.write(
            `note: --minibatches ${config.minibatches} cuts a batch of ${batch} episodes (--tasks ${config.tasksPerStep} x --group-size ${config.groupSize}) into ${batch} minibatches of one episode: ${batch} gradient steps per epoch, not ${config.minibatches}\n`,
          );
        const split = env.options?.split;
        if (typeof split === "string" && split !== "train")
          process.stderr.write(
            `note: training on ${env.id}'s split ${split}: these are questions held out for evaluation, so eval (and --suite) would no longer score unseen ones\n`,
          );
        // Said under --constrained too (every sampled action is then legal, so its reason is another): a fresh
        // start is rarely what a user of an environment without a warm start meant, constrained or not.
        if (!init && opts.warmStart && !env.warmStart)
          process.stderr.write(
            `note: ${env.id} declares no default warm start and no --init was given, so RL starts from a fresh, untrained model, ${constrained ? "whose actions --constrained keeps legal but which has seen no demonstration of the task" : "which rarely writes a well-formed action"}; ` +
              `start from a clone with --init DIR (${SHIPPED_WARM_STARTS[env.id] ?? "from `sft`"}), or pass --no-warm-start to say you mean it\n`,
          );
      }
      const result = await runTrain(config, runDir, !!opts.resume, opts.maxNewTokens);
      const summary = {
        out: runDir,
        algo: config.algo,
        backend: result.backend,
        version: result.version,
        // Updates of this sitting, of the run's --steps in all, and whether it was stopped before them.
        updates: result.steps,
        steps: config.steps,
        stopped: !!result.stopped,
        before: result.before,
        after: result.after,
        // This sitting's sampled episodes, and those aborted and left out of training (each update's first said).
        sampled: result.sampled,
      };
      if (opts.json) out(summaryJson(summary));
      else
        out(
          `${result.stopped ? `stopped at update ${result.version} of ${config.steps}: trained` : "trained"} ${config.algo} on ${config.env} for ${result.steps} update${result.steps === 1 ? "" : "s"} (policy version ${result.version}, backend ${result.backend}) -> ${runDir}` +
            (result.stopped ? ` (resume with: npx agent-r1 train --out ${runDir} --resume)` : "") +
            (result.before
              ? `\n  before: ${describeEval(result.before)}${config.warmStart ? ` (after the warm start on ${config.warmStart.episodes} recorded expert episodes)` : ""}`
              : "") +
            (result.after ? `\n  after:  ${describeEval(result.after)}` : "") +
            (result.sampled.leftOut > 0
              ? `\n  warning: ${result.sampled.leftOut} of the ${result.sampled.episodes} episodes sampled aborted and were left out of training (each update's first is said above, with its journal)`
              : ""),
        );
      // Interrupted: the checkpoint is written and the resume line printed; the exit code says it stopped early.
      setExit(result.stopped ? exitCodeOf(result.stoppedBy ?? "SIGINT") : 0);
    });

  addShapeOptions(
    program
      .command("sft")
      .description("behaviour cloning from recorded journals: cross-entropy on action tokens only")
      .addOption(
        new Option("--env <id|path>", "environment").default(
          d.env,
          `the built-in one --data's journals were recorded in, else ${d.env}`,
        ),
      )
      .requiredOption(
        "--data <dir>",
        "recorded journals: a folder of them (e.g. from `record --policy expert`, subfolders included) or a run folder (train --out)",
      )
      .requiredOption("--out <dir>", "checkpoint folder to write")
      .option("--epochs <n>", "passes over the data", int("--epochs", 1), 40)
      .option("--batch-size <n>", "episodes per step", int("--batch-size", 1), 16)
      .option("--lr <x>", "learning rate", num("--lr", true), 3e-3)
      .option("--seed <seed>", "seed for initialisation and shuffling", seedArg, "0")
      .option(
        "--constrained",
        "clone under the masks of the environment's legal actions, for constrained decoding (default: as --init's run was trained)",
      )
      .option("--no-constrained", "clone without the masks, whatever --init's run was trained with")
      .addOption(
        new Option(
          "--position-offsets <kind>",
          "where each training row's positions start: mixed, half the rows at 0 and half at a random position up to contextLength minus the row's length (so the positions of episodes longer than the demonstrations get trained); random, every row at a random position; none. Sampling and evaluation always start at 0",
        )
          .choices(POSITION_OFFSETS)
          .default("none"),
      )
      .addOption(
        new Option(
          "--attention <kind>",
          "a fresh model's attention: full (every earlier token), or turn-local (each token sees the prompt, its own turn and the turn before it; a turn is an action and the observation that answers it). Default full",
        ).choices(["full", "turn-local"]),
      )
      .option("--init <dir>", "continue cloning from this checkpoint instead of a fresh model")
      .option(
        "--all-episodes",
        "clone every episode, also those that did not succeed (default: only successful ones, where the environment reports success)",
      )
      .option(
        "--curriculum <stages>",
        "clone first on episodes cut after their first actions: ACTIONS:STEPS,..., each stage on more actions than the one before (e.g. 1:300,2:200)",
        (value: string) => {
          const stages = value.split(",").map((part) => {
            const match = /^(\d+):(\d+)$/.exec(part.trim());
            if (!match || Number(match[1]) < 1 || Number(match[2]) < 1)
              throw new InvalidArgumentError(
                `--curriculum wants ACTIONS:STEPS pairs of positive integers like 1:300,2:200, got "${part}"`,
              );
            return { actions: Number(match[1]), steps: Number(match[2]) };
          });
          const disorder = curriculumOrderProblem(stages);
          if (disorder !== undefined) throw new InvalidArgumentError(`--curriculum ${value}: ${disorder}`);
          return stages;
        },
      ),
    "the model's context in tokens (default: the environment's)",
  )
    .addOption(new Option("--backend <name>", "tfjs backend").choices(BACKENDS).default("auto"))
    .option(
      "--replace",
      "write over the checkpoint --out holds, or start over an sft stopped there (refused without it)",
    )
    .option(
      "--resume",
      "continue the sft stopped in --out (Ctrl-C, a kill) from its last saved point, given the same arguments",
    )
    .option(
      "--checkpoint-every <n>",
      "steps between saved points (default: each epoch's end only; a stop signal saves one too)",
      int("--checkpoint-every", 1),
    )
    .action(async (opts, command: Command) => {
      if (opts.resume && opts.replace)
        throw new UsageError({
          detail: `--resume continues the sft stopped in ${opts.out} and --replace starts it over: give one of them`,
        });
      const resumeWith = sftResumeCommand(
        // commander keeps the arguments it parsed (all of them, `sft` first) untyped on the program.
        (command.parent as unknown as { readonly rawArgs?: readonly string[] } | null)?.rawArgs ?? ["sft"],
      );
      // Said before anything loads or is locked: an sft stopped in --out is continued or started over only when told.
      const stoppedThere = !opts.resume && !opts.replace && unfinishedSft(opts.out);
      if (stoppedThere)
        throw new UsageError({
          detail: `--out ${stoppedThere.replace(/; finish it with .*$/, "")}: continue it with \`${resumeWith}\` (the same arguments), or give --replace to start it over`,
        });
      // Before the lock is taken (loading the environment takes seconds): a signal then ended sft without
      // the exit that releases the lock, and the next sft had to take it over. Ctrl-C finishes the step,
      // saves a point in --out and says how to resume.
      // Until sft asks whether to stop (before its first step: the environment, the backend and the journals
      // load first, which may take long), a signal quits at once: nothing new would be saved.
      let stepping = false;
      const interrupt = stopOnInterrupt(
        `finishing the current step and saving sft's progress in ${opts.out}`,
        `without saving the current step; \`${resumeWith}\` continues from the last saved point (each epoch's end)`,
        () =>
          stepping
            ? undefined
            : opts.resume
              ? `sft stopped before its first step, so ${opts.out} keeps the point it had saved; run the command again`
              : `sft stopped before its clone was saved (before its first step), so ${opts.out} is as it was; run the command again`,
      );
      let release = () => {};
      let stoppedBy: StopSignal | undefined;
      try {
        release = holdCheckpointOut("sft", opts.out, !!opts.replace, !!opts.resume);
        const envGiven = command.getOptionValueSource("env") === "cli";
        // What the journals record of their environment (the first one's episode.started), read once.
        const started = await envOfData(opts.data);
        if (!envGiven) {
          const recorded = started?.id;
          const fromRun = recorded !== undefined && !Object.hasOwn(ENVIRONMENTS, recorded) && runModuleOf(opts.data);
          if (fromRun) {
            process.stderr.write(
              `note: --env not given; ${opts.data} holds episodes of a train run whose config.json names ${fromRun.env} (${fromRun.file}), so sft clones under it\n`,
            );
            opts.env = fromRun.env;
          } else if (recorded !== undefined && !Object.hasOwn(ENVIRONMENTS, recorded))
            throw new UsageError({
              detail: `--env not given, and the journals in ${opts.data} are episodes of ${recorded}, which is not built in (a journal names its environment's id, not its module's path): pass --env with the path of the module that defines ${recorded}${started?.options === undefined ? "" : `, and the options they record: --env 'PATH?${optionsQuery(started.options)}'`}`,
            });
          else if (recorded !== undefined && started?.options !== undefined) {
            // The variant the journals were recorded on: their episode.started records its options.
            const spec = envSpecOf(recorded, started.options);
            process.stderr.write(
              `note: --env not given; the journals in ${opts.data} are episodes of ${spec} (the options they record), so sft clones under it\n`,
            );
            opts.env = spec;
          } else if (recorded !== undefined) {
            // A journal of an older version records no options: a built-in variant with a tokenizer of its own
            // (hopqa's wording=possessive) is found by the journal's tokenizer.
            const variant =
              started?.tokenizer === undefined ? undefined : tokenizerVariantOf(recorded, started.tokenizer);
            if (variant) {
              process.stderr.write(
                `note: --env not given; the journals in ${opts.data} are episodes of ${recorded} with the tokenizer of ${recorded}?${variant.query}, so sft clones under it (a journal of an older version names no other options: pass --env for those)\n`,
              );
              opts.env = `${recorded}?${variant.query}`;
            } else if (recorded !== opts.env) {
              process.stderr.write(
                `note: --env not given; the journals in ${opts.data} are episodes of ${recorded}, so sft clones under it\n`,
              );
              opts.env = recorded;
            }
          }
        }
        // An --env that names the environment alone (`--env hopqa`, a module's path) over journals that record
        // options (`record --env "hopqa?worlds=1-100"`): their options apply, as replay and eval take them; the
        // pipeline README shows was refused here.
        if (envGiven && !givesOptions(opts.env) && started?.options !== undefined) {
          const named = await loadEnv(opts.env);
          if (started.id === named.id && !recordsVariant(named, started.options)) {
            const spec = envSpecOf(modulePathOf(opts.env), started.options);
            process.stderr.write(
              `note: --env ${opts.env} gives no options; the journals in ${opts.data} are episodes of ${spec} (the options they record), so sft clones under it\n`,
            );
            opts.env = spec;
          }
        }
        const { init, env, decoding } = await initAndEnv("sft", opts, envGiven);
        // Journals of another variant of the built-in environment (another tokenizer): the --env to pass.
        const recordedIn = envGiven ? started : undefined;
        // Journals that record their options, of others than --env's: the clone would be made for another variant.
        if (
          recordedIn?.options !== undefined &&
          recordedIn.id === env.id &&
          !sameVariant(env, variantFromJournal(unconfiguredOf(env), recordedIn.options))
        )
          throw refusedOptions(env.id, opts.env, recordedIn.options, `the journals in ${opts.data} were`);
        const fix =
          recordedIn?.tokenizer === undefined || recordedIn.id !== env.id
            ? undefined
            : tokenizerVariantFix(opts.env, env, recordedIn.tokenizer, `the journals' tokenizer`);
        if (fix)
          throw new UsageError({
            detail: `the journals in ${opts.data} were recorded with tokenizer ${recordedIn?.tokenizer}, not environment ${env.id}'s (${env.tokenizer.id}): ${fix}`,
          });
        if (init && opts.attention !== undefined) {
          const saved = savedAttention(init) ?? "full";
          if (saved !== opts.attention)
            throw new UsageError({
              detail: `--attention ${opts.attention} cannot apply with --init ${init}: a checkpoint keeps its own attention (${saved}); drop it, or leave out --init for a fresh model`,
            });
        }
        const { constrained } = decoding;
        if (decoding.say) process.stderr.write(`${decoding.say}\n`);
        // A resumed sft's bars start where its saved point was: the curriculum's steps, the epochs.
        const saved = opts.resume ? sftProgressIn(opts.out) : undefined;
        // The curriculum's steps have a bar of their own, before the epochs': its stages take minutes (hopqa's
        // 1:300,2:200), and the epochs' bar stood at 0 all that time, saying nothing.
        const stages: readonly { readonly steps: number }[] = opts.curriculum ?? [];
        const curriculumSteps = stages.reduce((n, stage) => n + stage.steps, 0);
        const curriculumDone = saved
          ? stages.slice(0, saved.stage).reduce((n, stage) => n + stage.steps, 0) + saved.stageStep
          : 0;
        let curriculumBar =
          curriculumDone < curriculumSteps
            ? progress("sft curriculum steps", curriculumSteps, process.stderr, curriculumDone)
            : undefined;
        const epochBar = epochStepsProgress("sft steps", opts.epochs);
        const endCurriculum = () => {
          curriculumBar?.stop();
          curriculumBar = undefined;
        };
        const result = await sft({
          env,
          data: opts.data,
          out: opts.out,
          epochs: opts.epochs,
          batchSize: opts.batchSize,
          lr: opts.lr,
          seed: String(opts.seed),
          backend: opts.backend,
          model: {
            ...modelFor(env, modelOverrides(opts)),
            ...(opts.attention === "turn-local" ? { attention: "turn-local" as const } : {}),
          },
          curriculum: opts.curriculum,
          constrained,
          positionOffsets: opts.positionOffsets,
          // The --env cloned under, for eval without --env (a module's path absolute: it may run elsewhere).
          envSpec: resumedEnvSpec(opts.resume ? opts.out : undefined, absoluteModuleSpec(String(opts.env))),
          successfulOnly: !opts.allEpisodes,
          ...(init ? { init } : {}),
          resume: !!opts.resume,
          ...(opts.checkpointEvery === undefined ? {} : { checkpointEvery: opts.checkpointEvery }),
          shouldStop: () => {
            stepping = true;
            return interrupt.shouldStop();
          },
          command: resumeWith,
          onCurriculumStep: (stage, _, loss) =>
            curriculumBar?.tick(1, { stage: `${stage + 1}/${stages.length}`, loss: loss.toFixed(3) }),
          onStage: (stage) => {
            if (stage === stages.length - 1) endCurriculum();
          },
          onEpochsStart: (epoch, step, steps) => {
            endCurriculum();
            epochBar.start(epoch, step, steps);
          },
          onEpochStep: epochBar.step,
        });
        curriculumBar?.stop();
        epochBar.stop();
        // Stopped: sft said where, that its progress is saved and the command that resumes it.
        if (result.stopped) stoppedBy = interrupt.stoppedBy() ?? "SIGINT";
        else {
          if (Number.isNaN(result.losses.at(-1)))
            process.stderr.write(
              `warning: every step of the last epoch was skipped (its loss was not finite), so the clone in ${opts.out} is not a trained one; a learning rate too high (--lr ${opts.lr}) is the usual cause\n`,
            );
          else if (result.losses.at(-1) === 0 && opts.constrained)
            process.stderr.write(
              `warning: the loss is 0: under --constrained every demonstrated action token was the only one the environment's legalActions allowed, so there was nothing to clone (the clone in ${opts.out} is its initial policy) and RL from it has no choice to learn; list every action worth taking in a state, not only the demonstrator's\n`,
            );
          out(
            `cloned ${result.episodes} episodes (${result.actionTokens} action tokens) for ${opts.epochs} epoch${opts.epochs === 1 ? "" : "s"} (${result.tokens} action tokens trained on in all), final loss ${result.losses.at(-1)?.toFixed(3)} -> ${opts.out}`,
          );
        }
      } finally {
        interrupt.dispose();
        release();
      }
      // The exit code says it stopped early (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
      setExit(stoppedBy ? exitCodeOf(stoppedBy) : 0);
    });

  program
    .command("average")
    .description(
      "average the weights of checkpoints of one model: a run's last few (--last N), or several runs' from one warm start",
    )
    .argument("<checkpoints...>", "checkpoint folders; with --last, run folders")
    .requiredOption("--out <dir>", "checkpoint folder to write")
    .option("--last <n>", "from each run folder given, its last N checkpoints", int("--last", 1))
    .option(
      "--env <id|path>",
      "the environment the average records (average.json), so eval of it needs no --env (without it: the one every checkpoint records)",
    )
    .option("--replace", "write over the checkpoint --out holds (refused without it)")
    .option("--json", "print the result as JSON")
    .addOption(new Option("--backend <name>", "tfjs backend").choices(BACKENDS).default("auto"))
    .action(async (given: string[], opts) => {
      const folders =
        opts.last === undefined
          ? given.map((dir) => resolveCheckpoint(dir, "average:"))
          : given.flatMap((dir) => lastCheckpoints(dir, opts.last));
      const twice = folders.find((folder, i) => folders.findIndex((f) => resolve(f) === resolve(folder)) !== i);
      if (twice !== undefined)
        throw new UsageError({
          detail: `${twice} is given twice (as a checkpoint, or as a run folder's latest): an average counts each checkpoint once; give it once`,
        });
      if (folders.some((folder) => resolve(folder) === resolve(opts.out)))
        throw new UsageError({
          detail: `--out ${opts.out} is one of the checkpoints to average; write the average to another folder`,
        });
      if (opts.env !== undefined) {
        // Checked before any work: an --env whose tokenizer is not the checkpoints' would be recorded for nothing.
        const given = await loadEnv(opts.env);
        for (const folder of folders) checkTokenizerFor(opts.env, given, folder);
      }
      // Before the lock is taken, as sft's: a signal without a handler ended average without the exit that
      // releases the lock (the next one into --out had to take it over) and removes the folder it made.
      const quiet = exitOnInterrupt(
        `average stopped; ${opts.out} holds what it held before or the whole average, never part of one (a checkpoint is saved whole or not at all); run the command again`,
      );
      let release = () => {};
      try {
        // Checked before any work, as sft does: a folder of something else is refused, an earlier checkpoint named.
        release = holdCheckpointOut("average", opts.out, !!opts.replace);
        if (checkpointTarget(opts.out) === "checkpoint")
          process.stderr.write(`average: ${opts.out} holds a checkpoint; the average replaces it\n`);
        if (folders.length === 1)
          process.stderr.write(
            `note: only one checkpoint (${folders[0]}), so the average is a copy of it: give several checkpoints, or run folders with --last N\n`,
          );
        const env = averagedEnv(folders, opts.env);
        await initBackend(opts.backend);
        const averaged = await averageCheckpoints(folders);
        try {
          await saveCheckpoint(opts.out, {
            ...averaged,
            ...(env === undefined
              ? {}
              : { origin: { by: "average", env, checkpoints: folders.map((folder) => resolve(folder)) } }),
          });
        } finally {
          averaged.model.dispose();
        }
        // Not refused (two clones can be close), but said: an average of models trained from different starts
        // is usually worse than either, and nothing else would tell.
        const far = folders
          .map((folder, i) => ({ folder, similarity: averaged.similarity[i] }))
          .filter((c) => c.similarity < SOUP_SIMILARITY);
        if (far.length > 0)
          process.stderr.write(
            `warning: ${far.map((c) => `${c.folder} (cosine ${c.similarity.toFixed(3)})`).join(", ")} ${far.length > 1 ? "are" : "is"} far from ${folders[0]}'s weights: checkpoints of one run, or of runs from one warm start, are above ${SOUP_SIMILARITY} (0.997 or more on hopqa's). An average of models trained from different starts is usually worse than either: evaluate it before use\n`,
          );
        const summary = {
          out: opts.out,
          checkpoints: folders,
          versions: averaged.versions,
          version: averaged.version,
          similarity: averaged.similarity.map((x) => Math.round(x * 1e4) / 1e4),
        };
        out(
          opts.json
            ? summaryJson(summary)
            : `averaged ${folders.length} checkpoint${folders.length > 1 ? "s" : ""} (policy versions ${averaged.versions.join(", ")}) -> ${opts.out}`,
        );
      } finally {
        quiet();
        release();
      }
      setExit(0);
    });

  program
    .command("eval")
    .description("evaluate a checkpoint on seeds of your choice; prints a JSON summary")
    .option(
      "--env <id|path>",
      `environment (default: the run's, for a checkpoint of a train --out; else the built-in one whose tokenizer the checkpoint carries; else ${d.env})`,
    )
    .requiredOption("--checkpoint <dir>", "checkpoint folder, or a run folder (its latest checkpoint)")
    .option("--episodes <n>", "episodes", int("--episodes", 1), 100)
    .option(
      "--seed <seed>",
      "evaluation seed (keep it apart from training seeds; --suite: default suite)",
      seedArg,
      "eval",
    )
    .option("--sample", "sample (at --temperature, default 1) instead of greedy decoding")
    .option("--temperature <x>", "with --sample: the sampling temperature (> 0; default 1)", num("--temperature", true))
    .option("--top-p <p>", `with --sample: ${TOP_P_HELP}`, topP)
    .option(
      "--constrained",
      "constrained decoding: only the environment's legal actions (default: as the run was trained, for a checkpoint of a train --out)",
    )
    .option("--no-constrained", "decode freely, whatever the run was trained with")
    .option("--max-new-tokens <n>", MAX_NEW_TOKENS_HELP, int("--max-new-tokens", 1))
    .option("--split <name>", "the environment's split to draw tasks from (e.g. hopqa: train, test, ood)")
    .option(
      "--world-seed <world|a-b>",
      "the world to draw tasks from (hopqa: a world number, 0 to 2^53 - 1, or a range a-b of them)",
    )
    .option(
      "--suite",
      "hopqa only: the benchmark's three columns (test seen worlds, test new worlds, ood new worlds), --episodes each, as docs/results.md scores them",
    )
    .option(
      "--out <dir>",
      "keep the evaluated episodes' journals in this folder (new or empty), for inspect and replay (default: in memory only)",
    )
    .addOption(new Option("--backend <name>", "tfjs backend").choices(BACKENDS).default("auto"))
    // record and train take --json; eval's summary is JSON already, so the flag is taken and changes nothing.
    .option("--json", "accepted as record and train take it: eval always prints its summary as JSON")
    .action(async (opts, command: Command) => {
      const _envGiven = opts.env !== undefined;
      // Greedy decoding takes the likeliest token whatever the temperature or nucleus: a flag it would ignore is refused.
      if (opts.temperature !== undefined && !opts.sample)
        throw new UsageError({
          detail: `--temperature ${opts.temperature} applies to sampling, and eval decodes greedily unless told: add --sample`,
        });
      if (opts.topP !== undefined && !opts.sample)
        throw new UsageError({
          detail: `--top-p ${opts.topP} applies to sampling, and eval decodes greedily unless told: add --sample`,
        });
      // Said before any work: a folder that holds files (a record's, an earlier eval's) is never written into,
      // nor one another eval is writing (its lock, held to the end).
      if (opts.out !== undefined && opts.suite)
        throw new UsageError({ detail: "--out keeps one evaluation's episodes; --suite runs three: leave one out" });
      const release = opts.out === undefined ? () => {} : holdEvalOut(opts.out);
      try {
        const { scope, base, options, run, clone } = await resolveEvalEnv("eval", opts, opts.checkpoint);
        const { env } = scope;
        opts.env = scope.spec;
        const checkpoint = checkEvalCheckpoint(scope, opts.checkpoint, run, opts.maxNewTokens);
        await initBackend(opts.backend);
        const { model, tokenizer, version, constrained, config } = await loadEvalCheckpoint(
          scope,
          checkpoint,
          run,
          opts,
        );
        if (opts.suite) {
          // The suite's own seed unless --seed was given: its numbers are then the results table's.
          const seed = command.getOptionValueSource("seed") === "default" ? "suite" : String(opts.seed);
          const quiet = exitOnInterrupt(EVAL_STOPPED);
          const code = await evalSuite(
            () => policyFromModel(env, model, tokenizer, config, !opts.sample, version),
            env,
            { ...opts, constrained, checkpoint, seed, version },
          ).finally(quiet);
          setExit(code);
          return;
        }
        const policy = policyFromModel(env, model, tokenizer, config, !opts.sample, version);
        const quiet = exitOnInterrupt(opts.out === undefined ? EVAL_STOPPED : evalOutStopped(opts.out));
        const summary = await evaluateShown("eval", env, policy, {
          episodes: opts.episodes,
          seed: String(opts.seed),
          maxNewTokens: opts.maxNewTokens,
          constrained,
          ...(opts.out === undefined ? {} : { dir: opts.out }),
        }).finally(quiet);
        // A person's line on stderr whatever the scores (a clean eval printed only the JSON), a warning when
        // episodes aborted or were cut.
        const problems =
          summary.aborted > 0 ||
          summary.cutActions ||
          summary.cutContext ||
          summary.successOutOfRange ||
          summary.groupsProblem;
        process.stderr.write(
          `${problems ? "warning: " : ""}${evaluatedWhat(env, checkpoint, version, summary.episodes, String(opts.seed))}: ${describeEval(summary)}\n`,
        );
        const overlap = await noteHeldOut(scope, options, run, clone);
        const inEffect = optionsInEffect(env, options, opts.worldSeed);
        out(
          summaryJson({
            env: env.id,
            // Each option beside the summary's fields (hopqa's "split"), and all of them in `options`: an option
            // named like a field of the summary (a `seed`, an `env`) is there, not lost to the field or over it.
            ...Object.fromEntries(Object.entries(inEffect).filter(([key]) => key !== "env" && key !== "options")),
            ...(Object.keys(inEffect).length > 0 ? { options: inEffect } : {}),
            constrained,
            ...sampledWith(opts),
            checkpoint,
            version,
            seed: String(opts.seed),
            ...(overlap ? { overlapsTraining: overlap.overlaps } : {}),
            ...summary,
            ...("em" in summary.metrics ? { exactMatch: summary.metrics.em, f1: summary.metrics.f1 } : {}),
          }),
        );
        // A module's journals name its id, not its path: replay --verify of them without --env was refused.
        if (opts.out !== undefined && !isBuiltInEnv(base))
          process.stderr.write(
            `note: the episodes are in ${opts.out}; their environment ${env.id} is a module, which journals name by id only: replay --verify and inspect --html of them take --env ${opts.env.split("?")[0]}\n`,
          );
        // Every episode aborted: nothing was scored, a failure as it is for record and train.
        const failed = summary.episodes > 0 && summary.aborted === summary.episodes;
        if (failed) process.stderr.write(`eval: all ${summary.episodes} episodes aborted, so nothing was scored\n`);
        setExit(failed ? 1 : 0);
      } finally {
        release();
      }
    });
};

/** An inclusive range of world seeds, "a-b" or "a", as an environment's `worlds` option says it. */
export const rangeOf = (value: string | number | undefined): readonly [number, number] | undefined => {
  const match = /^(\d+)(?:-(\d+))?$/.exec(String(value ?? ""));
  return match ? [Number(match[1]), Number(match[2] ?? match[1])] : undefined;
};

/**
 * Whether eval draws from what training drew from, for an environment whose options name a `split` and a
 * range of `worlds` (hopqa's): the same split and at least one world in common, then the worlds in common.
 * Undefined when it cannot be known (no such options on either side): nothing is said then.
 */
export const trainingOverlap = (
  trained: Readonly<Record<string, string | number>> | undefined,
  scored: Readonly<Record<string, string | number>> | undefined,
):
  | { readonly overlaps: false }
  | { readonly overlaps: true; readonly worlds: readonly [number, number] }
  | undefined => {
  const a = rangeOf(trained?.worlds);
  const b = rangeOf(scored?.worlds);
  if (!a || !b || trained?.split === undefined || scored?.split === undefined) return undefined;
  const from = Math.max(a[0], b[0]);
  const to = Math.min(a[1], b[1]);
  return trained.split === scored.split && from <= to ? { overlaps: true, worlds: [from, to] } : { overlaps: false };
};

/** The environment a run trained on (its config.json's `env`), or undefined if it cannot be loaded now. */
const trainedEnvOf = async (spec: string | undefined): Promise<EnvDefinition | undefined> => {
  if (spec === undefined) return undefined;
  try {
    return await loadEnv(spec);
  } catch {
    return undefined;
  }
};

/**
 * What an eval scored, for its line on stderr (a person's summary; stdout is the JSON): the checkpoint and its
 * version, the environment with its split and worlds when it has them, and the episodes and their seed.
 */
const evaluatedWhat = (env: EnvDefinition, checkpoint: string, version: number, episodes: number, seed: string) =>
  `eval of ${checkpoint} (version ${version}) on ${env.id}` +
  (env.options?.split === undefined ? "" : `, split ${env.options.split}`) +
  (env.options?.worlds === undefined ? "" : `, worlds ${env.options.worlds}`) +
  `, ${episodes} episode${episodes === 1 ? "" : "s"} of seed ${JSON.stringify(seed)}`;

/**
 * `eval --suite`: hopqa's three-column evaluation (actors/hopqa/suite.ts), the one the experiment's table
 * and `npm start` print, on any checkpoint. Its columns fix split and worlds, so --split and --world-seed
 * (and those options in --env) are refused rather than ignored; hopqa's other options (`--env
 * "hopqa?wording=possessive&legal=relations"`) hold in every column.
 */
const checkSuiteOptions = (opts: { env: string; split?: string; worldSeed?: string }) => {
  const [id, query = ""] = opts.env.split("?");
  if (id !== "hopqa")
    throw new UsageError({ detail: `--suite: only hopqa has an evaluation suite, got --env ${opts.env}` });
  const { fixed, others } = suiteSplit(query);
  if (fixed)
    throw new UsageError({
      detail: `--suite fixes each column's split and worlds: use --env hopqa${others ? `?${others}` : ""}, without ?${fixed} (options other than split, worlds and world-seed, such as wording and legal, hold in every column)`,
    });
  if (opts.split !== undefined || opts.worldSeed !== undefined)
    throw new UsageError({ detail: "--suite fixes each column's split and worlds: drop --split / --world-seed" });
};

const evalSuite = async (
  policy: () => Policy,
  env: EnvDefinition,
  opts: {
    env: string;
    checkpoint: string;
    episodes: number;
    seed: string;
    constrained: boolean;
    version: number;
    maxNewTokens?: number;
    sample?: boolean;
    temperature?: number;
    topP?: number;
  },
) => {
  const { abortedColumns, evaluateSuiteShown } = await import("../../actors/hopqa/suite.ts");
  const pastBudget = legalPastBudget(opts.maxNewTokens, opts.constrained);
  const result = await evaluateSuiteShown("suite", policy, opts.episodes, opts.seed, env, (_column, record) =>
    pastBudget(record),
  );
  // The options --env gave (wording, legal...), as their values in effect; none for plain hopqa, as before.
  const given = [...new URLSearchParams(opts.env.split("?")[1] ?? "").keys()];
  out(
    summaryJson({
      env: "hopqa",
      ...Object.fromEntries(given.map((key) => [key, env.options?.[key]])),
      suite: true,
      constrained: opts.constrained,
      ...sampledWith(opts),
      checkpoint: opts.checkpoint,
      version: opts.version,
      seed: opts.seed,
      episodesPerColumn: opts.episodes,
      ...result,
    }),
  );
  const failed = abortedColumns(result).filter((c) => c.aborted === c.episodes);
  if (failed.length > 0)
    process.stderr.write(
      `eval --suite: every episode of ${failed.map((c) => c.column).join(", ")} aborted, so ${failed.length === 1 ? "that column was" : "those columns were"} not scored\n`,
    );
  return failed.length > 0 ? 1 : 0;
};

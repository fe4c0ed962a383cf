/**
 * Behaviour cloning: cross-entropy on the action tokens of recorded episodes (e.g. of the `expert`
 * policy), never on prompt or observation tokens. Writes a checkpoint that `train --init` starts from.
 */

import { existsSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { EpisodeCopies, sameEpisode } from "../journal/copies.ts";
import { readJournalFile } from "../journal/jsonl.ts";
import { allKeys, checkKnownKeys, NonDeterminismError, UsageError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { Rng, splitSeed } from "../kernel/prng.ts";
import type { WordTokenizer } from "../kernel/tokenizer.ts";
import { enclosingRun, findJournals, isRunFolder, shownPath } from "../observe/journals.ts";
import { initBackend } from "../policy/backend.ts";
import { type CheckpointContents, checkpointTarget, saveCheckpoint } from "../policy/checkpoint.ts";
import { Gpt, type GptConfig } from "../policy/gpt.ts";
import { allowedForAction, legalTrie, requireLegalActions } from "../policy/legal.ts";
import { replayEpisode } from "../replay/replay.ts";
import { ABORTED } from "../runtime/derive.ts";
import { checkEnvArgument, type EnvDefinition } from "../runtime/env.ts";
import type { Turn } from "../runtime/policy.ts";
import { AdamW } from "./adamw.ts";
import { actionBudgetNote, LR_RULE, modelConfigFor } from "./config.ts";
import { supervisedStep } from "./train-step.ts";
import { loadCheckpointFor } from "./trainer.ts";
import { EpisodeTooLongError, episodeToSequence, type Sequence } from "./trajectory.ts";

/**
 * Options of sft: the environment, the recorded journals (`data`), where the checkpoint goes (`out`), and the
 * training schedule.
 */
export interface SftOptions {
  readonly env: EnvDefinition;
  /** Folder of recorded journals (searched recursively one level: DIR/*.jsonl and DIR/*\/*.jsonl). */
  readonly data: string;
  /** Folder the clone's checkpoint is written to (a checkpoint there is replaced). */
  readonly out: string;
  /** Passes over the data (default 40, as `agent-r1 sft`). */
  readonly epochs?: number;
  /** Episodes per step (default 16). */
  readonly batchSize?: number;
  /** Learning rate (default 0.003). */
  readonly lr?: number;
  /** Seed of the initialisation and shuffling (default "0"). */
  readonly seed?: string;
  /** The tfjs backend (default "auto": the fastest available). */
  readonly backend?: "auto" | "tensorflow" | "webgpu" | "wasm" | "cpu";
  /** The fresh model's shape (default: the environment's, as `train` builds it: modelConfigFor(env)). */
  readonly model?: Partial<GptConfig>;
  /** Continue cloning from this checkpoint (its model replaces `model`); the optimizer starts afresh. */
  readonly init?: string;
  /**
   * Before the epochs, a curriculum by length: for each stage, `steps` batches of episodes cut after their
   * first `actions` actions. A model that must copy names from its context learns it far sooner on short
   * sequences, where those tokens are a large share of the loss (hopqa: 300 steps on first actions
   * only, against no progress in 600 steps on whole episodes).
   */
  readonly curriculum?: readonly { readonly actions: number; readonly steps: number }[];
  /**
   * Clone under the masks of the environment's legal actions (`EnvDefinition.legalActions`): each action's
   * tokens are scored against the ids the constrained sampler would allow, so the clone is the policy that
   * `train --constrained` samples from. A demonstrated action that is not legal stays unconstrained.
   */
  readonly constrained?: boolean;
  /**
   * Randomized position offsets (Ruoss et al. 2023): "random" starts each training row at a position drawn
   * uniformly from [0, contextLength - its length], from its own stream of the seed (the shuffling is
   * unchanged), so that every learned position embedding meets every kind of content. Default "none".
   * Evaluation and sampling are unchanged (offset 0). "mixed": each row at offset 0 with probability 1/2,
   * else as "random" (so the positions evaluation uses keep their full share of training).
   */
  readonly positionOffsets?: "none" | "random" | "mixed";
  /**
   * The `--env` spec `env` was loaded from (a module's path absolute, with its ?options), written with `data`
   * to the clone's sft.json (and each epoch's saved checkpoint), so that `agent-r1 eval` and `train --init` of
   * the clone know its environment without --env. Without it, no sft.json is written.
   */
  readonly envSpec?: string;
  /** Only episodes that ended with metrics.success = 1 (default true when the environment reports success). */
  readonly successfulOnly?: boolean;
  /** After each curriculum stage (its index and last batch loss). */
  readonly onStage?: (stage: number, loss: number) => void;
  /** After each epoch; `save(dir)` writes a checkpoint of the model as it is now (e.g. to compare epochs). */
  readonly onEpoch?: (epoch: number, loss: number, save: (dir: string) => Promise<void>) => void | Promise<void>;
  readonly log?: (line: string) => void;
}

/** What sft trained on, and its mean loss per epoch. */
export interface SftResult {
  /** Episodes cloned. */
  readonly episodes: number;
  /** The action tokens of the episodes cloned, each counted once: what one epoch trains on. */
  readonly actionTokens: number;
  /** The action tokens trained on over all steps (curriculum and epochs): each epoch counts them again. */
  readonly tokens: number;
  /** Mean loss of each epoch, in order. */
  readonly losses: readonly number[];
  /** The most tokens one demonstrated action takes: sampling needs at least this budget (`maxNewTokens`). */
  readonly longestAction: number;
}

/**
 * The episode's events with each action's allowed ids filled in, as constrained decoding would have
 * recorded them: the legal actions the environment declares for the history before that action. Returns
 * how many actions were not legal (left unconstrained).
 */
export const withLegalMasks = (env: EnvDefinition, events: readonly EpisodeEvent[]) => {
  const started = events.find((e) => e.type === "episode.started");
  const history: Turn[] = [];
  let illegal = 0;
  const annotated = events.map((event): EpisodeEvent => {
    if (event.type === "env.observed") history.push({ role: "observation", text: event.text, tokens: event.tokens });
    if (event.type !== "agent.acted" || started?.type !== "episode.started") return event;
    const trie = legalTrie(env, { task: started.task, history: [...history] });
    history.push({ role: "action", text: event.text, tokens: event.tokens });
    const allowed = allowedForAction(trie, event.tokens);
    if (allowed === undefined) {
      if (trie !== null) illegal++;
      return event;
    }
    return { ...event, allowed };
  });
  return { events: annotated, illegal };
};

/** The journal files of --data, checked before anything slow starts (loading a backend takes a while). */
const demonstrationFiles = async (data: string): Promise<string[]> => {
  if (!existsSync(data)) throw new UsageError({ detail: `--data ${data}: no such file or folder` });
  // A folder of `record`, or a run folder of `train` (its episodes/uNNNNN/ journals; metrics.jsonl is no journal).
  const files = await findJournals(data).catch((error: unknown) => {
    throw error instanceof UsageError ? new UsageError({ detail: `--data: ${error.detail}` }) : error;
  });
  if (files.length === 0) {
    // A folder inside a run (its checkpoints/) or a checkpoint: record cannot write there, so the hint was wrong.
    const run = enclosingRun(data);
    throw new UsageError({
      detail:
        run && run !== resolve(data)
          ? `no .jsonl journals in ${data}: it is inside the train run folder ${shownPath(run)}, whose journals are its episodes/ (and warm-start/demos/): give --data ${shownPath(run)}, or ${join(shownPath(run), "episodes")} for the policy's alone`
          : existsSync(join(data, "manifest.json"))
            ? `--data ${data} is a checkpoint folder (weights), not journals: give a folder of recorded journals (\`npx agent-r1 record --policy expert --out DIR\`)`
            : `no .jsonl journals in ${data} or its subfolders (record some with \`npx agent-r1 record --policy expert --out ${data}\`)`,
    });
  }
  return files;
};

export const loadSequences = async (
  env: EnvDefinition,
  files: readonly string[],
  contextLength: number,
  successfulOnly = true,
  constrained = false,
  log: (line: string) => void = () => {},
) => {
  if (constrained) requireLegalActions(env);
  let illegal = 0;
  let unsuccessful = 0;
  /** Episodes that ended in an error (the environment's or the policy's): no demonstration to clone. */
  const aborted: { file: string; reason: string }[] = [];
  const cutShort: string[] = [];
  const sequences: Sequence[] = [];
  const copies = new EpisodeCopies();
  for (const file of files) {
    const events = await readJournalFile(file);
    const earlier = copies.earlier(file, events.at(-1)?.digest);
    if (earlier !== undefined)
      throw new UsageError({
        detail: `${sameEpisode(earlier, file, events[0]?.episode)}: it would be cloned twice; remove one of them (a file manager's "(copy)", a folder copied in twice, or the same --seed recorded twice)`,
      });
    if (events[0]?.type === "episode.started" && events[0].env.id !== env.id)
      throw new UsageError({
        detail: `${file} is an episode of ${events[0].env.id}, not ${env.id}: clone it under the environment it was recorded in (agent-r1 sft --env with its id, or its module's path)`,
      });
    // A record stopped mid-episode (Ctrl-C, a kill) leaves journals without an end: nothing to clone.
    if (events.length > 0 && events.at(-1)?.type !== "episode.ended") {
      cutShort.push(file);
      continue;
    }
    try {
      replayEpisode(events, env, { file });
    } catch (error) {
      if (!(error instanceof NonDeterminismError)) throw error;
      throw new UsageError({
        detail: `${error.message}\n${file} does not replay under this environment (recorded with another version of it?); record the demonstrations again`,
      });
    }
    const ended = events.at(-1);
    if (ended?.type === "episode.ended" && ended.reason.startsWith(ABORTED)) {
      aborted.push({ file, reason: ended.reason.slice(ABORTED.length) });
      continue;
    }
    if (
      successfulOnly &&
      ended?.type === "episode.ended" &&
      "success" in ended.metrics &&
      ended.metrics.success !== 1
    ) {
      unsuccessful++;
      continue;
    }
    try {
      if (constrained) {
        const masked = withLegalMasks(env, events);
        illegal += masked.illegal;
        sequences.push(episodeToSequence(masked.events, { maxTokens: contextLength }));
      } else sequences.push(episodeToSequence(events, { maxTokens: contextLength }));
    } catch (error) {
      if (!(error instanceof EpisodeTooLongError)) throw error;
      throw new UsageError({
        detail:
          `${file}: ${error.what} has ${error.tokens} tokens, more than the model's context of ${contextLength}; ` +
          `clone into a new model with --context-length ${error.tokens} or more (not with --init, whose context is ` +
          "fixed), or record shorter episodes",
      });
    }
  }
  if (illegal > 0) log(`sft: ${illegal} demonstrated actions are not among the legal ones; cloned unconstrained`);
  if (cutShort.length > 0)
    log(
      `sft: ${cutShort.length} of ${files.length} journals were cut short (no episode.ended: their record was stopped mid-episode) and are not cloned; the first, ${cutShort[0]}`,
    );
  if (aborted.length > 0)
    log(
      `sft: ${aborted.length} of ${files.length} episodes aborted and are not cloned; the first, ${aborted[0].file}: ${aborted[0].reason}`,
    );
  if (unsuccessful > 0 && sequences.length > 0)
    log(
      `sft: ${unsuccessful} of ${files.length} episodes did not succeed and are not cloned (--all-episodes, or successfulOnly: false from code, clones them too)`,
    );
  if (sequences.length === 0 && files.length > 0) {
    const why = [
      unsuccessful > 0 ? `${unsuccessful} did not succeed` : "",
      aborted.length > 0 ? `${aborted.length} aborted` : "",
      cutShort.length > 0 ? `${cutShort.length} were cut short` : "",
    ].filter((part) => part !== "");
    throw new UsageError({
      detail:
        `no episode to clone: of the ${files.length} journal${files.length === 1 ? "" : "s"}, ${why.join(", ")}` +
        (unsuccessful > 0
          ? "; only successful episodes are cloned unless told: --all-episodes (successfulOnly: false from code) clones the unsuccessful ones too"
          : "; record episodes that end (with another policy, or after fixing what aborted them)"),
    });
  }
  return sequences;
};

/** The sequence up to the end of its n-th action (all of it when it has fewer). */
export const firstActions = (sequence: Sequence, n: number): Sequence => {
  let seen = 0;
  for (let i = 0; i < sequence.tokens.length; i++) {
    const endsAction = sequence.actionMask[i] === 1 && sequence.actionMask[i + 1] !== 1;
    if (endsAction && ++seen === n) {
      // Every per-token array is cut at the same place.
      const length = sequence.tokens.length;
      const cut = Object.entries(sequence).map(([key, value]) => [
        key,
        Array.isArray(value) && value.length === length ? value.slice(0, i + 1) : value,
      ]);
      return Object.fromEntries(cut) as unknown as Sequence;
    }
  }
  return sequence;
};

/** Every option sft reads (any other is a misspelling, refused by name). */
const SFT_OPTIONS = allKeys<SftOptions>()([
  "env",
  "data",
  "out",
  "epochs",
  "batchSize",
  "lr",
  "seed",
  "backend",
  "model",
  "init",
  "curriculum",
  "constrained",
  "positionOffsets",
  "envSpec",
  "successfulOnly",
  "onStage",
  "onEpoch",
  "log",
]);

/** The options with their defaults, each checked: a wrong one is a UsageError naming it, before any work. */
const sftOptions = (options: SftOptions) => {
  try {
    checkKnownKeys("sft", options, SFT_OPTIONS);
  } catch (error) {
    throw new UsageError({ detail: (error as Error).message });
  }
  const wrong = (what: string, value: unknown) =>
    new UsageError({
      detail: `sft: ${what}, got ${typeof value === "string" ? JSON.stringify(value) : String(value)}`,
    });
  checkEnvArgument("sft", options.env, "env");
  const { env } = options;
  if (options.envSpec !== undefined && (typeof options.envSpec !== "string" || options.envSpec.trim() === ""))
    throw wrong("envSpec must be the --env spec the environment was loaded from", options.envSpec);
  for (const key of ["data", "out"] as const)
    if (typeof options[key] !== "string" || options[key] === "")
      throw wrong(
        `${key} must be a folder path (${key === "data" ? "of recorded journals" : "for the checkpoint"})`,
        options[key],
      );
  const whole = (key: "epochs" | "batchSize", fallback: number) => {
    const value = options[key] ?? fallback;
    if (!Number.isInteger(value) || value < 1) throw wrong(`${key} must be a whole number >= 1`, options[key]);
    return value;
  };
  const lr = options.lr ?? 3e-3;
  if (typeof lr !== "number" || !Number.isFinite(lr) || lr <= 0) throw wrong(LR_RULE, options.lr);
  const seed = options.seed ?? "0";
  if (typeof seed !== "string") throw wrong("seed must be a string", options.seed);
  const positionOffsets = options.positionOffsets ?? "none";
  if (positionOffsets !== "none" && positionOffsets !== "random" && positionOffsets !== "mixed")
    throw wrong('positionOffsets must be "none", "random" or "mixed"', options.positionOffsets);
  if (options.model !== undefined && (typeof options.model !== "object" || options.model === null))
    throw wrong("model must be an object of GPT fields (layers, heads, width, contextLength, ...)", options.model);
  return {
    ...options,
    env,
    epochs: whole("epochs", 40),
    batchSize: whole("batchSize", 16),
    lr,
    seed,
    positionOffsets,
    backend: options.backend ?? "auto",
    model: options.model ?? modelConfigFor(env),
  };
};

/**
 * Behaviour cloning from recorded journals into a checkpoint at `out` (what `agent-r1 sft` runs). Throws a UsageError
 * when `data` holds no usable episodes.
 */
export const sft = async (given: SftOptions): Promise<SftResult> => {
  const options = sftOptions(given);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Refused before the epochs, not after them.
  if (checkpointTarget(options.out) === "checkpoint")
    log(`sft: ${options.out} holds a checkpoint; the clone replaces it`);
  const files = await demonstrationFiles(options.data);
  // A run folder also holds its warm start's demonstrations (warm-start/demos): cloned too, and said so.
  const fromWarmStart = isRunFolder(options.data)
    ? files.filter((file) => relative(options.data, file).split(sep)[0] === "warm-start").length
    : 0;
  if (fromWarmStart > 0)
    log(
      `sft: ${options.data} is a run folder: ${files.length - fromWarmStart} of its journals are the policy's episodes and ${fromWarmStart} its warm start's demonstrations (warm-start/); all are cloned (give --data ${join(options.data, "episodes")} for the policy's alone)`,
    );
  await initBackend(options.backend, { log });
  const tokenizer = options.env.tokenizer as WordTokenizer;
  const model = options.init
    ? (await loadCheckpointFor(options.env, options.init)).model
    : new Gpt({ vocabSize: tokenizer.size, ...options.model }, splitSeed(options.seed, "init"));
  const sequences = await loadSequences(
    options.env,
    files,
    model.config.contextLength,
    options.successfulOnly,
    options.constrained,
    log,
  );
  if (sequences.length === 0) throw new UsageError({ detail: `no episode to clone in ${options.data}` });
  // Said before cloning starts, so a run can be stopped and the budget fixed at once.
  const longest = Math.max(0, ...sequences.map(longestAction));
  const note = actionBudgetNote(options.env, longest, "demonstrated");
  if (note) log(note);
  const optimizer = new AdamW(model.parameters, { lr: options.lr, weightDecay: 0 });
  // Its own stream, so that the shuffling (and the curriculum's draws) are those of a run without offsets.
  const offsetRng = Rng.fromSeed(splitSeed(options.seed, "position-offsets"));
  const offsetKind = model.config.positions === "alibi" ? "none" : options.positionOffsets;
  const randomOffsets = offsetKind !== "none";
  if (options.positionOffsets !== "none" && !randomOffsets)
    log(`sft: --position-offsets ${options.positionOffsets} does nothing with ALiBi (it has no absolute positions)`);
  const drawOffset = (length: number): number => {
    if (offsetKind === "mixed" && offsetRng.float() < 0.5) return 0;
    return offsetRng.int(0, Math.max(0, model.config.contextLength - (length - 1)));
  };
  /** One cross-entropy step on these rows' action tokens (under their legal-action masks when constrained). */
  const cloneStep = async (rows: readonly Sequence[]) => {
    // A turn of the event loop per step: the steps compute synchronously, so without it a Ctrl-C (SIGINT)
    // waited for the whole cloning to end.
    await new Promise((resolve) => setImmediate(resolve));
    return supervisedStep(
      model,
      {
        tokens: rows.map((s) => s.tokens),
        lossMask: rows.map((s) => s.actionMask),
        // The model reads tokens 0..length-2 (the last is only a target): they fit from any start up to
        // contextLength - (length - 1).
        ...(randomOffsets
          ? {
              positionOffsets: rows.map((s) => drawOffset(s.tokens.length)),
            }
          : {}),
        ...(options.constrained ? { allowed: rows.map((s) => s.allowed) } : {}),
      },
      { optimizer },
    );
  };
  // A clone under the masks is decoded under them (train --init and eval follow the manifest); a free clone
  // records nothing, since it may be decoded either way.
  const clone: CheckpointContents = {
    model,
    tokenizer,
    version: 0,
    ...(options.constrained ? { constrained: true } : {}),
    ...(options.envSpec === undefined
      ? {}
      : { origin: { by: "sft", env: options.envSpec, data: resolve(options.data) } as const }),
  };
  const rng = Rng.fromSeed(splitSeed(options.seed, "sft"));
  const losses: number[] = [];
  let tokens = 0;
  for (const [index, stage] of (options.curriculum ?? []).entries()) {
    if (!(Number.isInteger(stage.actions) && stage.actions >= 1 && Number.isInteger(stage.steps) && stage.steps >= 0))
      throw new UsageError({
        detail: `curriculum stage ${index + 1}: actions and steps must be integers >= 1 and >= 0`,
      });
    const cut = sequences.map((s) => firstActions(s, stage.actions));
    let loss = Number.NaN;
    for (let step = 0; step < stage.steps; step++) {
      const result = await cloneStep(Array.from({ length: options.batchSize }, () => cut[rng.int(0, cut.length - 1)]));
      if (result.skipped) log(`sft curriculum stage ${index + 1}: a step was skipped (${result.reason})`);
      else {
        loss = result.loss;
        tokens += result.tokens;
      }
    }
    options.onStage?.(index, loss);
  }
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    const order = rng.shuffle(sequences.map((_, i) => i));
    let total = 0;
    let count = 0;
    for (let start = 0; start < order.length; start += options.batchSize) {
      const result = await cloneStep(order.slice(start, start + options.batchSize).map((i) => sequences[i]));
      if (result.skipped) log(`sft epoch ${epoch}: a step was skipped (${result.reason})`);
      else {
        total += result.loss * result.tokens;
        count += result.tokens;
      }
    }
    tokens += count;
    // An epoch whose every step was skipped (a NaN loss) has no loss: NaN, not a 0 that reads as a perfect fit.
    losses.push(count > 0 ? total / count : Number.NaN);
    await options.onEpoch?.(epoch, losses.at(-1)!, (dir) => saveCheckpoint(dir, clone));
  }
  await saveCheckpoint(options.out, clone);
  optimizer.dispose();
  model.dispose();
  const actionTokens = sequences.reduce((sum, s) => sum + s.actionMask.reduce((n: number, m) => n + m, 0), 0);
  return { episodes: sequences.length, actionTokens, tokens, losses, longestAction: longest };
};

/** The most tokens one action of the sequence takes (its longest run of action tokens). */
const longestAction = (sequence: Sequence): number => {
  let longest = 0;
  let run = 0;
  for (const bit of sequence.actionMask) {
    run = bit === 1 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
};

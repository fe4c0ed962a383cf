/**
 * `agent-r1 select`: choose a checkpoint on a development set. An RL run's exact match swings between
 * checkpoints a few updates apart, and runs from different warm starts differ more; scoring each candidate
 * (every checkpoint of a run, the soup of its last few, several runs') on held-out tasks that the final
 * evaluation does not use, and keeping the best, takes out the worst of that noise without touching the
 * evaluation's tasks (docs/hopqa.md: "Choosing the checkpoint on a development set of other worlds").
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { type Command, Option } from "commander";
import { UsageError } from "../kernel/errors.ts";
import type { EvalSummary } from "../learn/evaluate.ts";
import { checkpointsIn, checkTokenizerOf, policyFromModel } from "../learn/trainer.ts";
import { averageCheckpoints } from "../policy/average.ts";
import { initBackend } from "../policy/backend.ts";
import { saveCheckpoint, unfinishedSft } from "../policy/checkpoint.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { intArg, seedArg, summaryJson } from "./args.ts";
import {
  absoluteModuleSpec,
  averagedEnv,
  BACKENDS,
  checkEvalCheckpoint,
  type EvalDecodingOptions,
  type EvalScope,
  evalDecoding,
  evaluateShown,
  exitOnInterrupt,
  holdCheckpointOut,
  loadEvalCheckpoint,
  MAX_NEW_TOKENS_HELP,
  noteHeldOut,
  optionsInEffect,
  rangeOf,
  recordedDecoding,
  resolveEvalEnv,
} from "./learn-commands.ts";
import { checkpointOriginEnv, runConfigEnv } from "./registry.ts";

/** One thing select scores: a checkpoint, or the soup (weight average) of a run's last few. */
export interface Candidate {
  /** How it is named in the output: the checkpoint's folder, or `RUN soup of the last N`. */
  readonly name: string;
  /** The checkpoint folders it is made of: one, or a soup's. */
  readonly folders: readonly string[];
  /** The run folder (or checkpoint) it was given as, whose config.json names how it was trained. */
  readonly given: string;
  /** The path typed that gave it: a checkpoint folder, or a run folder (then one of its checkpoints, or its soup). */
  readonly typed: string;
}

/** The metric a summary is ranked by: one the environment reports (em, f1...), `success`, or `return`. */
const scoreOf = (summary: EvalSummary, metric: string): number | null =>
  metric === "success"
    ? summary.successRate
    : metric === "return"
      ? summary.meanReturn
      : (summary.metrics[metric] ?? null);

const metricsOf = (summary: EvalSummary) => [...new Set(["success", "return", ...Object.keys(summary.metrics)])];

/** The default metric: exact match where the environment reports it, else success where reported, else the return. */
const defaultMetric = (summary: EvalSummary) =>
  "em" in summary.metrics ? "em" : summary.successRate !== null ? "success" : "return";

/**
 * The candidates of the paths given, in order: a checkpoint folder is one; a run folder gives each of its
 * checkpoints, oldest first (its last `last` with --last), then with --soup N the soup of its last N.
 */
export const candidatesOf = (
  paths: readonly string[],
  opts: { readonly last?: number; readonly soup?: number },
  say: (line: string) => void,
): Candidate[] => {
  const candidates: Candidate[] = [];
  for (const path of paths) {
    if (existsSync(join(path, "manifest.json"))) {
      if (opts.soup !== undefined)
        say(`select: ${path} is a checkpoint, not a run folder: --soup makes soups of run folders' checkpoints only`);
      candidates.push({ name: path, folders: [path], given: path, typed: path });
      continue;
    }
    const folder = basename(resolve(path)) === "checkpoints" ? path : join(path, "checkpoints");
    const names = checkpointsIn(folder);
    // Neither: the check of the checkpoint says what is there (other checkpoints beside, a leftover of a save).
    if (names.length === 0) {
      candidates.push({ name: path, folders: [path], given: path, typed: path });
      continue;
    }
    const run = basename(resolve(path)) === "checkpoints" ? join(path, "..") : path;
    const kept = opts.last === undefined ? names : names.slice(-opts.last);
    for (const name of kept)
      candidates.push({ name: join(folder, name), folders: [join(folder, name)], given: run, typed: path });
    if (opts.soup === undefined) continue;
    if (names.length < 2) {
      say(`select: ${path} has one checkpoint, so no soup of it (it would be that checkpoint)`);
      continue;
    }
    const soup = names.slice(-opts.soup);
    if (soup.length < opts.soup)
      say(
        `select: ${path} has ${names.length} checkpoints, fewer than --soup ${opts.soup}: its soup averages them all`,
      );
    candidates.push({
      name: `${path} soup of the last ${soup.length} (${soup.join(", ")})`,
      folders: soup.map((name) => join(folder, name)),
      given: run,
      typed: path,
    });
  }
  // The same folders twice, by any path to them (a link, a run folder and one of its checkpoints): named by both.
  const seen = new Map<string, Candidate>();
  const real = (folder: string) => (existsSync(folder) ? realpathSync(folder) : resolve(folder));
  const how = (c: Candidate) => (c.typed === c.name ? c.name : `${c.name}, from ${c.typed}`);
  for (const candidate of candidates) {
    const key = candidate.folders.map(real).join("\n");
    const before = seen.get(key);
    if (before !== undefined)
      throw new UsageError({
        detail: `one candidate is given twice: as ${how(before)}, and as ${how(candidate)}; each is scored once: give it once`,
      });
    seen.set(key, candidate);
  }
  return candidates;
};

/**
 * A candidate folder that could not load is said before any is scored: neither a checkpoint nor a run folder
 * (a run's episodes/, say), a clone whose sft stopped half-way, or a checkpoint without one of its files.
 */
const refuseUnloadable = (folder: string, candidate: Candidate) => {
  const from = candidate.typed === folder ? "" : ` (from ${candidate.typed})`;
  const stopped = unfinishedSft(folder, "finish it, or leave it out");
  if (stopped) throw new UsageError({ detail: `select${from}: ${stopped}` });
  if (!existsSync(join(folder, "manifest.json")))
    throw new UsageError({
      detail: `${folder}${from} is neither a checkpoint folder (no manifest.json in it) nor a run folder (no checkpoints in ${join(folder, "checkpoints")}): give checkpoint folders or train --out folders`,
    });
  const missing = ["config.json", "weights.bin", "tokenizer.json"].filter((file) => !existsSync(join(folder, file)));
  if (missing.length > 0)
    throw new UsageError({
      detail: `checkpoint ${folder}${from} lacks ${missing.join(", ")} (a checkpoint holds manifest.json, config.json, weights.bin and tokenizer.json): it cannot load; leave it out, or restore it`,
    });
};

/**
 * The pick: the best score, ties going to the later candidate (a run's later checkpoint, or its soup, trained
 * as long or longer). Undefined when no candidate has a score.
 */
export const pickOf = <T extends { readonly score: number | null }>(scored: readonly T[]): T | undefined => {
  let best: T | undefined;
  for (const candidate of scored)
    if (candidate.score !== null && (best?.score == null || candidate.score >= best.score)) best = candidate;
  return best;
};

/** hopqa: a development set in the worlds of --suite's unseen columns is said to be no held-out choice for them. */
const noteSuiteWorlds = async (env: EnvDefinition) => {
  if (env.id !== "hopqa") return;
  const worlds = rangeOf(env.options?.worlds);
  if (worlds === undefined) return;
  const { COLUMNS } = await import("../../actors/hopqa/suite.ts");
  for (const column of COLUMNS) {
    const theirs = rangeOf(column.options.worlds);
    if (!theirs || theirs[0] > worlds[1] || worlds[0] > theirs[1]) continue;
    process.stderr.write(
      `note: the development set's worlds ${env.options?.worlds} meet those of eval --suite's "${column.label}" column (${column.options.worlds}): a checkpoint chosen here and scored there is not scored on held-out worlds; choose on other worlds (e.g. --world-seed 2000001-2000200)\n`,
    );
    return;
  }
};

const round = (x: number | null) => (x === null ? null : Math.round(x * 1e4) / 1e4);

export const addSelectCommand = (program: Command, setExit: (code: number) => void) => {
  program
    .command("select")
    .description(
      "score checkpoints on a development set (a run's every one, its soup of the last few, several runs') and keep the best",
    )
    .argument(
      "<paths...>",
      "run folders (each of their checkpoints is a candidate, oldest first) or checkpoint folders",
    )
    .option(
      "--env <id|path>",
      "environment of the development set (default: the first path's run's, as eval finds it; --split and --world-seed replace its options)",
    )
    .option("--split <name>", "the environment's split to draw the development tasks from (hopqa: test, ood)")
    .option(
      "--world-seed <world|a-b>",
      "the worlds to draw them from (hopqa: a world number or a range a-b; keep them apart from training's and the final evaluation's)",
    )
    .option("--episodes <n>", "episodes per candidate", intArg("--episodes", 1), 100)
    .option(
      "--seed <seed>",
      "the development set's seed (keep it apart from training's and evaluation's)",
      seedArg,
      "dev",
    )
    .option("--last <n>", "from each run folder, only its last N checkpoints", intArg("--last", 1))
    .option(
      "--soup <n>",
      "also each run folder's soup: the average of its last N checkpoints (as average --last N), scored as one more candidate",
      intArg("--soup", 2),
    )
    .option(
      "--metric <name>",
      "what to rank by: a metric the environment reports (hopqa: em, f1), success, or return (default: em where reported, else success, else return)",
    )
    .option("--constrained", "constrained decoding: only the environment's legal actions (default: as trained)")
    .option("--no-constrained", "decode freely, whatever the runs were trained with")
    .option("--max-new-tokens <n>", MAX_NEW_TOKENS_HELP, intArg("--max-new-tokens", 1))
    .option(
      "--out <dir>",
      "write the chosen checkpoint (or soup) there, weights only, as average writes (its average.json names what it came from)",
    )
    .option("--replace", "write over the checkpoint --out holds (refused without it)")
    .addOption(new Option("--backend <name>", "tfjs backend").choices(BACKENDS).default("auto"))
    .option("--json", "accepted as eval takes it: select always prints its summary as JSON")
    .action(async (paths: string[], opts) => {
      const envGiven = opts.env !== undefined;
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const candidates = candidatesOf(paths, opts, say);
      const { scope, options } = await resolveEvalEnv("select", opts, paths[0]);
      const { env, spec } = scope;
      // Every candidate checked before any is scored: a missing or unfit one is said now, not after the others' work.
      const runOf = new Map<string, ReturnType<typeof runConfigEnv>>();
      const differences = new Set<string>();
      for (const candidate of candidates) {
        if (!runOf.has(candidate.given)) {
          let run: ReturnType<typeof runConfigEnv>;
          try {
            run = runConfigEnv(candidate.given);
          } catch (cause) {
            if (!envGiven) throw cause;
          }
          runOf.set(candidate.given, run);
        }
        const run = runOf.get(candidate.given);
        for (const folder of candidate.folders) {
          const checkpoint = checkEvalCheckpoint(scope, folder, run, opts.maxNewTokens, differences);
          refuseUnloadable(checkpoint, candidate);
          try {
            checkTokenizerOf(env, checkpoint);
          } catch (cause) {
            if (!(cause instanceof UsageError)) throw cause;
            throw new UsageError({
              detail: `${cause.detail}; select scores every candidate on one environment (${spec}${envGiven ? "" : `, found from ${paths[0]}`}): give candidates of that environment${envGiven ? "" : ", or --env"}`,
            });
          }
        }
      }
      // One decoding for every candidate: as given, else as they were trained, which must then agree.
      if (opts.constrained === undefined) {
        const decodings = candidates.map((c) => ({
          c,
          constrained: recordedDecoding(runOf.get(c.given), c.folders[c.folders.length - 1])?.constrained,
        }));
        const other = decodings.find((d) => (d.constrained ?? false) !== (decodings[0].constrained ?? false));
        if (other !== undefined)
          throw new UsageError({
            detail: `${other.c.name} was trained ${other.constrained ? "under the legal actions" : "decoding freely"} and ${decodings[0].c.name} ${decodings[0].constrained ? "under them" : "freely"}: a choice between them would compare decodings; give --constrained or --no-constrained`,
          });
      }
      if (opts.metric !== undefined && !/^[A-Za-z][\w-]*$/.test(opts.metric))
        throw new UsageError({
          detail: `--metric ${JSON.stringify(opts.metric)}: a metric's name (em, f1, success, return...)`,
        });
      // Whether the development set is held out from each run's training, said once per run, before the work.
      const said = new Set<string>();
      for (const [given, run] of runOf) {
        const key = run?.file ?? given;
        if (said.has(key)) continue;
        said.add(key);
        // A clone outside a run (sft's, average's): the --env it was made under, from its own record.
        let clone: ReturnType<typeof checkpointOriginEnv>;
        try {
          clone = run ? undefined : checkpointOriginEnv(given);
        } catch {
          clone = undefined;
        }
        await noteHeldOut(scope, options, run, clone);
      }
      await noteSuiteWorlds(env);
      const release = opts.out === undefined ? () => {} : holdCheckpointOut("select", opts.out, !!opts.replace);
      const scored: {
        readonly candidate: Candidate;
        readonly version: number;
        readonly summary: EvalSummary;
        score: number | null;
      }[] = [];
      let metric: string | undefined = opts.metric;
      const soFar = () =>
        scored.length === 0
          ? "no candidate was scored"
          : `scores so far: ${scored.map((s) => `${s.candidate.name} ${s.score === null ? "-" : s.score.toFixed(3)}`).join("; ")}`;
      const quiet = exitOnInterrupt(
        () => `select stopped before its summary (${soFar()}); nothing was written${opts.out ? ` to ${opts.out}` : ""}`,
      );
      try {
        await initBackend(opts.backend);
        // The first candidate settles the decoding (and says how); the others decode the same way.
        let constrainedAll: boolean | undefined;
        for (const [i, candidate] of candidates.entries()) {
          const run = runOf.get(candidate.given);
          const decoding = { ...opts, constrained: opts.constrained ?? constrainedAll, notes: i === 0 };
          const loaded =
            candidate.folders.length === 1
              ? await loadEvalCheckpoint(scope, candidate.folders[0], run, decoding)
              : await soupFor(scope, candidate, run, decoding);
          constrainedAll = loaded.constrained;
          let summary: EvalSummary;
          try {
            const policy = policyFromModel(env, loaded.model, loaded.tokenizer, loaded.config, true, loaded.version);
            summary = await evaluateShown(`select ${i + 1}/${candidates.length}`, env, policy, {
              episodes: opts.episodes,
              seed: String(opts.seed),
              maxNewTokens: opts.maxNewTokens,
              constrained: loaded.constrained,
            });
          } finally {
            loaded.model.dispose();
          }
          metric ??= defaultMetric(summary);
          if (!metricsOf(summary).includes(metric))
            throw new UsageError({
              detail: `--metric ${metric}: ${env.id} reports ${metricsOf(summary)
                .map((m) => `${m} (${candidate.name}: ${scoreOf(summary, m)?.toFixed(3) ?? "none"})`)
                .join(", ")}; give one of them`,
            });
          const score = summary.aborted === summary.episodes ? null : scoreOf(summary, metric);
          scored.push({ candidate, version: loaded.version, summary, score });
          say(
            `select: [${i + 1}/${candidates.length}] ${candidate.name} (version ${loaded.version}): ${metric} ${score === null ? "none" : score.toFixed(3)}` +
              (summary.aborted > 0 ? ` (${summary.aborted} of ${summary.episodes} episodes aborted)` : ""),
          );
        }
        const pick = pickOf(scored);
        if (pick === undefined) {
          say(`select: no candidate was scored (every episode of each aborted, or no ${metric} reported)`);
          setExit(1);
          return;
        }
        if (opts.out !== undefined) await writePick(opts.out, pick.candidate, constrainedAll, spec);
        // Every candidate on one score: the development set told them apart in nothing, and the pick is the last.
        const tied = scored.filter((c) => c.score !== null && c.score === pick.score).length;
        if (scored.length > 1 && tied === scored.length)
          say(
            `select: note: all ${scored.length} candidates scored ${metric} ${pick.score?.toFixed(3)}, so the pick is only the last of them (ties go to the later); more --episodes, or another development set, may tell them apart`,
          );
        say(
          `select: the pick is ${pick.candidate.name}: ${metric} ${pick.score?.toFixed(3)} on ${opts.episodes} development episodes, of ${scored.length} candidate${scored.length === 1 ? "" : "s"}` +
            (opts.out !== undefined
              ? `; written to ${opts.out}`
              : pick.candidate.folders.length > 1
                ? `; to keep it: agent-r1 average ${pick.candidate.given} --last ${pick.candidate.folders.length} --out DIR (or select again with --out)`
                : ""),
        );
        const inEffect = optionsInEffect(env, options, opts.worldSeed);
        process.stdout.write(
          `${summaryJson({
            env: env.id,
            ...(Object.keys(inEffect).length > 0 ? { options: inEffect } : {}),
            constrained: constrainedAll,
            seed: String(opts.seed),
            episodes: opts.episodes,
            metric,
            candidates: scored.map((s) => ({
              name: s.candidate.name,
              checkpoints: s.candidate.folders,
              version: s.version,
              score: round(s.score),
              ...("em" in s.summary.metrics
                ? { exactMatch: round(s.summary.metrics.em), f1: round(s.summary.metrics.f1 ?? null) }
                : {}),
              successRate: round(s.summary.successRate),
              meanReturn: round(s.summary.meanReturn),
              aborted: s.summary.aborted,
            })),
            pick: {
              name: pick.candidate.name,
              checkpoints: pick.candidate.folders,
              version: pick.version,
              score: round(pick.score),
            },
            ...(opts.out === undefined ? {} : { out: opts.out }),
          })}\n`,
        );
        setExit(0);
      } finally {
        quiet();
        release();
      }
    });
};

/**
 * A soup candidate, averaged in memory, decoded as eval decodes a checkpoint of its run (its folders' tokenizers
 * were checked against the environment before any scoring).
 */
const soupFor = async (
  scope: EvalScope,
  candidate: Candidate,
  run: ReturnType<typeof runConfigEnv>,
  opts: EvalDecodingOptions,
) => {
  const averaged = await averageCheckpoints(candidate.folders);
  try {
    return { ...averaged, ...evalDecoding(scope, candidate.folders[candidate.folders.length - 1], run, opts) };
  } catch (error) {
    averaged.model.dispose();
    throw error;
  }
};

/** The pick written as a checkpoint: the soup's average, or the checkpoint's weights (an average of one), with the decoding it was scored under. */
const writePick = async (out: string, candidate: Candidate, constrained: boolean | undefined, spec: string) => {
  // The environment its checkpoints were made under, else (a shipped checkpoint, which records none) the one select
  // scored it on, without the development set's split and worlds: eval of --out then needs no --env.
  const query = new URLSearchParams(spec.split("?")[1] ?? "");
  for (const key of ["split", "world-seed", "worlds"]) query.delete(key);
  const scoredOn = absoluteModuleSpec(`${spec.split("?")[0]}${query.size > 0 ? `?${query}` : ""}`);
  const env = averagedEnv(candidate.folders) ?? scoredOn;
  const averaged = await averageCheckpoints(candidate.folders);
  try {
    await saveCheckpoint(out, {
      ...averaged,
      ...(constrained === undefined ? {} : { constrained }),
      origin: { by: "average", env, checkpoints: candidate.folders.map((folder) => resolve(folder)) },
    });
  } finally {
    averaged.model.dispose();
  }
};

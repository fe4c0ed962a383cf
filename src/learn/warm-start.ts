/**
 * A short warm start before RL: record a few episodes of the environment's `expert` policy and clone them
 * (cross-entropy on action tokens). An environment whose fresh policy cannot find the action format by
 * sampling (RL then sees no reward at all) declares one as its default (`EnvDefinition.warmStart`);
 * `train` runs it when it starts from a fresh model and says so, and `--no-warm-start` skips it.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { epochStepsProgress } from "../cli/progress.ts";
import { policyFor, ResumeRefusal, record } from "../cli/record.ts";
import { isLockFile } from "../journal/lock.ts";
import { episodeIdOf } from "../journal/stamp.ts";
import { followAbort } from "../kernel/abort.ts";
import { UsageError } from "../kernel/errors.ts";
import { splitSeed } from "../kernel/prng.ts";
import { oneLine } from "../kernel/terminal.ts";
import { finishedClone } from "../policy/checkpoint.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { TrainConfig, WarmStartConfig } from "./config.ts";
import { describeSftProgress, sftDerived, sftProgressIn } from "./sft.ts";

/** Where a run keeps its warm start: the demonstrations and the cloned checkpoint RL starts from. */
const warmStartDir = (runDir: string) => join(runDir, "warm-start");
export const warmStartCheckpoint = (runDir: string) => join(warmStartDir(runDir), "checkpoint");

/** `cloned`: how many of the recorded episodes were cloned, when not all of them (some aborted). */
export const describeWarmStart = (w: WarmStartConfig, cloned = w.episodes) =>
  `${cloned === w.episodes ? w.episodes : `${cloned} of ${w.episodes}`} expert episodes cloned for ${w.epochs} epoch${w.epochs === 1 ? "" : "s"}`;

/** What the recording of a warm start's demonstrations said, kept once it ended: a resume clones them without recording again. */
interface Recorded {
  readonly episodes: number;
  readonly successRate: number | null;
  readonly aborted: number;
  readonly firstAbort?: { readonly episode: string; readonly reason: string; readonly thrownAt?: string };
}
const RECORDED = "recorded.json";

/** The recording's summary, if it ended for this many episodes (else the demonstrations are recorded again). */
const recordedIn = (dir: string, episodes: number): Recorded | undefined => {
  try {
    const recorded = JSON.parse(readFileSync(join(dir, RECORDED), "utf8")) as Recorded;
    return recorded.episodes === episodes ? recorded : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Whether a warm start's demonstrations folder holds nothing but what its recording writes (the journals of its
 * seed's first `episodes` episodes, the lock): only then is a stopped recording gone on with.
 */
const onlyDemonstrations = (demos: string, seed: string, episodes: number): boolean => {
  const prefix = episodeIdOf(`${seed}:`);
  return readdirSync(demos).every((name) => {
    if (isLockFile(name)) return true;
    const index = name.endsWith(".jsonl") && name.startsWith(prefix) ? name.slice(prefix.length, -".jsonl".length) : "";
    return /^(0|[1-9]\d*)$/.test(index) && Number(index) < episodes;
  });
};

/** The stopped cloning's saved point; a damaged one is refused, saying how to start the warm start over. */
const savedCloning = (checkpoint: string, dir: string) => {
  try {
    return sftProgressIn(checkpoint);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError({
      detail: `the warm start's cloning cannot be resumed: ${error.detail.replace(/: the sft in .*$/, "")}; remove ${dir} to record and clone it again from the start`,
    });
  }
};

/**
 * A warm start records the environment's `expert` policy: one without is refused by `train` when it checks its
 * config, before the backend loads and anything is written to `runDir`. A warm start already cloned there (a
 * resumed run's) records nothing more, and needs none.
 */
export const refuseWarmStartWithoutExpert = (env: EnvDefinition, config: TrainConfig, runDir: string): void => {
  if (!config.warmStart || config.init || env.policies?.expert || finishedClone(warmStartCheckpoint(runDir))) return;
  throw new UsageError({
    detail: `train config: warmStart ${JSON.stringify(config.warmStart)} records the environment's "expert" policy, and ${env.id} has none: use --no-warm-start (from code: warmStart: null), or start from a checkpoint with --init DIR (from code: init)`,
  });
};

/**
 * Records and clones into `warmStartDir(runDir)`; returns the checkpoint, or undefined when `shouldStop` stopped
 * it: during the recording at once (the next call records again), during the cloning after a step, its
 * progress saved (the next call goes on from there, to the clone an unbroken warm start writes, byte for
 * byte). A checkpoint already there (a run interrupted after its warm start) is reused; demonstrations whose
 * recording ended are kept, and a cloning stopped or killed after a saved point (each epoch's end) resumes
 * from it. `bars`: show the recording's and the cloning's progress on stderr (as `train` does without a `log`
 * of the caller's); else only `log` hears of the warm start.
 */
export const runWarmStart = async (
  env: EnvDefinition,
  config: TrainConfig,
  warm: WarmStartConfig,
  runDir: string,
  log: (line: string) => void,
  bars = true,
  shouldStop?: () => boolean,
  /** Stops it as `shouldStop` does, at once during the recording (train's `signal`). */
  signal?: AbortSignal,
): Promise<string | undefined> => {
  const checkpoint = warmStartCheckpoint(runDir);
  if (finishedClone(checkpoint)) {
    log(`warm start: reusing ${checkpoint}`);
    return checkpoint;
  }
  // train refused this already, when it checked its config: the same refusal, in its words, for any other caller.
  refuseWarmStartWithoutExpert(env, config, runDir);
  // Made before anything is removed or recorded: a factory that throws or returns no Policy is named.
  const expert = policyFor(env, "expert");
  const started = performance.now();
  const seed = splitSeed(config.seed, "warm-start");
  const demos = join(warmStartDir(runDir), "demos");
  // Demonstrations removed since their recording ended (a user's cleanup) are recorded again, not cloned from nothing.
  let recorded = existsSync(demos) ? recordedIn(warmStartDir(runDir), warm.episodes) : undefined;
  const saved = recorded ? savedCloning(checkpoint, warmStartDir(runDir)) : undefined;
  if (recorded)
    log(
      saved
        ? `warm start: resuming its cloning (${describeSftProgress(saved)}) of the ${warm.episodes} expert episodes recorded in ${demos}`
        : `warm start: the ${warm.episodes} expert episodes in ${demos} are recorded already; cloning them`,
    );
  else {
    // A cloning begun on other demonstrations is dropped. Demonstrations left by a run stopped or killed
    // before its recording ended are gone on with (`record --resume`: the episodes that ended are kept, those
    // cut short or ended by the stop are recorded again), unless the folder holds anything else.
    rmSync(checkpoint, { recursive: true, force: true });
    const goOn = existsSync(demos) && onlyDemonstrations(demos, seed, warm.episodes);
    if (existsSync(demos) && !goOn) {
      log(`warm start: ${demos} holds files its recording does not write; recording the demonstrations from the start`);
      rmSync(demos, { recursive: true, force: true });
    } else if (goOn) log(`warm start: going on with its recording stopped in ${demos}`);
    // A stop ends the recording at once (its episodes in flight end as stopped), not after its last episode
    // (an expert behind a slow API takes minutes): the resume records them, and those not recorded yet.
    const stopping = new AbortController();
    const asking = shouldStop
      ? setInterval(() => {
          if (shouldStop()) stopping.abort(new Error("train was stopped"));
        }, 100)
      : undefined;
    // train's signal, followed by a listener of its own: AbortSignal.any never hears an object shaped as an
    // AbortSignal (a polyfill's), which train takes (the recording then stopped only at shouldStop's next poll).
    const stopFollowing = followAbort(signal, stopping);
    // Without bars (a caller's own log: train from code, trainEvents) the recording and cloning are heard of first.
    if (!bars && !goOn)
      log(
        `warm start: recording ${warm.episodes} expert episodes into ${demos}, then cloning them (${warm.epochs} epoch${warm.epochs === 1 ? "" : "s"})`,
      );
    let summary: Awaited<ReturnType<typeof record>>;
    try {
      summary = await record({
        env,
        policy: expert,
        episodes: warm.episodes,
        seed,
        out: demos,
        concurrency: 32,
        durability: "episode",
        quiet: !bars,
        log,
        signal: stopping.signal,
        resume: goOn,
      });
    } catch (error) {
      // record --resume's refusal (a journal changed since, or recorded by other code) names record's flags, which
      // neither train() from code nor train --resume was given: only its reason, in words that name none.
      if (goOn && error instanceof ResumeRefusal)
        throw new UsageError({
          detail: `the warm start's recording in ${demos} cannot be gone on with: ${error.reason}; remove ${warmStartDir(runDir)} to record and clone it again from the start`,
        });
      throw error;
    } finally {
      clearInterval(asking);
      stopFollowing();
    }
    // Stopped (perhaps after its last episode ended: then the resume only checks them).
    if (stopping.signal.aborted || signal?.aborted) {
      const ended = summary.episodes - summary.aborted;
      log(
        `warm start: stopped during its recording (${ended} of ${warm.episodes} expert episodes ended): a resume ${ended > 0 ? "keeps those, records the others" : "records them"}, then clones them`,
      );
      return undefined;
    }
    recorded = {
      episodes: warm.episodes,
      successRate: summary.successRate,
      aborted: summary.aborted,
      ...(summary.firstAbort ? { firstAbort: summary.firstAbort } : {}),
    };
    writeFileSync(join(warmStartDir(runDir), RECORDED), `${JSON.stringify(recorded)}\n`);
  }
  if (recorded.firstAbort)
    log(
      `warm start: ${recorded.aborted} of ${warm.episodes} expert episodes aborted; the first, ${recorded.firstAbort.episode}: ${oneLine(recorded.firstAbort.reason)}` +
        (recorded.firstAbort.thrownAt ? ` (thrown at ${recorded.firstAbort.thrownAt})` : ""),
    );
  const bar = bars ? epochStepsProgress("warm start (cloning) steps", warm.epochs) : null;
  let cloned: Awaited<ReturnType<typeof sftDerived>>;
  try {
    cloned = await sftDerived({
      env,
      data: demos,
      out: checkpoint,
      epochs: warm.epochs,
      batchSize: 16,
      lr: 3e-3,
      seed,
      backend: config.backend,
      model: config.model,
      constrained: config.constrained ?? false,
      resume: saved !== undefined,
      ...(shouldStop ? { shouldStop } : {}),
      command: `npx agent-r1 train --out ${runDir} --resume`,
      ...(bar ? { onEpochsStart: bar.start, onEpochStep: bar.step } : {}),
      log,
    });
  } catch (error) {
    bar?.stop();
    // The cloning's own refusal names sft's flags; here the arguments are the run's config and its demos.
    if (saved && error instanceof UsageError && error.detail.startsWith("--resume: "))
      throw new UsageError({
        detail: `the warm start's cloning in ${checkpoint} cannot be resumed: ${error.detail.slice("--resume: ".length).replace(/;[^;]*$/, "")}; remove ${warmStartDir(runDir)} to record and clone it again from the start`,
      });
    throw error;
  }
  bar?.stop();
  if (cloned.stopped) return undefined;
  const notAborted = recorded.aborted ? ` of the ${warm.episodes - recorded.aborted} not aborted` : "";
  log(
    `warm start: ${describeWarmStart(warm, cloned.episodes)} (expert success ${recorded.successRate?.toFixed(3) ?? "n/a"}${notAborted}, final loss ${cloned.losses.at(-1)?.toFixed(3)}) in ${((performance.now() - started) / 1000).toFixed(0)} s -> ${checkpoint}`,
  );
  return checkpoint;
};

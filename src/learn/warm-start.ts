/**
 * A short warm start before RL: record a few episodes of the environment's `expert` policy and clone them
 * (cross-entropy on action tokens). An environment whose fresh policy cannot find the action format by
 * sampling (RL then sees no reward at all) declares one as its default (`EnvDefinition.warmStart`);
 * `train` runs it when it starts from a fresh model and says so, and `--no-warm-start` skips it.
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { progress } from "../cli/progress.ts";
import { policyFor, record } from "../cli/record.ts";
import { UsageError } from "../kernel/errors.ts";
import { splitSeed } from "../kernel/prng.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { TrainConfig, WarmStartConfig } from "./config.ts";
import { sft } from "./sft.ts";

/** Where a run keeps its warm start: the demonstrations and the cloned checkpoint RL starts from. */
const warmStartDir = (runDir: string) => join(runDir, "warm-start");
export const warmStartCheckpoint = (runDir: string) => join(warmStartDir(runDir), "checkpoint");

/** `cloned`: how many of the recorded episodes were cloned, when not all of them (some aborted). */
export const describeWarmStart = (w: WarmStartConfig, cloned = w.episodes) =>
  `${cloned === w.episodes ? w.episodes : `${cloned} of ${w.episodes}`} expert episodes cloned for ${w.epochs} epoch${w.epochs === 1 ? "" : "s"}`;

/**
 * Records and clones into `warmStartDir(runDir)`; returns the checkpoint. A checkpoint already there (a
 * run interrupted after its warm start) is reused. `bars`: show the recording's and the cloning's progress
 * on stderr (as `train` does without a `log` of the caller's); else only `log` hears of the warm start.
 */
export const runWarmStart = async (
  env: EnvDefinition,
  config: TrainConfig,
  warm: WarmStartConfig,
  runDir: string,
  log: (line: string) => void,
  bars = true,
): Promise<string> => {
  const checkpoint = warmStartCheckpoint(runDir);
  if (existsSync(join(checkpoint, "manifest.json"))) {
    log(`warm start: reusing ${checkpoint}`);
    return checkpoint;
  }
  if (!env.policies?.expert)
    throw new UsageError({
      detail: `the warm start records the environment's "expert" policy, and ${env.id} has none: use --no-warm-start or --init DIR`,
    });
  // Made before anything is removed or recorded: a factory that throws or returns no Policy is named.
  const expert = policyFor(env, "expert");
  const started = performance.now();
  const seed = splitSeed(config.seed, "warm-start");
  const demos = join(warmStartDir(runDir), "demos");
  // Demonstrations left by a run killed before its clone was saved are recorded again from scratch.
  rmSync(demos, { recursive: true, force: true });
  const recorded = await record({
    env,
    policy: expert,
    episodes: warm.episodes,
    seed,
    out: demos,
    concurrency: 32,
    durability: "episode",
    quiet: !bars,
    log,
  });
  if (recorded.firstAbort)
    log(
      `warm start: ${recorded.aborted} of ${warm.episodes} expert episodes aborted; the first, ${recorded.firstAbort.episode}: ${recorded.firstAbort.reason}` +
        (recorded.firstAbort.thrownAt ? ` (thrown at ${recorded.firstAbort.thrownAt})` : ""),
    );
  const bar = bars ? progress("warm start (cloning)", warm.epochs, process.stderr, 0, true) : null;
  const cloned = await sft({
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
    onEpoch: (_, loss) => bar?.tick(1, { loss: loss.toFixed(3) }),
    log,
  });
  bar?.stop();
  const notAborted = recorded.aborted ? ` of the ${warm.episodes - recorded.aborted} not aborted` : "";
  log(
    `warm start: ${describeWarmStart(warm, cloned.episodes)} (expert success ${recorded.successRate?.toFixed(3) ?? "n/a"}${notAborted}, final loss ${cloned.losses.at(-1)?.toFixed(3)}) in ${((performance.now() - started) / 1000).toFixed(0)} s -> ${checkpoint}`,
  );
  return checkpoint;
};

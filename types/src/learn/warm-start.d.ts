/*
 * A short warm start before RL: record a few episodes of the environment's `expert` policy and clone them
 * (cross-entropy on action tokens). An environment whose fresh policy cannot find the action format by
 * sampling (RL then sees no reward at all) declares one as its default (`EnvDefinition.warmStart`);
 * `train` runs it when it starts from a fresh model and says so, and `--no-warm-start` skips it.
 */
import type { EnvDefinition } from "../runtime/env.ts";
import type { TrainConfig, WarmStartConfig } from "./config.ts";
export declare const warmStartCheckpoint: (runDir: string) => string;
/** `cloned`: how many of the recorded episodes were cloned, when not all of them (some aborted). */
export declare const describeWarmStart: (w: WarmStartConfig, cloned?: number) => string;
/**
 * A warm start records the environment's `expert` policy: one without is refused by `train` when it checks its
 * config, before the backend loads and anything is written to `runDir`. A warm start already cloned there (a
 * resumed run's) records nothing more, and needs none.
 */
export declare const refuseWarmStartWithoutExpert: (env: EnvDefinition, config: TrainConfig, runDir: string) => void;
/**
 * Records and clones into `warmStartDir(runDir)`; returns the checkpoint, or undefined when `shouldStop` stopped
 * it: during the recording at once (the next call records again), during the cloning after a step, its
 * progress saved (the next call goes on from there, to the clone an unbroken warm start writes, byte for
 * byte). A checkpoint already there (a run interrupted after its warm start) is reused; demonstrations whose
 * recording ended are kept, and a cloning stopped or killed after a saved point (each epoch's end) resumes
 * from it. `bars`: show the recording's and the cloning's progress on stderr (as `train` does without a `log`
 * of the caller's); else only `log` hears of the warm start.
 */
export declare const runWarmStart: (env: EnvDefinition, config: TrainConfig, warm: WarmStartConfig, runDir: string, log: (line: string) => void, bars?: boolean, shouldStop?: () => boolean, 
/** Stops it as `shouldStop` does, at once during the recording (train's `signal`). */
signal?: AbortSignal) => Promise<string | undefined>;

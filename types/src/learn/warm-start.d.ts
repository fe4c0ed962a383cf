import type { EnvDefinition } from "../runtime/env.ts";
import type { TrainConfig, WarmStartConfig } from "./config.ts";
export declare const warmStartCheckpoint: (runDir: string) => string;
/** `cloned`: how many of the recorded episodes were cloned, when not all of them (some aborted). */
export declare const describeWarmStart: (w: WarmStartConfig, cloned?: number) => string;
/**
 * Records and clones into `warmStartDir(runDir)`; returns the checkpoint. A checkpoint already there (a
 * run interrupted after its warm start) is reused.
 */
export declare const runWarmStart: (env: EnvDefinition, config: TrainConfig, warm: WarmStartConfig, runDir: string, log: (line: string) => void) => Promise<string>;

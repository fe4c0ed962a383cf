/**
 * Behaviour cloning: cross-entropy on the action tokens of recorded episodes (e.g. of the `expert`
 * policy), never on prompt or observation tokens. Writes a checkpoint that `train --init` starts from.
 */
import * as Schema from "effect/Schema";
import type { EpisodeEvent } from "../kernel/events.ts";
import type { WordTokenizer } from "../kernel/tokenizer.ts";
import { type GptConfig } from "../policy/gpt.ts";
import { type EnvDefinition } from "../runtime/env.ts";
import { type PositionOffsets } from "./position-offsets.ts";
import { type Sequence } from "./trajectory.ts";
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
    /** Seed of the initialisation and shuffling (default "0"); one `sft --seed` refuses ("", a space) is refused. */
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
     * only, against no progress in 600 steps on whole episodes). Stages run from short to long: each cuts after
     * more actions than the one before (a repeated or shorter stage is refused, as `sft --curriculum` refuses it).
     */
    readonly curriculum?: readonly {
        readonly actions: number;
        readonly steps: number;
    }[];
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
    readonly positionOffsets?: PositionOffsets;
    /**
     * The `--env` spec `env` was loaded from (a module's path absolute, with its ?options), written with `data`
     * to the clone's sft.json (and each epoch's saved checkpoint), so that `agent-r1 eval` and `train --init` of
     * the clone know its environment without --env. Without it, no sft.json is written.
     */
    readonly envSpec?: string;
    /**
     * Continue the sft stopped in `out` from its last saved point (`out/sft-progress`), to the clone an unbroken run
     * writes, byte for byte: refused (UsageError) when an argument that shapes the clone differs from the saved
     * ones, when `out` holds a finished clone, or nothing saved. Without it, a stopped sft in `out` is started over.
     */
    readonly resume?: boolean;
    /** Also save a point every this many steps (default: only at each epoch's end, and when stopped). */
    readonly checkpointEvery?: number;
    /** Asked after each step: true saves a point and returns, `stopped: true` (Ctrl-C, from the command line). */
    readonly shouldStop?: () => boolean;
    /** Stops as `shouldStop` does once aborted (after the current step, its progress saved), as train's `signal`. */
    readonly signal?: AbortSignal;
    /** The command that resumes this sft, said by `eval` or `train --init` given its unfinished `out`. */
    readonly command?: string;
    /** Only episodes that ended with metrics.success = 1 (default true when the environment reports success). */
    readonly successfulOnly?: boolean;
    /**
     * After each curriculum step: its stage's index, the steps of that stage taken so far and the step's loss
     * (NaN when it was skipped). A stage takes hundreds of steps (hopqa's 1:300,2:200: minutes), so `sft` shows
     * its progress from here.
     */
    readonly onCurriculumStep?: (stage: number, step: number, loss: number) => void;
    /** After each curriculum stage (its index and last batch loss). */
    readonly onStage?: (stage: number, loss: number) => void;
    /**
     * After each step of an epoch: the epoch's index, the steps of it taken so far, its steps in all and the mean
     * loss of its steps so far (NaN while every one was skipped). An epoch of hopqa's 800 demonstrations takes
     * minutes, so `sft` shows its progress from here.
     */
    readonly onEpochStep?: (epoch: number, step: number, steps: number, loss: number) => void;
    /** Once, before this call's first step of an epoch: where the epochs stand (a resumed clone's), as onEpochStep. */
    readonly onEpochsStart?: (epoch: number, step: number, steps: number) => void;
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
    /** Stopped by `shouldStop` before its end: no clone yet, its progress saved in `out` for `resume`. */
    readonly stopped?: boolean;
}
/**
 * The episode's events with each action's allowed ids filled in, as constrained decoding would have
 * recorded them: the legal actions the environment declares for the history before that action. Returns
 * how many actions were not legal (left unconstrained).
 */
export declare const withLegalMasks: (env: EnvDefinition, events: readonly EpisodeEvent[]) => {
    events: ({
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "episode.started";
        readonly env: {
            readonly id: string;
            readonly version: string;
            readonly options?: {
                readonly [x: string]: string;
            } | undefined;
        };
        readonly task: Schema.Json;
        readonly seed: string;
        readonly policy: {
            readonly id: string;
            readonly version: number;
        };
        readonly tokenizer: string;
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "agent.acted";
        readonly turn: number;
        readonly tokens: readonly number[];
        readonly text: string;
        readonly logprobs: readonly number[];
        readonly policy: {
            readonly id: string;
            readonly version: number;
        };
        readonly allowed?: readonly (readonly number[] | null)[] | undefined;
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "tool.called";
        readonly turn: number;
        readonly call: string;
        readonly actor: string;
        readonly tool: string;
        readonly args: Schema.Json;
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "tool.returned";
        readonly call: string;
        readonly result: {
            readonly ok: true;
            readonly content: Schema.Json;
        } | {
            readonly ok: false;
            readonly error: {
                readonly kind: "error" | "invalid-args" | "timeout";
                readonly message: string;
                readonly tag?: string | undefined;
            };
        };
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "env.observed";
        readonly turn: number;
        readonly text: string;
        readonly tokens: readonly number[];
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "reward.assigned";
        readonly kind: "outcome" | "process";
        readonly value: number;
        readonly turn: number;
        readonly reason: string;
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "env.transitioned";
        readonly state: Schema.Json;
        readonly hash: string;
    } | {
        readonly v: 1;
        readonly episode: string;
        readonly seq: number;
        readonly prev: string;
        readonly digest: string;
        readonly meta?: {
            readonly at?: number | undefined;
        } | undefined;
        readonly type: "episode.ended";
        readonly reason: string;
        readonly return: number;
        readonly turns: number;
        readonly metrics: {
            readonly [x: string]: number;
        };
    })[];
    illegal: number;
    firstIllegal?: {
        turn: number;
        text: string;
        legal: readonly string[];
    } | undefined;
};
export declare const loadSequences: (env: EnvDefinition, files: readonly string[], contextLength: number, successfulOnly?: boolean, constrained?: boolean, log?: (line: string) => void) => Promise<Sequence[]>;
/** The sequence up to the end of its n-th action (all of it when it has fewer). */
export declare const firstActions: (sequence: Sequence, n: number) => Sequence;
/**
 * Why a curriculum's stages are out of order, or undefined: it runs from short to long, each stage cutting the
 * episodes after more actions than the one before (a stage repeated, or a shorter one after a longer, is most
 * likely a slip: 2:10,1:10 for 1:10,2:10). What `sft --curriculum` and sft's `curriculum` both refuse.
 */
export declare const curriculumOrderProblem: (stages: readonly {
    readonly actions: number;
    readonly steps: number;
}[]) => string | undefined;
declare const SftProgressFile: Schema.Struct<{
    readonly format: Schema.Literal<"agent-r1/sft-progress">;
    readonly formatVersion: Schema.Literal<1>;
    /** The saved point's checkpoint folder (weights and optimizer state) in SFT_PROGRESS. */
    readonly dir: Schema.String;
    /** Steps taken, curriculum and epochs together. */
    readonly steps: Schema.Int;
    /** The curriculum stage it is in (the number of stages once in the epochs), the steps of it taken and its last loss. */
    readonly stage: Schema.Int;
    readonly stageStep: Schema.Int;
    readonly stageLoss: Schema.NullOr<Schema.Finite>;
    /** The epoch it is in (the epochs done), the next batch's start in that epoch's order, and the order when begun. */
    readonly epoch: Schema.Int;
    readonly batch: Schema.Int;
    readonly order: Schema.NullOr<Schema.$Array<Schema.Int>>;
    /** The epoch's loss so far: the sum of loss x tokens and the tokens. */
    readonly total: Schema.Finite;
    readonly count: Schema.Int;
    readonly tokens: Schema.Int;
    /** The mean loss of each epoch done (null: every step of it was skipped). */
    readonly losses: Schema.$Array<Schema.NullOr<Schema.Finite>>;
    readonly rng: Schema.$Array<Schema.Int>;
    readonly offsetRng: Schema.$Array<Schema.Int>;
    readonly arguments: Schema.Unknown;
    /** The command that resumes it (`agent-r1 sft ... --resume`), when started from the command line. */
    readonly command: Schema.optionalKey<Schema.String>;
}>;
type SftProgress = typeof SftProgressFile.Type;
/**
 * The progress an sft stopped before its end left in `out` (its last saved point, where it was, its
 * arguments), or undefined when there is none. A damaged progress.json is a UsageError naming it.
 */
export declare const sftProgressIn: (out: string) => SftProgress | undefined;
/** `2 of 5 epochs done` (and the curriculum or the epoch's steps begun). */
export declare const describeSftProgress: (progress: SftProgress) => string;
/**
 * The ids that start a turn under turn-local attention: the opening tag of each of the environment's actions
 * (`<answer>` and `<tool>` for each tool), each of which must be one token of its tokenizer.
 */
export declare const turnStartsOf: (env: Pick<EnvDefinition, "id" | "tools">, tokenizer: WordTokenizer) => number[];
/**
 * Behaviour cloning from recorded journals into a checkpoint at `out` (what `agent-r1 sft` runs). Throws a UsageError
 * when `data` holds no usable episodes. It saves its progress in `out/sft-progress` at each epoch's end (and
 * every `checkpointEvery` steps), and when `shouldStop` says so after a step; `resume: true` continues from
 * the last one, to the clone an unbroken run writes, byte for byte.
 */
export declare const sft: (given: SftOptions) => Promise<SftResult>;
/**
 * sft on a seed made from one checked already (a warm start's `SEED:warm-start`): any string, since the suffix may
 * take it past the 100 characters a seed given by a user may have.
 */
export declare const sftDerived: (given: SftOptions) => Promise<SftResult>;
export {};

/*
 * Environments the CLI knows: the built-in ones by id, and any module path a user gives
 * (`--env ./my-env.ts`, whose default export is `defineEnv(...)`). The only place src/ imports actors/.
 */
import type { Json } from "effect/Schema";
import { EnvOptionsRefusedError, UsageError } from "../kernel/errors.ts";
import { type EnvDefinition } from "../runtime/env.ts";
export declare const ENVIRONMENTS: Readonly<Record<string, EnvDefinition<any>>>;
/** A built-in environment by id, with options: `hopqa?split=test&world-seed=7`. */
export declare const envById: (spec: string) => EnvDefinition;
/**
 * Whether two `--env` specs name the same environment: the same options in any order (`sameEnvSpec`), or, for a
 * built-in environment, the same options in effect spelt another way (hopqa's `?world-seed=5` is `?worlds=5-5`,
 * and `?worlds=1-1000` is `hopqa`). A module's spec compares as written: it is not loaded here.
 */
export declare const sameEnvironment: (a: string, b: string) => boolean;
/**
 * A name to import a module's namespace as: its file name without the extension, camel-cased at separators,
 * and a valid identifier (`./helpers.ts` helpers, `./tool-kit.mjs` toolKit, `./2d.ts` _2d, `./class.ts` _class).
 */
export declare const namespaceNameFor: (specifier: string) => string;
/**
 * A built-in environment by id, or the default export (or `env` export) of a module path. What a module exports is
 * known only once it is loaded, so its tasks are typed as JSON; `Task`, the module's own task type, types them as
 * that (`await loadEnv<Task>("./my-env.ts")`, with `import type { Task } from "./my-env.ts"`), unchecked, as a cast is.
 */
export declare const loadEnv: <Task extends Json = Json>(spec: string) => Promise<EnvDefinition<Task>>;
/**
 * The variant of built-in environment `id` whose tokenizer is `tokenizerId` and not the default's (`wording=possessive`
 * of hopqa, and the environment it configures); undefined when the default has that tokenizer or no variant does.
 */
export declare const tokenizerVariantOf: (id: string, tokenizerId: string) => {
    readonly query: string;
    readonly env: EnvDefinition;
} | undefined;
/**
 * What to pass when a checkpoint's tokenizer (`found`; `what` names it) is not environment `env`'s (given as `spec`, `--env`'s text)
 * but another variant's of the same built-in environment (hopqa's wordings): `this checkpoint's tokenizer is hopqa's
 * wording=possessive one: pass --env 'hopqa?wording=possessive'`, keeping the spec's other options. Undefined when
 * the environment is not built in, or no variant of it has that tokenizer.
 */
export declare const tokenizerVariantFix: (spec: string, env: EnvDefinition, found: string, what?: string) => string | undefined;
/**
 * Resolves environments by the id, tokenizer id and options recorded in a journal, preferring a user-given
 * module. A journal that records options is of the variant they configure (recordedVariant). One that records
 * none (the environment as defined, or a journal of an older version, which recorded no options): a
 * built-in environment recorded under a variant with its own tokenizer (`hopqa?wording=possessive`) is that
 * variant, unless `extra` is the environment with that tokenizer (and an `extra` of another variant gives way to
 * the default built-in one, when that has the journal's tokenizer). An unknown id is a UsageError whose text
 * depends only on the id and `extra`, so a folder of such journals can say it once; `how` words it for the caller
 * (the CLI's `--env`, by default; verifyJournals' argument from code).
 */
export declare const envResolver: (extra?: EnvDefinition, givenSpec?: string, how?: UnknownEnvWords) => (id: string, tokenizerId?: string, options?: Readonly<Record<string, string>>) => EnvDefinition;
/** How an unknown environment's refusal names the environment given and says how to give the right one. */
export interface UnknownEnvWords {
    /** Names the environment given, before its id. */
    readonly given: string;
    /** What to do, after "to verify its journals, ". */
    readonly give: string;
}
/** Whether an `--env` text gives options (`hopqa?legal=types`, even the default ones), not the environment alone. */
export declare const givesOptions: (spec: string) => boolean;
/**
 * `--env` (`given`, typed as `spec`) with options of its own, over journals recorded on other options of the
 * same environment: the first such journal of `files` (read by its first line) refused, naming both.
 */
export declare const refuseOtherOptions: (files: readonly string[], given: EnvDefinition, spec: string) => void;
/**
 * Journals recorded on other options than `env`'s (`--env`): `WHAT recorded on hopqa?legal=relations, not on
 * --env 'hopqa?legal=types': pass --env 'hopqa?legal=relations' (or leave --env out)`. A module's spec keeps its path.
 */
export declare const refusedOptions: (id: string, spec: string, recorded: Readonly<Record<string, string>> | undefined, what: string) => EnvOptionsRefusedError;
/**
 * The environment a run was trained on, for a path in its run folder (`train --out`): the run folder, its
 * checkpoints/ or one checkpoint in it. The nearest config.json that names an `env` (a checkpoint's own
 * config.json holds the model's shape, not an environment).
 */
/** The folder a train run was started in (its origin.json: runs of older versions have none). */
export declare const runStartedIn: (runDir: string) => string | undefined;
/**
 * A relative path of a run's config.json as the folder train was started in meant it: from another folder,
 * the path there (absolute) when it exists there. `runs/warm` found from another folder would be another
 * checkpoint of that name (a KL reference silently swapped). Not there (the project moved): as written,
 * from here, and `note` says so when something of that name is here. A run without origin.json (made before
 * it was recorded): as written, from here, and `note` says so, naming the path taken.
 */
export declare const fromStartFolder: (runDir: string, path: string, note?: (line: string) => void) => string;
/** The module path of an `--env` spec (without `?options`, and without a trailing slash, which Node ignores). */
export declare const modulePathOf: (spec: string) => string;
/** A run's `env` (a module path, with its ?options) as meant from the folder train was started in. */
export declare const runEnvSpec: (runDir: string, spec: string, note?: (line: string) => void) => string;
/**
 * The environment of the run a checkpoint, run folder or journal belongs to: the `env` of the first config.json
 * found in it or up to three folders above (the deepest train writes: a journal RUN/episodes/uNNNNN/x.jsonl or
 * RUN/warm-start/demos/x.jsonl, a checkpoint's file RUN/checkpoints/vNNNNN/weights.bin), as meant from the
 * folder train was started in. A damaged config.json of a run folder (one with checkpoints/ or metrics.jsonl: not JSON, not an object,
 * an `env` that is no text) is a UsageError naming it; one without `env` is another program's, and skipped.
 */
export declare const runConfigEnv: (path: string) => {
    readonly file: string;
    readonly env: string;
    readonly constrained?: boolean;
} | undefined;
/** An environment module named by a path relative to another working folder, which is not found from this one. */
export declare const lostRelativeModule: (spec: string) => boolean;
/** A run's config.json names `what` by a path relative to the folder train ran in, and it is not found from here. */
export declare const notFoundFromHere: (file: string, what: string, remedy: string) => UsageError;
/**
 * The environment module a train run was trained on, when `path` is the run or lies in it (its config.json names
 * the module), loaded: `{ env }`; undefined for a built-in environment or no run. A module that is not found from
 * here (train ran in another folder) or does not load is `{ problem, lost }`, a UsageError ending in `remedy` (the
 * CLI's "pass --env", verifyJournals' own words). `inspect`, `replay --verify` and verifyJournals find a run's
 * environment so.
 */
export declare const runModuleEnv: (path: string, remedy: string) => Promise<{
    readonly env: EnvDefinition;
} | {
    readonly problem: UsageError;
    readonly lost: boolean;
} | undefined>;
/**
 * The environment a checkpoint outside a run was made under: a clone's sft.json `env` (the --env of `agent-r1
 * sft`), else an average's average.json `env` (that of the checkpoints averaged); module paths are written
 * absolute. Undefined for a checkpoint with neither (a run's, a clone of a version before sft.json, an average
 * of checkpoints of different or unknown environments). One that cannot be read, is not JSON, or names no
 * environment (edited by hand) is a UsageError naming it.
 */
export declare const checkpointOriginEnv: (checkpoint: string) => {
    readonly file: string;
    readonly env: string;
    readonly whose: "clone" | "average";
} | undefined;
/**
 * The built-in environment whose tokenizer a checkpoint carries (its tokenizer.json's id), for a checkpoint
 * outside a run folder (a shipped one) evaluated without --env: its id, or a variant's spec when only a variant
 * has that tokenizer (`hopqa?wording=possessive`). Undefined when none or several match.
 */
export declare const builtinEnvOfCheckpoint: (checkpoint: string) => string | undefined;

/*
 * Variants of an environment: `configureEnv` applies `?key=value` options through its `configure`, and the
 * comparisons say when two specs, or a journal's recorded options, are the same variant (the same options in
 * effect, however spelt: hopqa's `?world-seed=5` is `?worlds=5-5`). Here, not in the CLI's registry, so that the
 * learner (`train()` from code, whose resume compares env specs) and the CLI compare alike without importing each
 * other.
 */
import { type EnvDefinition } from "./env.ts";
/**
 * Applies `key=value&key=value` options through the environment's `configure`. A key outside the environment's
 * `optionKeys`, when it declares them, is refused before configure runs. Else `refuseIgnored` (a module's
 * own configure, which may pass over a key it does not know): refuses a key that changed none of the options
 * in effect and is none of them (configure is asked again, readsKey). Built-in environments refuse unknown keys themselves, and may take a key
 * that names none of their options (hopqa's `world-seed` sets `worlds`), which given again changes nothing.
 * `given`: the options as the user gave them, for a configure's refusal (eval's `--split test`; default `"?query"`).
 */
export declare const configureEnv: (env: EnvDefinition, query: string, refuseIgnored?: boolean, given?: string) => EnvDefinition;
/** `root` configured with the options a journal records (configured once per root and options). */
export declare const variantFromJournal: (root: EnvDefinition, options: Readonly<Record<string, string>>) => EnvDefinition;
/**
 * Whether two environments of one id are the same variant: their options in effect, or where either says none,
 * the options their journals record.
 */
export declare const sameVariant: (a: EnvDefinition, b: EnvDefinition) => boolean;
/**
 * Whether journals that record `recorded` (their episode.started's env.options) are episodes of `env`, a variant
 * of their environment: the options in effect compared, so that another spelling of the same options is the same
 * variant (hopqa's `world-seed=5` is `worlds=5-5`; `world-seed=1-1000`, its default worlds, is no option). Options
 * its environment no longer takes compare as recorded.
 */
export declare const recordsVariant: (env: EnvDefinition, recorded: Readonly<Record<string, string>>) => boolean;
/**
 * Whether two env specs name the same variant of `root` (an environment as defined, unconfigured): the same options
 * in any order (`sameEnvSpec`), or, when both name `root`'s id, the same options in effect spelt another way
 * (hopqa's `?world-seed=5` is `?worlds=5-5`, and `?worlds=1-1000` is `hopqa`). Options either spec's configure
 * refuses are not the same as any that loads.
 */
export declare const sameVariantSpec: (root: EnvDefinition, a: string, b: string) => boolean;

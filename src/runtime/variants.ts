/**
 * Variants of an environment: `configureEnv` applies `?key=value` options through its `configure`, and the
 * comparisons say when two specs, or a journal's recorded options, are the same variant (the same options in
 * effect, however spelt: hopqa's `?world-seed=5` is `?worlds=5-5`). Here, not in the CLI's registry, so that the
 * learner (`train()` from code, whose resume compares env specs) and the CLI compare alike without importing each
 * other.
 */
import { canonicalJson } from "../kernel/canonical.ts";
import { firstUnknownKey, messageOf, RecordedOptionsRefusedError, UsageError } from "../kernel/errors.ts";
import {
  type EnvDefinition,
  envSpecOf,
  inEffect,
  optionsQuery,
  optionsToRecord,
  recordedOptionsOf,
  rememberConfigured,
  remembersVariantsOf,
  sameEnvSpec,
  unconfiguredOf,
} from "./env.ts";

/**
 * configureEnv's refusal: its message names the environment and the options (`environment hopqa refused the options
 * "?top-k=x": top-k must be ...`); `reason` is why alone (`top-k must be ...`), for a sentence that names them itself.
 */
class ConfigureRefusal extends UsageError {
  readonly reason: string;
  constructor(detail: string, reason: string) {
    super({ detail });
    this.reason = reason;
  }
}

/**
 * Applies `key=value&key=value` options through the environment's `configure`. A key outside the environment's
 * `optionKeys`, when it declares them, is refused before configure runs. Else `refuseIgnored` (a module's
 * own configure, which may pass over a key it does not know): refuses a key that changed none of the options
 * in effect and is none of them (configure is asked again, readsKey). Built-in environments refuse unknown keys themselves, and may take a key
 * that names none of their options (hopqa's `world-seed` sets `worlds`), which given again changes nothing.
 * `given`: the options as the user gave them, for a configure's refusal (eval's `--split test`; default `"?query"`).
 */
export const configureEnv = (
  env: EnvDefinition,
  query: string,
  refuseIgnored = false,
  given = `the options "?${query}"`,
): EnvDefinition => {
  // A key without "=" (`?bonus`) read as the empty string: an option the user meant to switch on was set to "".
  const bare = query.split("&").find((part) => part !== "" && !part.includes("="));
  if (bare !== undefined)
    throw new ConfigureRefusal(
      `environment option "${bare}" in "?${query}" has no value; write ${bare}=VALUE (${bare}= for an empty one)`,
      `option "${bare}" has no value; write ${bare}=VALUE`,
    );
  const params = new URLSearchParams(query);
  const twice = [...new Set([...params.keys()].filter((key) => params.getAll(key).length > 1))];
  if (twice.length > 0) {
    const keys = twice.map((k) => `"${k}"`).join(", ");
    throw new ConfigureRefusal(
      `environment option ${keys} given more than once in "?${query}"; give each once`,
      `environment option ${keys} given more than once; give each once`,
    );
  }
  const options = Object.fromEntries(params);
  if (Object.keys(options).length === 0) return env;
  if (!env.configure)
    throw new ConfigureRefusal(`environment ${env.id} takes no options, got "?${query}"`, "it takes no options");
  // Keys declared (optionKeys): any other is refused here, and configure runs once.
  const declared = env.optionKeys;
  const undeclared = declared === undefined ? undefined : firstUnknownKey(options, declared);
  if (undeclared) {
    const why = `${undeclared.meant ? ` (did you mean "${undeclared.meant}"?)` : ""}; ${declared!.length > 0 ? `its options: ${declared!.join(", ")}` : "it declares no option (optionKeys: [])"}`;
    throw new ConfigureRefusal(
      `environment ${env.id}: unknown option "${undeclared.key}" in "?${query}"${why}`,
      `unknown option "${undeclared.key}"${why}`,
    );
  }
  let variant: EnvDefinition;
  try {
    variant = env.configure(options);
  } catch (cause) {
    // A module's own configure says what it refused in its own words ("must be in [0, 1], got abc"): say whose
    // configure, and which options, once (built-in ones name themselves already: "hopqa: split must be ...").
    const said = messageOf(cause);
    const reason = said.startsWith(`${env.id}: `) ? said.slice(env.id.length + 2) : said;
    throw new ConfigureRefusal(`environment ${env.id} refused ${given}: ${reason}`, reason);
  }
  // A configure of one's own may pass over a key it does not know (`?too=kg`): the variant is then the
  // environment itself, under options the user never chose. Caught where it says its options in effect and
  // they did not change: a given key that is none of them changed nothing, so it is no option at all.
  if (
    refuseIgnored &&
    declared === undefined &&
    variant.options !== undefined &&
    canonicalJson(variant.options) === canonicalJson(env.options ?? {})
  ) {
    const known = Object.keys(variant.options);
    const unknown = firstUnknownKey(options, known);
    if (unknown && !readsKey(env, options, unknown.key, variant.options)) {
      const why = `changed nothing${unknown.meant ? ` (did you mean "${unknown.meant}"?)` : ""}: its configure ignored it, and the options in effect are still ${JSON.stringify(variant.options)}; its options: ${known.join(", ")}`;
      throw new ConfigureRefusal(
        `environment ${env.id}: option "${unknown.key}" in "?${query}" ${why}`,
        `option "${unknown.key}" ${why}`,
      );
    }
  }
  // A configure that gave the environment itself back: nothing configured, nothing to record. One that
  // defineEnv made remember its variants (remembersVariants) remembered this one already, by the same rule.
  if (variant === env || remembersVariantsOf(env)) return variant;
  return rememberConfigured(variant, unconfiguredOf(env), optionsToRecord(env, variant, options));
};

/** Variants rebuilt from journals' options, by unconfigured environment and options query (configured once each). */
const rebuiltVariants = new WeakMap<EnvDefinition, Map<string, EnvDefinition>>();

/** `root` configured with the options a journal records (configured once per root and options). */
export const variantFromJournal = (root: EnvDefinition, options: Readonly<Record<string, string>>): EnvDefinition => {
  const query = optionsQuery(options);
  let known = rebuiltVariants.get(root);
  if (!known) {
    known = new Map();
    rebuiltVariants.set(root, known);
  }
  let variant = known.get(query);
  if (!variant) {
    try {
      variant = configureEnv(root, query);
    } catch (cause) {
      // configureEnv names the environment and the options, which the sentence names already: only its reason.
      const reason = cause instanceof ConfigureRefusal ? cause.reason : messageOf(cause);
      throw new RecordedOptionsRefusedError({
        detail: `the journal was recorded on ${envSpecOf(root.id, options)} (its episode.started's env.options), which this ${root.id} does not take: ${reason}`,
      });
    }
    known.set(query, variant);
  }
  return variant;
};

/**
 * Whether two environments of one id are the same variant: their options in effect, or where either says none,
 * the options their journals record.
 */
export const sameVariant = (a: EnvDefinition, b: EnvDefinition): boolean => {
  const [x, y] = [inEffect(a), inEffect(b)];
  return x !== undefined && y !== undefined
    ? canonicalJson(x) === canonicalJson(y)
    : canonicalJson(recordedOptionsOf(a) ?? {}) === canonicalJson(recordedOptionsOf(b) ?? {});
};

/**
 * Whether journals that record `recorded` (their episode.started's env.options) are episodes of `env`, a variant
 * of their environment: the options in effect compared, so that another spelling of the same options is the same
 * variant (hopqa's `world-seed=5` is `worlds=5-5`; `world-seed=1-1000`, its default worlds, is no option). Options
 * its environment no longer takes compare as recorded.
 */
export const recordsVariant = (env: EnvDefinition, recorded: Readonly<Record<string, string>>): boolean => {
  try {
    return sameVariant(env, variantFromJournal(unconfiguredOf(env), recorded));
  } catch {
    return canonicalJson(recorded) === canonicalJson(recordedOptionsOf(env) ?? {});
  }
};

/**
 * Whether `configure` reads `key`, which names none of the options in effect and changed none of them: an alias
 * given at the value in effect (`?world-seed=1-1000`, hopqa's worlds, when a module re-exports it) changes
 * nothing either. Asked with the key's value changed to one no option takes: a configure that reads the key
 * refuses it or says other options; one that passes over it says the same options again.
 */
const readsKey = (
  env: EnvDefinition,
  options: Readonly<Record<string, string>>,
  key: string,
  inEffect: Readonly<Record<string, unknown>>,
): boolean => {
  try {
    const probed = env.configure?.({ ...options, [key]: "\u0000agent-r1: not a value" });
    return probed?.options === undefined || canonicalJson(probed.options) !== canonicalJson(inEffect);
  } catch {
    return true;
  }
};

/**
 * Whether two env specs name the same variant of `root` (an environment as defined, unconfigured): the same options
 * in any order (`sameEnvSpec`), or, when both name `root`'s id, the same options in effect spelt another way
 * (hopqa's `?world-seed=5` is `?worlds=5-5`, and `?worlds=1-1000` is `hopqa`). Options either spec's configure
 * refuses are not the same as any that loads.
 */
export const sameVariantSpec = (root: EnvDefinition, a: string, b: string): boolean => {
  if (sameEnvSpec(a, b)) return true;
  const [idA, idB] = [a.split("?")[0], b.split("?")[0]];
  if (idA !== root.id || idB !== root.id) return false;
  const variant = (spec: string) => (spec.includes("?") ? configureEnv(root, spec.slice(spec.indexOf("?") + 1)) : root);
  try {
    return sameVariant(variant(a), variant(b));
  } catch {
    return false;
  }
};

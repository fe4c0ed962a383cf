/**
 * Environments the CLI knows: the built-in ones by id, and any module path a user gives
 * (`--env ./my-env.ts`, whose default export is `defineEnv(...)`). The only place src/ imports actors/.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Json } from "effect/Schema";
import { DEFAULT_WORDING, hopqa, WORDINGS } from "../../actors/hopqa/index.ts";
import { lookup } from "../../actors/lookup/index.ts";
import { warehouse } from "../../actors/warehouse/index.ts";
import { recordedEnvOf } from "../journal/jsonl.ts";
import { jsonSyntaxError, readJsonText } from "../kernel/canonical.ts";
import {
  closestName,
  didYouMean as didYouMeanName,
  EnvOptionsRefusedError,
  isFrameworkFile,
  isOwnFrame,
  messageOf,
  moduleLoadFailure,
  shownPath,
  shownValue,
  stackFrames,
  UsageError,
} from "../kernel/errors.ts";
import { ORIGIN_FILE } from "../learn/trainer.ts";
import { AVERAGE_FILE, SFT_FILE, savedTokenizerId } from "../policy/checkpoint.ts";
import {
  checkDefinitionOnce,
  type EnvDefinition,
  envSpecOf,
  isModulePath,
  rememberBuiltIn,
  rememberModuleSpec,
  sameEnvSpec,
  unconfiguredOf,
} from "../runtime/env.ts";
import { configureEnv, sameVariant, sameVariantSpec, variantFromJournal } from "../runtime/variants.ts";

// biome-ignore lint/suspicious/noExplicitAny: environments have their own task types
export const ENVIRONMENTS: Readonly<Record<string, EnvDefinition<any>>> = { lookup, hopqa, warehouse };
for (const env of Object.values(ENVIRONMENTS)) rememberBuiltIn(env);

const isEnvDefinition = (value: unknown): value is EnvDefinition => {
  const env = value as Partial<EnvDefinition> | undefined;
  return (
    typeof env?.id === "string" &&
    typeof env.version === "string" &&
    typeof env.task === "function" &&
    typeof env.machine === "object" &&
    typeof env.tools === "object" &&
    typeof env.tokenizer?.encode === "function"
  );
};

/** A built-in environment by id, with options: `hopqa?split=test&world-seed=7`. */
export const envById = (spec: string): EnvDefinition => {
  const [id, query] = spec.split("?", 2);
  const env = Object.hasOwn(ENVIRONMENTS, id) ? ENVIRONMENTS[id] : undefined;
  if (!env)
    throw new UsageError({
      detail: `unknown environment "${id}"${didYouMeanName(closestName(id, Object.keys(ENVIRONMENTS)))}; known: ${Object.keys(ENVIRONMENTS).join(", ")} (or give a module path, e.g. --env ./my-env.ts)`,
    });
  // A variant is built in through what it was configured from (isBuiltInEnv), as configureEnv remembers it.
  return query === undefined ? env : configureEnv(env, query);
};

/**
 * Whether two `--env` specs name the same environment: the same options in any order (`sameEnvSpec`), or, for a
 * built-in environment, the same options in effect spelt another way (hopqa's `?world-seed=5` is `?worlds=5-5`,
 * and `?worlds=1-1000` is `hopqa`). A module's spec compares as written: it is not loaded here.
 */
export const sameEnvironment = (a: string, b: string): boolean => {
  const id = a.split("?")[0];
  return sameEnvSpec(a, b) || (Object.hasOwn(ENVIRONMENTS, id) && sameVariantSpec(ENVIRONMENTS[id], a, b));
};

/** What a module path without its extension (or a folder) may have meant. */
const MODULE_ENDINGS = [".ts", ".js", ".mts", ".mjs", "/index.ts", "/index.js"];

/**
 * A module in the path's folder whose name, its ending aside, is the misspelt one's (`./envs/travle.ts` or
 * `envs/trvel` for `travel.ts`), written with the path's own folder part, or undefined.
 */
const misspeltSibling = (path: string): string | undefined => {
  const name = basename(path);
  if (name === "" || name === "." || name === "..") return undefined;
  const stem = (file: string) => file.replace(/\.(?:[mc]?ts|[mc]?js)$/, "");
  let files: string[];
  try {
    files = readdirSync(dirname(resolve(path))).filter((n) => /\.(?:[mc]?ts|[mc]?js)$/.test(n) && !n.endsWith(".d.ts"));
  } catch {
    return undefined; // no such folder, or one that cannot be read
  }
  const meant = closestName(stem(name), files.map(stem));
  const file = meant === undefined ? undefined : files.find((f) => stem(f) === meant);
  return file === undefined || file === name ? undefined : path.slice(0, path.length - name.length) + file;
};

/**
 * `; did you mean ./my-env.ts?` when `path` plus a module ending names a file (or, with `siblings`, a module
 * beside it has the name it misspells), else "".
 */
const didYouMean = (path: string, query: string | undefined, siblings = true): string => {
  // Backslashes are not separators here (a Windows habit): try the path with slashes too.
  const slashed = sep === "/" && path.includes("\\") ? path.replaceAll("\\", "/") : undefined;
  const found = [...(slashed === undefined ? [] : [slashed]), path]
    .flatMap((base) => ["", ...MODULE_ENDINGS].map((ending) => base.replace(/[/\\]+$/, "") + ending))
    .filter((guess) => guess !== path)
    .find((guess) => {
      const file = resolve(guess);
      return existsSync(file) && statSync(file).isFile();
    });
  const meant = found ?? (siblings ? misspeltSibling(path) : undefined);
  if (meant !== undefined) return `; did you mean ${meant}${query === undefined ? "" : `?${query}`}?`;
  if (path.startsWith("~/"))
    return "; ~ is the shell's, and it does not expand a quoted one: write $HOME/ or the full path";
  if (slashed !== undefined) return "; backslashes are not path separators here: write the path with /";
  if (/^file:/.test(path)) return "; give a file path, not a file: URL";
  return "";
};

/** This module: the importer, whose frame is in every import error's stack. */
const IMPORTER = fileURLToPath(import.meta.url);

/**
 * Where an error raised while importing `file` was thrown: the first stack frame outside Node,
 * node_modules and this importer, and, when that is in another file, the first frame in `file` too (the
 * user's line that led there: a helper's call, or `defineEnv`).
 */
const thrownAt = (cause: unknown, file: string): string | undefined => {
  const frames = stackFrames(cause).map((f) => ({ file: f.file, place: `${shownPath(f.file)}:${f.line}:${f.column}` }));
  const thrown = frames.find((f) => isOwnFrame(f.file) && f.file !== IMPORTER);
  const mine = frames.find((f) => f.file === file);
  // An error with no frame in the module (a missing export, found when Node links the imports) was not
  // thrown by the framework's CLI that started the import: show no place rather than that one.
  if (!mine && thrown && isFrameworkFile(thrown.file)) return undefined;
  if (!thrown || !mine || thrown === mine) return (thrown ?? mine)?.place;
  return `${thrown.place}, from ${mine.place}`;
};

/**
 * Node loads a `.ts` file as CommonJS unless the nearest package.json says `"type": "module"`, and an
 * environment module written with `import` then fails in ways that do not say so (a require() of ESM, an
 * unexpected token, a package without a CommonJS export): name the fix.
 */
const commonJsHint = (file: string, reason: string): string => {
  if (!file.endsWith(".ts") || !/require\(\)|ES Module|import statement|Unexpected token|"exports"/.test(reason))
    return "";
  // The nearest package.json decides, even one without "type" under a project whose own says "module"; for
  // a symbolic link, the one nearest to the file it points to (Node loads the real path).
  let nearest: string | undefined;
  for (let dir = dirname(realOrSame(file)); ; dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, "utf8")) as { type?: unknown }).type === "module") return "";
      } catch {}
      nearest = manifest;
      break;
    }
    if (dirname(dir) === dir) break;
  }
  return (
    `; note: ${shownPath(file)} is loaded as CommonJS: ${nearest ? `the package.json nearest to it, ${shownPath(nearest)}, does not say "type": "module" (the nearest one decides)` : 'no package.json above it says "type": "module"'}; ` +
    `rename it to .mts, or ${nearest ? `add "type": "module" to ${shownPath(nearest)}` : 'add a package.json with {"type": "module"} to its folder'}`
  );
};

const RESERVED = new Set(
  "await break case catch class const continue debugger default delete do else enum export extends false finally for function if implements import in instanceof interface let new null package private protected public return static super switch this throw true try typeof var void while with yield".split(
    " ",
  ),
);

/**
 * A name to import a module's namespace as: its file name without the extension, camel-cased at separators,
 * and a valid identifier (`./helpers.ts` helpers, `./tool-kit.mjs` toolKit, `./2d.ts` _2d, `./class.ts` _class).
 */
export const namespaceNameFor = (specifier: string): string => {
  const stem = (specifier.split("/").at(-1) ?? "").replace(/\.[cm]?[jt]sx?$/, "");
  const words = stem.split(/[^A-Za-z0-9_$]+/).filter(Boolean);
  const name = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
  if (!name) return "m";
  return /^\d/.test(name) || RESERVED.has(name) ? `_${name}` : name;
};

/**
 * A module imported as a default (`import r1 from "agent-r1-ts"`) that has named exports only: Node's message
 * says what is missing, not what to write.
 */
const defaultImportHint = (reason: string): string => {
  const named = /The requested module '([^']+)' does not provide an export named 'default'/.exec(reason)?.[1];
  if (named === undefined) return "";
  const as = named.startsWith("agent-r1-ts") ? "r1" : namespaceNameFor(named);
  return `; note: ${named} has named exports only: import them all, import * as ${as} from "${named}", or by name, import { ... } from "${named}"`;
};

/**
 * A package the module imports that Node cannot find from the module's folder (a module kept outside the project
 * that has its imports installed): Node names the package, not where it looked, which is not the working folder.
 */
const missingPackageHint = (file: string, reason: string): string => {
  const named = /Cannot find package '([^']+)' imported from /.exec(reason)?.[1];
  if (named === undefined) return "";
  return `; note: a module's packages are looked for in the node_modules of its own folder and the folders above it, not of the folder the command runs in: keep ${shownPath(file)} inside a project that has ${named} installed (README: "From your own project")`;
};

const realOrSame = (file: string): string => {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
};

/**
 * A built-in environment by id, or the default export (or `env` export) of a module path. What a module exports is
 * known only once it is loaded, so its tasks are typed as JSON; `Task`, the module's own task type, types them as
 * that (`await loadEnv<Task>("./my-env.ts")`, with `import type { Task } from "./my-env.ts"`), unchecked, as a cast is.
 */
export const loadEnv = <Task extends Json = Json>(spec: string): Promise<EnvDefinition<Task>> =>
  loadAnyEnv(spec) as Promise<EnvDefinition<Task>>;

/** loadEnv, of JSON tasks. */
const loadAnyEnv = async (spec: string): Promise<EnvDefinition> => {
  const [path, query] = spec.split("?", 2);
  if (!isModulePath(path)) {
    const guess = Object.hasOwn(ENVIRONMENTS, path) ? "" : didYouMean(`./${path}`, query, false);
    if (guess) throw new UsageError({ detail: `unknown environment "${path}"${guess}` });
    return envById(spec);
  }
  const file = resolve(path);
  if (!existsSync(file))
    throw new UsageError({ detail: `environment module not found: ${file}${didYouMean(path, query)}` });
  if (statSync(file).isDirectory())
    throw new UsageError({ detail: `environment module ${file} is a folder, not a module${didYouMean(path, query)}` });
  let module: { default?: unknown; env?: unknown };
  // A library's error thrown while the module builds its machine (XState's, for a transition to a state
  // that does not exist) is 10 frames deep in the library before the module's own line: keep more frames.
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = Math.max(stackLimit, 64);
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown; env?: unknown };
  } catch (cause) {
    const reason = moduleLoadFailure(cause);
    const at = thrownAt(cause, file);
    throw new UsageError({
      detail: `cannot load environment module ${path}: ${reason}${at ? ` (thrown at ${at})` : ""}${commonJsHint(file, reason)}${defaultImportHint(reason)}${missingPackageHint(file, reason)}`,
    });
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
  const env = module.default ?? module.env;
  if (!isEnvDefinition(env)) {
    // An environment under another name (`export const shop = defineEnv(...)`): say where it is.
    const named = Object.entries(module)
      .filter(([name, value]) => name !== "default" && isEnvDefinition(value))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    // A default export that is something else hides an environment exported as `env`.
    if (module.default !== undefined && named.length > 0)
      throw new UsageError({
        detail: `${path}: its default export is not an environment (${module.default === null ? "null" : typeof module.default}), and the CLI takes the default export before one named \`env\`: make the default export the environment (\`export default ${named[0][0]};\`)`,
      });
    if (named.length > 0)
      throw new UsageError({
        detail: `${path} exports ${named.length === 1 ? "an environment" : "environments"} under ${named.map(([name]) => `\`${name}\``).join(", ")}, but the CLI takes the default export (or one named \`env\`): add \`export default ${named[0][0]};\``,
      });
    throw new UsageError({
      detail: `${path} does not export an environment: make its default export \`defineEnv({ id, version, machine, tools, tokenizer, task })\``,
    });
  }
  // An environment not made by defineEnv (a copy, `{ ...env, maxTurns: 0 }`) is checked as defineEnv checks one,
  // and so is the variant its configure gives: every command that loads one gets it checked here, once.
  const accepted = (checked: EnvDefinition, whose: string): EnvDefinition => {
    try {
      checkDefinitionOnce(checked);
    } catch (cause) {
      throw new UsageError({ detail: `${path}: ${whose} is not one defineEnv would accept: ${messageOf(cause)}` });
    }
    return checked;
  };
  accepted(env, "its environment");
  const loaded = query === undefined ? env : accepted(configureEnv(env, query, true), `the variant "?${query}"`);
  // A train config made from this environment (trainConfigFor) names the module, so the CLI can resume it.
  return rememberModuleSpec(loaded, spec);
};

/**
 * Options of built-in environments whose variants have a tokenizer of their own (hopqa's wordings): a checkpoint
 * carries its tokenizer, not the options it was made under, and a journal of an older version (before journals
 * recorded their options) names its environment's id and tokenizer id only, so the variant is found by its tokenizer.
 */
const TOKENIZER_VARIANTS: Readonly<Record<string, readonly string[]>> = {
  hopqa: WORDINGS.filter((wording) => wording !== DEFAULT_WORDING).map((wording) => `wording=${wording}`),
};

/** The variants of TOKENIZER_VARIANTS by environment id and tokenizer id (built once each). */
const tokenizerVariants = new Map<string, { readonly query: string; readonly env: EnvDefinition } | null>();

/**
 * The variant of built-in environment `id` whose tokenizer is `tokenizerId` and not the default's (`wording=possessive`
 * of hopqa, and the environment it configures); undefined when the default has that tokenizer or no variant does.
 */
export const tokenizerVariantOf = (
  id: string,
  tokenizerId: string,
): { readonly query: string; readonly env: EnvDefinition } | undefined => {
  if (!Object.hasOwn(ENVIRONMENTS, id) || ENVIRONMENTS[id].tokenizer.id === tokenizerId) return undefined;
  const key = `${id}\u0000${tokenizerId}`;
  if (!tokenizerVariants.has(key)) {
    let found: { readonly query: string; readonly env: EnvDefinition } | null = null;
    for (const query of TOKENIZER_VARIANTS[id] ?? []) {
      const env = envById(`${id}?${query}`);
      if (env.tokenizer.id === tokenizerId) {
        found = { query, env };
        break;
      }
    }
    tokenizerVariants.set(key, found);
  }
  return tokenizerVariants.get(key) ?? undefined;
};

/**
 * What to pass when a checkpoint's tokenizer (`found`; `what` names it) is not environment `env`'s (given as `spec`, `--env`'s text)
 * but another variant's of the same built-in environment (hopqa's wordings): `this checkpoint's tokenizer is hopqa's
 * wording=possessive one: pass --env 'hopqa?wording=possessive'`, keeping the spec's other options. Undefined when
 * the environment is not built in, or no variant of it has that tokenizer.
 */
export const tokenizerVariantFix = (
  spec: string,
  env: EnvDefinition,
  found: string,
  what = "this checkpoint's tokenizer",
): string | undefined => {
  const [id, query] = spec.split("?", 2);
  if (id !== env.id || !Object.hasOwn(ENVIRONMENTS, id) || found === env.tokenizer.id) return undefined;
  const params = new URLSearchParams(query);
  const keys = new Set((TOKENIZER_VARIANTS[id] ?? []).flatMap((option) => [...new URLSearchParams(option).keys()]));
  for (const key of keys) params.delete(key);
  let whose: string;
  if (ENVIRONMENTS[id].tokenizer.id === found) whose = `${id}'s default one`;
  else {
    const variant = tokenizerVariantOf(id, found);
    if (variant === undefined) return undefined;
    for (const [key, value] of new URLSearchParams(variant.query)) params.set(key, value);
    whose = `${id}'s ${variant.query} one`;
  }
  // Unescaped: the options are words, and the command line reads them back as written.
  const options = [...params].map(([key, value]) => `${key}=${value}`).join("&");
  const fixed = options === "" ? id : `${id}?${options}`;
  return `${what} is ${whose}: pass --env '${fixed}'`;
};

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
export const envResolver =
  (extra?: EnvDefinition, givenSpec?: string, how: UnknownEnvWords = CLI_ENV_WORDS) =>
  (id: string, tokenizerId?: string, options?: Readonly<Record<string, string>>): EnvDefinition => {
    if (options !== undefined) return recordedVariant(id, options, extra, givenSpec, how);
    if (extra && extra.id === id && (tokenizerId === undefined || extra.tokenizer.id === tokenizerId)) return extra;
    const builtIn = id.split("?")[0];
    // --env of another variant (a run folder's possessive config.json, its demos of the default wording): the
    // built-in environment whose tokenizer the journal was recorded with.
    if (
      extra &&
      tokenizerId !== undefined &&
      Object.hasOwn(ENVIRONMENTS, builtIn) &&
      ENVIRONMENTS[builtIn].tokenizer.id === tokenizerId
    )
      return envById(builtIn);
    const variant = tokenizerId === undefined ? undefined : tokenizerVariantOf(builtIn, tokenizerId);
    if (variant) return variant.env;
    if (extra && extra.id === id) return extra;
    if (Object.hasOwn(ENVIRONMENTS, builtIn)) return envById(builtIn);
    throw unknownEnv(id, extra, how);
  };

/** How an unknown environment's refusal names the environment given and says how to give the right one. */
export interface UnknownEnvWords {
  /** Names the environment given, before its id. */
  readonly given: string;
  /** What to do, after "to verify its journals, ". */
  readonly give: string;
}

const CLI_ENV_WORDS: UnknownEnvWords = {
  given: "--env defines",
  give: "pass the module that defines it: --env ./path/to/env.ts",
};

/** An environment id neither built in nor `extra`'s: the text depends only on the id, `extra` and `how`. */
const unknownEnv = (id: string, extra: EnvDefinition | undefined, how: UnknownEnvWords): UsageError => {
  const defined = extra ? `, and ${how.given} ${JSON.stringify(extra.id)}` : "";
  return new UsageError({
    detail:
      `environment ${JSON.stringify(id)} is not built in (built in: ${Object.keys(ENVIRONMENTS).join(", ")})${defined}; ` +
      `to verify its journals, ${how.give}`,
  });
};

/**
 * The variant a journal that records its options was recorded on: the environment of its id (`extra`'s, else
 * the built-in one) configured with them. `extra` itself when it is that variant. `givenSpec`: `extra` is
 * `--env`, typed so; when it gives options, another variant is refused, naming both (an `--env` without options
 * only names the environment, a module's path, and the journal's options apply).
 */
const recordedVariant = (
  id: string,
  options: Readonly<Record<string, string>>,
  extra: EnvDefinition | undefined,
  givenSpec: string | undefined,
  how: UnknownEnvWords,
): EnvDefinition => {
  const ours = extra !== undefined && extra.id === id;
  const root = ours ? unconfiguredOf(extra) : Object.hasOwn(ENVIRONMENTS, id) ? ENVIRONMENTS[id] : undefined;
  if (root === undefined) throw unknownEnv(id, extra, how);
  const variant = variantFromJournal(root, options);
  if (!ours) return variant;
  if (sameVariant(extra, variant)) return extra;
  if (givenSpec !== undefined && givesOptions(givenSpec))
    throw refusedOptions(id, givenSpec, options, "the journal was");
  return variant;
};

/** Whether an `--env` text gives options (`hopqa?legal=types`, even the default ones), not the environment alone. */
export const givesOptions = (spec: string): boolean =>
  spec.includes("?") && [...new URLSearchParams(spec.slice(spec.indexOf("?") + 1))].length > 0;

/**
 * `--env` (`given`, typed as `spec`) with options of its own, over journals recorded on other options of the
 * same environment: the first such journal of `files` (read by its first line) refused, naming both.
 */
export const refuseOtherOptions = (files: readonly string[], given: EnvDefinition, spec: string): void => {
  if (!givesOptions(spec)) return;
  const root = unconfiguredOf(given);
  for (const file of files) {
    const recorded = recordedEnvOf(file);
    if (recorded?.options === undefined || recorded.id !== given.id) continue;
    let variant: EnvDefinition;
    try {
      variant = variantFromJournal(root, recorded.options);
    } catch {
      continue; // options this environment does not take: whatever reads the journal says so
    }
    if (!sameVariant(given, variant)) throw refusedOptions(given.id, spec, recorded.options, `${file} was`);
  }
};

/**
 * Journals recorded on other options than `env`'s (`--env`): `WHAT recorded on hopqa?legal=relations, not on
 * --env 'hopqa?legal=types': pass --env 'hopqa?legal=relations' (or leave --env out)`. A module's spec keeps its path.
 */
export const refusedOptions = (
  id: string,
  spec: string,
  recorded: Readonly<Record<string, string>> | undefined,
  what: string,
): EnvOptionsRefusedError => {
  const base = modulePathOf(spec);
  const module = isModulePath(base);
  return new EnvOptionsRefusedError({
    detail: `${what} recorded on ${envSpecOf(id, recorded)} (the options its episode.started records), not on --env '${spec}': pass --env '${envSpecOf(base, recorded)}'${module ? "" : " (or leave --env out)"}`,
  });
};

/**
 * The environment a run was trained on, for a path in its run folder (`train --out`): the run folder, its
 * checkpoints/ or one checkpoint in it. The nearest config.json that names an `env` (a checkpoint's own
 * config.json holds the model's shape, not an environment).
 */
/** The folder a train run was started in (its origin.json: runs of older versions have none). */
export const runStartedIn = (runDir: string): string | undefined => {
  try {
    const { startedIn } = JSON.parse(readJsonText(join(runDir, ORIGIN_FILE))) as { startedIn?: unknown };
    return typeof startedIn === "string" && isAbsolute(startedIn) ? startedIn : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A relative path of a run's config.json as the folder train was started in meant it: from another folder,
 * the path there (absolute) when it exists there. `runs/warm` found from another folder would be another
 * checkpoint of that name (a KL reference silently swapped). Not there (the project moved): as written,
 * from here, and `note` says so when something of that name is here. A run without origin.json (made before
 * it was recorded): as written, from here, and `note` says so, naming the path taken.
 */
export const fromStartFolder = (
  runDir: string,
  path: string,
  note: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): string => {
  if (isAbsolute(path)) return path;
  const origin = runStartedIn(runDir);
  if (origin === undefined) {
    // A run of a version before origin.json: the folder it was started in is unknown, so the path is taken
    // from here, and said (a namesake here, another `runs/warm`, would otherwise be used without a word).
    // Inside the run folder (its own warm start) it is the run's wherever this runs.
    const inRun = relative(resolve(runDir), resolve(path));
    if ((existsSync(path) || existsSync(`${path}.ts`)) && (inRun.startsWith("..") || isAbsolute(inRun)))
      note(
        `note: ${join(runDir, "config.json")} names ${path}, relative to the folder train was started in, which the run does not record (it predates origin.json): using ${resolve(path)}, from here (${process.cwd()}); if that is not the run's, run this from the folder train was started in`,
      );
    return path;
  }
  const there = join(origin, path);
  if (resolve(path) === there) return path;
  if (existsSync(there)) return there;
  if (existsSync(path) || existsSync(`${path}.ts`))
    note(
      `note: ${join(runDir, "config.json")} names ${path}, relative to the folder train was started in (${origin}), where it is gone: using ${resolve(path)} from here (if that is not the run's, give its path)`,
    );
  return path;
};

/** The module path of an `--env` spec (without `?options`, and without a trailing slash, which Node ignores). */
export const modulePathOf = (spec: string): string => spec.split("?", 1)[0].replace(/(?<=.)[/\\]+$/, "");

/** A run's `env` (a module path, with its ?options) as meant from the folder train was started in. */
export const runEnvSpec = (runDir: string, spec: string, note?: (line: string) => void): string => {
  if (!isModulePath(modulePathOf(spec))) return spec;
  const query = spec.includes("?") ? spec.slice(spec.indexOf("?")) : "";
  const path = modulePathOf(spec);
  const meant = fromStartFolder(runDir, path, note);
  return meant === path ? spec : `${meant}${query}`;
};

/**
 * A record a command wrote beside its output (a run's config.json, a clone's sft.json, an average's
 * average.json): its `env`, or why it has none, in words for "FILE: WHY, so the run's environment is unknown".
 * Undefined for a readable object without `env` (for config.json: another program's file up the tree).
 */
const envRecord = (
  file: string,
  writer: string,
  made: string,
): { readonly env: string; readonly value: Record<string, unknown> } | { readonly why: string } | undefined => {
  if (statSync(file).isDirectory()) return { why: `a folder, where ${writer} writes a file` };
  let text: string;
  try {
    text = readJsonText(file);
  } catch (cause) {
    return { why: `cannot be read (${cause instanceof Error ? cause.message : String(cause)})` };
  }
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch (cause) {
    return { why: `not valid JSON (${jsonSyntaxError(cause, text)})` };
  }
  if (typeof saved !== "object" || saved === null || Array.isArray(saved))
    return { why: `not an object with "env" (it holds ${shownValue(saved)})` };
  const value = saved as Record<string, unknown>;
  if (value.env === undefined) return undefined;
  if (typeof value.env !== "string" || value.env.trim() === "")
    return { why: `its "env" is ${shownValue(value.env)}, where ${writer} writes ${made}` };
  return { env: value.env, value };
};

/**
 * The environment of the run a checkpoint, run folder or journal belongs to: the `env` of the first config.json
 * found in it or up to three folders above (the deepest train writes: a journal RUN/episodes/uNNNNN/x.jsonl or
 * RUN/warm-start/demos/x.jsonl, a checkpoint's file RUN/checkpoints/vNNNNN/weights.bin), as meant from the
 * folder train was started in. A damaged config.json of a run folder (one with checkpoints/ or metrics.jsonl: not JSON, not an object,
 * an `env` that is no text) is a UsageError naming it; one without `env` is another program's, and skipped.
 */
export const runConfigEnv = (
  path: string,
): { readonly file: string; readonly env: string; readonly constrained?: boolean } | undefined => {
  for (let dir = path, up = 0; up < 4; dir = dirname(dir), up++) {
    const file = join(dir, "config.json");
    if (!existsSync(file)) continue;
    const found = envRecord(file, "train", "the environment it trained on");
    if (found !== undefined && "env" in found)
      return {
        file,
        env: runEnvSpec(dir, found.env),
        ...(typeof found.value.constrained === "boolean" ? { constrained: found.value.constrained } : {}),
      };
    // A run folder's own config.json, damaged: say so, rather than fall back to a guess without a word.
    // Another config.json up the tree that names no environment is not this run's.
    if (found !== undefined && (existsSync(join(dir, "checkpoints")) || existsSync(join(dir, "metrics.jsonl"))))
      throw new UsageError({
        detail: `${file}: ${found.why}, so the run's environment is unknown; mend the file, or give --env`,
      });
  }
  return undefined;
};

/** An environment module named by a path relative to another working folder, which is not found from this one. */
export const lostRelativeModule = (spec: string) => {
  const env = modulePathOf(spec);
  return isModulePath(env) && !isAbsolute(env) && !existsSync(env) && !existsSync(`${env}.ts`);
};

/** A run's config.json names `what` by a path relative to the folder train ran in, and it is not found from here. */
export const notFoundFromHere = (file: string, what: string, remedy: string) => {
  const origin = runStartedIn(dirname(file));
  return new UsageError({
    detail: `${file} names ${what}, a path relative to the folder train was started in${origin ? ` (${origin}), and it is found neither there nor` : ", and it is not found"} from here (${process.cwd()}): ${remedy}`,
  });
};

/**
 * The environment module a train run was trained on, when `path` is the run or lies in it (its config.json names
 * the module), loaded: `{ env }`; undefined for a built-in environment or no run. A module that is not found from
 * here (train ran in another folder) or does not load is `{ problem, lost }`, a UsageError ending in `remedy` (the
 * CLI's "pass --env", verifyJournals' own words). `inspect`, `replay --verify` and verifyJournals find a run's
 * environment so.
 */
export const runModuleEnv = async (
  path: string,
  remedy: string,
): Promise<{ readonly env: EnvDefinition } | { readonly problem: UsageError; readonly lost: boolean } | undefined> => {
  const found = runConfigEnv(path);
  if (!found || Object.hasOwn(ENVIRONMENTS, found.env.split("?")[0] ?? "")) return undefined;
  if (lostRelativeModule(found.env))
    return { problem: notFoundFromHere(found.file, `the environment module ${found.env}`, remedy), lost: true };
  try {
    return { env: await loadEnv(found.env) };
  } catch (cause) {
    return {
      problem: new UsageError({
        detail: `${found.file} names environment ${found.env}, which did not load (${messageOf(cause)}): ${remedy}`,
      }),
      lost: false,
    };
  }
};

/**
 * The environment a checkpoint outside a run was made under: a clone's sft.json `env` (the --env of `agent-r1
 * sft`), else an average's average.json `env` (that of the checkpoints averaged); module paths are written
 * absolute. Undefined for a checkpoint with neither (a run's, a clone of a version before sft.json, an average
 * of checkpoints of different or unknown environments). One that cannot be read, is not JSON, or names no
 * environment (edited by hand) is a UsageError naming it.
 */
export const checkpointOriginEnv = (
  checkpoint: string,
): { readonly file: string; readonly env: string; readonly whose: "clone" | "average" } | undefined => {
  const whose = existsSync(join(checkpoint, SFT_FILE))
    ? "clone"
    : existsSync(join(checkpoint, AVERAGE_FILE))
      ? "average"
      : undefined;
  if (whose === undefined) return undefined;
  const file = join(checkpoint, whose === "clone" ? SFT_FILE : AVERAGE_FILE);
  const made = whose === "clone" ? "the --env the clone was cloned under" : "the --env of the checkpoints averaged";
  const found = envRecord(file, whose === "clone" ? "sft" : "average", made);
  if (found !== undefined && "env" in found) return { file, env: found.env, whose };
  throw new UsageError({
    detail: `${file}: ${found?.why ?? `no "env" in it (${made})`}, so the ${whose}'s environment is unknown; mend the file, or give --env`,
  });
};

/**
 * The built-in environment whose tokenizer a checkpoint carries (its tokenizer.json's id), for a checkpoint
 * outside a run folder (a shipped one) evaluated without --env: its id, or a variant's spec when only a variant
 * has that tokenizer (`hopqa?wording=possessive`). Undefined when none or several match.
 */
export const builtinEnvOfCheckpoint = (checkpoint: string): string | undefined => {
  // Unreadable: the loader says what is wrong with the checkpoint.
  const id = savedTokenizerId(checkpoint);
  if (id === undefined) return undefined;
  const matches = Object.entries(ENVIRONMENTS).filter(([, env]) => env.tokenizer.id === id);
  if (matches.length > 0) return matches.length === 1 ? matches[0][0] : undefined;
  // A variant's tokenizer (hopqa's wording=possessive): the variant.
  const variants = Object.keys(ENVIRONMENTS).flatMap((name) => {
    const variant = tokenizerVariantOf(name, id);
    return variant ? [`${name}?${variant.query}`] : [];
  });
  return variants.length === 1 ? variants[0] : undefined;
};

/**
 * Environments the CLI knows: the built-in ones by id, and any module path a user gives
 * (`--env ./my-env.ts`, whose default export is `defineEnv(...)`). The only place src/ imports actors/.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { hopqa } from "../../actors/hopqa/index.ts";
import { lookup } from "../../actors/lookup/index.ts";
import { UsageError } from "../kernel/errors.ts";
import type { EnvDefinition } from "../runtime/env.ts";

// biome-ignore lint/suspicious/noExplicitAny: environments have their own task types
export const ENVIRONMENTS: Readonly<Record<string, EnvDefinition<any>>> = { lookup, hopqa };

const looksLikePath = (spec: string) => /[/\\]/.test(spec) || /\.(ts|js|mjs)$/.test(spec);

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
      detail: `unknown environment "${id}"; known: ${Object.keys(ENVIRONMENTS).join(", ")} (or give a module path, e.g. --env ./my-env.ts)`,
    });
  return query === undefined ? env : configureEnv(env, query);
};

/** Applies `key=value&key=value` options through the environment's `configure`. */
export const configureEnv = (env: EnvDefinition, query: string): EnvDefinition => {
  const options = Object.fromEntries(new URLSearchParams(query));
  if (Object.keys(options).length === 0) return env;
  if (!env.configure) throw new UsageError({ detail: `environment ${env.id} takes no options, got "?${query}"` });
  try {
    return env.configure(options);
  } catch (cause) {
    throw new UsageError({ detail: cause instanceof Error ? cause.message : String(cause) });
  }
};

/** A built-in environment by id, or the default export (or `env` export) of a module path. */
export const loadEnv = async (spec: string): Promise<EnvDefinition> => {
  const [path, query] = spec.split("?", 2);
  if (!looksLikePath(path)) return envById(spec);
  const file = resolve(path);
  if (!existsSync(file)) throw new UsageError({ detail: `environment module not found: ${file}` });
  let module: { default?: unknown; env?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown; env?: unknown };
  } catch (cause) {
    // A syntax error's first line is only "Transform failed with 1 error:"; the place and the error follow.
    const text = stripVTControlCharacters(cause instanceof Error ? cause.message : String(cause));
    const lines = text.split("\n").filter((l) => l.trim());
    const reason = lines
      .slice(0, lines[0]?.startsWith("Transform failed") ? 3 : 1)
      .join(" ")
      .replace(/\s+/g, " ");
    throw new UsageError({ detail: `cannot load environment module ${path}: ${reason}` });
  }
  const env = module.default ?? module.env;
  if (!isEnvDefinition(env))
    throw new UsageError({
      detail: `${path} does not export an environment: make its default export \`defineEnv({ id, version, machine, tools, tokenizer, task })\``,
    });
  return query === undefined ? env : configureEnv(env, query);
};

/** Resolves environments by the id recorded in a journal, preferring a user-given module. */
export const envResolver =
  (extra?: EnvDefinition) =>
  (id: string): EnvDefinition =>
    extra && extra.id === id ? extra : envById(id.split("?")[0]);

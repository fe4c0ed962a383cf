/** Environments the CLI knows by id. The only place src/ imports from actors/. */
import { lookup } from "../../actors/lookup/index.ts";
import { UsageError } from "../kernel/errors.ts";
import type { EnvDefinition } from "../runtime/env.ts";

// biome-ignore lint/suspicious/noExplicitAny: environments have their own task types
export const ENVIRONMENTS: Readonly<Record<string, EnvDefinition<any>>> = { lookup };

export const envById = (id: string): EnvDefinition => {
  const env = ENVIRONMENTS[id];
  if (!env)
    throw new UsageError({
      detail: `unknown environment "${id}"; known: ${Object.keys(ENVIRONMENTS).join(", ")}`,
    });
  return env;
};

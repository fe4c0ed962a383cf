#!/usr/bin/env node
/**
 * Writes the package's type declarations to types/ (npm ci runs this as `prepare`). A project that imports
 * agent-r1-ts type-checks against them with its own flags (noUncheckedIndexedAccess and the like), instead
 * of compiling this package's sources. Without TypeScript installed (npm ci --omit=dev) it says so and
 * writes nothing: the package runs without its declarations.
 */
import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
if (!existsSync(tsc)) {
  console.log("agent-r1-ts: TypeScript is not installed, so no type declarations were written to types/");
  process.exit(0);
}
rmSync(join(root, "types"), { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.types.json")], { stdio: "inherit" });
process.exit(run.status ?? 1);

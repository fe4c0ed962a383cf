#!/usr/bin/env node
/**
 * `npm run types`: rewrites the package's type declarations in types/ from src/ (and the hopqa entry).
 * They are committed, so a project compiles against them with its own flags (noUncheckedIndexedAccess and
 * the like) without building anything; test/package.test.ts fails when they are not those of the sources.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
let tsc;
try {
  // Where npm put TypeScript (hoisted or not); its exports do not name bin/tsc, so go by its package.json.
  tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
} catch {
  console.error("npm run types needs TypeScript: run npm ci first (it is a dev dependency)");
  process.exit(1);
}
rmSync(join(root, "types"), { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.types.json")], { stdio: "inherit" });
process.exit(run.status ?? 1);

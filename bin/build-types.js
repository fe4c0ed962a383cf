#!/usr/bin/env node
/**
 * `npm run types`: rewrites the package's type declarations in types/ from src/ (and the hopqa entry).
 * They are committed, so a project compiles against them with its own flags (noUncheckedIndexedAccess and
 * the like) without building anything; test/package.test.ts fails when they are not those of the sources.
 * `node bin/build-types.js DIR` writes them to DIR instead (the test compares such a fresh copy).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
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
const out = resolve(process.argv[2] ?? join(root, "types"));
rmSync(out, { recursive: true, force: true });
const run = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.types.json"), "--outDir", out], {
  stdio: "inherit",
});
if (run.status !== 0) process.exit(run.status ?? 1);

// tsc drops a file's opening doc comment with the import it sits on when that import is used only as a value
// (`import * as Result from "effect/Result"`): each declaration file gets its source's opening comment back.
const opening = /^(?:#![^\n]*\n)?\s*(\/\*\*[\s\S]*?\*\/)\n/;
for (const entry of readdirSync(out, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !entry.name.endsWith(".d.ts")) continue;
  const declarations = join(entry.parentPath, entry.name);
  const source = join(root, declarations.slice(out.length + 1).replace(/\.d\.ts$/, ".ts"));
  const comment = opening.exec(readFileSync(source, "utf8"))?.[1];
  const text = readFileSync(declarations, "utf8");
  if (comment && !text.startsWith(comment)) writeFileSync(declarations, `${comment}\n${text}`);
}

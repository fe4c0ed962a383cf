#!/usr/bin/env node
/**
 * `npm run types`: rewrites the package's type declarations in types/ from src/ (and the hopqa entry).
 * They are committed, so a project compiles against them with its own flags (noUncheckedIndexedAccess and
 * the like) without building anything; test/package.test.ts fails when they are not those of the sources.
 * `node bin/build-types.js DIR` writes them to DIR instead (the test compares such a fresh copy).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
// DIR is emptied first: one that holds anything but declarations (`npm run types -- docs`, a typo) is refused,
// not deleted. The first such file, looked for folder by folder (a large tree is not listed whole).
const notDeclarations = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const inside = notDeclarations(path);
      if (inside) return inside;
    } else if (!entry.name.endsWith(".d.ts")) return path;
  }
  return undefined;
};
if (existsSync(out)) {
  const isFolder = statSync(out).isDirectory();
  const foreign = isFolder ? notDeclarations(out) : out;
  if (foreign) {
    console.error(
      `build-types: ${out} ${isFolder ? `holds ${foreign}, which is not a type declaration` : "is a file"}, and the folder declarations are written to is emptied first: choose another folder`,
    );
    process.exit(1);
  }
}
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
  // parentPath: Node 20.12 and later; path before (package.json allows 20.3).
  const declarations = join(entry.parentPath ?? entry.path, entry.name);
  const source = join(root, declarations.slice(out.length + 1).replace(/\.d\.ts$/, ".ts"));
  const comment = opening.exec(readFileSync(source, "utf8"))?.[1];
  const text = readFileSync(declarations, "utf8");
  // As a plain block comment: a doc comment (`/**`) there would read as the doc of the file's first declaration.
  if (comment && !text.startsWith(comment)) writeFileSync(declarations, `/*${comment.slice(3)}\n${text}`);
}

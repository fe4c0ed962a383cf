/**
 * The package as a project of one's own meets it: imported by name, type-checked with the project's own
 * flags. Its declarations (types/, committed, written by `npm run types`) must be those
 * of the sources, and a project under the strictest flags must compile against them: compiling the
 * sources themselves under noUncheckedIndexedAccess and exactOptionalPropertyTypes gave over 300 errors.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/index.ts";

const root = join(import.meta.dirname, "..");
const tsc = (...args: string[]) =>
  spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), ...args], {
    cwd: root,
    encoding: "utf8",
  });

const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();

describe("the package's type declarations", () => {
  it("build-types DIR refuses a folder that holds anything but declarations (it is emptied first), or a file", () => {
    const dir = tempDir("agent-r1-types-");
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "old.d.ts"), "export {};\n");
    writeFileSync(join(dir, "notes.md"), "mine\n");
    for (const [out, said] of [
      [dir, `${dir} holds ${join(dir, "notes.md")}, which is not a type declaration`],
      [join(dir, "notes.md"), `${join(dir, "notes.md")} is a file`],
    ]) {
      const run = spawnSync(process.execPath, [join(root, "bin", "build-types.js"), out], { encoding: "utf8" });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(said);
    }
    expect(readFileSync(join(dir, "notes.md"), "utf8")).toBe("mine\n");
    expect(existsSync(join(dir, "src", "old.d.ts"))).toBe(true);
  });

  it("types/ holds the declarations of the sources as they are now (else: npm run types)", () => {
    const fresh = join(tempDir("agent-r1-types-"), "types");
    const emitted = spawnSync(process.execPath, [join(root, "bin", "build-types.js"), fresh], { encoding: "utf8" });
    expect(emitted.stdout + emitted.stderr).toBe("");
    expect(emitted.status).toBe(0);
    const files = filesUnder(fresh);
    expect(files).toContain(join("src", "index.d.ts"));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; default: string }>;
    };
    for (const entry of Object.values(pkg.exports)) expect(files).toContain(relative("./types", entry.types));
    const stale = files.filter((file) => {
      try {
        return readFileSync(join(root, "types", file), "utf8") !== readFileSync(join(fresh, file), "utf8");
      } catch {
        return true;
      }
    });
    expect(stale, "types/ is out of date: run `npm run types`").toEqual([]);
    expect(filesUnder(join(root, "types"))).toEqual(files);
  });

  it("a project under the strictest flags compiles against them, and its misuses are errors", () => {
    const checked = tsc("-p", join("test", "fixtures", "strict-consumer", "tsconfig.json"));
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });

  it("the README's weather example compiles under the strictest flags, as a project's own file", () => {
    // The example imports the sources by path; a project imports the package by name.
    const project = tempDir("agent-r1-strict-weather-");
    symlinkSync(join(root, "node_modules"), join(project, "node_modules"));
    writeFileSync(join(project, "package.json"), '{ "type": "module" }\n');
    const example = readFileSync(join(root, "actors", "weather", "env.ts"), "utf8");
    writeFileSync(join(project, "env.ts"), example.replace('"../../src/index.ts"', '"agent-r1-ts"'));
    const strict = JSON.parse(readFileSync(join(root, "test", "fixtures", "strict-consumer", "tsconfig.json"), "utf8"));
    strict.compilerOptions.paths = { "agent-r1-ts": [join(root, "types", "src", "index.d.ts")] };
    strict.files = ["env.ts"];
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(strict));
    const checked = tsc("-p", join(project, "tsconfig.json"));
    expect(checked.stdout + checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });
});

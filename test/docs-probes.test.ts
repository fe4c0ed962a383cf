import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/index.ts";

// docs/hopqa.md tells which probe patches `git apply` takes on this commit and which need an older one.
// A patch that a reader is told to apply must apply: the probes' commands are the only record of them.

const hopqa = readFileSync("docs/hopqa.md", "utf8");
const PROBES = "docs/probes";
const shipped = readdirSync(PROBES).filter((name) => name.endsWith(".patch"));

/** The files a patch changes (its `diff --git a/X b/X` lines). */
const touched = (patch: string): string[] =>
  [...readFileSync(join(PROBES, patch), "utf8").matchAll(/^diff --git a\/(\S+) b\//gm)].map((m) => m[1] as string);

/** Applies patches, in order, to copies of the files they touch (taken from `source`); git's output when it fails. */
const applyInOrder = (patches: readonly string[], source: (file: string) => string | undefined): string => {
  const dir = tempDir("agent-r1-probes-");
  for (const file of new Set(patches.flatMap(touched))) {
    const text = source(file);
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    if (text === undefined) copyFileSync(file, join(dir, file));
    else writeFileSync(join(dir, file), text);
  }
  // Outside a repository, git apply patches the files of its working folder, as `git apply` in a clone does.
  const run = spawnSync("git", ["apply", ...patches.map((p) => resolve(PROBES, p))], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GIT_CEILING_DIRECTORIES: dirname(dir) },
  });
  return run.status === 0 ? "" : `${run.stderr}${run.stdout}`;
};

/** The patches to apply, in order, to try one: hopqa-search-cost goes on top of hopqa-two-search-phrases. */
const orderFor = (patch: string): string[] =>
  patch === "hopqa-search-cost.patch" ? ["hopqa-two-search-phrases.patch", patch] : [patch];

/** The paragraph of docs/hopqa.md that lists the patches. */
const paragraph = /The probes' patches[\s\S]*?\n\n/.exec(hopqa)?.[0] ?? "";
const onThisCommit = /On this\s+commit `git apply` takes ([\s\S]*?); the others/.exec(paragraph)?.[1] ?? "";
const current = [...onThisCommit.matchAll(/`(hopqa-[\w-]+\.patch)`/g)].map((m) => m[1] as string);

/** Each older patch with the commit docs/hopqa.md says it applies to. */
const older = (() => {
  const rest = paragraph.slice(paragraph.indexOf("the others"));
  const pairs: [string, string][] = [];
  for (const m of rest.matchAll(
    /(?:git checkout |`)([0-9a-f]{7,40})(?:`| &&)([\s\S]*?)(?=, `[0-9a-f]{7,40}`|\(test\/)/g,
  ))
    for (const p of (m[2] as string).matchAll(/(hopqa-[\w-]+\.patch)/g)) pairs.push([p[1] as string, m[1] as string]);
  return pairs;
})();

describe("docs/hopqa.md's probe patches", () => {
  it("names every patch under docs/probes, as applying on this commit or with the commit it applies to", () => {
    expect(current.length).toBeGreaterThan(0);
    const named = new Set([...current, ...older.map(([patch]) => patch)]);
    expect([...named].sort()).toEqual([...shipped].sort());
  });

  it("every `git apply` command shown in the docs for a patch of this commit applies, in its order", () => {
    const markdown = [
      "README.md",
      ...readdirSync("docs", { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .map((f) => join("docs", f)),
    ];
    const commands = markdown.flatMap((file) =>
      [
        ...readFileSync(file, "utf8").matchAll(
          /^(?!.*git checkout).*?git apply ((?:docs\/probes\/[\w.-]+\.patch ?)+)/gm,
        ),
      ].map((m) => ({
        file,
        patches: (m[1] as string)
          .trim()
          .split(/\s+/)
          .map((p) => p.replace(`${PROBES}/`, "")),
      })),
    );
    expect(commands.length).toBeGreaterThan(0);
    for (const { file, patches } of commands)
      expect(
        applyInOrder(patches, () => undefined),
        `${file}: git apply ${patches.join(" ")}`,
      ).toBe("");
  });

  it("each patch said to apply on this commit does (hopqa-search-cost on top of hopqa-two-search-phrases)", () => {
    for (const patch of current)
      expect(
        applyInOrder(orderFor(patch), () => undefined),
        patch,
      ).toBe("");
  });

  it("each older patch applies to the commit named for it (where the clone has that history; hopqa-search-cost on top of hopqa-two-search-phrases)", () => {
    for (const [patch, commit] of older) {
      if (spawnSync("git", ["cat-file", "-e", `${commit}^{commit}`]).status !== 0) continue;
      const at = (file: string) => spawnSync("git", ["show", `${commit}:${file}`], { encoding: "utf8" }).stdout;
      expect(applyInOrder(orderFor(patch), at), `${patch} at ${commit}`).toBe("");
    }
  });
});

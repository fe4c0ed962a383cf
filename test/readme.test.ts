import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import GithubSlugger from "github-slugger";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { lookup } from "../actors/lookup/index.ts";
import { MemoryJournal, PolicyActor, rollout } from "../src/index.ts";

const readme = readFileSync("README.md", "utf8");

describe("README", () => {
  it("shows the two Quick start commands", () => {
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
  });

  it("says what of older versions' runs, checkpoints and journals is read, refused, and what to do", () => {
    // The list lives in docs/compatibility.md; README's section sums it up and links to it.
    const start = readme.indexOf("### Compatibility with older versions");
    expect(start).toBeGreaterThan(-1);
    const section = readme.slice(start, readme.indexOf("\n## ", start));
    expect(section).toContain("(docs/compatibility.md)");
    const list = readFileSync("docs/compatibility.md", "utf8");
    for (const topic of ["origin.json", "manifest format 1", "`constrained`", "hopqa v2", "two tags", "--group-size 1"])
      expect(list, topic).toMatch(new RegExp(`^- \\*\\*[^\\n]*${topic.replace(/[.+-]/g, "\\$&")}`, "m"));
  });

  it("its environment example is the file actors/weather/env.ts, under 110 lines", () => {
    const marker = "<!-- example: actors/weather/env.ts -->\n```ts\n";
    expect(readme.indexOf(marker)).toBeGreaterThan(-1);
    expect(readFileSync("actors/weather/env.ts", "utf8").trimEnd().split("\n").length).toBeLessThan(110);
  });

  it("The journal's sample lines are those of ep-7-0 that Quick start's `record --env lookup --seed 7` writes", async () => {
    const start = readme.indexOf("### The journal");
    const sample = readme.slice(start, readme.indexOf("\n```\n", readme.indexOf("```", start) + 3));
    const journal = new MemoryJournal();
    const run = rollout({
      env: lookup,
      policy: new PolicyActor(lookup.policies.expert()),
      journal,
      seed: "7",
      episodes: 1,
    });
    const [record] = await lastValueFrom(run.episodes.pipe(toArray()));
    const [started, observed] = record!.events;
    expect([started?.episode, started?.seq, started?.type]).toEqual(["ep-7-0", 0, "episode.started"]);
    expect(sample).toContain(`"env":${JSON.stringify(started?.type === "episode.started" && started.env)}`);
    expect(sample).toContain(`"seed":"7:0","policy":{"id":"lookup-expert","version":0}`);
    expect(sample).toContain(
      `"type":"env.observed","turn":0,"text":${JSON.stringify(observed?.type === "env.observed" && observed.text)}`,
    );
  });

  it("each example marked <!-- example: PATH --> is the file PATH byte for byte (so the example is run)", () => {
    const examples = [...readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```/g)];
    expect(examples.map((m) => m[1])).toEqual(
      expect.arrayContaining([
        "actors/weather/env.ts",
        "test/runtime/readme-effect-tool.test.ts",
        "test/runtime/readme-own-policy.test.ts",
      ]),
    );
    for (const [, path, block] of examples) expect(block, path).toBe(readFileSync(path, "utf8"));
  });

  it("'From code' says what a project of one's own imports in place of ./actors/weather/env.ts, which the package does not export", () => {
    const start = readme.indexOf("From code (a script saved at this repository's root");
    expect(start).toBeGreaterThan(-1);
    const intro = readme.slice(start, readme.indexOf("```ts", start));
    expect(intro).toContain(
      'in your\nown project, import your own environment\'s module instead, `import weather from "./envs/my-env.ts"`',
    );
    expect(intro).toMatch(/no `actors\/weather`/);
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    expect(Object.keys(pkg.exports).some((entry) => entry.includes("actors"))).toBe(false);
  });

  it("every function it shows called from code, `name()`, is exported by one of the package's entries", async () => {
    // It said a configured variant is "passed to `record()` or `rollout()`": record() is the CLI's, exported by none.
    const entries = ["agent-r1-ts", "agent-r1-ts/testing", "agent-r1-ts/learn", "agent-r1-ts/hopqa"];
    const exported = new Set((await Promise.all(entries.map((entry) => import(entry)))).flatMap((m) => Object.keys(m)));
    // Other libraries' functions (xstate's setup, rxjs's toArray) and methods (rng.float(), driver.close()).
    const others = new Set(["setup", "toArray", "float", "close"]);
    const shown = [...new Set([...readme.matchAll(/`([A-Za-z_]\w*)\(\)`/g)].map((m) => m[1] ?? ""))];
    expect(shown.filter((name) => !exported.has(name) && !others.has(name))).toEqual([]);
  });

  it("Observability names the entry that exports plotRuns and lineChartSvg, and that both return Promises", async () => {
    // It said only "From code: `plotRuns(runDirs, outDir)`": no entry named, and a caller that did not await
    // lineChartSvg got a Promise where it expected the SVG's text.
    const start = readme.indexOf("## Observability");
    const section = readme.slice(start, readme.indexOf("\n## ", start));
    expect(section).toMatch(/From code \(`agent-r1-ts\/learn`\): `await plotRuns\(/);
    expect(section).toMatch(/`await lineChartSvg\(\{ title, rows, x, y, series \}\)`/);
    const learn = await import("agent-r1-ts/learn");
    const svg = learn.lineChartSvg({ title: "t", rows: [{ x: 1, y: 2, s: "a" }], x: "x", y: "y", series: "s" });
    expect(svg).toBeInstanceOf(Promise);
    expect(await svg).toMatch(/^<svg/);
    expect(typeof learn.plotRuns).toBe("function");
  });

  it("Stopping names the command to signal in this clone, where node_modules/.bin holds no agent-r1", () => {
    // `node_modules/.bin/agent-r1` exists in a project that installed the package, not in the clone itself.
    const start = readme.indexOf("- **Stopping.**");
    const item = readme.slice(start, readme.indexOf("\n- **", start + 1));
    expect(item).toMatch(/`node_modules\/\.bin\/agent-r1` \(in this\s+clone, `node bin\/agent-r1\.js`\)/);
    expect(existsSync("bin/agent-r1.js")).toBe(true);
  });

  it("'From your own project' warns that the clone's npm ci, through a symlinked node_modules, empties the linked folder", () => {
    const start = readme.indexOf("### From your own project");
    const section = readme.slice(start, readme.indexOf("\n## ", start));
    expect(section).toMatch(/Skip the clone's `npm ci` where its `node_modules` is installed already/);
    expect(section).toMatch(/through a symlink\s+it removes what the linked folder holds/);
  });

  it("'From your own project' installs every package the examples import, at the framework's own versions", () => {
    const start = readme.indexOf("### From your own project");
    const section = readme.slice(start, readme.indexOf("\n## ", start));
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    const versions: Record<string, string> = { ...pkg.dependencies, ...pkg.devDependencies };
    const install = /^npm i \/path\/to\/agent-r1-ts ([^#\n]*)/m.exec(section)?.[1]?.trim().split(/\s+/) ?? [];
    // The environment example imports xstate, the "From code" one rxjs, the Effect tool effect/Effect and effect/Data:
    // a user's project that lacks effect fails with "Cannot find module 'effect/Data'".
    for (const name of ["xstate", "rxjs", "effect"]) expect(install, name).toContain(`${name}@${versions[name]}`);
    // Every version the section pins is the framework's own (a second copy of effect refuses valid journal lines).
    for (const [, name, version] of section.matchAll(/\b((?:@[\w-]+\/)?[\w.-]+)@(\d[\w.-]*)/g))
      expect(`${name}@${version}`).toBe(`${name}@${versions[name!]}`);
  });
});

/** The anchors GitHub gives the headings of a markdown text (code blocks skipped). */
const anchorsOf = (markdown: string): Set<string> => {
  const slugger = new GithubSlugger();
  return new Set(
    markdown
      .replace(/```[\s\S]*?```/g, "")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => slugger.slug(line.replace(/^#+ /, ""))),
  );
};

describe("links in the committed markdown (README.md, docs/, bench/)", () => {
  // The project's own pages (not a git listing: a source tarball has no .git).
  const pages = [
    "README.md",
    ...["docs", "bench"].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".md"))
        .map((name) => join(dir, name)),
    ),
  ];

  it("every relative link names a file or folder that is there, and every #anchor a heading there, as GitHub slugs them", () => {
    const broken: string[] = [];
    let anchored = 0;
    for (const page of pages) {
      const text = readFileSync(page, "utf8");
      for (const [, target] of text.replace(/```[\s\S]*?```/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split("#");
        const file = path === "" ? page : join(dirname(page), path);
        if (!existsSync(file)) broken.push(`${page}: ${target} (no ${file})`);
        else if (anchor !== undefined) {
          anchored += 1;
          if (!anchorsOf(readFileSync(file, "utf8")).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
        }
      }
    }
    expect(anchored).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });
});

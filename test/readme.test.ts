import { existsSync, readFileSync } from "node:fs";
import GithubSlugger from "github-slugger";
import { describe, expect, it } from "vitest";

const readme = readFileSync("README.md", "utf8");

describe("README", () => {
  it("shows the two Quick start commands", () => {
    expect(readme).toContain("npm ci && npm start");
    expect(readme).toContain("npm ci && npm test");
  });

  it("says what of older versions' runs, checkpoints and journals is read, refused, and what to do", () => {
    const start = readme.indexOf("### Compatibility with older versions");
    expect(start).toBeGreaterThan(-1);
    const section = readme.slice(start, readme.indexOf("\n## ", start));
    for (const topic of ["origin.json", "manifest format 1", "`constrained`", "hopqa v2", "two tags", "--group-size 1"])
      expect(section).toContain(topic);
  });

  it("its environment example is the file actors/weather/env.ts, under 100 lines", () => {
    const marker = "<!-- example: actors/weather/env.ts -->\n```ts\n";
    const start = readme.indexOf(marker);
    expect(start).toBeGreaterThan(-1);
    const block = readme.slice(start + marker.length, readme.indexOf("```", start + marker.length));
    const file = readFileSync("actors/weather/env.ts", "utf8");
    expect(block).toBe(file);
    expect(file.trimEnd().split("\n").length).toBeLessThan(100);
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

describe("README links", () => {
  it("every link to a heading (#anchor, here or in a committed markdown file) names a heading there, as GitHub makes its anchors", () => {
    const links = [...readme.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)].map((m) => ({ file: m[1], anchor: m[2] }));
    expect(links.filter((link) => link.file === "").length).toBeGreaterThan(10);
    expect(links.filter((link) => link.file !== "").length).toBeGreaterThan(3);
    const broken = links.filter(
      ({ file, anchor }) =>
        !(file === "" ? anchorsOf(readme) : existsSync(file) ? anchorsOf(readFileSync(file, "utf8")) : new Set()).has(
          anchor,
        ),
    );
    expect(broken).toEqual([]);
  });
});

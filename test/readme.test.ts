import { readFileSync } from "node:fs";
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

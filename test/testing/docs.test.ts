import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const MARKER = "<!-- example: test/testing/readme-example.test.ts -->\n```ts\n";
/** The section lives in docs/property-testing.md until it is merged into the README. */
const documentOf = () =>
  [
    readFileSync("README.md", "utf8"),
    existsSync("docs/property-testing.md") ? readFileSync("docs/property-testing.md", "utf8") : "",
  ].find((text) => text.includes(MARKER));

describe('the "Property-test your reward logic" section', () => {
  it("its example is test/testing/readme-example.test.ts, byte for byte, so the example is run", () => {
    const doc = documentOf();
    expect(doc, "no document holds the example marker").toBeDefined();
    const start = doc!.indexOf(MARKER) + MARKER.length;
    const block = doc!.slice(start, doc!.indexOf("```", start));
    expect(block).toBe(readFileSync("test/testing/readme-example.test.ts", "utf8"));
  });

  it("names every invariant the kit exports (read from the kit's exports, so a new one needs its row)", async () => {
    const kit = (await import("../../src/testing/invariants.ts")) as Record<string, unknown>;
    // The invariant factories: the functions exported from invariants.ts but for the runners and error classes.
    const runners = new Set(["checkRewards", "InvariantsFailedError", "NothingCheckedError"]);
    const exported = readFileSync("src/testing/index.ts", "utf8");
    const names = Object.keys(kit).filter(
      (name) => typeof kit[name] === "function" && !runners.has(name) && new RegExp(`\\b${name},`).test(exported),
    );
    expect(names).toEqual(expect.arrayContaining(["rewardBounds", "neverCrashes", "episodeInvariant"]));
    const doc = documentOf()!;
    for (const name of names) expect(doc, `README names ${name}`).toContain(`\`${name}(`);
  });
});

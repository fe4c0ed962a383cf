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

  it("names every invariant the kit exports", () => {
    const exported = readFileSync("src/testing/index.ts", "utf8");
    const doc = documentOf()!;
    for (const name of [
      "rewardBounds",
      "returnBounds",
      "processRewardCap",
      "noRewardForRepeatedCalls",
      "outcomeDependsOnlyOnFinalAnswer",
      "orderIndependentRewards",
      "neverCrashes",
      "replaysIdentically",
      "episodeInvariant",
    ]) {
      expect(exported).toMatch(new RegExp(`\\b${name},`));
      expect(doc).toContain(`\`${name}(`);
    }
  });
});

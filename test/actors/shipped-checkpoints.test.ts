/**
 * The checkpoints shipped under docs/: each manifest is intact (its digest matches), and every policy RL
 * trained records that it was trained under constrained decoding, so `eval --checkpoint` without a flag
 * decodes as it was trained (README) instead of freely, which scored 0 on hopqa.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { manifestDigest } from "../../src/policy/checkpoint.ts";

const manifests = readdirSync("docs", { recursive: true, encoding: "utf8" })
  .filter((path) => path.endsWith("manifest.json"))
  .map((path) => join("docs", path))
  .sort();

describe("shipped checkpoints", () => {
  it("are intact, and those RL trained (version > 0) say they were trained constrained", () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const file of manifests) {
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      expect(manifestDigest(manifest), file).toBe(manifest.digest);
      // docs/v2/checkpoints/hopqa-best predates the flag and its recipe is not on record.
      if (manifest.version > 0 && file !== "docs/v2/checkpoints/hopqa-best/manifest.json")
        expect(manifest.constrained, file).toBe(true);
    }
  });
});

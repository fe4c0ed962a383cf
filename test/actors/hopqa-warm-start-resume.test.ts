/**
 * hopqa's warm start (`npm run experiment` builds it) goes on where a stop left it: the demonstrations, once
 * recorded, are kept, and each cloning resumes from its saved point, to the clone an unbroken build writes,
 * byte for byte. Before, a stop during it recorded and cloned everything again (16-45 minutes on 2 cores).
 */
import { readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildWarmStart, COPY_WARM_START, type WarmStartRecipe } from "../../actors/hopqa/warm-start.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();
// A toy recipe with a second cloning (`more`): 2 demonstrations in batches of 2 (a step an epoch; a step of
// hopqa's model takes about 1.5 s here), 2 epochs, then 2 more from that clone.
const recipe: WarmStartRecipe = {
  ...COPY_WARM_START,
  demos: 2,
  demoWorlds: "1-2",
  batchSize: 2,
  curriculum: [],
  sftEpochs: 2,
  more: { epochs: 2, seed: "m" },
};
const dir = tempDir("agent-r1-hopqa-warm-");
const unbroken = join(dir, "unbroken");
const same = (out: string) => {
  const clone = join(out, "warm-start");
  expect(readdirSync(clone).sort()).toEqual(readdirSync(join(unbroken, "warm-start")).sort());
  for (const file of ["weights.bin", "manifest.json", "config.json"])
    expect(readFileSync(join(clone, file)), file).toEqual(readFileSync(join(unbroken, "warm-start", file)));
  expect(readdirSync(out).sort()).toEqual(["demos", "demos-recorded.json", "warm-start"]);
};
/** A stop at sft's `n`-th question (it asks once before its first step, then after each). */
const stopAt = (n: number) => {
  let asked = 0;
  return { shouldStop: () => ++asked >= n };
};

describe("hopqa's warm start, stopped and built again", () => {
  beforeAll(async () => {
    await buildWarmStart(unbroken, join(unbroken, "warm-start"), recipe);
  }, 60_000);

  it("stopped in its first cloning, then in its second: each build goes on from there, without recording again", async () => {
    const root = join(dir, "stopped");
    const out = join(root, "warm-start");
    const cloning: boolean[] = [];
    // After the first cloning's first epoch.
    const first = await buildWarmStart(root, out, recipe, { ...stopAt(2), onCloning: (on) => cloning.push(on) });
    expect(first.stopped).toBe(true);
    expect(cloning).toEqual([true, false]);
    const recordedAt = statSync(join(root, "demos-recorded.json")).mtimeMs;
    // Resumed, then stopped after the second cloning's first epoch (the first asks twice, the second once before).
    expect((await buildWarmStart(root, out, recipe, stopAt(4))).stopped).toBe(true);
    expect(readdirSync(out)).toEqual(["sft-progress"]);
    const resumed = await buildWarmStart(root, out, recipe);
    expect(resumed.stopped).toBeUndefined();
    expect(statSync(join(root, "demos-recorded.json")).mtimeMs).toBe(recordedAt);
    same(root);
  }, 60_000);

  it("stopped in its cloning, its demos folder removed: the next build records them again", async () => {
    const root = join(dir, "demos-removed");
    const out = join(root, "warm-start");
    expect((await buildWarmStart(root, out, recipe, stopAt(2))).stopped).toBe(true);
    rmSync(join(root, "demos"), { recursive: true });
    // It failed: "--data <root>/demos: no such file or folder".
    expect((await buildWarmStart(root, out, recipe)).stopped).toBeUndefined();
    same(root);
  }, 60_000);
});

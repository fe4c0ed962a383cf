/** Cloning under the legal actions' masks, and continuing a clone from its checkpoint (`sft --init`). */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expertPolicy, lookupEnv } from "../../actors/lookup/index.ts";
import { record } from "../../src/cli/record.ts";
import { sft } from "../../src/learn/sft.ts";
import { tempDir } from "../support/index.ts";

const model = { layers: 1, heads: 2, width: 32, contextLength: 96 };

describe("sft --constrained and --init", () => {
  it("scores demonstrations under the masks (lower loss than unmasked) and continues from a checkpoint", async () => {
    const dir = tempDir();
    const data = join(dir, "demos");
    await record({
      env: lookupEnv,
      policy: expertPolicy(),
      episodes: 24,
      seed: "sft-c",
      out: data,
      concurrency: 8,
      durability: "none",
      quiet: true,
    });
    const base = {
      env: lookupEnv,
      data,
      epochs: 2,
      batchSize: 8,
      lr: 3e-3,
      seed: "s",
      backend: "wasm",
      model,
    } as const;
    const lines: string[] = [];
    const free = await sft({ ...base, out: join(dir, "free"), log: () => {} });
    const masked = await sft({ ...base, out: join(dir, "masked"), constrained: true, log: (l) => lines.push(l) });
    // Same model, same batches: renormalising over the legal ids can only raise a demonstrated token's probability.
    expect(masked.losses[0]).toBeLessThan(free.losses[0]);
    // Every expert action of lookup is legal: nothing was left unconstrained.
    expect(lines.filter((l) => l.includes("not among the legal ones"))).toEqual([]);
    const resumed = await sft({ ...base, epochs: 1, out: join(dir, "more"), init: join(dir, "free"), log: () => {} });
    // Continuing starts where the first clone ended, well below a fresh model's first epoch.
    expect(resumed.losses[0]).toBeLessThan(free.losses[0]);
    expect(resumed.losses[0]).toBeLessThan(free.losses[1] * 1.5);
  }, 120_000);
});

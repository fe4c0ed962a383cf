/**
 * A fresh model's shape that cannot be built (heads not dividing width, layers not whole, width 0) is refused
 * when train() and sft() check their options, naming the field and its value: not when the model is built,
 * after a warm start recorded its expert's episodes into the run folder, or after sft cleared a stopped
 * clone's saved progress.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { main } from "../../src/cli/main.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { modelConfigFor, trainConfigFor } from "../../src/learn/config.ts";
import { sft } from "../../src/learn/sft.ts";
import { train } from "../../src/learn/trainer.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();

describe("a fresh model's bad shape is refused with the options", () => {
  it("train(): before the backend loads, the warm start records and the run folder is written", async () => {
    const out = join(tempDir("agent-r1-shape-train-"), "run");
    const lines: string[] = [];
    const overrides = {
      backend: "wasm",
      steps: 1,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: { episodes: 4, epochs: 1 },
      model: { layers: 1, heads: 3, width: 16 },
    } as const;
    // trainConfigFor refuses it at once; a config made otherwise (a spread, JSON) reaches train, which refuses it too.
    expect(() => trainConfigFor(lookup, overrides)).toThrow(
      "trainConfigFor: model: width 16 is not a multiple of heads 3",
    );
    const fine = trainConfigFor(lookup, { ...overrides, model: { layers: 1, heads: 2, width: 16 } });
    const config = { ...fine, model: { ...fine.model, heads: 3 } };
    const run = train({ env: lookup, config, out, log: (line) => lines.push(line) });
    await expect(run).rejects.toThrow(UsageError);
    // Said as sft says it, without the model builder's own "GPT config: " after "model:".
    await expect(run).rejects.toThrow("train config: model: width 16 is not a multiple of heads 3");
    expect(lines).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it("sft(): before a stopped sft's saved progress is cleared", async () => {
    const dir = tempDir("agent-r1-shape-sft-");
    const data = join(dir, "demos");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", data])).toBe(0);
    const out = join(dir, "clone");
    const base = { env: lookup, data, out, epochs: 2, batchSize: 2, backend: "wasm" as const, log: () => {} };
    const model = modelConfigFor(lookup, { layers: 1, heads: 2, width: 16 });
    let epochs = 0;
    const first = await sft({
      ...base,
      model,
      shouldStop: () => epochs >= 1,
      onEpoch: () => {
        epochs++;
      },
    });
    expect(first.stopped).toBe(true);
    const progress = join(out, "sft-progress");
    expect(existsSync(progress)).toBe(true);
    for (const [shape, said] of [
      [{ heads: 3 }, "sft: model: width 16 is not a multiple of heads 3"],
      [{ layers: 1.5 }, "sft: model: layers must be a positive integer, got 1.5"],
      [{ width: 0 }, "sft: model: width must be a positive integer, got 0"],
    ] as const) {
      const run = sft({ ...base, model: { ...model, ...shape } });
      await expect(run).rejects.toThrow(UsageError);
      await expect(run).rejects.toThrow(said);
      // The stopped sft is still there to resume.
      expect(existsSync(progress)).toBe(true);
    }
  }, 60_000);
});

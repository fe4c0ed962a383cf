/**
 * Turn-local attention for a fresh clone (`sft --attention turn-local`): the turns are found by the ids of the
 * environment's action tags, which sft writes into the model's config and the checkpoint keeps.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { expertPolicy, hopqa, tokenizer } from "../../actors/hopqa/index.ts";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { record } from "../../src/cli/record.ts";
import { sft, turnStartsOf } from "../../src/learn/sft.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { loadCheckpoint } from "../../src/policy/checkpoint.ts";
import { tempDir } from "../support/index.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

describe("sft with turn-local attention", () => {
  it("finds the turns by the action tags' ids and saves them with the clone", async () => {
    const dir = tempDir();
    const data = join(dir, "demos");
    await record({
      env: hopqa,
      policy: expertPolicy(),
      episodes: 4,
      seed: "turns",
      out: data,
      concurrency: 4,
      durability: "none",
      quiet: true,
    });
    const out = join(dir, "clone");
    await sft({
      env: hopqa,
      data,
      out,
      lr: 3e-3,
      seed: "s",
      epochs: 1,
      batchSize: 4,
      backend: "wasm",
      model: { layers: 1, heads: 2, width: 16, contextLength: 384, copy: true, attention: "turn-local" },
      log: () => {},
    });
    const starts = [tokenizer.encode("<search>"), tokenizer.encode("<answer>")].map((ids) => {
      expect(ids).toHaveLength(1);
      return ids[0];
    });
    const written = JSON.parse(readFileSync(join(out, "config.json"), "utf8"));
    expect(written.attention).toBe("turn-local");
    expect(written.turnStarts).toEqual(starts);
    const loaded = await loadCheckpoint(out);
    expect(loaded.model.config.attention).toBe("turn-local");
    expect(loaded.model.turnStarts).toEqual(new Set(starts));
    loaded.model.dispose();
  }, 120_000);

  it("is refused for an environment whose tokenizer writes an action tag as several tokens, naming the tag", () => {
    expect(() => turnStartsOf(lookupEnv, lookupEnv.tokenizer as never)).toThrow(
      /lookup's tokenizer writes <lookup> as 3 tokens/,
    );
  });
});

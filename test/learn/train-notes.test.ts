/**
 * A KL coefficient with neither an init checkpoint nor a warm start has the fresh model as its reference: the
 * run says so, since a user who gives klCoef means "stay near the policy I started from" and has none.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadEnv, train, trainConfigFor } from "../../src/learn/index.ts";
import { collapseLikely } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-kl-fresh-");
const tiny = { steps: 1, tasksPerStep: 2, groupSize: 2, evalEpisodes: 0, warmStart: null } as const;
const model = { layers: 1, heads: 2, width: 16 } as const;

describe("the collapse note is kept for batches that chance does not explain", () => {
  it("one success in a batch of 4, then none, is no collapse; 10% of 64 episodes, then none, is", () => {
    // A tiny run said "likely collapsed" after one update: (1 - 0.25)^4 = 0.32 of such batches have no success.
    expect(collapseLikely(0.25, 4)).toBe(false);
    expect(collapseLikely(0.1, 64)).toBe(true); // 0.9^64 = 0.0012
    expect(collapseLikely(0.5, 8)).toBe(true); // 0.5^8 = 0.004
    expect(collapseLikely(0.5, 6)).toBe(false); // 0.5^6 = 0.016
    expect(collapseLikely(1, 2)).toBe(true);
    expect(collapseLikely(0, 1000)).toBe(false);
    expect(collapseLikely(0.9, 0)).toBe(false);
  });
});

describe("train notes a setting that does not do what it is given for", () => {
  it("says that the KL reference is the fresh model when there is no init and no warm start", async () => {
    const lookup = await loadEnv("lookup");
    const lines: string[] = [];
    const out = join(dir, "fresh");
    const config = trainConfigFor(lookup, { ...tiny, algo: "grpo", klCoef: 0.1, model });
    await train({ env: lookup, config, out, log: (line) => lines.push(line) });
    expect(lines.join("\n")).toMatch(
      /klCoef \(--kl\) is 0\.1 but the run starts from a fresh model .*KL reference is that fresh model/,
    );
    rmSync(out, { recursive: true, force: true });
    // Without a KL there is nothing to say.
    const quiet: string[] = [];
    await train({ env: lookup, config: { ...config, klCoef: 0 }, out, log: (line) => quiet.push(line) });
    expect(quiet.join("\n")).not.toMatch(/KL reference/);
  }, 60_000);

  it("--no-advantage-mask alone with grpo, rloo or remax says the updates are the masked run's; not with ppo or the loss mask off", async () => {
    const lookup = await loadEnv("lookup");
    const heard = async (algo: "grpo" | "rloo" | "ppo", extra: object) => {
      const lines: string[] = [];
      const out = join(dir, `adv-${algo}-${Object.keys(extra).join("-")}`);
      const config = trainConfigFor(lookup, { ...tiny, algo, model, maskAdvantages: false, ...extra });
      await train({ env: lookup, config, out, log: (line) => lines.push(line) });
      return lines.join("\n");
    };
    const note =
      /maskAdvantages false \(--no-advantage-mask\) changes nothing for (grpo|rloo) while the loss mask is on/;
    expect(await heard("grpo", {})).toMatch(note);
    expect(await heard("rloo", {})).toMatch(note);
    expect(await heard("ppo", {})).not.toMatch(/changes nothing/);
    expect(await heard("grpo", { maskLoss: false })).not.toMatch(/changes nothing/);
  }, 60_000);
});

/**
 * REINFORCE++ puts its KL to the reference in the reward, not in the loss: metrics.jsonl's `kl` reports that
 * KL (it read 0 at every update), and PPO without the loss mask trains its critic only where GAE gave a target.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();
const dir = tempDir("agent-r1-kl-metric-");
// A fresh model under constrained decoding already succeeds on some episodes: a signal to move the policy.
const tiny = ["--env", "lookup", "--no-warm-start", "--constrained", "--tasks", "4"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--eval-episodes", "0", "--seed", "kl"];
const metrics = (run: string) =>
  readFileSync(join(run, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { kl: number; valueLoss: number; trainedTokens: number });

describe("KL and critic metrics of the ablations", () => {
  it("REINFORCE++ with --kl reports the KL in its reward: 0 before the policy moves, above 0 after", async () => {
    const run = join(dir, "rpp");
    const args = ["train", ...tiny, ...shape, "--algo", "reinforce++", "--kl", "0.1", "--steps", "3", "--out", run];
    expect(await main([...args, "--lr", "0.01"])).toBe(0);
    const kl = metrics(run).map((m) => m.kl);
    expect(Math.abs(kl[0])).toBeLessThan(1e-3);
    expect(kl[2]).toBeGreaterThan(1e-4);
  }, 120_000);

  it("PPO without the loss mask fits its critic on the same tokens as with it (where GAE gave targets)", async () => {
    const ppo = (name: string, extra: string[]) =>
      main(["train", ...tiny, ...shape, "--algo", "ppo", "--steps", "1", "--out", join(dir, name), ...extra]);
    expect(await ppo("masked", [])).toBe(0);
    expect(await ppo("unmasked", ["--no-loss-mask"])).toBe(0);
    const [masked, unmasked] = [metrics(join(dir, "masked"))[0], metrics(join(dir, "unmasked"))[0]];
    // The same episodes and the same critic before the update: the value loss agrees, while the policy terms
    // cover more tokens without the mask.
    expect(unmasked.trainedTokens).toBeGreaterThan(masked.trainedTokens);
    expect(unmasked.valueLoss).toBeCloseTo(masked.valueLoss, 6);
  }, 120_000);
});

/** A tiny run folder for the viewer and plot tests: golden journals, one hostile episode, a few metrics. */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lookup } from "../../actors/lookup/index.ts";
import { record } from "../../src/cli/record.ts";
import { playing, tempDir } from "../support/index.ts";

/** Action texts that would run code if the page pasted them in as markup. */
export const HOSTILE = ["<script>window.__pwned=1</script>", '<img src=x onerror="window.__pwned=2">'];

export const metricsLine = (step: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    step,
    version: step + 1,
    episodes: 16,
    meanReturn: 0.2 + 0.1 * step,
    meanProcessReward: 0.05 * step,
    successRate: 0.25 + 0.2 * step,
    kl: 0.01 * step,
    entropy: 0.5 - 0.05 * step,
    tokensPerSecond: 1000 + 10 * step,
    valueLoss: 0,
    gradNorm: 0.3 - 0.01 * step,
    ...extra,
  });

/**
 * runs/NAME as `agent-r1 train` lays it out: config.json, metrics.jsonl (three updates and one malformed
 * line), episodes/u00000 (the expert golden journals), episodes/u00001 (the random ones and a hostile one).
 */
export const makeRunFolder = async (name = "tiny-run"): Promise<string> => {
  const run = join(tempDir("agent-r1-observe-"), name);
  mkdirSync(join(run, "episodes"), { recursive: true });
  cpSync("replays/lookup/expert", join(run, "episodes", "u00000"), { recursive: true });
  cpSync("replays/lookup/random", join(run, "episodes", "u00001"), { recursive: true });
  await record({
    env: lookup,
    policy: playing([...HOSTILE, "<answer>none</answer>"]),
    episodes: 1,
    seed: "hostile",
    out: join(run, "episodes", "u00001"),
    concurrency: 1,
    durability: "none",
    quiet: true,
  });
  writeFileSync(join(run, "config.json"), `${JSON.stringify({ env: "lookup", algo: "grpo", steps: 3 }, null, 2)}\n`);
  writeFileSync(
    join(run, "metrics.jsonl"),
    `${metricsLine(0)}\n${metricsLine(1)}\n{"step": 2, "vers\n${metricsLine(2)}\n`,
  );
  return run;
};

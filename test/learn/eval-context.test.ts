/**
 * eval says when episodes outgrew the model's context: hopqa with `top-k=10` shows up to ten passages per search,
 * and a 4-hop episode then runs past the shipped checkpoints' 384 tokens, so later actions were sampled without
 * the question. Before, the summary said nothing (only train counted `cutToContext`). Runs the CLI in process.
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { describeEval } from "../../src/learn/evaluate.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();
const evalJson = async (env: string) => {
  output.clear();
  const code = await main([
    "eval",
    "--env",
    env,
    "--checkpoint",
    "docs/checkpoints/hopqa-best",
    "--constrained",
    "--episodes",
    "4",
  ]);
  expect(code, output.stderr).toBe(0);
  return { summary: JSON.parse(output.stdout.trim().split("\n").at(-1) as string), stderr: output.stderr };
};

describe("eval and the model's context", () => {
  it("counts the episodes that outgrew it and warns; none at the benchmark's top-2", async () => {
    const wide = await evalJson("hopqa?top-k=10&world-seed=5&split=ood");
    expect(wide.summary.cutContext).toBeGreaterThan(0);
    expect(wide.stderr).toMatch(/warning: .*\d+ episodes? outgrew the model's context: later actions were sampled/);
    const plain = await evalJson("hopqa?world-seed=5&split=ood");
    expect(plain.summary.cutContext).toBe(0);
    expect(plain.stderr).not.toContain("outgrew");
  }, 120_000);

  it("describeEval names them", () => {
    const summary = { episodes: 4, successRate: 0.5, meanReturn: 0.2, meanTurns: 3, metrics: {}, aborted: 0 };
    expect(describeEval({ ...summary, cutContext: 1 })).toContain("; 1 episode outgrew the model's context");
    expect(describeEval({ ...summary, cutContext: 0 })).not.toContain("outgrew");
  });
});

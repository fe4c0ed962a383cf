/**
 * eval's line on stderr is a person's summary: what was evaluated (the checkpoint, the environment with its split
 * and worlds, the episodes and their seed), then the scores; stdout stays the JSON summary.
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();
const WARM = "docs/checkpoints/hopqa-copy-warm-start";

describe("eval's summary line on stderr", () => {
  it("says what was evaluated before the scores, and stdout is the JSON summary", async () => {
    // An action budget of one token cuts every action: a warning, with the scores.
    const args = ["eval", "--checkpoint", WARM, "--split", "test", "--episodes", "2", "--max-new-tokens", "1"];
    expect(await main(args)).toBe(0);
    const line = output.stderr.split("\n").find((l) => l.startsWith("warning: "));
    // Before, the line began with the scores: "warning: success 0.000, exact match 0.000, ...".
    expect(line).toMatch(
      new RegExp(
        `^warning: eval of ${WARM} \\(version 0\\) on hopqa, split test, worlds 1-1000, 2 episodes of seed "eval": ` +
          "success \\d\\.\\d{3}, exact match \\d\\.\\d{3}, F1 \\d\\.\\d{3}, mean return -?\\d\\.\\d{3}; \\d+ actions cut at the sampler's token budget",
      ),
    );
    const summary = JSON.parse(output.stdout.trim());
    expect(summary).toMatchObject({ env: "hopqa", split: "test", checkpoint: WARM, seed: "eval", episodes: 2 });
    expect(summary.cutActions).toBeGreaterThan(0);
  }, 60_000);
});

/** The shipped warm start of `npm run experiment -- --possessive`: what a user evaluates or starts the table from. */
import { describe, expect, it } from "vitest";
import { runCli } from "../support/index.ts";

const SHIPPED = "docs/checkpoints/hopqa-possessive-warm-start";
const last = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1) as string);

describe(SHIPPED, () => {
  it("is found as the possessive variant without --env, and answers under the variant's grammar", async () => {
    const alone = await runCli("eval", "--checkpoint", SHIPPED, "--split", "test", "--episodes", "2");
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).toContain(`hopqa?wording=possessive, whose tokenizer ${SHIPPED} carries`);
    const run = await runCli(
      "eval",
      "--env",
      "hopqa?wording=possessive&legal=relations",
      "--checkpoint",
      SHIPPED,
      "--constrained",
      "--split",
      "test",
      "--episodes",
      "12",
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = last(run.stdout);
    expect(summary).toMatchObject({ constrained: true, episodes: 12 });
    // A weak clone (about 0.4 on test): it gets some questions right, not all of them.
    expect(summary.metrics.em).toBeGreaterThan(0);
    expect(summary.metrics.em).toBeLessThan(1);
  }, 120_000);
});

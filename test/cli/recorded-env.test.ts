/**
 * A checkpoint that records the environment it was made under (its run's config.json, its clone's sft.json, its
 * average's average.json): eval's hint for another tokenizer names that environment, an --env of another variant
 * is said, and select refuses candidates of other environments than the one it found.
 */
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();
/** Shipped: select's pick of recipe:left, whose average.json records the left variant. */
const PICK = "docs/checkpoints/hopqa-left-recipe-pick";
const LEFT = "hopqa?left=phrases&legal=relations&wording=possessive";
/** Shipped without a record: only its tokenizer (wording=possessive) says its environment. */
const BARE = "docs/checkpoints/hopqa-left-grpo-30";

describe("a checkpoint's recorded environment", () => {
  it("eval --env of another tokenizer: the --env to pass is the recorded one (it was the tokenizer's variant alone)", async () => {
    output.clear();
    expect(await main(["eval", "--env", "hopqa", "--checkpoint", PICK, "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(
      `this checkpoint's tokenizer is hopqa's wording=possessive one: pass --env '${LEFT}' (with the options ${PICK}/average.json records)`,
    );
    // Options typed stay in the --env to pass, over the recorded ones.
    output.clear();
    expect(await main(["eval", "--env", "hopqa?top-k=3&split=ood", "--checkpoint", PICK, "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(
      "pass --env 'hopqa?left=phrases&legal=relations&top-k=3&split=ood&wording=possessive'",
    );
  });

  it("eval --env of another variant with the same tokenizer is scored, and said (it scored 0.04 for 0.71 unsaid)", async () => {
    output.clear();
    const args = [
      "eval",
      "--env",
      "hopqa?wording=possessive",
      "--checkpoint",
      PICK,
      "--split",
      "ood",
      "--episodes",
      "1",
    ];
    expect(await main(args), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `warning: ${PICK} was made under --env '${LEFT}' (${PICK}/average.json), not --env 'hopqa?wording=possessive': it is scored under the --env given; leave --env out to score it under its own`,
    );
    // Its own environment, typed in another order and with questions chosen: nothing to say.
    output.clear();
    const same = "hopqa?wording=possessive&legal=relations&left=phrases&split=ood";
    expect(await main(["eval", "--env", same, "--checkpoint", PICK, "--episodes", "1"]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("was made under");
    // Nor with an option at its default value spelt out (the options in effect are the same).
    output.clear();
    const spelt = `${same}&top-k=2`;
    expect(await main(["eval", "--env", spelt, "--checkpoint", PICK, "--episodes", "1"]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("was made under");
  }, 60_000);

  it("select refuses a candidate made under another environment than the one found from its first", async () => {
    output.clear();
    const args = ["select", BARE, PICK, "--split", "ood", "--world-seed", "2000001-2000200", "--episodes", "1"];
    expect(await main(args)).toBe(2);
    expect(output.stderr).toContain(
      `${PICK} was made under --env '${LEFT}' (${PICK}/average.json), not --env 'hopqa?wording=possessive', the environment select found from its first candidate: select scores every candidate on one environment; give candidates of one environment, or --env`,
    );
    expect(output.stderr).not.toContain("em ");
  });
});

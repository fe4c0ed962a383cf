/**
 * `npm run recipe:left`: every step of the left variant's ood recipe at toy size (clones, their development scores,
 * RL from the best, select, fresh scores), a summary whose numbers are the commands' own, a second sitting that keeps
 * every finished step, and the full recipe's commands being the ones its measured runs used (docs/hopqa.md).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commandsOf, FULL_RECIPE, recipeMain } from "../../actors/hopqa/left-recipe.ts";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

describe("npm run recipe:left", () => {
  it("runs every step, keeps the clone best on the development set, and a second sitting redoes nothing", async () => {
    const out = join(tempDir("agent-r1-recipe-"), "recipe");
    // The clones as cloned (--no-soup-clones): the steps of the recipe before its clones were souped.
    expect(await recipeMain(["--quick", "--no-soup-clones", "--clones", "q1,q2", "--keep", "1", "--out", out])).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).soupClones).toBe(false);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.clones.map((c: { seed: string }) => c.seed)).toEqual(["q1", "q2"]);
    // The clone trained is the better on the development set (the first given on a tie).
    const [q1, q2] = summary.clones.map((c: { dev: number }) => c.dev);
    expect(summary.trained).toEqual([q2 > q1 ? "q2" : "q1"]);
    const run = summary.trained[0];
    expect(summary.pick.run).toBe(run);
    expect(existsSync(join(summary.pick.checkpoint, "manifest.json"))).toBe(true);
    // The development score is select's, and the fresh scores are eval's of the pick on the same questions.
    const selected = JSON.parse(readFileSync(join(out, `rl-${run}`, "select.json"), "utf8"));
    expect(summary.pick.dev).toBe(selected.pick.score);
    output.clear();
    const fresh = ["--split", "ood", "--world-seed", "1000001-1000200", "--seed", "fresh-ood", "--episodes", "2"];
    expect(await main(["eval", "--checkpoint", summary.pick.checkpoint, ...fresh])).toBe(0);
    expect(JSON.parse(output.stdout).exactMatch).toBe(summary.fresh.ood);
    // Each clone's test against the cap (a toy clone's is far under it), in the summary beside its development score.
    expect(summary.testCap).toBe(0.75);
    for (const clone of summary.clones) expect(clone.test).toBeLessThanOrEqual(0.75);
    for (const step of [
      "record",
      "clone-q1-1",
      "clone-q1-2",
      "dev-clone-q2",
      "test-clone-q1",
      `train-${run}`,
      `select-${run}`,
      "fresh-test",
    ])
      expect(summary.minutes[step], step).toBeGreaterThan(0);
    // Again: every step is there, so none runs, and the summary says the same.
    const lines: string[] = [];
    const { runRecipe, QUICK_RECIPE } = await import("../../actors/hopqa/left-recipe.ts");
    const plan = { ...QUICK_RECIPE, clones: ["q1", "q2"], keep: 1 };
    expect(await runRecipe(plan, out, 2, (line) => lines.push(line))).toBe(0);
    expect(lines.filter((line) => line.endsWith(".log)"))).toEqual([]);
    expect(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")).pick).toEqual(summary.pick);
    // The last line gives each fresh score with its standard error (300 questions: about 0.026 near 0.7).
    const { shownWithError } = await import("../../actors/hopqa/left-recipe.ts");
    expect(lines.at(-1)).toContain(
      `ood ${shownWithError(summary.fresh.ood, 2)}, test ${shownWithError(summary.fresh.test, 2)} on 2 fresh questions each of worlds 1000001-1000200 (± one standard error)`,
    );
    // A clone over the test cap is not trained, whatever its development score; with none under it, nothing is.
    const capped: string[] = [];
    expect(await runRecipe({ ...plan, testCap: -1 }, out, 2, (line) => capped.push(line))).toBe(1);
    expect(capped.join("\n")).toContain(
      "over the test cap -1 (a warm start must leave the gap): q1, q2, not trained; training none",
    );
    expect(capped.at(-1)).toBe("recipe: every clone scored above the test cap -1: clone at other seeds (--clones)");
    expect(shownWithError(0.7, 300)).toBe("0.700 ± 0.026");
    expect(shownWithError(1, 300)).toBe("1.000 ± 0.000");
  }, 240_000);

  it("by default scores and trains each clone's soup with itself cloned longer; a folder of the other kind is refused", async () => {
    const out = join(tempDir("agent-r1-recipe-soups-"), "recipe");
    expect(await recipeMain(["--quick", "--clones", "q1", "--keep", "1", "--out", out])).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.soupClones).toBe(true);
    const soup = join(out, "clone-q1", "soup");
    // The soup averages the clone and its longer self, and is what the development set scored and RL started from.
    expect(JSON.parse(readFileSync(join(soup, "average.json"), "utf8")).checkpoints).toEqual([
      join(out, "clone-q1", "clone"),
      join(out, "clone-q1", "longer"),
    ]);
    expect(readFileSync(join(out, "logs", "dev-clone-q1.log"), "utf8")).toContain(`--checkpoint ${soup} `);
    expect(JSON.parse(readFileSync(join(out, "rl-q1", "config.json"), "utf8")).init).toBe(soup);
    for (const step of ["clone-q1-3", "clone-q1-4"]) expect(summary.minutes[step], step).toBeGreaterThan(0);
    // The same folder with --no-soup-clones: its clones' scores and runs are of soups, so it is refused; and a folder
    // of plain clones (the recipe before soups were its default) goes on only with --no-soup-clones.
    output.clear();
    expect(await recipeMain(["--quick", "--no-soup-clones", "--clones", "q1", "--keep", "1", "--out", out])).toBe(2);
    expect(output.stderr).toContain(
      `error: ${out} holds a recipe run whose clones are souped (the default): go on without --no-soup-clones, or give another --out`,
    );
    const plain = join(tempDir("agent-r1-recipe-plain-"), "recipe");
    mkdirSync(plain, { recursive: true });
    writeFileSync(join(plain, "cloning.json"), JSON.stringify({ soupClones: false }));
    output.clear();
    expect(await recipeMain(["--quick", "--clones", "q1", "--keep", "1", "--out", plain])).toBe(2);
    expect(output.stderr).toContain(
      `error: ${plain} holds a recipe run whose clones are not souped (run with --no-soup-clones, or before souping was the default): go on with --no-soup-clones, or give another --out`,
    );
  }, 240_000);

  it("refuses a --keep above the clones and a cloning seed given twice", async () => {
    output.clear();
    expect(await recipeMain(["--clones", "a,b", "--keep", "3"])).toBe(2);
    expect(output.stderr).toContain("error: --keep 3 is more than the 2 clones of --clones");
    output.clear();
    expect(await recipeMain(["--clones", "a,a"])).toBe(2);
    expect(output.stderr).toContain("a comma-separated list of distinct cloning seeds");
  });

  it("the full recipe runs the commands of the measured runs (docs/hopqa.md: the left runs' clones and 60 updates)", () => {
    const c = commandsOf({ ...FULL_RECIPE, clones: ["k"], keep: 1 }, "O");
    const flags = (args: readonly string[]) => args.join(" ");
    expect(flags(c.record)).toBe(
      "record --env hopqa?left=phrases&legal=relations&wording=possessive&worlds=1-200 --policy sloppy --episodes 800 --seed 0 --out O/demos",
    );
    const [first, second] = c.clone("k").steps.map(flags);
    for (const flag of ["--copy-head", "--curriculum 1:300,2:200", "--epochs 2", "--lr 0.003", "--batch-size 16"])
      expect(first).toContain(flag);
    for (const flag of ["--all-episodes", "--seed k", "--position-offsets mixed", "--attention turn-local"])
      expect(first).toContain(flag);
    expect(second).toContain("--init O/clone-k/first --epochs 2 --seed k");
    expect(second).not.toContain("--curriculum");
    expect(flags(c.train("k"))).toBe(
      "train --env hopqa?left=phrases&legal=relations&wording=possessive --init O/clone-k/clone --constrained --algo reinforce++-baseline --steps 60 --tasks 8 --group-size 8 --temperature 2 --minibatches 4 --lr 0.0003 --kl 0.05 --seed 0 --checkpoint-every 10 --eval-episodes 0 --out O/rl-k",
    );
    expect(flags(c.select("k"))).toBe(
      "select O/rl-k --soup 3 --split ood --world-seed 2000001-2000200 --seed val-ood --constrained --episodes 300 --out O/pick-k",
    );
  });
});

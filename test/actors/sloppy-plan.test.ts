/**
 * `npm run experiment -- --sloppy`: the possessive variant's table from the sloppy demonstrator's clone. Its
 * recipe is the one docs/hopqa.md ran by hand ("A sloppy demonstrator, wrong at the last step only"), its
 * folders are its own, and the possessive plan's folders (same variant, the expert's clone) are refused.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkRecipe, pagePlanOf, planRecipe, selectPlan } from "../../actors/hopqa/experiment.ts";
import { POSSESSIVE_WARM_START, recipeEnvSpec, SLOPPY_WARM_START } from "../../actors/hopqa/warm-start.ts";
import { tempDir } from "../support/index.ts";

afterEach(() => {
  selectPlan({});
});

describe("the --sloppy plan", () => {
  it("clones the documented commands' recipe and trains 30 updates sampled as --explore", () => {
    expect(selectPlan({ sloppy: true })).toBe("sloppy");
    const w = planRecipe();
    expect(w).toBe(SLOPPY_WARM_START);
    // record --env "hopqa?worlds=1-200&wording=possessive&legal=relations" --policy sloppy --episodes 800 --seed 0
    expect([w.demonstrator, w.demos, w.demoWorlds, w.demoSeed]).toEqual(["sloppy", 800, "1-200", "0"]);
    expect(recipeEnvSpec(w)).toBe("hopqa?legal=relations&wording=possessive");
    // sft --copy-head --curriculum 1:300,2:200 --epochs 2 --lr 0.003 --batch-size 16 --all-episodes --seed r
    //   --position-offsets mixed --attention turn-local; then --init it --epochs 2 --seed r
    expect(w).toMatchObject({
      copy: true,
      curriculum: [
        { actions: 1, steps: 300 },
        { actions: 2, steps: 200 },
      ],
      sftEpochs: 2,
      lr: 0.003,
      batchSize: 16,
      allEpisodes: true,
      sftSeed: "r",
      positionOffsets: "mixed",
      attention: "turn-local",
      more: { epochs: 2, seed: "r" },
      shipped: "docs/checkpoints/hopqa-sloppy-warm-start",
    });
    expect(pagePlanOf()).toMatchObject({ steps: 30, tasksPerStep: 8, groupSize: 8, temperature: 2, minibatches: 4 });
    expect(pagePlanOf().demonstrator).toBe("sloppy");
  });

  it("is a plan of its own: --possessive (or another plan's flag) with it is refused, naming the flag", () => {
    expect(() => selectPlan({ sloppy: true, possessive: true })).toThrow(
      "--possessive is a plan of its own (its warm start, 30 updates sampled as --explore): drop --sloppy",
    );
    expect(() => selectPlan({ sloppy: true, hasty: true })).toThrow(
      "--sloppy is a plan of its own (its warm start, 30 updates sampled as --explore): drop --hasty",
    );
    expect(() => selectPlan({ sloppy: true, explore: true })).toThrow("drop --explore");
  });

  it("refuses the possessive plan's folder (the same variant, the expert's clone) and the other way round", () => {
    const root = tempDir("agent-r1-sloppy-plan-");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "recipe.json"), JSON.stringify(POSSESSIVE_WARM_START));
    selectPlan({ sloppy: true });
    expect(() => checkRecipe(root)).toThrow(
      `${root} holds a warm start cloned from the expert demonstrator, not the sloppy: give this experiment its own --out`,
    );
    writeFileSync(join(root, "recipe.json"), JSON.stringify(SLOPPY_WARM_START));
    expect(() => checkRecipe(root)).not.toThrow();
    selectPlan({ possessive: true });
    expect(() => checkRecipe(root)).toThrow("cloned from the sloppy demonstrator, not the expert");
  });

  it("its --quick plan keeps the recipe's demonstrator, variant and attention at toy sizes, shipped as nothing", () => {
    selectPlan({ sloppy: true, quick: true });
    const w = planRecipe();
    expect(w).toMatchObject({
      demonstrator: "sloppy",
      allEpisodes: true,
      attention: "turn-local",
      positionOffsets: "mixed",
      more: { epochs: 1, seed: "r" },
    });
    expect(w.demos).toBeLessThan(SLOPPY_WARM_START.demos);
    expect(w.shipped).toBeUndefined();
    expect(recipeEnvSpec(w)).toBe("hopqa?legal=relations&wording=possessive");
  });
});

/**
 * `npm run experiment -- --left`: the sloppy recipe on the variant whose search observations end with the
 * question's phrases not yet searched. Its recipe is the commands docs/hopqa.md ran by hand ("The question's
 * phrases left"), its folders are its own, and the sloppy plan's folders (same demonstrator, no note) are refused.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkRecipe, pagePlanOf, planRecipe, selectPlan } from "../../actors/hopqa/experiment.ts";
import { LEFT_WARM_START, recipeEnvSpec, SLOPPY_WARM_START } from "../../actors/hopqa/warm-start.ts";
import { tempDir } from "../support/index.ts";

afterEach(() => {
  selectPlan({});
});

describe("the --left plan", () => {
  it("clones the documented commands' recipe on left=phrases and trains 30 updates sampled as --explore", () => {
    expect(selectPlan({ left: true })).toBe("left");
    const w = planRecipe();
    expect(w).toBe(LEFT_WARM_START);
    // record --env "hopqa?worlds=1-200&wording=possessive&legal=relations&left=phrases" --policy sloppy --episodes 800 --seed 0
    expect([w.demonstrator, w.demos, w.demoWorlds, w.demoSeed]).toEqual(["sloppy", 800, "1-200", "0"]);
    expect(recipeEnvSpec(w)).toBe("hopqa?left=phrases&legal=relations&wording=possessive");
    // sft ... --seed s (as the sloppy recipe), then --init it --epochs 2 --seed s
    expect(w).toMatchObject({
      copy: true,
      sftEpochs: 2,
      allEpisodes: true,
      sftSeed: "s",
      positionOffsets: "mixed",
      attention: "turn-local",
      more: { epochs: 2, seed: "s" },
      shipped: "docs/checkpoints/hopqa-left-warm-start",
    });
    expect(pagePlanOf()).toMatchObject({
      steps: 30,
      tasksPerStep: 8,
      groupSize: 8,
      temperature: 2,
      minibatches: 4,
      env: "hopqa?left=phrases&legal=relations&wording=possessive",
    });
  });

  it("is a plan of its own: another variant's flag with it is refused, naming the flag", () => {
    expect(() => selectPlan({ left: true, sloppy: true })).toThrow(
      "--sloppy is a plan of its own (its warm start, 30 updates sampled as --explore): drop --left",
    );
    expect(() => selectPlan({ left: true, possessive: true })).toThrow("drop --left");
    expect(() => selectPlan({ left: true, long: true })).toThrow(
      "--left is a plan of its own (its warm start, 30 updates sampled as --explore): drop --long",
    );
  });

  it("refuses the sloppy plan's folder (the same demonstrator without the note) and the other way round", () => {
    const root = tempDir("agent-r1-left-plan-");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "recipe.json"), JSON.stringify(SLOPPY_WARM_START));
    selectPlan({ left: true });
    expect(() => checkRecipe(root)).toThrow(
      `${root} holds a warm start cloned on hopqa?legal=relations&wording=possessive, not hopqa?left=phrases&legal=relations&wording=possessive`,
    );
    writeFileSync(join(root, "recipe.json"), JSON.stringify(LEFT_WARM_START));
    expect(() => checkRecipe(root)).not.toThrow();
    selectPlan({ sloppy: true });
    expect(() => checkRecipe(root)).toThrow("cloned on hopqa?left=phrases&legal=relations&wording=possessive");
  });

  it("its --quick plan keeps the variant and the demonstrator at toy sizes, shipped as nothing", () => {
    selectPlan({ left: true, quick: true });
    const w = planRecipe();
    expect(w).toMatchObject({ demonstrator: "sloppy", allEpisodes: true, more: { epochs: 1, seed: "s" } });
    expect(w.demos).toBeLessThan(LEFT_WARM_START.demos);
    expect(w.shipped).toBeUndefined();
    expect(recipeEnvSpec(w)).toBe("hopqa?left=phrases&legal=relations&wording=possessive");
  });
});

/**
 * Which shipped checkpoint each warm-start recipe names (the pages offer `--warm-start` it, and `npm start`
 * starts from it): a field of the recipe. A recipe spread from another with other values (the --quick plans'
 * toy clones) names none, so a page never says a toy clone ships as the full recipe's checkpoint.
 */
import { afterEach, describe, expect, it } from "vitest";
import { planRecipe, selectPlan } from "../../actors/hopqa/experiment.ts";
import {
  COPY_WARM_START,
  HALF_HASTY_WARM_START,
  HASTY_WARM_START,
  LEFT_WARM_START,
  POSSESSIVE_WARM_START,
  SLOPPY_WARM_START,
  WARM_START,
} from "../../actors/hopqa/warm-start.ts";

afterEach(() => {
  selectPlan({});
});

describe("the shipped checkpoint of each recipe", () => {
  it("each recipe names its own, as before the field (the expert's without the copy head ships none)", () => {
    expect(
      Object.fromEntries(
        Object.entries({
          WARM_START,
          COPY_WARM_START,
          HASTY_WARM_START,
          HALF_HASTY_WARM_START,
          POSSESSIVE_WARM_START,
          SLOPPY_WARM_START,
          LEFT_WARM_START,
        }).map(([name, recipe]) => [name, recipe.shipped]),
      ),
    ).toEqual({
      WARM_START: undefined,
      COPY_WARM_START: "docs/checkpoints/hopqa-copy-warm-start",
      HASTY_WARM_START: "docs/checkpoints/hopqa-hasty-warm-start",
      HALF_HASTY_WARM_START: "docs/checkpoints/hopqa-half-hasty-12-warm-start",
      POSSESSIVE_WARM_START: "docs/checkpoints/hopqa-possessive-warm-start",
      SLOPPY_WARM_START: "docs/checkpoints/hopqa-sloppy-warm-start",
      LEFT_WARM_START: "docs/checkpoints/hopqa-left-warm-start",
    });
  });

  it("each plan of npm run experiment names its recipe's; the --quick plans' toy clones name none", () => {
    const plans: [Parameters<typeof selectPlan>[0], string | undefined][] = [
      [{}, "docs/checkpoints/hopqa-copy-warm-start"],
      [{ explore: true }, "docs/checkpoints/hopqa-copy-warm-start"],
      [{ long: true }, "docs/checkpoints/hopqa-copy-warm-start"],
      [{ copyHead: false }, undefined],
      [{ hasty: true }, "docs/checkpoints/hopqa-hasty-warm-start"],
      [{ halfHasty: true }, "docs/checkpoints/hopqa-half-hasty-12-warm-start"],
      [{ possessive: true }, "docs/checkpoints/hopqa-possessive-warm-start"],
      [{ sloppy: true }, "docs/checkpoints/hopqa-sloppy-warm-start"],
      [{ left: true }, "docs/checkpoints/hopqa-left-warm-start"],
    ];
    for (const [flags, shipped] of plans) {
      selectPlan(flags);
      expect(planRecipe().shipped, JSON.stringify(flags)).toBe(shipped);
      selectPlan({ ...flags, quick: true });
      expect(planRecipe().shipped, JSON.stringify({ ...flags, quick: true })).toBeUndefined();
    }
  });
});

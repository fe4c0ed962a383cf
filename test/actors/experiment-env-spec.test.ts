/**
 * The experiment's env spec is spelled one way (options sorted by key, as journals record them), while the
 * records committed before (docs/possessive's plan.json, run folders' config.json, recipe.json) say the recipe's
 * order: every check compares specs whatever their order, and still refuses other options, naming both.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  checkPagePlan,
  checkPlanMatches,
  checkRecipe,
  pagePlanOf,
  runExperiment,
  runSpecs,
  selectPlan,
} from "../../actors/hopqa/experiment.ts";
import { planDifferences, samePlan } from "../../actors/hopqa/run-records.ts";
import { POSSESSIVE_WARM_START, recipeEnvSpec } from "../../actors/hopqa/warm-start.ts";
import { canonicalJson } from "../../src/kernel/canonical.ts";
import { canonicalEnvSpec, sameEnvSpec } from "../../src/runtime/env.ts";
import { runCaptured, tempDir } from "../support/index.ts";

const RECIPE_ORDER = "hopqa?wording=possessive&legal=relations";
const SORTED = "hopqa?legal=relations&wording=possessive";
const OTHER = "hopqa?wording=possessive&legal=types";
const writeJson = (file: string, value: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};

afterEach(() => {
  selectPlan({});
});

describe("env specs of the experiment's records", () => {
  it("one spelling: the recipe's options sorted by key; specs compare whatever their order, not their values", () => {
    expect(recipeEnvSpec(POSSESSIVE_WARM_START)).toBe(SORTED);
    expect(canonicalEnvSpec(RECIPE_ORDER)).toBe(SORTED);
    expect(canonicalEnvSpec("hopqa")).toBe("hopqa");
    expect(canonicalEnvSpec("hopqa?")).toBe("hopqa");
    expect(sameEnvSpec(RECIPE_ORDER, SORTED)).toBe(true);
    expect(sameEnvSpec(RECIPE_ORDER, OTHER)).toBe(false);
    expect(sameEnvSpec(SORTED, "hopqa")).toBe(false);
    expect(sameEnvSpec(SORTED, "lookup?legal=relations&wording=possessive")).toBe(false);
  });

  it("a run folder's config.json in the other order is the plan's; other options are refused, naming both", () => {
    selectPlan({ possessive: true });
    const root = tempDir("agent-r1-env-spec-runs-");
    const spec = runSpecs(1)[0];
    const plan = { ...pagePlanOf() };
    writeJson(join(root, spec.name, "config.json"), { ...plan, env: RECIPE_ORDER });
    expect(() => checkPlanMatches(root, [spec])).not.toThrow();
    writeJson(join(root, spec.name, "config.json"), { ...plan, env: OTHER });
    expect(() => checkPlanMatches(root, [spec])).toThrow(
      `${join(root, spec.name)} was trained with another plan (env ${OTHER}, not ${SORTED})`,
    );
  });

  it("a page's plan.json in the other order is the plan's; other options are refused, naming both", () => {
    selectPlan({ possessive: true });
    const docs = tempDir("agent-r1-env-spec-docs-");
    writeJson(join(docs, "run-records", "plan.json"), { ...pagePlanOf(), env: RECIPE_ORDER });
    expect(() => checkPagePlan(docs)).not.toThrow();
    writeJson(join(docs, "run-records", "plan.json"), { ...pagePlanOf(), env: OTHER });
    expect(() => checkPagePlan(docs)).toThrow(`is the page of another plan (env ${OTHER}, not ${SORTED};`);
  });

  it("a recipe.json of the variant in the other order is its recipe; other options are refused, naming both", () => {
    selectPlan({ possessive: true });
    const root = tempDir("agent-r1-env-spec-recipe-");
    writeJson(join(root, "recipe.json"), {
      ...POSSESSIVE_WARM_START,
      env: { wording: "possessive", legal: "relations" },
    });
    expect(() => checkRecipe(root)).not.toThrow();
    writeJson(join(root, "recipe.json"), { ...POSSESSIVE_WARM_START, env: { wording: "possessive", legal: "types" } });
    expect(() => checkRecipe(root)).toThrow(
      `${root} holds a warm start cloned on hopqa?legal=types&wording=possessive, not ${SORTED}`,
    );
  });

  it("a page's plan is the plan when every key is, compared as a record's are: whole, an env in any order", () => {
    selectPlan({ possessive: true });
    const plan = pagePlanOf();
    expect(samePlan({ ...plan, env: RECIPE_ORDER }, plan)).toBe(true);
    expect(samePlan({ ...plan, env: OTHER }, plan)).toBe(false);
    // A record may lack a key added since (planDifferences passes over it); a page that lacks one is written again.
    const { demos: _, ...lacking } = plan;
    expect(planDifferences(lacking, plan)).toEqual([]);
    expect(samePlan(lacking, plan)).toBe(false);
    expect(samePlan({ ...plan, extra: 1 }, plan)).toBe(false);
    // What --report kept before (its own compare: canonical JSON, the env canonical), for any plans.
    const before = (a: Record<string, unknown>, b: Record<string, unknown>) => {
      const canonical = (p: Record<string, unknown>) =>
        canonicalJson(typeof p.env === "string" ? { ...p, env: canonicalEnvSpec(p.env) } : p);
      return canonical(a) === canonical(b);
    };
    const value = fc.oneof(
      fc.constantFrom(0, 1, -0, 15, 0.5, true, false, "expert", "hopqa", RECIPE_ORDER, SORTED, OTHER),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string(),
    );
    const planOf = fc.dictionary(fc.constantFrom("env", "steps", "demos", "copyHead", "demonstrator"), value);
    fc.assert(
      fc.property(planOf, planOf, fc.constantFrom("copy", "reordered", "other"), (a, b, how) => {
        const other =
          how === "copy" ? { ...a } : how === "reordered" ? { ...a, env: a.env === SORTED ? RECIPE_ORDER : SORTED } : b;
        expect(samePlan(a, other)).toBe(before(a, other));
      }),
      { numRuns: 300 },
    );
  });

  it("--report keeps a page's plan.json written in the other order, and the page says the env as it does", async () => {
    const report = (docs: string) =>
      runCaptured(() => runExperiment(["--possessive", "--report", "--out", join(tempDir(), "none"), "--docs", docs]));
    // A run of the committed table, recorded.
    const recorded = (docs: string) =>
      cpSync("docs/possessive/run-records/grpo-s0.json", join(docs, "run-records", "grpo-s0.json"));
    const fresh = tempDir("agent-r1-env-spec-fresh-");
    recorded(fresh);
    const first = await report(fresh);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(fresh, "run-records", "plan.json"), "utf8")).env).toBe(SORTED);
    expect(readFileSync(join(fresh, "results.md"), "utf8")).toContain(`- Environment: \`${SORTED}\``);

    const old = tempDir("agent-r1-env-spec-old-");
    selectPlan({ possessive: true });
    writeJson(join(old, "run-records", "plan.json"), { ...pagePlanOf(), env: RECIPE_ORDER });
    recorded(old);
    const written = readFileSync(join(old, "run-records", "plan.json"), "utf8");
    expect((await report(old)).code).toBe(0);
    expect(readFileSync(join(old, "run-records", "plan.json"), "utf8")).toBe(written);
    const page = readFileSync(join(old, "results.md"), "utf8");
    expect(page).toContain(`- Environment: \`${RECIPE_ORDER}\``);
    expect(page).toContain(`, on \`${RECIPE_ORDER}\``);
    expect(page).not.toContain(SORTED);
  }, 60_000);
});

/** hopqa's failure diagnosis: the first step of an episode that leaves the question's gold chain. */
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diagnose } from "../../actors/hopqa/failures.ts";
import {
  drawQuestion,
  expertQueries,
  RELATION_NAMES,
  RELATIONS,
  type Relation,
  solveQuestion,
  worldOf,
} from "../../actors/hopqa/index.ts";
import { withoutItsOptimizer } from "../support/no-optimizer.ts";

const search = (q: string) => `<search>${q}</search>`;
const answer = (a: string) => `<answer>${a}</answer>`;
const tasks = fc
  .tuple(fc.constantFrom("test", "ood" as const), fc.integer({ min: 1, max: 50 }), fc.nat({ max: 999 }))
  .map(([split, world, seed]) => drawQuestion(worldOf(String(world)).world, split, `d${seed}`));

describe("diagnose", () => {
  it("the expert's episode is right, or a wrong answer after the chain when its answer did not match", () => {
    fc.assert(
      fc.property(tasks, (task) => {
        const gold = solveQuestion(worldOf(task.world).world, task);
        const actions = [...expertQueries(task).map(search), answer(gold.answer)];
        expect(diagnose(task, actions, 1)).toEqual({ kind: "right" });
        expect(diagnose(task, actions, 0)).toEqual({ kind: "wrong answer after the chain" });
        expect(diagnose(task, [...expertQueries(task).map(search), search("x")], 0).kind).toBe(
          "searched past the chain",
        );
      }),
      { numRuns: 30 },
    );
  });

  it("names the first search that leaves the chain, and what was wrong in it", () => {
    fc.assert(
      fc.property(tasks, fc.nat(), (task, pick) => {
        const world = worldOf(task.world).world;
        const gold = solveQuestion(world, task);
        const hop = pick % task.chain.length;
        const relation = task.chain[hop] as Relation;
        const before = expertQueries(task).slice(0, hop).map(search);
        const entity = gold.path[hop];
        // Another entity, or another relation word of the same entity type.
        const other = world.entities.find((e) => e.name !== entity && !e.name.includes(entity))?.name as string;
        const otherRelation = RELATION_NAMES.find(
          (r) => r !== relation && RELATIONS[r].from === RELATIONS[relation].from,
        );
        expect(diagnose(task, [...before, search(`${other} ${RELATIONS[relation].keyword}`)], 0)).toEqual({
          kind: "wrong entity",
          at: hop + 1,
        });
        if (otherRelation)
          expect(diagnose(task, [...before, search(`${entity} ${RELATIONS[otherRelation].keyword}`)], 0)).toEqual({
            kind: "wrong relation",
            at: hop + 1,
          });
        expect(diagnose(task, [...before, answer(entity)], 0)).toEqual({ kind: "answered early", at: hop + 1 });
        expect(diagnose(task, [...before, "gibberish"], 0)).toEqual({ kind: "malformed or ended early", at: hop + 1 });
        expect(diagnose(task, before, 0)).toEqual({ kind: "malformed or ended early", at: hop + 1 });
      }),
      { numRuns: 50 },
    );
  });
});

describe("npm run hopqa:failures", () => {
  const run = (file: string, ...args: string[]) =>
    spawnSync(process.execPath, ["bin/run-ts.js", file, ...args], { encoding: "utf8" });

  it("takes --seed as eval --suite does: the failures of that seed's questions, not only the table's", () => {
    // Another seed's questions (the script could only count the table's, seed "suite": its 3 per column score
    // 0.67 / 1.00 / 0.00 here, f7's 0.67 / 0.67 / 0.00).
    const counted = run("scripts/hopqa-failures.ts", "docs/checkpoints/hopqa-best", "3", "--seed", "f7");
    expect(counted.status, counted.stderr).toBe(0);
    // Its progress is eval --suite's, counted in actions (a line per turn of the running episodes, at most one per
    // 2 s; it printed only ended episodes, so a long run looked stuck between their bursts): the last line says so.
    // Every episode diagnosed: each column's kinds count its 3 questions.
    const counts = counted.stdout.split(/^.*exact match.*$/m).slice(1);
    expect(counts.map((block) => [...block.matchAll(/^ +(\d+) /gm)].reduce((n, m) => n + Number(m[1]), 0))).toEqual([
      3, 3, 3,
    ]);
    expect(counted.stderr).toMatch(/^suite: 9\/9 \(\d+ actions, [^,]+, ETA 0s\) column ood-new em \d\.\d{3}$/m);
    const scored = run(
      "bin/agent-r1.js",
      "eval",
      "--checkpoint",
      "docs/checkpoints/hopqa-best",
      "--suite",
      "--constrained",
      "--episodes",
      "3",
      "--seed",
      "f7",
    );
    expect(scored.status, scored.stderr).toBe(0);
    const suite = JSON.parse(scored.stdout) as Record<string, { em: number }>;
    for (const [label, id] of [
      ["test (seen worlds)", "test-seen"],
      ["test (new worlds)", "test-new"],
      ["ood 4-hop (new worlds)", "ood-new"],
    ] as const)
      expect(counted.stdout).toContain(`${label}: exact match ${suite[id]?.em.toFixed(2)} (3 questions)`);
    const bad = run("scripts/hopqa-failures.ts", "docs/checkpoints/hopqa-best", "3", "--seed", "a b");
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("--seed must be 1 to 100 ASCII letters");
  }, 60_000);

  it("scores the shipped possessive GRPO checkpoint, and names the --env it needs when not given it", () => {
    // A copy whose manifest lists optimizer state that is not there (as docs/checkpoints/hopqa-sloppy-grpo-60 once
    // shipped): scoring needs none (eval loads it without), and the script failed on the missing optimizer.bin.
    const ckpt = withoutItsOptimizer("docs/checkpoints/hopqa-sloppy-grpo-60");
    const counted = run("scripts/hopqa-failures.ts", ckpt, "1", "--env", "hopqa?wording=possessive&legal=relations");
    expect(counted.status, counted.stderr).toBe(0);
    expect(counted.stdout).toMatch(/^ood 4-hop \(new worlds\): exact match \d\.\d\d \(1 questions\)$/m);
    // Under the default wording: the --env to pass, as eval says it, not only "another tokenizer".
    const plain = run("scripts/hopqa-failures.ts", ckpt, "1");
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain(
      "this checkpoint's tokenizer is hopqa's wording=possessive one: pass --env 'hopqa?wording=possessive'",
    );
  }, 60_000);

  it("refuses a count that is not decimal digits and an option given twice, as agent-r1 does (exit 2)", () => {
    // Number() read 0x1 as 1 and 1e1 as 10, and a count past 2^53 crashed with a stack trace.
    for (const [count, why] of [
      ["0x1", 'episodes must be a positive integer, got "0x1" (write it in decimal digits)'],
      ["99999999999999999999", 'episodes must be a positive integer below 2^53, got "99999999999999999999"'],
    ]) {
      const bad = run("scripts/hopqa-failures.ts", "docs/checkpoints/hopqa-best", count as string);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain(why);
    }
    // commander kept the last --seed, silently.
    const twice = run("scripts/hopqa-failures.ts", "docs/checkpoints/hopqa-best", "1", "--seed", "1", "--seed", "2");
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain("error: --seed given twice (1, 2): give it once");
  }, 60_000);
});

/**
 * hopqa's `left` option: `left=phrases` ends each search's observation with the question's phrases not yet searched,
 * in the question's order (`search for : 's employer , 's birthplace .`). The default observations must stay the
 * benchmark's; the note must follow the relations the agent's searches used, whatever it searched.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  expertQueries,
  type HopqaTask,
  hopQueries,
  hopqa,
  leftNote,
  PHRASES_OF,
  parseOptions,
  RELATIONS,
  type Relation,
  solveQuestion,
  worldOf,
} from "../../actors/hopqa/index.ts";
import { playEpisode } from "../../src/testing/index.ts";

/** The question's phrase of hop i, without the inner phrase: what the note names. */
const phraseOf = (task: HopqaTask, i: number) =>
  PHRASES_OF[(task.wording as "outer" | "possessive" | undefined) ?? "outer"][task.chain[i] as Relation][
    task.phrasing[i] ?? 0
  ]
    .replace("{x}", "")
    .replace(/\s+/g, " ")
    .trim();
const observationsOf = (played: Awaited<ReturnType<typeof playEpisode>>) =>
  played.events.filter((e) => e.type === "env.observed").map((e) => (e as { text: string }).text);

describe("hopqa's left option", () => {
  it("is none by default: tasks carry no left field and observations no note", async () => {
    expect(parseOptions({}).left).toBe("none");
    expect(hopqa.options.left).toBe("none");
    const task = hopqa.configure({ split: "test" }).task("d") as HopqaTask;
    expect(task).not.toHaveProperty("left");
    const played = await playEpisode(hopqa, {
      task,
      seed: "d",
      actions: [...expertQueries(task).map((q) => `<search>${q}</search>`), "<answer>x</answer>"],
    });
    expect(observationsOf(played).some((o) => o.includes("search for :"))).toBe(false);
  });

  it("refuses a value it does not know, naming the choices", () => {
    expect(() => hopqa.configure({ left: "phrase" })).toThrow(
      'hopqa: left must be one of none, phrases, got "phrase" (did you mean `phrases`?)',
    );
    expect(hopqa.configure({ left: "phrases" }).options.left).toBe("phrases");
  });

  it("after the expert's searches, names the hops after each one in the question's order, then none", async () => {
    const env = hopqa.configure({ split: "ood", wording: "possessive", legal: "relations", left: "phrases" });
    const task = env.task("l") as HopqaTask;
    expect(task.left).toBe("phrases");
    const queries = expertQueries(task);
    const played = await playEpisode(env, {
      task,
      seed: "l",
      actions: [...queries.map((q) => `<search>${q}</search>`), "<answer>x</answer>"],
    });
    const notes = observationsOf(played)
      .slice(1)
      .map((o) => o.slice(o.indexOf("search for :")));
    expect(notes).toEqual(
      queries.map((_, hop) => {
        const rest = task.chain.slice(hop + 1).map((_r, i) => phraseOf(task, hop + 1 + i));
        return `search for : ${rest.length === 0 ? "none" : rest.join(" , ")} .`;
      }),
    );
  });

  it("property: the note lists the question's phrases less one per distinct (entity, relation) searched, in order", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom("train", "test", "ood"),
        fc.constantFrom("outer", "possessive"),
        fc.string({ maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 5 }),
        (worldSeed, split, wording, seed, picks) => {
          const env = hopqa.configure({ split, wording, "world-seed": String(worldSeed), left: "phrases" });
          const task = env.task(seed) as HopqaTask;
          const world = worldOf(task.world).world;
          const path = solveQuestion(world, task).path;
          // Searches of any relation of the world (not only the question's) from entities on the path, in any
          // of the expert's query forms: the note removes the first unused hop of each distinct pair's relation.
          const queries: string[] = [];
          const left = task.chain.map((_, i) => i);
          const pairs = new Set<string>();
          for (const [e, r, typed] of picks) {
            const entity = world.byName.get(path[e % path.length]);
            const relations = (Object.keys(RELATIONS) as Relation[]).filter((x) => RELATIONS[x].from === entity?.type);
            if (entity === undefined || relations.length === 0) continue;
            const relation = relations[r % relations.length];
            const forms = hopQueries(entity.name, entity.type, relation).filter((q) => q !== entity.name);
            queries.push(forms[typed ? forms.length - 1 : 0]);
            if (!pairs.has(`${entity.name}|${relation}`)) {
              pairs.add(`${entity.name}|${relation}`);
              const at = left.findIndex((i) => task.chain[i] === relation);
              if (at >= 0) left.splice(at, 1);
            }
          }
          const expected = left.map((i) => phraseOf(task, i));
          expect(leftNote(task, queries)).toBe(
            `search for : ${expected.length === 0 ? "none" : expected.join(" , ")} .`,
          );
          // The wording's tokenizer writes the note and reads it back as it was (no word lost to an unknown token).
          const note = leftNote(task, queries);
          expect(env.tokenizer.decode(env.tokenizer.encode(note))).toBe(note);
        },
      ),
      { numRuns: 100 },
    );
  });
});

/**
 * hopqa's `wording` and `legal` options: the possessive wording and the relations grammar ("grammar v2") that the
 * probe docs/probes/hopqa-possessive-legal.patch put in place of the defaults, now options beside them. The
 * defaults must stay what the shipped benchmark was made with; the options must be what the patch gave.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeResult,
  expertQueries,
  fnv1a,
  type HopqaTask,
  hopQueries,
  hopqa,
  legalActions,
  parseOptions,
  questionText,
  RELATIONS,
  type Relation,
  solveQuestion,
  tokenizer,
  unusedRelations,
  VOCABULARY,
  vocabularyOf,
  worldOf,
} from "../../actors/hopqa/index.ts";
import { evaluateSuite } from "../../actors/hopqa/suite.ts";
import { collect } from "../../src/learn/collect.ts";
import type { Turn } from "../../src/runtime/policy.ts";

/** The text of 600 questions (200 per split, worlds 1-50), hashed: what a wording asks. */
const questionsHash = (more: Record<string, string>) => {
  const texts: string[] = [];
  for (const split of ["train", "test", "ood"]) {
    const env = hopqa.configure({ split, worlds: "1-50", ...more });
    for (let i = 0; i < 200; i++) texts.push(questionText(env.task(`s${i}`) as HopqaTask));
  }
  return fnv1a(texts.join("\n")).toString(16);
};

const observation = (text: string): Turn => ({ role: "observation", text, tokens: [] });
const action = (text: string): Turn => ({ role: "action", text, tokens: [] });
const search = (query: string) => `<search>${query}</search>`;
/** What the agent is shown after a search: the top-k passages, as the machine describes them. */
const resultOf = (task: HopqaTask, query: string) =>
  observation(
    describeResult({
      ok: true,
      content: worldOf(task.world)
        .search(query, 2)
        .map(({ id, text }) => ({ id, text })),
    }),
  );

describe("hopqa's wording option", () => {
  it("by default asks exactly the questions it asked before the option, with the same tokenizer", () => {
    // Hash and tokenizer id computed on b3e5aa7, the commit before the option.
    expect(questionsHash({})).toBe("8721478d");
    expect(questionsHash({ wording: "outer" })).toBe("8721478d");
    expect(hopqa.tokenizer.id).toBe("words-v2-implicit:bfb10aadf8ddeff9");
    expect(tokenizer.id).toBe("words-v2-implicit:bfb10aadf8ddeff9");
    const task = hopqa.configure({ worlds: "1-50" }).task("s0") as HopqaTask;
    // The task as it was recorded before: no field for the default wording.
    expect(task).toEqual({
      world: "7",
      split: "train",
      start: "lelencorp",
      chain: ["founder", "employer"],
      phrasing: [1, 0, 1],
    });
    expect(questionText(task)).toBe("name the employer of the person who founded lelencorp .");
    expect(hopqa.options).toMatchObject({ wording: "outer", legal: "types" });
  });

  it("possessive asks the probe patch's questions, with its tokenizer (the one its clones carry)", () => {
    // Hash and tokenizer id computed with docs/probes/hopqa-possessive-legal.patch applied on b3e5aa7.
    expect(questionsHash({ wording: "possessive" })).toBe("8361c6f1");
    const env = hopqa.configure({ worlds: "1-50", wording: "possessive" });
    expect(env.tokenizer.id).toBe("words-v2-implicit:8d0c70283f3f8158");
    const task = env.task("s0") as HopqaTask;
    expect(task).toMatchObject({ world: "7", start: "lelencorp", wording: "possessive" });
    expect(questionText(task)).toBe("name lelencorp 's founding person 's employer .");
    expect(env.options).toMatchObject({ wording: "possessive", legal: "types" });
    // Its scripted policies write their actions with its tokenizer (a journal's ids are the environment's).
    expect(env.policies.expert().tokenizer.id).toBe(env.tokenizer.id);
    expect(env.policies.hasty(0.5).tokenizer.id).toBe(env.tokenizer.id);
    // Every passage word is one token under either vocabulary: observations are cut alike.
    const passageWords = new Set(worldOf("7").world.passages.flatMap((p) => p.text.split(" ")));
    for (const words of [VOCABULARY, vocabularyOf("possessive")])
      expect([...passageWords].filter((w) => !words.includes(w))).toEqual([]);
  });

  it("is part of the task: two environments of one process, drawing the same seeds, ask in their own wording", () => {
    const outer = hopqa.configure({ worlds: "3-3" });
    const possessive = hopqa.configure({ worlds: "3-3", wording: "possessive" });
    for (const seed of ["a", "b", "c"]) {
      const [o, p] = [outer.task(seed) as HopqaTask, possessive.task(seed) as HopqaTask];
      expect(questionText(p)).toContain(" 's ");
      expect(questionText(o)).not.toContain(" 's ");
      // The same question otherwise: the same start, chain and phrasing.
      expect({ ...p, wording: undefined }).toEqual({ ...o, wording: undefined });
    }
    // The variants the suite and training derive keep it.
    expect(possessive.configure({ split: "ood" }).options).toMatchObject({ wording: "possessive", split: "ood" });
    expect(possessive.evaluation.options).toMatchObject({ wording: "possessive", split: "test" });
  });

  it("a bad value is refused with the option, the value and the choices", () => {
    expect(() => parseOptions({ wording: "posessive" })).toThrow(
      'hopqa: wording must be one of outer, possessive, got "posessive" (did you mean `possessive`?)',
    );
    expect(() => parseOptions({ legal: "relation" })).toThrow(
      'hopqa: legal must be one of types, relations, got "relation" (did you mean `relations`?)',
    );
    // A hand-edited task's wording is named where the question is read.
    const task = { ...(hopqa.task("x") as HopqaTask), wording: "passive" };
    expect(() => questionText(task)).toThrow('hopqa task: wording must be one of outer, possessive, got "passive"');
  });
});

describe("hopqa's legal option (constrained decoding)", () => {
  const relationsEnv = hopqa.configure({ split: "ood", worlds: "1-20", wording: "possessive", legal: "relations" });

  /**
   * Fingerprint of every legal-action list at every turn of 12 episodes per policy (expert, careless, random) and
   * split, worlds 1-20: 450 turns.
   */
  const fingerprint = async (base: typeof hopqa) => {
    const lists: string[] = [];
    for (const split of ["train", "test", "ood"]) {
      const env = base.configure({ split, worlds: "1-20" });
      for (const name of ["expert", "careless", "random"] as const) {
        const collected = await collect({ env, policy: env.policies[name](), seed: `legal-${name}`, episodes: 12 });
        for (const { events } of collected) {
          const task = (events[0] as unknown as { task: HopqaTask }).task;
          const history: Turn[] = [];
          for (const e of events) {
            if (e.type === "env.observed") history.push(observation(e.text));
            if (e.type !== "agent.acted") continue;
            lists.push(JSON.stringify(env.legalActions?.({ task, history: [...history] })));
            history.push(action(e.text));
          }
        }
      }
    }
    expect(lists.length).toBe(450);
    return fnv1a(lists.join("\n")).toString(16);
  };

  it("relations gives exactly the probe patch's legal actions; types, the default, exactly the benchmark's", async () => {
    // Computed with docs/probes/hopqa-possessive-legal.patch applied on b3e5aa7 (its default grammar v2).
    expect(await fingerprint(hopqa.configure({ wording: "possessive", legal: "relations" }))).toBe("7b28535d");
    // Computed on b3e5aa7, the commit before the option.
    expect(await fingerprint(hopqa)).toBe("8cc2a5a5");
  }, 60_000);

  it("types, the default, is the benchmark's legal actions; relations allows only the question's unused relations", () => {
    const task = relationsEnv.task("one") as HopqaTask;
    const [first] = expertQueries(task);
    const start = [observation(questionText(task))];
    const types = legalActions({ task, history: start });
    const relations = relationsEnv.legalActions?.({ task, history: start }) as string[];
    expect(hopqa.configure({ legal: "types" }).legalActions?.({ task, history: start })).toEqual(types);
    expect(relations).toContain(search(first));
    expect(relations.length).toBeLessThan(types.length);
    const entity = world(task).byName.get(task.start);
    for (const relation of Object.keys(RELATIONS) as Relation[]) {
      if (RELATIONS[relation].from !== entity?.type) continue;
      const query = search(`${task.start} ${RELATIONS[relation].keyword}`);
      expect(types).toContain(query);
      // Legal under relations exactly when the question has that relation.
      expect(relations.includes(query), relation).toBe(task.chain.includes(relation));
    }
    // A bare name is no legal search under relations; no answer while a relation is unused.
    expect(types).toContain(search(task.start));
    expect(relations).not.toContain(search(task.start));
    expect(relations.every((a) => a.startsWith("<search>"))).toBe(true);
  });

  it("relations keeps a searched (entity, relation) pair legal in its other forms: a missed search can be retried", () => {
    // A question whose first relation is not asked again: searching it uses it up.
    const task = ["r0", "r1", "r2", "r3"]
      .map((seed) => relationsEnv.task(seed) as HopqaTask)
      .find((t) => !t.chain.slice(1).includes(t.chain[0] as string)) as HopqaTask;
    const relation = task.chain[0] as Relation;
    const [plain, typed] = hopQueries(task.start, RELATIONS[relation].from, relation);
    expect(unusedRelations(task, [search(plain)])).toEqual([...task.chain.slice(1)].sort());
    const history = [observation(questionText(task)), action(search(plain)), resultOf(task, plain)];
    const legal = relationsEnv.legalActions?.({ task, history }) as string[];
    // Used, yet legal again with the same entity (not with the query already made); another relation of the
    // entity's type that the question does not ask is not.
    expect(legal).toContain(search(typed));
    expect(legal).not.toContain(search(plain));
    const other = (Object.keys(RELATIONS) as Relation[]).find(
      (r) => r !== relation && RELATIONS[r].from === RELATIONS[relation].from && !task.chain.includes(r),
    );
    if (other) expect(legal).not.toContain(search(`${task.start} ${RELATIONS[other].keyword}`));
    // Searching it again in another form uses no second relation.
    expect(unusedRelations(task, [search(plain), search(typed)])).toEqual([...task.chain.slice(1)].sort());
  });

  it("property: the expert's gold chain is legal at every step, and every legal search is an unused relation or a retried pair", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.constantFrom("train", "test", "ood"),
        fc.string({ maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (worldSeed, split, seed, picks) => {
          const env = hopqa.configure({ split, "world-seed": String(worldSeed), legal: "relations" });
          const task = env.task(seed) as HopqaTask;
          const legalAt = (history: Turn[]) => env.legalActions?.({ task, history }) as string[];
          // The gold chain: the expert's searches, then its answer, are each legal where it makes them, on every
          // question whose hops are distinct (entity, relation) pairs (for the others, see the next test). A chain
          // that comes back to an entity (a mentor cycle) has the expert repeat a query, which no grammar allows
          // (the repeat rule): another form of the same entity and relation is legal then.
          const gold: Turn[] = [observation(questionText(task))];
          const queries = expertQueries(task);
          const path = solveQuestion(world(task), task).path;
          const distinct = new Set(task.chain.map((r, hop) => `${path[hop]}|${r}`)).size === task.chain.length;
          queries.forEach((query, hop) => {
            const legal = legalAt(gold);
            if (!queries.slice(0, hop).includes(query)) expect(legal).toContain(search(query));
            else {
              const entity = solveQuestion(world(task), task).path[hop];
              const relation = task.chain[hop] as Relation;
              const forms = hopQueries(entity, RELATIONS[relation].from, relation).filter(
                (q) => q !== entity && !queries.slice(0, hop).includes(q),
              );
              expect(
                forms.some((q) => legal.includes(search(q))),
                query,
              ).toBe(true);
            }
            gold.push(action(search(query)), resultOf(task, query));
          });
          const answer = `<answer>${solveQuestion(world(task), task).answer}</answer>`;
          if (distinct) expect(legalAt(gold)).toContain(answer);
          // A walk of legal searches picked at random: each offered search names an unused relation or a tried pair.
          const history: Turn[] = [observation(questionText(task))];
          const made: string[] = [];
          for (const pick of picks) {
            const legal = legalAt(history);
            const unused = unusedRelations(task, made);
            const tried = new Set(made.map((a) => pairOf(task, a)));
            for (const offered of legal.filter((a) => a.startsWith("<search>"))) {
              const pair = pairOf(task, offered);
              expect(pair, offered).toBeDefined();
              expect(unused.includes(pair?.split("|")[1] as Relation) || tried.has(pair), offered).toBe(true);
            }
            const searches = legal.filter((a) => a.startsWith("<search>"));
            if (searches.length === 0) break;
            const next = searches[pick % searches.length];
            made.push(next);
            history.push(action(next), resultOf(task, next.replace(/<\/?search>/g, "")));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("hopqa's relations grammar: a known limit, kept as the probe patch had it", () => {
  it("a chain that revisits an (entity, relation) pair never makes its answer legal (0.2% of test, 2.7% of ood questions)", () => {
    // midis viketh and mivim netex train each other: "the person who trained the person who trained the mentor of
    // midis viketh" searches (midis viketh, mentor) twice. A retry of a pair uses no relation, so one "mentor" stays
    // unused, and no answer is legal while a search is (6 turns do not exhaust the retries).
    const env = hopqa.configure({ split: "test", "world-seed": "236638", legal: "relations" });
    const task = env.task("S") as HopqaTask;
    expect(task).toMatchObject({ start: "midis viketh", chain: ["mentor", "mentor", "mentor"] });
    const history: Turn[] = [observation(questionText(task))];
    for (const query of ["midis viketh mentor", "mivim netex mentor", "midis viketh was mentor"])
      history.push(action(search(query)), resultOf(task, query));
    expect(
      unusedRelations(
        task,
        history.filter((t) => t.role === "action").map((t) => t.text),
      ),
    ).toEqual(["mentor"]);
    const legal = env.legalActions?.({ task, history }) as string[];
    expect(legal.length).toBeGreaterThan(0);
    expect(legal.every((a) => a.startsWith("<search>"))).toBe(true);
  });
});

describe("the suite under options", () => {
  it("evaluateSuite configures each column from the environment it is given, keeping its wording", async () => {
    const seen: string[] = [];
    const possessive = hopqa.configure({ wording: "possessive", legal: "relations" });
    await evaluateSuite(
      () => possessive.policies.expert(),
      1,
      "options",
      (_column, record) => seen.push(questionText(record.task as unknown as HopqaTask)),
      possessive,
    );
    expect(seen).toHaveLength(3);
    for (const text of seen) expect(text).toContain(" 's ");
  });
});

const world = (task: HopqaTask) => worldOf(task.world).world;
/** "entity|relation" of a search: the first entity it names and the relation whose word it holds. */
const pairOf = (task: HopqaTask, text: string): string | undefined => {
  const query = ` ${text.replace(/<\/?search>/g, "")} `;
  const entity = world(task).entities.find((e) => query.includes(` ${e.name} `));
  const words = new Set(query.trim().split(" "));
  const relation = (Object.keys(RELATIONS) as Relation[]).find(
    (r) => RELATIONS[r].from === entity?.type && words.has(RELATIONS[r].keyword),
  );
  return entity && relation ? `${entity.name}|${relation}` : undefined;
};

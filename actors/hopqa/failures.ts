/**
 * Why a hopqa episode failed: the first step that leaves the question's gold chain. Used by
 * `npm run hopqa:failures` (scripts/hopqa-failures.ts) to count a policy's failures by kind, the counts that
 * docs/hopqa.md reports for the warm start and the RL'd policies.
 */
import { parseAction } from "../../src/index.ts";
import { hopQueries, normalize, searchTool } from "./env.ts";
import { worldOf } from "./search.ts";
import type { Entity, HopqaTask, Relation } from "./world.ts";
import { solveQuestion } from "./world.ts";

const tools = { search: searchTool };

export type FailureKind =
  | "right"
  | "wrong entity"
  | "wrong relation"
  | "answered early"
  | "malformed or ended early"
  | "searched past the chain"
  | "wrong answer after the chain";

export interface Diagnosis {
  readonly kind: FailureKind;
  /** The search (1-based) where the chain was left; absent for kinds that are not about one search. */
  readonly at?: number;
}

/**
 * Walks an episode's actions along the gold chain: search k must be one of the query forms for the k-th
 * entity of the path and the k-th relation (`hopQueries`: the expert's and the legal actions' forms); then an
 * answer. A search off the chain is a wrong entity when it does not name the path's entity, else a wrong
 * relation. `em` is the episode's exact match.
 */
export const diagnose = (task: HopqaTask, actions: readonly string[], em: number): Diagnosis => {
  if (em === 1) return { kind: "right" };
  const world = worldOf(task.world).world;
  const solved = solveQuestion(world, task);
  for (let hop = 0; hop < task.chain.length; hop++) {
    const text = actions[hop];
    if (text === undefined) return { kind: "malformed or ended early", at: hop + 1 };
    const action = parseAction(text, tools);
    if (action.kind === "answer") return { kind: "answered early", at: hop + 1 };
    if (action.kind !== "call") return { kind: "malformed or ended early", at: hop + 1 };
    const query = normalize(String((action.args as { query?: unknown }).query ?? ""));
    const relation = task.chain[hop] as Relation;
    const entity = world.byName.get(solved.path[hop]) as Entity;
    if (hopQueries(entity.name, entity.type, relation).some((q) => normalize(q) === query)) continue;
    if (!` ${query} `.includes(` ${entity.name} `)) return { kind: "wrong entity", at: hop + 1 };
    return { kind: "wrong relation", at: hop + 1 };
  }
  const last = actions[task.chain.length];
  return last !== undefined && parseAction(last, tools).kind === "answer"
    ? { kind: "wrong answer after the chain" }
    : { kind: "searched past the chain" };
};

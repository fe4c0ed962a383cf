/**
 * Endless growth, for the coverage exploration (coverage.ts): an episode that never ends while its context
 * grows has no end of states, so breadth-first exploration would never finish. Along the ways to the latest
 * states found, a state node that comes back with some context fields grown is a candidate loop; it is
 * replayed PUMP_ROUNDS more times, and if every round comes back to that node, to a new state, with the same
 * fields grown again and without ending the episode, the episode likely never ends: the finder returns a
 * message with the path to the loop, the loop, and how the fields grew.
 */
import type { ExplorationEvent, PathStep, ProtocolSnapshot } from "./coverage.ts";

/**
 * How many rounds a loop that grows the context must go on without ending to be called endless: more than
 * any turn limit an agent's episode is likely to have (an episode cut at a larger one is reported).
 */
const PUMP_ROUNDS = 1_000;
/** Loops tried at each checkpoint (the shortest first). */
const PUMP_TRIES = 4;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The context's fields, nested objects flattened to dotted paths (three levels deep). */
export const fieldsOf = (context: unknown): Map<string, unknown> => {
  const fields = new Map<string, unknown>();
  const walk = (value: unknown, path: string, depth: number) => {
    if (depth < 3 && isRecord(value))
      for (const [key, inner] of Object.entries(value)) walk(inner, path ? `${path}.${key}` : key, depth + 1);
    else fields.set(path, value);
  };
  if (isRecord(context)) walk(context, "", 0);
  return fields;
};

/** Whether a field grew: a larger number, a longer list or text, or a field that was not there. */
const grew = (before: unknown, after: unknown): boolean =>
  before === undefined
    ? after !== undefined
    : typeof before === "number" && typeof after === "number"
      ? after > before
      : (typeof before === "string" && typeof after === "string") || (Array.isArray(before) && Array.isArray(after))
        ? after.length > before.length
        : false;

/** A field's values over the rounds of a loop: the first two, then the last. */
const describeGrowth = (values: readonly unknown[]): string => {
  const sizes = values.map((v) => (typeof v === "string" || Array.isArray(v) ? v.length : v));
  const shown = sizes.length > 3 ? [sizes[0], sizes[1], "…", sizes[sizes.length - 1]] : sizes;
  const unit = Array.isArray(values[values.length - 1])
    ? " items"
    : typeof values[values.length - 1] === "string"
      ? " characters"
      : "";
  return `${shown.map((v) => (v === undefined ? "none" : String(v))).join(" → ")}${unit}`;
};

export const jsonOf = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
};

/** What the finder needs of an exploration in progress. */
export interface GrowthSearch {
  /** The environment's id, for the message. */
  readonly envId: string;
  /** Whether the user gave their own `serialize` (the advice differs). */
  readonly userSerialize: boolean;
  /** Every state found so far by its key, with the event and the parent key of the first way found to it. */
  readonly found: ReadonlyMap<string, { readonly state: ProtocolSnapshot; readonly parent?: string }>;
  /** The first way found to a state, from the initial state. */
  readonly pathTo: (key: string) => PathStep[];
  readonly keyOf: (state: ProtocolSnapshot) => string;
  /** The events explored from a state (sample actions, or sample tool results). */
  readonly eventsOf: (state: ProtocolSnapshot) => ExplorationEvent[];
  readonly transition: (state: ProtocolSnapshot, event: ExplorationEvent) => ProtocolSnapshot;
  /** A path's steps in words, as reports show them. */
  readonly describe: (path: readonly PathStep[]) => readonly string[];
}

/** Returns a function that looks for an endless loop among the states found so far (each loop tried once). */
export const endlessGrowthFinder = (search: GrowthSearch): ((explored: number) => string | undefined) => {
  const { found, pathTo, keyOf, eventsOf } = search;
  // An episode that never ends while its context grows has no end of states: look for the loop that shows
  // it. Along the way to a recent state, a state node that comes back with some context fields grown is a
  // candidate; its loop is replayed PUMP_ROUNDS more times: if every round comes back to that node with the
  // same fields grown again and none ends the episode, the episode likely never ends.
  const nodeOf = (s: ProtocolSnapshot) =>
    jsonOf([s.machine.value, s.awaiting, s.inFlight.map((c) => c.tool), s.ended, s.problem ?? null]);
  // Loops replayed already, which ended (each is tried once).
  const tried = new Set<string>();
  const endlessGrowth = (explored: number): string | undefined => {
    // Candidate loops, on the ways to the latest states found: a state node that comes back with fields grown.
    const loops = new Map<string, { node: string; at: string; loop: PathStep[]; choices: number[]; acts: boolean }>();
    for (const key of [...found.keys()].slice(-8)) {
      const path = pathTo(key);
      const nodes = path.map((step) => nodeOf(step.state));
      // (the last 20 steps: a loop near the end will do)
      for (let j = path.length - 1; j > 0 && j >= path.length - 20; j--) {
        if (path[j].state.status === "done") continue;
        const i = nodes.lastIndexOf(nodes[j], j - 1);
        if (i < 0) continue;
        const [before, after] = [fieldsOf(path[i].state.machine.context), fieldsOf(path[j].state.machine.context)];
        if (![...after.keys()].some((field) => grew(before.get(field), after.get(field)))) continue;
        const loop = path.slice(i + 1, j + 1);
        const id = loop.map((step) => jsonOf(step.event)).join("\n");
        // Which of the choices at each step the loop takes (the same text, or the same tool result).
        const choices = loop.map((step, k) => {
          const wanted = jsonOf(step.event);
          return eventsOf(path[i + k].state).findIndex((option) => jsonOf(option) === wanted);
        });
        if (!loops.has(id) && !tried.has(id) && !choices.includes(-1))
          loops.set(id, {
            node: nodes[j],
            at: keyOf(path[i].state),
            loop,
            choices,
            acts: path[i].state.awaiting && path[i].state.inFlight.length === 0,
          });
      }
    }
    // The shortest loops first, and of those, loops that start where the agent acts (they read best).
    const tries = [...loops.values()]
      .sort((a, b) => a.loop.length - b.loop.length || Number(b.acts) - Number(a.acts))
      .slice(0, PUMP_TRIES);
    for (const { node, at, loop, choices } of tries) {
      tried.add(loop.map((step) => jsonOf(step.event)).join("\n"));
      // Replayed from the first state found at that node (the shortest way there), else from where it was seen.
      const first = [...found.keys()].find((key) => nodeOf(found.get(key)!.state) === node);
      for (const start of new Set([first ?? at, at])) {
        const pumped = pump(start, loop, choices);
        if (!pumped) continue;
        const { round, growing, values } = pumped;
        const from = pathTo(start);
        const fromSteps = search.describe(from);
        const loopSteps = search.describe([...from, ...round]).slice(fromSteps.length);
        const grown = growing.map((f) => `context.${f}`).join(" and ");
        const how =
          growing.length === 1
            ? describeGrowth(values.get(growing[0])!)
            : `${growing.map((f) => `${f}: ${describeGrowth(values.get(f)!)}`).join(", ")},`;
        const node = jsonOf(found.get(start)!.state.machine.value);
        return [
          `${search.envId}: endless: ${node}: the episode likely never ends: a loop comes back to this state with ${grown} grown each time (${how} in ${PUMP_ROUNDS} rounds, none of which ends the episode), so every round is a new state and the exploration would never finish (stopped after ${explored} states)`,
          `  path: ${fromSteps.length ? fromSteps.join(" → ") : "(the initial state)"}`,
          `  loop: ${loopSteps.join(" → ")}`,
          search.userSerialize
            ? `End the episode at a turn limit (count turns in the context and end() when they reach it), or make your \`serialize\` map states that differ only in ${grown} to one string (it keeps them apart now, by at least one of these fields): the loop is then a cycle, which \`allowCycles\` accepts.`
            : `End the episode at a turn limit (count turns in the context and end() when they reach it), or \`serialize\` the states without ${grown}: the loop is then a cycle, which \`allowCycles\` accepts.`,
        ].join("\n");
      }
    }
    return undefined;
  };
  /**
   * Plays a loop PUMP_ROUNDS times from a state: each round must come back to the state node, to a state not
   * seen before, with the same fields grown again, and without ending the episode.
   */
  const pump = (start: string, loop: readonly PathStep[], choices: readonly number[]) => {
    let state = found.get(start)!.state;
    const node = nodeOf(state);
    let previous = fieldsOf(state.machine.context);
    const values = new Map<string, unknown[]>();
    const seen = new Set([keyOf(state)]);
    let growing: string[] | undefined;
    let first: PathStep[] = [];
    for (let round = 0; round < PUMP_ROUNDS; round++) {
      const steps: PathStep[] = [];
      for (const [k, choice] of choices.entries()) {
        if (state.status === "done") return undefined;
        const event = eventsOf(state)[choice];
        const expected = loop[k].event as ExplorationEvent;
        const same =
          event !== undefined &&
          (event.type === "agent.act"
            ? expected.type === "agent.act" && event.text === expected.text
            : expected.type !== "agent.act" && jsonOf(event.output) === jsonOf(expected.output));
        if (!same) return undefined;
        state = search.transition(state, event);
        steps.push({ state, event });
      }
      if (round === 0) first = steps;
      if (state.status === "done" || nodeOf(state) !== node || seen.has(keyOf(state))) return undefined;
      seen.add(keyOf(state));
      const now = fieldsOf(state.machine.context);
      growing = (growing ?? [...now.keys()]).filter((f) => grew(previous.get(f), now.get(f)));
      if (growing.length === 0) return undefined;
      for (const f of growing) {
        if (!values.has(f)) values.set(f, [previous.get(f)]);
        values.get(f)!.push(now.get(f));
      }
      previous = now;
    }
    return growing ? { round: first, growing, values } : undefined;
  };
  return endlessGrowth;
};

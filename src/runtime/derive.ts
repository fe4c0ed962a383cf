/**
 * How a ToolEnv machine's behaviour becomes journal events. Live runs and replay both go through this one
 * class, so what replay re-derives is by construction what the runtime recorded.
 */
import type { Json } from "effect/Schema";
import type { AnyMachineSnapshot } from "xstate";
import { canonicalJson, digest, notJournalable } from "../kernel/canonical.ts";
import { isThenable, shownValue } from "../kernel/errors.ts";
import type { EventBody } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { type EnvEmitted, hearsAgentAct, LONE_SURROGATE, refusedEndReason } from "./env.ts";
import type { Turn } from "./policy.ts";

/** ` (observe() at envs/shop.ts:31:9)`: where the failing action was written in the environment's code. */
export const placed = (e: EnvEmitted): string => {
  const at = typeof e.at === "function" ? e.at() : undefined;
  return at ? ` (${e.type.slice(4)}() at ${at})` : "";
};

/** Whether a message carries what `placed` adds: the line an observe(), reward() or end() was written at. */
export const isPlaced = (message: string): boolean => /\(\w+\(\) at [^()]*:\d+:\d+\)/.test(message);

/**
 * Whether the machine is waiting for a tool: one of its children is a tool invocation whose result the
 * machine has not yet taken. XState keeps an invoked child in `snapshot.children` until the invoking state
 * is left, also after its result was delivered (an `onDone` without a target), so a child counts only while
 * its call is in flight: in the live actor, while the child's own snapshot is active (its result not yet
 * delivered); in the pure replay fold, whose children never run, while `inFlight(id)` says so (the calls
 * replay has seen made and not yet returned). Counting a delivered child left such a machine waiting for a
 * result that had already come: the agent was never asked again, and the command stopped with nothing left
 * to run.
 */
export const waitingForTools = (
  snapshot: AnyMachineSnapshot,
  tools: Readonly<Record<string, unknown>>,
  inFlight?: (actorId: string) => boolean,
): boolean =>
  Object.entries(
    (snapshot.children ?? {}) as Record<
      string,
      { src?: unknown; getSnapshot?: () => { status?: unknown } } | undefined
    >,
  ).some(
    ([id, child]) =>
      typeof child?.src === "string" &&
      child.src in tools &&
      (inFlight ? inFlight(id) : child.getSnapshot?.().status === "active"),
  );

/** The parts of an XState state node that say whether anything can leave it (not all in its public types). */
interface ExitNode {
  readonly type?: string;
  readonly path?: readonly string[];
  readonly parent?: ExitNode;
  readonly transitions?: ReadonlyMap<string, readonly unknown[]>;
  readonly always?: readonly unknown[];
  readonly invoke?: readonly unknown[];
  /** Document order. */
  readonly order?: number;
}

/** Whether anything can leave this state: a transition (`after` included), `always` or `invoke` of its own or above. */
const hasWayOut = (node: ExitNode | undefined): boolean =>
  node !== undefined &&
  ((node.transitions?.size ?? 0) > 0 ||
    (node.always?.length ?? 0) > 0 ||
    (node.invoke?.length ?? 0) > 0 ||
    hasWayOut(node.parent));

/**
 * The active states of a snapshot from which nothing can leave: an atomic state that is not final, with no
 * transition, `always` or `invoke` of its own or of any state above it (a `done: {}` whose `type: "final"` was
 * forgotten). Empty when any active state has a way out.
 */
export const deadEndStates = (snapshot: AnyMachineSnapshot): string[] => {
  const nodes = ((snapshot as { _nodes?: readonly ExitNode[] })._nodes ?? []).filter((n) => n.type === "atomic");
  if (nodes.length === 0 || nodes.some(hasWayOut)) return [];
  return nodes.map((n) => (n.path ?? []).join("."));
};

const hearsAction = (node: ExitNode | undefined): boolean =>
  node !== undefined && ([...(node.transitions?.keys() ?? [])].some(hearsAgentAct) || hearsAction(node.parent));

/**
 * When no active state (nor any state above one) has a transition on `agent.act`: why the agent's action went
 * unheard, naming the states and the events they do handle; undefined otherwise. A state that waits for the
 * agent with its `on` forgotten, or written under another name, left the episode "waiting for nothing" with advice
 * about fallbacks that did not apply.
 */
export const deafToActionNote = (snapshot: AnyMachineSnapshot): string | undefined => {
  const nodes = ((snapshot as { _nodes?: readonly ExitNode[] })._nodes ?? []).filter((n) => n.type === "atomic");
  if (nodes.length === 0 || nodes.some(hearsAction)) return undefined;
  const handled = new Set<string>();
  for (let node: ExitNode | undefined = nodes[0]; node !== undefined; node = node.parent)
    for (const key of node.transitions?.keys() ?? []) if (!key.startsWith("xstate.")) handled.add(key);
  const names = nodes.map((n) => `"${(n.path ?? []).join(".")}"`).join(", ");
  return `${names} ${nodes.length === 1 ? "has" : "have"} no transition on agent.act (nor any state above ${nodes.length === 1 ? "it" : "them"}), so the agent's action goes unheard${handled.size > 0 ? ` (${nodes.length === 1 ? "it handles" : "the first handles"} ${[...handled].map((k) => JSON.stringify(k)).join(", ")})` : ""}: the agent's actions arrive as the event agent.act; give the state that waits for the agent on: { "agent.act": [...] }`;
};

/**
 * When every active state is a final one inside a state that has no `onDone` (nor any transition of a state
 * above it): how to leave it, in words. The episode ends at a final state of the machine's top level only, so a
 * `type: "final"` one level down waits for nothing; undefined otherwise.
 */
export const nestedFinalNote = (snapshot: AnyMachineSnapshot): string | undefined => {
  const nodes = (snapshot as { _nodes?: readonly ExitNode[] })._nodes ?? [];
  const leaves = nodes.filter((n) => n.type === "atomic" || n.type === "final");
  const nested = leaves
    .filter((n) => n.type === "final" && n.parent?.parent !== undefined)
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
  if (nested.length === 0 || nested.length !== leaves.length || nested.some((n) => hasWayOut(n.parent)))
    return undefined;
  const name = (n: ExitNode | undefined) => `"${(n?.path ?? []).join(".")}"`;
  const parents = [...new Set(nested.map((n) => name(n.parent)))];
  // A final state in a region of a parallel state makes that region done; the parallel state is done when all
  // its regions are, and its onDone is what leaves it: that is the state to name.
  const parallelOf = (n: ExitNode) => (n.parent?.parent?.type === "parallel" ? n.parent.parent : undefined);
  const owners = [...new Set(nested.map((n) => name(parallelOf(n) ?? n.parent)))];
  const where = nested.every((n) => parallelOf(n) !== undefined)
    ? `in the regions ${parents.join(", ")} of the parallel state${owners.length === 1 ? "" : "s"} ${owners.join(", ")}, which ${owners.length === 1 ? "has" : "have"} no onDone: a parallel state is done when each of its regions reaches a final state, and its onDone is what leaves it;`
    : `inside ${parents.join(", ")}, which has no onDone:`;
  return `${nested.map(name).join(", ")} ${nested.length === 1 ? "is a final state" : "are final states"} ${where} the episode ends only at a final state of the machine's top level; give ${owners.join(", ")} an onDone to one, or end() the episode on the transition into it`;
};

/**
 * What an action's tokens spell with `tokenizer`, when that is not its text (undefined when they agree).
 * The tokens are what the learner trains on and the text is what the environment judges: live runs abort
 * such an action and replay refuses one in a journal. (A lone surrogate in the text is journaled as
 * U+FFFD, which is what its bytes decode to.) Throws what decode throws for an id outside the vocabulary.
 */
export const misspelt = (tokenizer: Tokenizer, tokens: readonly number[], text: string): string | undefined => {
  const spelt = tokenizer.decode(tokens);
  return spelt === text.toWellFormed() ? undefined : spelt;
};

/**
 * Why a reward's reason (a reason function's result) is refused, naming the reward, or undefined for a string: the
 * live runtime and replay end the episode there, and checkCoverage reports it.
 */
export const rewardReasonProblem = (e: {
  readonly kind: unknown;
  readonly value: unknown;
  readonly reason: unknown;
}) =>
  typeof e.reason === "string"
    ? undefined
    : `reward(${JSON.stringify(e.kind)}, ${shownValue(e.value)}, reason): its reason is ${shownValue(e.reason)}; give it as a string`;

/**
 * Why a machine's context cannot be journaled as its state hash, or undefined: it is not plain JSON (a Set or a Date
 * would hash as {} or a string), or its text is not Unicode (a lone surrogate has no canonical JSON: said where, not
 * as canonicalize's "Lone surrogate is not allowed"). The live runtime and replay end the episode there, and
 * checkCoverage reports it.
 */
export const contextProblem = (context: unknown): string | undefined => {
  // One walk (every transition of every episode runs it), not a plain-JSON walk and then a Unicode one.
  const problem = notJournalable(context ?? null, "context");
  return problem === undefined
    ? undefined
    : `${problem}: the machine's context must be plain JSON (objects, arrays, strings of Unicode text, finite numbers, booleans, null) so that its state hash stands for it`;
};

/** Episode endings imposed from outside the environment (policy failure, turn limit): replay accepts them as inputs. */
export const ABORTED = "aborted: ";

export class EpisodeDerivation {
  /** Actions taken so far. */
  actions = 0;
  totalReturn = 0;
  ending: { reason: string; metrics: Record<string, number> } | undefined;
  /** An observation was emitted since the last action: the agent acts next. */
  awaitingAction = false;
  readonly history: Turn[] = [];
  /**
   * The canonical JSON of the last transition's { value, context }, whose digest is its state hash: a copy
   * taken then, which later in-place changes to the context cannot reach (replay's divergence report reads it).
   */
  lastTransition = "";
  readonly context: number[] = [];

  constructor(
    readonly envId: string,
    /** Encodes observations; without one (replay of a foreign tokenizer) tokens are not derived. */
    readonly tokenizer: Tokenizer | undefined,
  ) {}

  /** The turn that rewards and tool calls belong to: the last action's (0 before any action). */
  get turn(): number {
    return Math.max(0, this.actions - 1);
  }

  /** A journal event for something the machine emitted, or undefined for what the journal does not keep. */
  emitted(event: { type: string }): EventBody | undefined {
    const e = event as EnvEmitted;
    switch (e.type) {
      case "env.observe": {
        if (typeof e.text !== "string")
          throw new TypeError(
            `${this.envId}: observe() needs a string, got ${e.text === null ? "null" : Array.isArray(e.text) ? "an array" : isThenable(e.text) ? shownValue(e.text) : typeof e.text}${placed(e)}`,
          );
        const tokens = this.tokenizer ? this.tokenizer.encode(e.text) : [];
        this.history.push({ role: "observation", text: e.text, tokens });
        for (const t of tokens) this.context.push(t);
        this.awaitingAction = true;
        return { type: "env.observed", turn: this.actions, text: e.text, tokens };
      }
      case "env.reward": {
        // A reason function's result is judged here, as end()'s is: a number, an object or a forgotten return was
        // journaled as "7", "[object Object]" or "undefined" (a Promise as "[object Promise]").
        const reasonProblem = rewardReasonProblem(e);
        if (reasonProblem) throw new TypeError(`${this.envId}: ${reasonProblem}${placed(e)}`);
        if (e.kind !== "process" && e.kind !== "outcome")
          throw new TypeError(
            `${this.envId}: reward "${e.reason}" is of kind ${shownValue(e.kind)}; a reward's kind is "process" or "outcome"${placed(e)}`,
          );
        if (typeof e.value !== "number" || !Number.isFinite(e.value))
          throw new TypeError(
            `${this.envId}: reward "${e.reason}" has value ${shownValue(e.value)}; rewards must be finite numbers${placed(e)}`,
          );
        // Each reward finite, their sum too: the journal records the return, and JSON has no Infinity.
        if (!Number.isFinite(this.totalReturn + e.value))
          throw new TypeError(
            `${this.envId}: reward "${e.reason}" of ${e.value} takes the episode's return (${this.totalReturn} so far) past the largest number; rewards must sum to a finite return${placed(e)}`,
          );
        this.totalReturn += e.value;
        return {
          type: "reward.assigned",
          kind: e.kind,
          value: e.value,
          turn: this.turn,
          reason: e.reason,
        };
      }
      case "env.end": {
        if (typeof e.reason !== "string")
          throw new TypeError(
            `${this.envId}: end()'s reason is ${shownValue(e.reason)}; give it as a string${placed(e)}`,
          );
        const refused = refusedEndReason(e.reason);
        if (refused) throw new TypeError(`${this.envId}: end(): ${refused}${placed(e)}`);
        if (
          e.metrics !== undefined &&
          (typeof e.metrics !== "object" || e.metrics === null || Array.isArray(e.metrics) || isThenable(e.metrics))
        )
          throw new TypeError(
            `${this.envId}: end()'s metrics are ${shownValue(e.metrics)}; give an object of finite numbers, e.g. end("answered", { success: 1 })${placed(e)}`,
          );
        const metrics: Record<string, number> = {};
        // A name that is not Unicode could not be journaled: the episode's end failed, and runEpisode with it.
        for (const [k, v] of Object.entries(e.metrics ?? {}))
          if (!k.isWellFormed())
            throw new TypeError(`${this.envId}: end() metric ${JSON.stringify(k)} ${LONE_SURROGATE}${placed(e)}`);
          else if (typeof v === "number" && Number.isFinite(v)) metrics[k] = v;
          else
            throw new TypeError(
              `${this.envId}: end() metric ${k} is ${shownValue(v)}; metrics must be finite numbers${placed(e)}`,
            );
        this.ending ??= { reason: e.reason, metrics };
        return undefined;
      }
      default:
        return undefined;
    }
  }

  acted(text: string, tokens: readonly number[]): void {
    this.history.push({ role: "action", text, tokens });
    for (const t of tokens) this.context.push(t);
    this.actions += 1;
    this.awaitingAction = false;
  }

  transitioned(snapshot: AnyMachineSnapshot): EventBody {
    const state = snapshot.value as Json;
    // The state hash stands for the context: a Set or a Date in it would hash as {} or a string.
    const problem = contextProblem(snapshot.context);
    if (problem) throw new TypeError(`${this.envId}: ${problem}`);
    this.lastTransition = canonicalJson({ value: state, context: snapshot.context ?? null });
    return { type: "env.transitioned", state, hash: digest(this.lastTransition) };
  }

  /** The episode.ended event: the environment's ending, or an abort imposed from outside. */
  ended(abort?: string): EventBody {
    const ending =
      abort !== undefined ? { reason: ABORTED + abort, metrics: {} } : (this.ending ?? { reason: "done", metrics: {} });
    return {
      type: "episode.ended",
      reason: ending.reason,
      return: this.totalReturn,
      turns: this.actions,
      metrics: ending.metrics,
    };
  }
}

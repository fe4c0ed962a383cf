/**
 * Constrained decoding from an environment's legal actions.
 *
 * An environment declares, for the state a request shows, the complete action texts it would accept
 * (`EnvDefinition.legalActions`). They are encoded exactly as a policy's action is (the text's ids, then
 * `<eos>`) into a prefix tree; at each sampled token the sampler may only pick a child of the node the
 * tokens so far lead to, so every action sampled under the constraint is one of the declared texts. The
 * allowed ids of every token are recorded with the action (agent.acted.allowed) and training scores the
 * action under the same lists, so PPO's ratio stays exact.
 *
 * `allowedForAction` walks a recorded action (e.g. an expert's demonstration) through the same tree, so
 * behaviour cloning can learn under the mask the sampler will later use.
 */
import { closestName, EnvProtocolError, messageOf, shownValue, UsageError } from "../kernel/errors.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { parseAction } from "../runtime/action-format.ts";
import { type EnvDefinition, envDefinedAt, type LegalView } from "../runtime/env.ts";
import type { PolicyRequest } from "../runtime/policy.ts";
import type { AllowedNext } from "./sampler.ts";

interface Node {
  readonly next: Map<number, Node>;
  /** A legal action ends here. */
  end: boolean;
}

/** A prefix tree over token sequences. */
export class ActionTrie {
  private readonly root: Node = { next: new Map(), end: false };
  /** Distinct legal action token sequences. */
  size = 0;
  /** Tokens in the longest one. */
  longest = 0;

  constructor(sequences: Iterable<readonly number[]>) {
    for (const sequence of sequences) this.add(sequence);
  }

  private add(sequence: readonly number[]): void {
    if (sequence.length === 0) throw new RangeError("a legal action has no tokens");
    this.longest = Math.max(this.longest, sequence.length);
    let node = this.root;
    for (const id of sequence) {
      let child = node.next.get(id);
      if (!child) {
        child = { next: new Map(), end: false };
        node.next.set(id, child);
      }
      node = child;
    }
    if (!node.end) this.size += 1;
    node.end = true;
  }

  /** The ids that may follow `prefix` (sorted), or undefined when `prefix` leaves the tree. */
  allowedAfter(prefix: readonly number[]): number[] | undefined {
    let node: Node | undefined = this.root;
    for (const id of prefix) {
      node = node.next.get(id);
      if (!node) return undefined;
    }
    return [...node.next.keys()].sort((a, b) => a - b);
  }

  /** Whether `tokens` is a whole legal action. */
  has(tokens: readonly number[]): boolean {
    let node: Node | undefined = this.root;
    for (const id of tokens) {
      node = node.next.get(id);
      if (!node) return false;
    }
    return node.end;
  }
}

/** The token ids of an action text as a policy emits it: the encoded text, then `<eos>` when there is one. */
export const actionTokens = (tokenizer: Tokenizer, text: string): number[] => {
  const eos = tokenizer.idOf("<eos>");
  const ids = tokenizer.encode(text);
  return eos === undefined ? ids : [...ids, eos];
};

/**
 * `--constrained` (`constrained: true` from code: loadPolicy, sft, a train config) needs an environment that
 * declares its legal actions; anything else is a UsageError, which names both spellings (loadPolicy from code said
 * only "--constrained", a flag it does not take).
 */
export const requireLegalActions = (env: EnvDefinition): void => {
  if (!env.legalActions)
    throw new UsageError({
      detail: `--constrained (constrained: true from code): environment ${env.id} declares no legal actions (EnvDefinition.legalActions), so there is nothing to constrain decoding to; leave it out`,
    });
};

/** Legal texts found well-formed already, per environment (the same lists come back turn after turn). */
const wellFormedLegal = new WeakMap<EnvDefinition, Set<string>>();
const WELL_FORMED_KEPT = 100_000;

/**
 * A whole tag that names none of the environment's tools, nor one near it (`<move>left</move>` beside `<search>`):
 * the machine's own words, which it reads itself (a misspelt tool, `<weigh>` for `<weight>`, is near one).
 */
const ownTag = (env: EnvDefinition, text: string): boolean => {
  const name = /^<([A-Za-z_][A-Za-z0-9_]*)>[\s\S]*<\/\1>$/.exec(text.trim())?.[1];
  return (
    name !== undefined &&
    name !== "answer" &&
    !Object.hasOwn(env.tools ?? {}, name) &&
    closestName(name, [...Object.keys(env.tools ?? {}), "answer"]) === undefined
  );
};

/**
 * Refuses a legal action written as a tag (`<name>...`) that the environment's own parser calls malformed:
 * a tool it does not have (`<weigh>` for `<weight>`), arguments its parameters refuse, a mistyped closing
 * tag. Constrained decoding would sample only what the machine must penalise, and nothing said so.
 * Untagged text, and a tag named like none of its tools (ownTag), is left alone: a machine may read its own words.
 */
const checkLegalCalls = (env: EnvDefinition, legal: readonly string[], turn: number): void => {
  if (env.tools === undefined) return;
  const known = wellFormedLegal.get(env) ?? new Set<string>();
  wellFormedLegal.set(env, known);
  for (const [index, text] of legal.entries()) {
    if (known.has(text)) continue;
    const parsed = parseAction(text, env.tools);
    if (parsed.kind === "malformed" && text.trim().startsWith("<") && !ownTag(env, text))
      throw new EnvProtocolError({
        env: env.id,
        detail: `legalActions returned ${JSON.stringify(text)} (item ${index}) for turn ${turn}, which is malformed: ${parsed.reason}; a legal action is a call of one of its tools or an answer (write it with formatCall(tool, args) or formatAnswer(text))`,
      });
    if (known.size >= WELL_FORMED_KEPT) known.clear();
    known.add(text);
  }
};

/**
 * The legal actions an environment declares for a state (null: no constraint there), its `legalActions`' result
 * checked: a throw is said as legalActions' (its stack kept, for the line), and so is a result that is no list of
 * texts. (An empty list, or a malformed text in it, is the constrained sampler's to refuse: legalTrie.)
 */
export const legalActionsOf = (env: EnvDefinition, view: LegalView): readonly string[] | null => {
  // Numbered as the journal numbers turns: the first action is turn 0.
  const turn = view.history.filter((t) => t.role === "action").length;
  let legal: unknown;
  try {
    legal = env.legalActions?.(view);
  } catch (cause) {
    // Said as the policy's failure ("policy X failed: legal bug"), it blamed the policy: name legalActions,
    // and keep the stack of the throw, so the line of the environment's code that threw is still found.
    const said = new EnvProtocolError({
      env: env.id,
      detail: `legalActions threw for turn ${turn}: ${messageOf(cause)}`,
      cause,
    });
    if (cause instanceof Error && cause.stack)
      said.stack = `${said.name}: ${said.message}\n${cause.stack
        .split("\n")
        .filter((line) => /^\s+at /.test(line))
        .join("\n")}`;
    throw said;
  }
  if (legal === null || env.legalActions === undefined) return null;
  // A result that is no list leaves no stack: say where the environment is defined, to find its legalActions.
  const where = envDefinedAt(env);
  const definedHere = where === undefined ? "" : ` (the environment is defined at ${where})`;
  // undefined is no answer: a JavaScript legalActions that forgot its `return` ran every episode unconstrained.
  if (legal === undefined)
    throw new EnvProtocolError({
      env: env.id,
      detail: `legalActions returned undefined for turn ${turn} (a missing return?); it must return the action texts, or null for no constraint${definedHere}`,
    });
  const bad = Array.isArray(legal) ? legal.findIndex((text) => typeof text !== "string") : -1;
  if (!Array.isArray(legal) || bad >= 0)
    throw new EnvProtocolError({
      env: env.id,
      detail: `legalActions returned ${Array.isArray(legal) ? `a list whose item ${bad} is ${shownValue(legal[bad])}` : shownValue(legal)} for turn ${turn}; it must return the action texts (strings, e.g. formatCall(tool, args) or formatAnswer(text)), or null for no constraint${definedHere}`,
    });
  return legal as string[];
};

/** The tree of the legal actions an environment declares for a state, or null when it declares none. */
export const legalTrie = (env: EnvDefinition, view: LegalView): ActionTrie | null => {
  const legal = legalActionsOf(env, view);
  if (legal === null) return null;
  const turn = view.history.filter((t) => t.role === "action").length;
  if (legal.length === 0)
    throw new EnvProtocolError({
      env: env.id,
      detail: `declared no legal action for turn ${turn} (legalActions returned [])`,
    });
  checkLegalCalls(env, legal, turn);
  return new ActionTrie(legal.map((text) => actionTokens(env.tokenizer, text)));
};

/** A constraint that also says how many tokens its longest legal action takes. */
export type LegalNext = AllowedNext & { readonly longest: number };

/**
 * The sampler's constraint for a request: the legal actions' tree, walked along the tokens sampled so
 * far. Null when the environment declares nothing for this state.
 */
export const constrainTo =
  (env: EnvDefinition) =>
  (request: PolicyRequest): LegalNext | null => {
    const trie = legalTrie(env, request);
    if (trie === null) return null;
    const next = (prefix: readonly number[]) => {
      const allowed = trie.allowedAfter(prefix);
      // The sampler only picks allowed ids and stops at <eos>, so a prefix never leaves the tree.
      if (allowed === undefined || allowed.length === 0)
        throw new Error(`constrained decoding left the legal actions after ${prefix.length} tokens`);
      return allowed;
    };
    return Object.assign(next, { longest: trie.longest });
  };

/**
 * Per token of a recorded action, the ids the constrained sampler would have allowed; undefined when the
 * action is not one of the legal ones (it then stays unconstrained) or the state declares none.
 */
export const allowedForAction = (trie: ActionTrie | null, tokens: readonly number[]): number[][] | undefined => {
  if (trie === null || !trie.has(tokens)) return undefined;
  return tokens.map((_, i) => trie.allowedAfter(tokens.slice(0, i)) as number[]);
};

/*
 * How a ToolEnv machine's behaviour becomes journal events. Live runs and replay both go through this one
 * class, so what replay re-derives is by construction what the runtime recorded.
 */
import type { AnyMachineSnapshot } from "xstate";
import type { EventBody } from "../kernel/events.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { type EnvEmitted } from "./env.ts";
import type { Turn } from "./policy.ts";
/** ` (observe() at envs/shop.ts:31:9)`: where the failing action was written in the environment's code. */
export declare const placed: (e: EnvEmitted) => string;
/** Whether a message carries what `placed` adds: the line an observe(), reward() or end() was written at. */
export declare const isPlaced: (message: string) => boolean;
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
export declare const waitingForTools: (snapshot: AnyMachineSnapshot, tools: Readonly<Record<string, unknown>>, inFlight?: (actorId: string) => boolean) => boolean;
/**
 * The active states of a snapshot from which nothing can leave: an atomic state that is not final, with no
 * transition, `always` or `invoke` of its own or of any state above it (a `done: {}` whose `type: "final"` was
 * forgotten). Empty when any active state has a way out.
 */
export declare const deadEndStates: (snapshot: AnyMachineSnapshot) => string[];
/**
 * When no active state (nor any state above one) has a transition on `agent.act`: why the agent's action went
 * unheard, naming the states and the events they do handle; undefined otherwise. A state that waits for the
 * agent with its `on` forgotten, or written under another name, left the episode "waiting for nothing" with advice
 * about fallbacks that did not apply.
 */
export declare const deafToActionNote: (snapshot: AnyMachineSnapshot) => string | undefined;
/**
 * When every active state is a final one inside a state that has no `onDone` (nor any transition of a state
 * above it): how to leave it, in words. The episode ends at a final state of the machine's top level only, so a
 * `type: "final"` one level down waits for nothing; undefined otherwise.
 */
export declare const nestedFinalNote: (snapshot: AnyMachineSnapshot) => string | undefined;
/**
 * What an action's tokens spell with `tokenizer`, when that is not its text (undefined when they agree).
 * The tokens are what the learner trains on and the text is what the environment judges: live runs abort
 * such an action and replay refuses one in a journal. (A lone surrogate in the text is journaled as
 * U+FFFD, which is what its bytes decode to.) Throws what decode throws for an id outside the vocabulary.
 */
export declare const misspelt: (tokenizer: Tokenizer, tokens: readonly number[], text: string) => string | undefined;
/**
 * Why a reward's reason (a reason function's result) is refused, naming the reward, or undefined for a string: the
 * live runtime and replay end the episode there, and checkCoverage reports it.
 */
export declare const rewardReasonProblem: (e: {
    readonly kind: unknown;
    readonly value: unknown;
    readonly reason: unknown;
}) => string | undefined;
/**
 * Why a machine's context cannot be journaled as its state hash, or undefined: it is not plain JSON (a Set or a Date
 * would hash as {} or a string), or its text is not Unicode (a lone surrogate has no canonical JSON: said where, not
 * as canonicalize's "Lone surrogate is not allowed"). The live runtime and replay end the episode there, and
 * checkCoverage reports it.
 */
export declare const contextProblem: (context: unknown) => string | undefined;
/** Episode endings imposed from outside the environment (policy failure, turn limit): replay accepts them as inputs. */
export declare const ABORTED = "aborted: ";
export declare class EpisodeDerivation {
    readonly envId: string;
    /** Encodes observations; without one (replay of a foreign tokenizer) tokens are not derived. */
    readonly tokenizer: Tokenizer | undefined;
    /** Actions taken so far. */
    actions: number;
    totalReturn: number;
    ending: {
        reason: string;
        metrics: Record<string, number>;
    } | undefined;
    /** An observation was emitted since the last action: the agent acts next. */
    awaitingAction: boolean;
    readonly history: Turn[];
    /**
     * The canonical JSON of the last transition's { value, context }, whose digest is its state hash: a copy
     * taken then, which later in-place changes to the context cannot reach (replay's divergence report reads it).
     */
    lastTransition: string;
    readonly context: number[];
    constructor(envId: string, 
    /** Encodes observations; without one (replay of a foreign tokenizer) tokens are not derived. */
    tokenizer: Tokenizer | undefined);
    /** The turn that rewards and tool calls belong to: the last action's (0 before any action). */
    get turn(): number;
    /** A journal event for something the machine emitted, or undefined for what the journal does not keep. */
    emitted(event: {
        type: string;
    }): EventBody | undefined;
    acted(text: string, tokens: readonly number[]): void;
    transitioned(snapshot: AnyMachineSnapshot): EventBody;
    /** The episode.ended event: the environment's ending, or an abort imposed from outside. */
    ended(abort?: string): EventBody;
}

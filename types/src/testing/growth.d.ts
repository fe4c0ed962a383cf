/**
 * Endless growth, for the coverage exploration (coverage.ts): an episode that never ends while its context
 * grows has no end of states, so breadth-first exploration would never finish. Along the ways to the latest
 * states found, a state node that comes back with some context fields grown is a candidate loop; it is
 * replayed PUMP_ROUNDS more times, and if every round comes back to that node, to a new state, with the same
 * fields grown again and without ending the episode, the episode likely never ends: the finder returns a
 * message with the path to the loop, the loop, and how the fields grew.
 */
import type { ExplorationEvent, PathStep, ProtocolSnapshot } from "./coverage.ts";
/** The context's fields, nested objects flattened to dotted paths (three levels deep). */
export declare const fieldsOf: (context: unknown) => Map<string, unknown>;
export declare const jsonOf: (value: unknown) => string;
/** What the finder needs of an exploration in progress. */
export interface GrowthSearch {
    /** The environment's id, for the message. */
    readonly envId: string;
    /** Whether the user gave their own `serialize` (the advice differs). */
    readonly userSerialize: boolean;
    /** Every state found so far by its key, with the event and the parent key of the first way found to it. */
    readonly found: ReadonlyMap<string, {
        readonly state: ProtocolSnapshot;
        readonly parent?: string;
    }>;
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
export declare const endlessGrowthFinder: (search: GrowthSearch) => ((explored: number) => string | undefined);

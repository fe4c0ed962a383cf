/*
 * The benchmark's evaluation suite: exact match (and F1) of a policy on three columns, the shape of the
 * paper's table. "test, seen worlds": held-out questions of the worlds training draws from; "test, new
 * worlds": 2-3 hop questions in worlds training never saw; "ood, new worlds": 4-hop questions (relation
 * chains never seen in training) in unseen worlds, Musique's role. Greedy decoding, fixed seeds.
 */
import type { EnvDefinition } from "../../src/runtime/env.ts";
import { type EpisodeRecord } from "../../src/runtime/episode.ts";
import type { Policy } from "../../src/runtime/policy.ts";
/** The three columns of the results table, each a hopqa variant's options. */
export declare const COLUMNS: readonly [{
    readonly id: "test-seen";
    readonly label: "test (seen worlds)";
    readonly options: {
        readonly split: "test";
        readonly worlds: "1-1000";
    };
}, {
    readonly id: "test-new";
    readonly label: "test (new worlds)";
    readonly options: {
        readonly split: "test";
        readonly worlds: "1000001-1000200";
    };
}, {
    readonly id: "ood-new";
    readonly label: "ood 4-hop (new worlds)";
    readonly options: {
        readonly split: "ood";
        readonly worlds: "1000001-1000200";
    };
}];
/** "test-seen", "test-new" or "ood-new". */
export type ColumnId = (typeof COLUMNS)[number]["id"];
/** A policy's scores on one column: means over its episodes of the hopqa metrics. */
export interface SuiteScore {
    /** Exact match. */
    readonly em: number;
    readonly f1: number;
    /** Share of answers found in what the agent was shown. */
    readonly grounded: number;
    /** Questions evaluated in this column. */
    readonly episodes: number;
    /**
     * Episodes of this column that aborted (a policy, tool or environment error, or a stop), scored 0 in every
     * metric; absent when none did.
     */
    readonly aborted?: number;
    /** Why the first aborted episode aborted (with `aborted`). */
    readonly abortReason?: string;
}
/** Scores per column, and `average`: the mean exact match of the three columns. */
export type SuiteResult = Record<ColumnId, SuiteScore> & {
    readonly average: number;
};
/**
 * A progress callback for evaluateSuite: ticks `tick` once per episode with the column and the exact match
 * of that column so far (a mean, not the last episode's 0 or 1).
 */
export declare const suiteTicker: (tick: (info: Record<string, string | number>) => void) => (column: ColumnId, record: EpisodeRecord) => void;
/**
 * Evaluates a policy on each column, `episodes` questions per column, seeds from `seed` (`policy` is called once per
 * column). Each column is `base` (default `hopqa`) configured with the column's split and worlds: a variant's other
 * options (`hopqa.configure({ wording: "possessive", legal: "relations" })`) hold in every column. Throws a
 * RangeError when episodes is not a positive whole number, when the seed is one `eval --seed` refuses, or when base
 * cannot be configured.
 */
export declare const evaluateSuite: (policy: () => Policy, episodes: number, seed?: string, onEpisode?: (column: ColumnId, record: EpisodeRecord) => void, base?: Pick<EnvDefinition, "id" | "configure">) => Promise<SuiteResult>;
/** The columns of a result where episodes aborted, with their scores (aborted set). */
export declare const abortedColumns: (result: SuiteResult) => (SuiteScore & {
    column: ColumnId;
    aborted: number;
})[];
/**
 * evaluateSuite with a progress bar on stderr (`label`, the column, its exact match so far, and the running episodes'
 * turn between episode ends): it takes a minute or more. A column where episodes aborted is warned about on stderr, with how many and why.
 * `onEpisode`, when given, sees each ended episode too (`npm run hopqa:failures` diagnoses them), after the bar's tick.
 */
export declare const evaluateSuiteShown: (label: string, policy: () => Policy, episodes: number, seed?: string, base?: Pick<EnvDefinition, "id" | "configure" | "maxTurns">, onEpisode?: (column: ColumnId, record: EpisodeRecord) => void) => Promise<SuiteResult>;

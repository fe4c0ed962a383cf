/**
 * The benchmark's evaluation suite: exact match (and F1) of a policy on three columns, the shape of the
 * paper's table. "test, seen worlds": held-out questions of the worlds training draws from; "test, new
 * worlds": 2-3 hop questions in worlds training never saw; "ood, new worlds": 4-hop questions (relation
 * chains never seen in training) in unseen worlds, Musique's role. Greedy decoding, fixed seeds.
 */
import { seedProblem } from "../../src/cli/args.ts";
import { episodeProgress } from "../../src/cli/progress.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { evaluateDerived } from "../../src/learn/evaluate.ts";
import type { EnvDefinition } from "../../src/runtime/env.ts";
import { DEFAULT_MAX_TURNS, type EpisodeRecord } from "../../src/runtime/episode.ts";
import type { Policy } from "../../src/runtime/policy.ts";
import { hopqa } from "./index.ts";

/** The three columns of the results table, each a hopqa variant's options. */
export const COLUMNS = [
  { id: "test-seen", label: "test (seen worlds)", options: { split: "test", worlds: "1-1000" } },
  { id: "test-new", label: "test (new worlds)", options: { split: "test", worlds: "1000001-1000200" } },
  { id: "ood-new", label: "ood 4-hop (new worlds)", options: { split: "ood", worlds: "1000001-1000200" } },
] as const;
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
export type SuiteResult = Record<ColumnId, SuiteScore> & { readonly average: number };

/**
 * A progress callback for evaluateSuite: ticks `tick` once per episode with the column and the exact match
 * of that column so far (a mean, not the last episode's 0 or 1).
 */
export const suiteTicker = (tick: (info: Record<string, string | number>) => void) => {
  const sums = new Map<ColumnId, { em: number; n: number }>();
  return (column: ColumnId, record: EpisodeRecord) => {
    const sum = sums.get(column) ?? { em: 0, n: 0 };
    sum.em += record.metrics.em ?? 0;
    sum.n += 1;
    sums.set(column, sum);
    tick({ column, em: (sum.em / sum.n).toFixed(3) });
  };
};

/**
 * Evaluates a policy on each column, `episodes` questions per column, seeds from `seed` (`policy` is called once per
 * column). Each column is `base` (default `hopqa`) configured with the column's split and worlds: a variant's other
 * options (`hopqa.configure({ wording: "possessive", legal: "relations" })`) hold in every column. Throws a
 * RangeError when episodes is not a positive whole number, when the seed is one `eval --seed` refuses, or when base
 * cannot be configured.
 */
export const evaluateSuite = (
  policy: () => Policy,
  episodes: number,
  seed = "suite",
  onEpisode?: (column: ColumnId, record: EpisodeRecord) => void,
  base: Pick<EnvDefinition, "id" | "configure"> = hopqa,
): Promise<SuiteResult> => {
  // The rule of `eval --suite --seed` (the seed names the episodes' journals), for a call from code too.
  const seedRefused =
    typeof seed === "string" ? seedProblem(seed, "evaluateSuite: seed") : "evaluateSuite: seed must be a string";
  if (seedRefused !== undefined) return Promise.reject(new RangeError(seedRefused));
  return scoreSuite(policy, episodes, seed, onEpisode, base);
};

/** evaluateSuite on a seed made from one checked already (`npm start`'s `start:SEED` may pass 100 characters). */
const scoreSuite = async (
  policy: () => Policy,
  episodes: number,
  seed: string,
  onEpisode: ((column: ColumnId, record: EpisodeRecord) => void) | undefined,
  base: Pick<EnvDefinition, "id" | "configure">,
  onEvent?: (event: EpisodeEvent) => void,
): Promise<SuiteResult> => {
  // No questions would score 0 in every column, as if the policy had failed them all.
  if (!Number.isInteger(episodes) || episodes < 1)
    throw new RangeError(
      `evaluateSuite: episodes (questions per column) must be a positive whole number, got ${episodes}`,
    );
  if (base.configure === undefined)
    throw new RangeError(`evaluateSuite: environment ${base.id} takes no options; the suite's columns need hopqa's`);
  const out: Partial<Record<ColumnId, SuiteScore>> = {};
  for (const column of COLUMNS) {
    const env = base.configure(column.options);
    const summary = await evaluateDerived(env, policy(), {
      episodes,
      seed: `${seed}:${column.id}`,
      ...(onEpisode ? { onEpisode: (r: EpisodeRecord) => onEpisode(column.id, r) } : {}),
      ...(onEvent ? { onEvent } : {}),
    });
    out[column.id] = {
      em: summary.metrics.em ?? 0,
      f1: summary.metrics.f1 ?? 0,
      grounded: summary.metrics.grounded ?? 0,
      episodes: summary.episodes,
      ...(summary.aborted > 0 ? { aborted: summary.aborted, abortReason: summary.abortReason } : {}),
    };
  }
  const scores = out as Record<ColumnId, SuiteScore>;
  const average = COLUMNS.reduce((sum, c) => sum + scores[c.id].em, 0) / COLUMNS.length;
  return { ...scores, average };
};

/** The columns of a result where episodes aborted, with their scores (aborted set). */
export const abortedColumns = (result: SuiteResult): (SuiteScore & { column: ColumnId; aborted: number })[] =>
  COLUMNS.flatMap(({ id }) => {
    const score = result[id];
    return score.aborted === undefined ? [] : [{ ...score, column: id, aborted: score.aborted }];
  });

/**
 * evaluateSuite with a progress bar on stderr (`label`, the column, its exact match so far, and the running episodes'
 * turn between episode ends): it takes a minute or more. A column where episodes aborted is warned about on stderr, with how many and why.
 * `onEpisode`, when given, sees each ended episode too (`npm run hopqa:failures` diagnoses them), after the bar's tick.
 */
export const evaluateSuiteShown = async (
  label: string,
  policy: () => Policy,
  episodes: number,
  seed = "suite",
  base: Pick<EnvDefinition, "id" | "configure" | "maxTurns"> = hopqa,
  onEpisode?: (column: ColumnId, record: EpisodeRecord) => void,
): Promise<SuiteResult> => {
  // The columns are variants of base: its turn limit is theirs.
  const bar = episodeProgress(label, episodes * COLUMNS.length, base.maxTurns ?? DEFAULT_MAX_TURNS);
  const tick = suiteTicker((info) => bar.tick(1, info));
  let result: SuiteResult;
  try {
    result = await scoreSuite(
      policy,
      episodes,
      seed,
      onEpisode
        ? (column, record) => {
            tick(column, record);
            onEpisode(column, record);
          }
        : tick,
      base,
      bar.onEvent,
    );
  } finally {
    bar.stop();
  }
  // An aborted episode scores 0: a column of them would read as a policy that failed every question.
  for (const c of abortedColumns(result))
    process.stderr.write(
      `warning: ${label}: ${c.column}: ${c.aborted} of ${c.episodes} episodes aborted (scored 0): ${c.abortReason ?? "no reason recorded"}\n`,
    );
  return result;
};

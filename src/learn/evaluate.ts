/**
 * Evaluation: run episodes on seeds training never used and report the success rate, the mean return
 * and the mean of every metric the environment reports (exact match, F1, ...).
 */
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { collect } from "./collect.ts";

export interface EvalSummary {
  readonly episodes: number;
  readonly successRate: number | null;
  readonly meanReturn: number;
  readonly meanTurns: number;
  /** Mean of each metric the environment reported. */
  readonly metrics: Readonly<Record<string, number>>;
  readonly aborted: number;
}

export const summarizeEpisodes = (records: readonly EpisodeRecord[]): EvalSummary => {
  const n = Math.max(1, records.length);
  const sums: Record<string, { total: number; count: number }> = {};
  for (const r of records)
    for (const [k, v] of Object.entries(r.metrics)) {
      sums[k] ??= { total: 0, count: 0 };
      sums[k].total += v;
      sums[k].count += 1;
    }
  const metrics = Object.fromEntries(Object.entries(sums).map(([k, { total, count }]) => [k, total / count]));
  return {
    episodes: records.length,
    successRate: "success" in metrics ? metrics.success : null,
    meanReturn: records.reduce((s, r) => s + r.return, 0) / n,
    meanTurns: records.reduce((s, r) => s + r.turns, 0) / n,
    metrics,
    aborted: records.filter((r) => r.reason.startsWith("aborted")).length,
  };
};

export const evaluate = async (
  env: EnvDefinition,
  policy: Policy,
  options: { episodes: number; seed: string; dir?: string; onEpisode?: (record: EpisodeRecord) => void },
): Promise<EvalSummary> => {
  if (options.episodes === 0) return summarizeEpisodes([]);
  const collected = await collect({
    env,
    policy,
    seed: options.seed,
    episodes: options.episodes,
    dir: options.dir,
    onEpisode: options.onEpisode,
  });
  return summarizeEpisodes(collected.map((c) => c.record));
};

/** `agent-r1 record`: run episodes of an environment with a policy and journal them. */
import { existsSync, statSync } from "node:fs";
import { lastValueFrom, tap, toArray } from "rxjs";
import type { Durability } from "../journal/journal.ts";
import { JsonlJournal } from "../journal/jsonl.ts";
import { UsageError } from "../kernel/errors.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import type { EpisodeRecord } from "../runtime/episode.ts";
import type { Policy } from "../runtime/policy.ts";
import { PolicyActor } from "../runtime/policy-actor.ts";
import { rollout } from "../runtime/rollout.ts";
import { progress } from "./progress.ts";

export interface RecordOptions {
  readonly env: EnvDefinition;
  readonly policy: Policy;
  readonly episodes: number;
  readonly seed: string;
  readonly out: string;
  readonly concurrency: number;
  readonly durability: Durability;
  readonly groupSize?: number;
  readonly quiet?: boolean;
}

export interface RecordSummary {
  readonly env: string;
  readonly policy: string;
  readonly out: string;
  readonly episodes: number;
  readonly events: number;
  readonly meanReturn: number;
  readonly successRate: number | null;
  readonly aborted: number;
  readonly seconds: number;
}

export const summarize = (records: readonly EpisodeRecord[]) => {
  const n = Math.max(1, records.length);
  const withSuccess = records.filter((r) => "success" in r.metrics);
  return {
    episodes: records.length,
    events: records.reduce((s, r) => s + r.events.length, 0),
    meanReturn: records.reduce((s, r) => s + r.return, 0) / n,
    successRate: withSuccess.length
      ? withSuccess.reduce((s, r) => s + r.metrics.success, 0) / withSuccess.length
      : null,
    aborted: records.filter((r) => r.reason.startsWith("aborted")).length,
  };
};

export const policyFor = (env: EnvDefinition, name: string): Policy => {
  const policies = env.policies ?? {};
  const make = Object.hasOwn(policies, name) ? policies[name] : undefined;
  if (!make)
    throw new UsageError({
      detail: `environment ${env.id} has no policy "${name}"; its policies: ${Object.keys(env.policies ?? {}).join(", ") || "(none)"}`,
    });
  return make();
};

export const record = async (options: RecordOptions): Promise<RecordSummary> => {
  const started = Date.now();
  if (existsSync(options.out) && !statSync(options.out).isDirectory())
    throw new UsageError({ detail: `--out ${options.out} is a file, not a folder` });
  const journal = new JsonlJournal(options.out, options.durability);
  const bar = options.quiet ? undefined : progress(`record ${options.env.id}`, options.episodes);
  const run = rollout({
    env: options.env,
    policy: new PolicyActor(options.policy),
    journal,
    seed: options.seed,
    episodes: options.episodes,
    concurrency: options.concurrency,
    groupSize: options.groupSize,
  });
  let returns = 0;
  let done = 0;
  const records = await lastValueFrom(
    run.episodes.pipe(
      tap((r) => {
        done += 1;
        returns += r.return;
        bar?.tick(1, { "mean return": (returns / done).toFixed(3) });
      }),
      toArray(),
    ),
  );
  bar?.stop();
  return {
    env: options.env.id,
    policy: options.policy.id,
    out: options.out,
    ...summarize(records),
    seconds: (Date.now() - started) / 1000,
  };
};

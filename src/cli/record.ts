/** `agent-r1 record`: run episodes of an environment with a policy and journal them. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { lastValueFrom, tap } from "rxjs";
import type { Durability } from "../journal/journal.ts";
import { JsonlJournal } from "../journal/jsonl.ts";
import { episodeIdOf } from "../journal/stamp.ts";
import { UsageError } from "../kernel/errors.ts";
import { isRunFolder } from "../observe/journals.ts";
import { ABORTED } from "../runtime/derive.ts";
import type { EnvDefinition } from "../runtime/env.ts";
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
  /** Ctrl-C: say what is journaled and how to go on, then exit 130 (the CLI's `record`). */
  readonly exitOnInterrupt?: boolean;
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
  /** The aborted episode with the lowest index (the same one at any concurrency), and why it aborted. */
  readonly firstAbort?: { readonly episode: string; readonly reason: string; readonly thrownAt?: string };
  readonly seconds: number;
}

export const policyFor = (env: EnvDefinition, name: string): Policy => {
  const policies = env.policies ?? {};
  const make = Object.hasOwn(policies, name) ? policies[name] : undefined;
  if (!make)
    throw new UsageError({
      detail: `environment ${env.id} has no policy "${name}"; its policies: ${Object.keys(env.policies ?? {}).join(", ") || "(none)"}`,
    });
  return make();
};

/** The summary's first abort: what the loop tracked, less the index it compared by. */
const withoutIndex = ({ index: _, ...abort }: { index: number } & NonNullable<RecordSummary["firstAbort"]>) => abort;

/**
 * The episodes this command would write already journaled in --out (episode i of seed S is `ep-S-i`):
 * refused before any episode runs, not at the first one reached (which would leave a partial recording).
 */
const refuseJournaledEpisodes = (options: RecordOptions, journal: JsonlJournal) => {
  // Episode i of seed S is `${episodeIdOf(`${S}:`)}${i}`: match the folder's journals against that, so the cost
  // is one listing of the folder, not one lookup per episode (--episodes may be millions).
  const prefix = episodeIdOf(`${options.seed}:`);
  const suffix = basename(journal.fileOf(prefix)).slice(prefix.length);
  const folder = dirname(journal.fileOf(prefix));
  const taken = (existsSync(folder) ? readdirSync(folder) : [])
    .filter((name) => name.startsWith(prefix) && name.endsWith(suffix))
    .map((name) => name.slice(0, name.length - suffix.length))
    .filter((id) => {
      const index = id.slice(prefix.length);
      return /^(0|[1-9]\d*)$/.test(index) && Number(index) < options.episodes;
    })
    .sort((a, b) => Number(a.slice(prefix.length)) - Number(b.slice(prefix.length)));
  if (taken.length > 0)
    throw new UsageError({
      detail:
        `--out ${options.out} already holds the journals of ${taken.length} of these ${options.episodes} episodes ` +
        `(${taken.slice(0, 3).join(", ")}${taken.length > 3 ? ", ..." : ""}); nothing was recorded: record into a new ` +
        "folder, or use another --seed (episode i of seed S is ep-S-i)",
    });
};

export const record = async (options: RecordOptions): Promise<RecordSummary> => {
  const started = Date.now();
  if (existsSync(options.out) && !statSync(options.out).isDirectory())
    throw new UsageError({ detail: `--out ${options.out} is a file, not a folder` });
  // A run's journals are its policy's episodes, a checkpoint holds weights: recording into either mixes data up.
  if (isRunFolder(options.out) || existsSync(join(options.out, "start.json")))
    throw new UsageError({
      detail: `--out ${options.out} is a train run folder (its episodes are the policy's, and replay, sft and inspect read them as the run's): record into a folder of its own`,
    });
  if (existsSync(join(options.out, "manifest.json")))
    throw new UsageError({ detail: `--out ${options.out} is a checkpoint folder: record into a folder of its own` });
  const journal = new JsonlJournal(options.out, options.durability);
  refuseJournaledEpisodes(options, journal);
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
  // A running summary: the episodes themselves are in the journal, not kept in memory.
  let events = 0;
  let aborted = 0;
  let firstAbort: ({ index: number } & NonNullable<RecordSummary["firstAbort"]>) | undefined;
  let successes = 0;
  let withSuccess = 0;
  // Ctrl-C: say what is on disk and how to go on (the same command would refuse the episodes journaled already).
  const interrupted = () => {
    bar?.stop();
    process.stderr.write(
      `\ninterrupted: ${done} of ${options.episodes} episodes ended and are journaled in ${options.out}; ` +
        `episodes in flight may have left torn journals (\`npx agent-r1 replay ${options.out} --repair\` cuts them back); ` +
        "record more with another --seed (into this --out or another): the same seed names the same episodes, and an episode that already has a journal is refused\n",
    );
    process.exit(130);
  };
  if (options.exitOnInterrupt) process.once("SIGINT", interrupted);
  try {
    await lastValueFrom(
      run.episodes.pipe(
        tap((r) => {
          done += 1;
          returns += r.return;
          events += r.events.length;
          if (r.reason.startsWith(ABORTED)) {
            aborted += 1;
            // Episode i has seed `<run seed>:i`.
            const index = Number(r.seed.slice(r.seed.lastIndexOf(":") + 1));
            if (!firstAbort || index < firstAbort.index)
              firstAbort = {
                index,
                episode: r.episode,
                reason: r.reason.slice(ABORTED.length),
                ...(r.thrownAt ? { thrownAt: r.thrownAt } : {}),
              };
          }
          if ("success" in r.metrics) {
            withSuccess += 1;
            successes += r.metrics.success;
          }
          bar?.tick(1, { "mean return": (returns / done).toFixed(3) });
        }),
      ),
      { defaultValue: undefined },
    );
  } finally {
    process.off("SIGINT", interrupted);
  }
  bar?.stop();
  return {
    env: options.env.id,
    policy: options.policy.id,
    out: options.out,
    episodes: done,
    events,
    meanReturn: returns / Math.max(1, done),
    successRate: withSuccess ? successes / withSuccess : null,
    aborted,
    ...(firstAbort ? { firstAbort: withoutIndex(firstAbort) } : {}),
    seconds: (Date.now() - started) / 1000,
  };
};

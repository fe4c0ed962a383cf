/** `agent-r1 record`: run episodes of an environment with a policy and journal them. */
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { lastValueFrom, tap } from "rxjs";
import type { Durability } from "../journal/journal.ts";
import { JsonlJournal, streamJournalFile } from "../journal/jsonl.ts";
import { holdsNothingButLock, lockFolder, unlockFolder } from "../journal/lock.ts";
import { episodeIdOf } from "../journal/stamp.ts";
import { canonicalJson } from "../kernel/canonical.ts";
import { closestName, didYouMean, JournalError, messageOf, thrownFrom, UsageError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { splitSeed } from "../kernel/prng.ts";
import { WordTokenizer } from "../kernel/tokenizer.ts";
import { actionBudgetNote, actionBudgetOf, contextNote, eosNote } from "../learn/config.ts";
import { enclosingRun } from "../observe/journals.ts";
import { unfinishedSft } from "../policy/checkpoint.ts";
import { replayEpisode } from "../replay/replay.ts";
import { MAX_ACTION_CHARS } from "../runtime/action-format.ts";
import { ABORTED } from "../runtime/derive.ts";
import { type EnvDefinition, envSpecOf, isBuiltInEnv, recordedOptionsOf } from "../runtime/env.ts";
import { type SuccessOutOfRange, SuccessTally } from "../runtime/episode.ts";
import { OutcomeTally } from "../runtime/outcome-tally.ts";
import type { Policy } from "../runtime/policy.ts";
import { notAPolicy, PolicyActor } from "../runtime/policy-actor.ts";
import { rollout, taskSeedOf } from "../runtime/rollout.ts";
import { ToolTally, type ToolTallySummary } from "../runtime/tool-tally.ts";
import { recordsVariant } from "../runtime/variants.ts";
import { progress } from "./progress.ts";
import { exitCodeOf, exitStopped, interruptedBy, onStopSignals, type StopSignal } from "./signals.ts";

/**
 * `record --resume`'s refusal of a journal it cannot go on with: its message says it for the command line (`--resume:
 * ...`, naming --env and the flags to change); `reason` says only what is wrong with the journal, in words that name no
 * flag, for a caller that records through `record` from code (train's warm start).
 */
export class ResumeRefusal extends UsageError {
  readonly reason: string;
  constructor(detail: string, reason: string) {
    super({ detail });
    this.reason = reason;
  }
}

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
  /** Where the note on demonstrations longer than the action budget goes (default: stderr). */
  readonly log?: (line: string) => void;
  /** Go on with a stopped recording: keep the episodes journaled whole, record the others (`record --resume`). */
  readonly resume?: boolean;
  /** Ctrl-C, SIGTERM or SIGHUP: say what is journaled and how to go on, then exit 130, 143 or 129 (the CLI's `record`). */
  readonly exitOnInterrupt?: boolean;
  /**
   * Stops the recording from code (train's warm start, when train is stopped): no further episode starts and the
   * running ones end at once, journaled as `aborted: stopped: REASON`; record then returns what ended.
   */
  readonly signal?: AbortSignal;
}

export interface RecordSummary {
  readonly env: string;
  /** The environment's options in effect, when it has options (plain hopqa's too: split train, ...), as the summary line names them. */
  readonly options?: Readonly<Record<string, string | number>>;
  readonly policy: string;
  readonly out: string;
  readonly episodes: number;
  readonly events: number;
  readonly meanReturn: number;
  /** Mean `success` over the episodes whose end reported one (null when none did). */
  readonly successRate: number | null;
  /** How many episodes' ends reported `success` (those that ended without it are not in successRate). */
  readonly successReported: number;
  /** The episodes whose `success` was outside [0, 1], when any did (the rate is then no rate: the CLI warns). */
  readonly successOutOfRange?: SuccessOutOfRange;
  readonly aborted: number;
  /** The aborted episode with the lowest index (the same one at any concurrency), and why it aborted. */
  readonly firstAbort?: {
    readonly episode: string;
    readonly reason: string;
    readonly thrownAt?: string;
    /** A throw in an episode `record --resume` kept: the journal keeps the reason, not where it was thrown. */
    readonly thrownBeforeResume?: true;
  };
  /** What the tool calls did: how many failed (and with what), how many results were cut to size. */
  readonly tools: ToolTallySummary;
  /** Episodes by the reason they ended ("answered", "turn-limit"; every aborted one as "aborted"). */
  readonly endReasons: Readonly<Record<string, number>>;
  /** Rewards given, by their reason ("malformed", ...): how often each was given. */
  readonly rewardCounts: Readonly<Record<string, number>>;
  readonly seconds: number;
}

export const policyFor = (env: EnvDefinition, name: string): Policy => {
  const policies = env.policies ?? {};
  const make = Object.hasOwn(policies, name) ? policies[name] : undefined;
  if (!make)
    throw new UsageError({
      detail:
        Object.keys(policies).length === 0
          ? `environment ${env.id} has no policy "${name}": it declares no policies; register a scripted one in its definition, defineEnv({ ..., policies: { ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : "expert"}: () => scriptedPolicy(...) } })`
          : `environment ${env.id} has no policy "${name}"${didYouMean(closestName(name, Object.keys(policies)))}; its policies: ${Object.keys(policies).join(", ")}`,
    });
  // A factory that throws (an API key missing) or returns something else printed a stack trace of the
  // framework's, "Cannot read properties of undefined (reading 'id')" for the second.
  let policy: unknown;
  try {
    policy = make();
  } catch (cause) {
    const at = thrownFrom(cause);
    throw new UsageError({
      detail: `environment ${env.id}: policies.${name}() threw: ${messageOf(cause)}${at ? ` (thrown at ${at})` : ""}`,
    });
  }
  const problem = notAPolicy(policy);
  if (problem)
    throw new UsageError({
      detail: `environment ${env.id}: policies.${name}() did not return a Policy ({ id, version, tokenizer, act }, as scriptedPolicy(...) makes): ${problem}`,
    });
  return policy as Policy;
};

/** The summary's first abort: what the loop tracked, less the index it compared by. */
const withoutIndex = ({ index: _, ...abort }: { index: number } & NonNullable<RecordSummary["firstAbort"]>) => abort;

/**
 * The episodes this command would write that --out already has journals of (episode i of seed S is `ep-S-i`),
 * by index. Matched against one listing of the folder, not one lookup per episode (--episodes may be millions).
 */
const journaledEpisodes = (seed: string, journal: JsonlJournal): { id: string; index: number }[] => {
  // Episode i of seed S is `${episodeIdOf(`${S}:`)}${i}`.
  const prefix = episodeIdOf(`${seed}:`);
  const suffix = basename(journal.fileOf(prefix)).slice(prefix.length);
  const folder = dirname(journal.fileOf(prefix));
  return (existsSync(folder) ? readdirSync(folder) : [])
    .filter((name) => name.startsWith(prefix) && name.endsWith(suffix))
    .map((name) => name.slice(0, name.length - suffix.length))
    .filter((id) => /^(0|[1-9]\d*)$/.test(id.slice(prefix.length)))
    .map((id) => ({ id, index: Number(id.slice(prefix.length)) }))
    .sort((a, b) => a.index - b.index);
};

/**
 * The --seed a journal that has this recording's name was recorded with, when it is another seed (journal names
 * keep letters, digits, '.', '_' and '-' of the seed and make any other character '-': "a:b" and "a-b" give one
 * name, though they are two seeds, of other episodes).
 */
const otherSeed = async (file: string, seed: string, index: number): Promise<string | undefined> => {
  try {
    for await (const started of streamJournalFile(file)) {
      const suffix = `:${index}`;
      return started.type === "episode.started" &&
        started.seed !== splitSeed(seed, index) &&
        started.seed.endsWith(suffix)
        ? started.seed.slice(0, -suffix.length)
        : undefined;
    }
  } catch {
    // unreadable or damaged: the message stands without it
  }
  return undefined;
};

/**
 * A new recording into a folder that holds other journals (other seeds' recordings: their names differ):
 * journals of another environment are refused, since replay, sft --data and inspect read a folder as one
 * set of episodes; journals of this environment's other episodes (another --seed) stay beside the new ones,
 * and that is said (`quiet` aside). `journaled`: this seed's journals there (past --episodes, left as they are).
 */
const refuseOtherEnvironment = async (
  options: RecordOptions,
  journal: JsonlJournal,
  journaled: readonly { id: string }[],
): Promise<void> => {
  const others = readdirSync(options.out)
    .filter((name) => name.endsWith(".jsonl"))
    .sort();
  if (others.length === 0) return;
  const envs = new Map<string, string>(); // env id -> the first journal naming it
  // One environment per folder (what this check keeps): the first and the last journal by name stand for it.
  for (const name of new Set([others[0], others[others.length - 1]])) {
    try {
      for await (const started of streamJournalFile(join(options.out, name))) {
        if (started.type === "episode.started" && !envs.has(started.env.id)) envs.set(started.env.id, name);
        break;
      }
    } catch {
      // unreadable or damaged: not this check's to report (replay and inspect say what is wrong with it)
    }
  }
  const foreign = [...envs].find(([id]) => id !== options.env.id);
  if (foreign)
    throw new UsageError({
      detail:
        `--out ${options.out} holds journals of environment "${foreign[0]}" (${foreign[1]}), not ${options.env.id}: ` +
        "replay, sft --data and inspect read a folder as one set of episodes, so nothing was recorded; record into a folder of its own",
    });
  if (options.quiet) return;
  const ours = new Set(journaled.map(({ id }) => basename(journal.fileOf(id))));
  const foreignSeeds = others.filter((name) => !ours.has(name));
  if (foreignSeeds.length > 0)
    process.stderr.write(
      `note: --out ${options.out} already holds ${foreignSeeds.length} journal${foreignSeeds.length === 1 ? "" : "s"} of other episodes ` +
        `(${foreignSeeds.slice(0, 3).join(", ")}${foreignSeeds.length > 3 ? ", ..." : ""}); they stay, beside ${options.episodes === 1 ? "this one" : `these ${options.episodes}`} ` +
        "(replay, inspect and sft --data read all of a folder's journals; another --out keeps recordings apart)\n",
    );
};

/**
 * Why a file could not be read, without Node's call and path ("permission denied (EACCES)" of "EACCES:
 * permission denied, open '/x'"): of a journal reader's "unreadable" or a file-system error; undefined otherwise.
 */
const unreadableWhy = (cause: unknown): string | undefined => {
  const message =
    cause instanceof JournalError
      ? cause.problem === "unreadable"
        ? cause.detail
        : undefined
      : cause instanceof Error && typeof (cause as NodeJS.ErrnoException).code === "string"
        ? cause.message
        : undefined;
  if (message === undefined) return undefined;
  const said = message.match(/^(E[A-Z]+): (.+?), \w+(?: '.*')?$/);
  return said ? `${said[2]} (${said[1]})` : message;
};

/** A task field's value as said in a message: JSON, cut short, or "none" when absent. */
const shown = (value: unknown): string => {
  if (value === undefined) return "none";
  const json = canonicalJson(value);
  return json.length > 60 ? `${json.slice(0, 60)}...` : json;
};

/**
 * Why a journal's task is not the one this --env gives its episode. An environment option (hopqa's top-k, which
 * changes only the search tool, is in the task) set to a value of the recorded task that makes this --env give
 * the recorded task is named, with its value here; otherwise the task's fields that differ are.
 */
const taskDifference = (env: EnvDefinition, recorded: unknown, taskSeed: string): string => {
  const given = env.task(taskSeed) as unknown;
  const fieldsOf = (task: unknown): Record<string, unknown> =>
    typeof task === "object" && task !== null && !Array.isArray(task) ? (task as Record<string, unknown>) : {};
  const [was, is] = [fieldsOf(recorded), fieldsOf(given)];
  const differing = [...new Set([...Object.keys(was), ...Object.keys(is)])].filter(
    (field) => shown(was[field]) !== shown(is[field]),
  );
  const target = canonicalJson(recorded);
  for (const key of Object.keys(env.options ?? {}))
    for (const field of differing) {
      const value = was[field];
      if (env.configure === undefined || !["string", "number", "boolean"].includes(typeof value)) continue;
      try {
        if (canonicalJson(env.configure({ [key]: String(value) }).task(taskSeed)) === target)
          return `environment option ${key} ${value}, not ${env.options?.[key]} (its task is the one this --env gives with ${key}=${value})`;
      } catch {
        // not a value of this option
      }
    }
  const options = Object.entries(env.options ?? {})
    .map(([key, value]) => `${key} ${value}`)
    .join(", ");
  return (
    `another task than this recording gives its episode (${differing.map((field) => `${field} ${shown(was[field])}, not ${shown(is[field])}`).join("; ") || "not a JSON object"}: ` +
    `another --group-size, other environment options${options ? ` than this --env's ${options}` : ""}, or a task(seed) that is not a function of its seed?)`
  );
};

/**
 * `record --resume`: a journal of one of this recording's episodes under another name than its own (renamed or
 * copied, `ep-5-1.jsonl` to `kept.jsonl`), whose own name holds no journal. The resume would record that episode
 * again beside it, two journals of one episode (which sft refuses), and count only the new one: refused, naming
 * both names, before anything is removed or recorded. Only the first event of the folder's other journals is read.
 */
const refuseRenamed = async (
  options: RecordOptions,
  journal: JsonlJournal,
  journaled: readonly { id: string; index: number }[],
): Promise<void> => {
  const ours = new Set(journaled.map(({ id }) => basename(journal.fileOf(id))));
  const folder = dirname(journal.fileOf(episodeIdOf(`${options.seed}:`)));
  const taken = new Set(journaled.map(({ index }) => index));
  const prefix = `${options.seed}:`;
  const renamed: { name: string; episode: string; own: string }[] = [];
  for (const name of readdirSync(folder)
    .filter((n) => n.endsWith(".jsonl") && !ours.has(n))
    .sort()) {
    try {
      for await (const started of streamJournalFile(join(folder, name))) {
        const index = started.type === "episode.started" ? started.seed.slice(prefix.length) : "";
        if (
          started.type === "episode.started" &&
          started.env.id === options.env.id &&
          started.seed.startsWith(prefix) &&
          /^(0|[1-9]\d*)$/.test(index) &&
          Number(index) < options.episodes &&
          !taken.has(Number(index)) &&
          started.episode === episodeIdOf(splitSeed(options.seed, Number(index)))
        )
          renamed.push({ name, episode: started.episode, own: basename(journal.fileOf(started.episode)) });
        break;
      }
    } catch {
      // unreadable or damaged: not this check's to report (replay and inspect say what is wrong with it)
    }
  }
  if (renamed.length === 0) return;
  const [first] = renamed;
  const more =
    renamed.length > 1 ? ` (and ${renamed.length - 1} more journal${renamed.length === 2 ? "" : "s"} so)` : "";
  const reason =
    `${join(folder, first.name)} holds episode ${first.episode} of this recording under another name than its own, ${first.own}${more}: ` +
    "going on would record that episode again beside it, two journals of one episode; nothing was removed or recorded";
  throw new ResumeRefusal(
    `--resume: ${reason}: rename it back to ${first.own} to keep it (or delete it to record the episode again)`,
    reason,
  );
};

/** What a resumed recording found: the ended episodes it keeps (and counts in its summary), and what it removed. */
interface Resumed {
  readonly kept: Set<number>;
  readonly removed: number;
  readonly returns: number;
  readonly events: number;
  readonly aborted: number;
  readonly firstAbort?: { index: number } & NonNullable<RecordSummary["firstAbort"]>;
  readonly success: SuccessTally;
  readonly tools: ToolTally;
  readonly outcomes: OutcomeTally;
}

/** How an episode that a stop ended (rollout's `signal`) is journaled: `aborted: stopped: REASON`. */
const STOPPED = `${ABORTED}stopped: `;

/**
 * One turn of the event loop, through its poll phase (where a signal that came is read and its listeners
 * called): a setImmediate set in the check phase runs in the next turn, after that turn's poll.
 */
const signalsHandled = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(() => resolve())));

/**
 * `record --resume`: the journals of this recording's episodes that ended are kept, if they are this
 * recording's (same environment, policy, seed and task) and the environment's code still replays them;
 * those a stop cut short (no episode.ended, a torn last line, an empty file) or ended (`aborted: stopped: `,
 * a stop from code) are removed, to be recorded
 * again (recording is deterministic: the same seed gives the same episode). A journal damaged before its
 * end is refused: no stop leaves that.
 */
/** How many journals damaged before their end `record --resume` names (the rest are counted). */
const CHANGED_LISTED = 10;

const resumeRecording = async (
  options: RecordOptions,
  journal: JsonlJournal,
  taken: readonly { id: string; index: number }[],
): Promise<Resumed> => {
  const groupSize = options.groupSize ?? 1;
  const policyId = options.policy.id;
  const kept = new Set<number>();
  const cut: string[] = [];
  /** Journals damaged before their end (the reader's message, which names the file and line). */
  const changed: string[] = [];
  let returns = 0;
  let events = 0;
  let aborted = 0;
  let firstAbort: Resumed["firstAbort"];
  const success = new SuccessTally();
  const tools = new ToolTally();
  const outcomes = new OutcomeTally();
  for (const { id, index } of taken) {
    // The journals are read synchronously: a stop signal that comes meanwhile is handled only when the event
    // loop turns. Without a turn here it waited for the episodes, and with none left to record it was dropped
    // (record exited 0). Each turn lets the stop handler end record now, the journals as they were.
    await signalsHandled();
    const file = journal.fileOf(id);
    const read: EpisodeEvent[] = [];
    try {
      for await (const event of streamJournalFile(file)) read.push(event);
    } catch (cause) {
      // A journal that cannot be read (EACCES) is no proof of a changed one: say what is wrong; nothing is removed.
      const unreadable = unreadableWhy(cause);
      if (unreadable) {
        const reason = `cannot read ${file}: ${unreadable}; nothing was removed or recorded: make it readable and run the same command again`;
        throw new ResumeRefusal(`--resume: ${reason} (or delete it to record the episode again)`, reason);
      }
      // Damage no stop leaves: every such journal is named at the end, not one per try.
      if (!(cause instanceof JournalError) || !(cause.repairable || cause.problem === "empty")) {
        changed.push(cause instanceof Error ? cause.message : String(cause));
        continue;
      }
    }
    const started = read[0];
    if (started?.type === "episode.started") {
      const taskSeed = taskSeedOf(options.seed, index, groupSize);
      const differs = (flags: boolean) =>
        started.env.id !== options.env.id || started.env.version !== options.env.version
          ? `environment ${started.env.id} v${started.env.version}, not ${options.env.id} v${options.env.version}`
          : started.seed !== splitSeed(options.seed, index)
            ? started.episode !== id
              ? `episode ${started.episode} (seed ${JSON.stringify(started.seed)}), not ${id} (seed ${JSON.stringify(splitSeed(options.seed, index))}): another episode's journal, renamed or copied to this name`
              : started.seed.endsWith(`:${index}`)
                ? `--seed ${JSON.stringify(started.seed.slice(0, -`:${index}`.length))}, not ${JSON.stringify(options.seed)} (another seed, so other episodes, but the same journal names: a journal's name keeps only the seed's letters, digits, '.', '_' and '-')`
                : `the episode seed ${JSON.stringify(started.seed)}, not ${JSON.stringify(splitSeed(options.seed, index))} (seeds that differ only in characters other than letters, digits, '.', '_' and '-' give one journal name)`
            : started.policy.id !== policyId
              ? `policy ${started.policy.id}, not ${policyId}`
              : canonicalJson(started.task) !== canonicalJson(options.env.task(taskSeed))
                ? taskDifference(options.env, started.task, taskSeed)
                : // Options the task does not show (hopqa's legal), compared as options in effect (hopqa's
                  // world-seed=5 is worlds=5, however each was recorded). A journal that records none is of the
                  // environment as defined (or of a version before journals recorded options): under a variant's
                  // --env, its episodes and the new ones would be two variants in one folder.
                  !recordsVariant(options.env, started.env.options ?? {})
                  ? `environment ${envSpecOf(started.env.id, started.env.options)} (${started.env.options === undefined ? `its episode.started records no options: the environment as defined, or a journal written before journals recorded them${flags ? ": go on with the --env that recorded it" : ""}` : "the options it records"}), not ${envSpecOf(options.env.id, recordedOptionsOf(options.env))}`
                  : undefined;
      if (differs(true))
        throw new ResumeRefusal(
          `--resume: ${file} was recorded with ${differs(true)}: --resume goes on with the same recording (the same --env, --policy, --seed and --group-size); record into another --out`,
          `${file} was recorded with ${differs(false)}`,
        );
    }
    const ended = read.at(-1);
    // Ended by the stop itself (`record({ signal })` from code, as train's warm start is stopped): not how the
    // episode ends, so recorded again, as one a kill cut short is.
    if (ended?.type !== "episode.ended" || ended.reason.startsWith(STOPPED)) {
      cut.push(file);
      continue;
    }
    // Kept only if this --env still derives it: an environment changed since (a reward, an observation)
    // without a new version would otherwise leave one folder of episodes from two versions of the code.
    try {
      replayEpisode(read, options.env, { file });
    } catch (cause) {
      const divergence = messageOf(cause)
        .split("\n")
        .map((line) => (line.length > 400 ? `${line.slice(0, 400)}...` : line.trim()))
        .join(" ");
      throw new ResumeRefusal(
        `--resume: ${file} was recorded by other code than this --env ${options.env.id} v${options.env.version} runs now: ${divergence}. Its episodes would mix with episodes of the new code: give the changed environment a new version and record into another --out (or restore the code it was recorded with)`,
        `${file} was recorded by other code than environment ${options.env.id} v${options.env.version} runs now: ${divergence}`,
      );
    }
    kept.add(index);
    returns += ended.return;
    events += read.length;
    tools.add(read, true);
    outcomes.add(ended.reason, read);
    if (ended.reason.startsWith(ABORTED)) {
      aborted += 1;
      if (!firstAbort) {
        const reason = ended.reason.slice(ABORTED.length);
        // The policy's or the environment's code threw it (a recording says where); the journal has the reason only.
        const thrown = reason.startsWith("environment error: ") || reason.startsWith(`policy ${policyId} failed: `);
        firstAbort = { index, episode: ended.episode, reason, ...(thrown ? { thrownBeforeResume: true } : {}) };
      }
    }
    success.add(ended);
  }
  if (changed.length > 0) {
    const one = changed.length === 1;
    const more = changed.length > CHANGED_LISTED ? `; and ${changed.length - CHANGED_LISTED} more` : "";
    const listed = `${changed.slice(0, CHANGED_LISTED).join("; ")}${more}`;
    const reason = `${one ? listed : `${changed.length} journals are damaged: ${listed}`}; a stopped recording leaves only a cut last line, so ${one ? "this journal was" : "these were"} changed since; nothing was removed or recorded`;
    const them = one ? "it" : "them";
    throw new ResumeRefusal(
      `--resume: ${reason}: look at ${them} (or delete ${them} to record ${one ? "the episode" : "their episodes"} again)`,
      reason,
    );
  }
  // A signal during the last journal's check: handled before anything is removed.
  await signalsHandled();
  for (const file of cut) rmSync(file);
  return {
    kept,
    removed: cut.length,
    returns,
    events,
    aborted,
    firstAbort,
    success,
    tools,
    outcomes,
  };
};

/**
 * `record --out` (the CLI's): a run's journals are its policy's episodes and a checkpoint holds weights, so
 * recording into either, or into a folder inside a run (episodes/, checkpoints/), mixes data up. (Training's
 * own warm start records into its run's warm-start/demos through `record` from code, which this does not check.)
 */
export const refuseRecordOut = (out: string) => {
  const runFolder = enclosingRun(out);
  if (runFolder)
    throw new UsageError({
      detail: `--out ${out} is ${runFolder === resolve(out) ? "a train run folder" : `inside the train run folder ${runFolder}`} (its episodes are the policy's, and replay, sft and inspect read them as the run's): record into a folder of its own`,
    });
  // A clone its sft is still making (stopped, to be resumed): journals there left that sft unable to finish.
  const stoppedSft = unfinishedSft(out, "record into a folder of its own");
  if (stoppedSft) throw new UsageError({ detail: `--out ${stoppedSft}` });
  if (existsSync(join(out, "manifest.json")))
    throw new UsageError({ detail: `--out ${out} is a checkpoint folder: record into a folder of its own` });
};

/** What a stop signal does now: the stage record is in sets it (see record). */
interface OnStop {
  handler: (signal: StopSignal) => void;
}

export const record = async (options: RecordOptions): Promise<RecordSummary> => {
  // Before the lock is taken: a signal between taking it and the episodes' start (a --resume checks every
  // journal first: seconds for a large folder) ended record without the exit that releases the lock, and
  // the next record had to take it over. Until the episodes start it exits saying that none ran.
  const onStop: OnStop = {
    handler: (signal) => {
      process.stderr.write(
        `\n${interruptedBy(signal)}: record stopped before its episodes started (while it ${options.resume ? "checked the journals to go on with" : "looked at --out"}), so nothing was recorded${options.resume ? " (the journals are kept as they were)" : ""}; run the command again\n`,
      );
      process.exit(exitCodeOf(signal));
    },
  };
  const quiet = options.exitOnInterrupt ? onStopSignals((signal) => onStop.handler(signal)) : () => {};
  try {
    return await recordLocked(options, onStop);
  } finally {
    unlockFolder(options.out);
    quiet();
  }
};

/** record, holding its --out's lock (lockFolder) once the folder is there. */
const recordLocked = async (options: RecordOptions, onStop: OnStop): Promise<RecordSummary> => {
  const started = Date.now();
  if (existsSync(options.out) && !statSync(options.out).isDirectory())
    throw new UsageError({ detail: `--out ${options.out} is a file, not a folder` });
  const existed = existsSync(options.out);
  const journal = new JsonlJournal(options.out, options.durability);
  lockFolder(options.out, options.resume ? "record --resume" : "record");
  // One listing of the folder: the journals of this seed's first --episodes, and those past it.
  const journaled = journaledEpisodes(options.seed, journal);
  const taken = journaled.filter(({ index }) => index < options.episodes);
  // Refused before any episode runs, not at the first one reached (which would leave a partial recording).
  if (taken.length > 0 && !options.resume) {
    const names = `${taken
      .slice(0, 3)
      .map((t) => t.id)
      .join(", ")}${taken.length > 3 ? ", ..." : ""}`;
    const scheme = `episode i of seed ${options.seed} is ${episodeIdOf(`${options.seed}:`)}i`;
    const recordedWith = await otherSeed(journal.fileOf(taken[0].id), options.seed, taken[0].index);
    throw new UsageError({
      detail:
        recordedWith === undefined
          ? `--out ${options.out} already holds the journals of ${taken.length} of these ${options.episodes} episodes (${names}); ` +
            `nothing was recorded: record into a new folder, or use another --seed (${scheme}); --resume records the rest of a stopped recording`
          : `--out ${options.out} already holds ${taken.length} journal${taken.length === 1 ? "" : "s"} with the names of these episodes (${names}), ` +
            `recorded with --seed ${JSON.stringify(recordedWith)}: another seed than ${JSON.stringify(options.seed)}, so other episodes, ` +
            `but a journal's name keeps only the seed's letters, digits, '.', '_' and '-' (any other character becomes '-'), so both seeds name their episodes ${episodeIdOf(`${options.seed}:`)}i; ` +
            `nothing was recorded: record --seed ${options.seed} into a new folder, or use a seed whose name differs (--resume goes on only with --seed ${JSON.stringify(recordedWith)})`,
    });
  }
  if (!options.resume && existed) await refuseOtherEnvironment(options, journal, journaled);
  // Stopped before any episode ended (the default --durability episode writes a journal when its episode
  // ends): the folder is there, empty but for a lock, and the recording starts from the beginning.
  const startsOver = options.resume && taken.length === 0 && existed && holdsNothingButLock(options.out);
  // What a resume found: to the caller's log when there is one (train's warm start), else to stderr unless quiet.
  const resumeNote =
    options.log ?? (options.quiet ? undefined : (line: string) => void process.stderr.write(`${line}\n`));
  if (startsOver)
    resumeNote?.(
      `record --resume: --out ${options.out} holds no journal yet (the recording stopped before its first episode ended); recording all ${options.episodes} from the beginning`,
    );
  // Before the refusal of a folder without this seed's journals: one whose journals were all renamed is said so.
  if (options.resume && existed && !startsOver) await refuseRenamed(options, journal, journaled);
  if (options.resume && taken.length === 0 && !startsOver) {
    const others = existsSync(options.out) ? readdirSync(options.out).filter((n) => n.endsWith(".jsonl")).length : 0;
    if (!existed) rmSync(options.out, { recursive: true, force: true }); // the empty folder the journal made
    throw new UsageError({
      detail: `--resume: ${existed ? `--out ${options.out} holds no journal of seed ${options.seed}'s first ${options.episodes} episodes${others ? ` (it holds ${others} other journal${others === 1 ? "" : "s"}: another --seed?)` : ""}` : `--out ${options.out} does not exist`}, so there is no recording to go on with: check --out and --seed, or leave out --resume to start one`,
    });
  }
  const resumed = options.resume && !startsOver ? await resumeRecording(options, journal, taken) : undefined;
  // Journals of this seed past --episodes (a recording resumed with fewer): left as they are, and said.
  const later = journaled.length - taken.length;
  if (resumed)
    resumeNote?.(
      `record --resume: ${resumed.kept.size} of ${options.episodes} episodes are journaled already and kept` +
        (resumed.removed ? `; removed ${resumed.removed} that the stop cut short` : "") +
        `; recording the other ${options.episodes - resumed.kept.size}` +
        (later
          ? ` (${later} journal${later === 1 ? "" : "s"} of this seed's later episodes, past --episodes ${options.episodes}, ${later === 1 ? "is" : "are"} left as ${later === 1 ? "it is" : "they are"})`
          : ""),
    );
  // A resumed recording's kept episodes count in the bar's total, not in its rate.
  const bar = options.quiet
    ? undefined
    : progress(`record ${options.env.id}`, options.episodes, process.stderr, resumed?.kept.size ?? 0);
  const run = rollout({
    env: options.env,
    policy: new PolicyActor(options.policy),
    journal,
    seed: options.seed,
    episodes: options.episodes,
    concurrency: options.concurrency,
    groupSize: options.groupSize,
    ...(resumed ? { skip: (index: number) => resumed.kept.has(index) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // A running summary (of the kept episodes too, when resumed): the episodes are in the journal, not in memory.
  let returns = resumed?.returns ?? 0;
  let done = resumed?.kept.size ?? 0;
  /** What the bar shows: the episodes that ended, and their returns (not those a stop ended). */
  let shown = done;
  let shownReturns = returns;
  let events = resumed?.events ?? 0;
  let aborted = resumed?.aborted ?? 0;
  let firstAbort: ({ index: number } & NonNullable<RecordSummary["firstAbort"]>) | undefined = resumed?.firstAbort;
  const success = resumed?.success ?? new SuccessTally();
  const tools = resumed?.tools ?? new ToolTally();
  const outcomes = resumed?.outcomes ?? new OutcomeTally();
  /** The most tokens one action took (its <eos> included), in the episodes recorded now. */
  let longest = 0;
  /** The actions recorded now, and those of them that end without <eos> though shorter than the action budget. */
  let acted = 0;
  let unended = 0;
  const eos = options.env.tokenizer.idOf("<eos>");
  const budget = actionBudgetOf(options.env);
  /** The episode of the most tokens (observations and actions: what a model's context holds), of those that ended. */
  let longestEpisode: { tokens: number; episode: string } | undefined;
  const spelled = new SpelledTally(options.env);
  // Ctrl-C (or SIGTERM, SIGHUP): say what is on disk and how to go on (the same command would refuse the
  // episodes journaled already).
  // The episodes in flight halt, journaled no further (so --resume records them again), and their tool calls
  // are ended and waited for, briefly, before the exit (exitStopped).
  const interrupted = (signal: StopSignal) => {
    bar?.stop();
    exitStopped(
      signal,
      `\n${interruptedBy(signal)}: ${done} of ${options.episodes} episodes ended and are journaled in ${options.out}; ` +
        `episodes in flight may have left torn journals (\`npx agent-r1 replay ${options.out} --repair\` cuts them back); ` +
        "the same command with --resume records the rest (it removes what was cut short and keeps what ended)\n",
    );
  };
  onStop.handler = interrupted;
  try {
    await lastValueFrom(
      run.episodes.pipe(
        tap((r) => {
          done += 1;
          returns += r.return;
          events += r.events.length;
          tools.add(r.events);
          outcomes.add(r.reason, r.events);
          spelled.add(r.events);
          // An action past MAX_ACTION_CHARS is malformed unread, whatever the budget: it sizes nothing.
          for (const event of r.events)
            if (event.type === "agent.acted" && event.text.length <= MAX_ACTION_CHARS) {
              longest = Math.max(longest, event.tokens.length);
              acted += 1;
              // Shorter than the budget and no <eos> last: the policy leaves it out (a cut action has none by right).
              if (eos !== undefined && event.tokens.at(-1) !== eos && event.tokens.length < budget) unended += 1;
            }
          if (!r.reason.startsWith(ABORTED)) {
            let tokens = 0;
            for (const event of r.events)
              if (event.type === "agent.acted" || event.type === "env.observed") tokens += event.tokens.length;
            if (longestEpisode === undefined || tokens > longestEpisode.tokens)
              longestEpisode = { tokens, episode: r.episode };
          }
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
          success.add(r);
          // An episode a stop ended (`record({ signal })`: train's warm start) is recorded again by the resume: not
          // counted as done, nor in the mean return (its partial return pulled it down), as the summary says.
          if (r.reason.startsWith(STOPPED)) return;
          shown += 1;
          shownReturns += r.return;
          bar?.tick(1, { "mean return": (shownReturns / shown).toFixed(3) });
        }),
      ),
      { defaultValue: undefined },
    );
  } catch (cause) {
    bar?.stop();
    // Failed before any journal was written (a task generator that throws, say): no empty folder is left.
    if (!existed && existsSync(options.out) && holdsNothingButLock(options.out))
      rmSync(options.out, { recursive: true });
    throw cause;
  }
  bar?.stop();
  // Said now rather than at sft, or at train's first cut actions: these are demonstrations a model will learn from.
  // A policy with a tokenizer of its own (an LLM's) journals its own token ids: the notes below read them with the
  // environment's tokenizer, and said words of the environment's own vocabulary were missing from it.
  const policyTokenizer = options.policy.tokenizer.id;
  const notes =
    policyTokenizer === options.env.tokenizer.id
      ? [
          actionBudgetNote(options.env, longest, "recorded"),
          contextNote(options.env, longestEpisode),
          spelled.note(),
          eosNote(unended, acted, "recorded"),
        ]
      : [
          `note: policy ${options.policy.id} tokenizes with its own tokenizer (${policyTokenizer}), not environment ${options.env.id}'s (${options.env.tokenizer.id}), so the journals keep its token ids: they replay, but sft and train of ${options.env.id}'s model refuse them (there they spell other words); to clone demonstrations, give the policy the environment's tokenizer (env.tokenizer)`,
        ];
  for (const line of notes) if (line) (options.log ?? ((text: string) => process.stderr.write(`${text}\n`)))(line);
  return {
    env: options.env.id,
    ...(options.env.options && Object.keys(options.env.options).length > 0 ? { options: options.env.options } : {}),
    policy: options.policy.id,
    out: options.out,
    episodes: done,
    events,
    meanReturn: returns / Math.max(1, done),
    successRate: success.rate,
    successReported: success.reported,
    ...(success.outOfRange ? { successOutOfRange: success.outOfRange } : {}),
    aborted,
    ...(firstAbort ? { firstAbort: withoutIndex(firstAbort) } : {}),
    tools: tools.summary(),
    ...outcomes.summary(),
    seconds: (Date.now() - started) / 1000,
  };
};

/**
 * Words of the recorded actions and observations that the environment's word tokenizer spells a token per byte
 * (a word its corpus missed: `answer`, so that `<answer>unavailable</answer>` took 19 tokens): a model must learn
 * them letter by letter, and the action budget note alone sent the user to raise the budget.
 */
export class SpelledTally {
  private readonly words = new Map<string, { count: number; tokens: number; where: Set<string> }>();
  private readonly tokenizer: WordTokenizer | undefined;
  constructor(private readonly env: Pick<EnvDefinition, "id" | "tokenizer">) {
    // A built-in environment's tokenizer is not the user's to change (its checkpoints depend on it).
    this.tokenizer = env.tokenizer instanceof WordTokenizer && !isBuiltInEnv(env) ? env.tokenizer : undefined;
  }

  add(events: readonly EpisodeEvent[]): void {
    if (!this.tokenizer) return;
    for (const event of events) {
      if (event.type !== "agent.acted" && event.type !== "env.observed") continue;
      if (event.type === "agent.acted" && event.text.length > MAX_ACTION_CHARS) continue;
      for (const word of this.tokenizer.spelledOut(event.tokens)) {
        // Numbers a tool returns are unbounded: spelt by digit, as no vocabulary can hold them all.
        if (/^\p{N}+$/u.test(word)) continue;
        // A byte token per UTF-8 byte: measured once, when the word is first seen.
        const seen = this.words.get(word) ?? { count: 0, tokens: Buffer.byteLength(word), where: new Set<string>() };
        seen.count += 1;
        seen.where.add(event.type === "agent.acted" ? "actions" : "observations");
        this.words.set(word, seen);
      }
    }
  }

  /** The note, or undefined when every word recorded is in the vocabulary. */
  note(): string | undefined {
    if (this.words.size === 0) return undefined;
    const shown = [...this.words].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
    const listed = shown
      .slice(0, 5)
      .map(
        ([word, w]) =>
          // A runaway word (a model's junk, thousands of characters) is named by its start and its length.
          `${word.length > 40 ? `${JSON.stringify(word.slice(0, 40))}... (${word.length} characters, ` : `${JSON.stringify(word)} (`}${w.tokens} tokens; ${w.count}x, in ${[...w.where].sort().join(" and ")})`,
      )
      .join(", ");
    const more = shown.length > 5 ? `, and ${shown.length - 5} more` : "";
    return (
      `note: ${shown.length} word(s) of the recorded episodes are not in environment ${this.env.id}'s tokenizer vocabulary, ` +
      `so each is spelt a token per byte (longer actions and observations, which a model must learn to spell): ${listed}${more}; ` +
      "add those the environment and its demonstrators write to the texts its WordTokenizer.fromCorpus is built from (a random policy's junk, which is penalised, may stay out)"
    );
  }
}

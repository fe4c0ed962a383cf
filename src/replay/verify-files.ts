/**
 * Checks journal files: each is read (schema, seq, hash chain), optionally repaired (a torn tail is
 * truncated) and optionally replay-verified against its environment. Every file gets a verdict; one bad
 * file never hides the others. Reading streams (one line in memory at a time); verifying holds one
 * episode at a time. In a folder, only regular files are read: a link cannot lead the check outside it.
 */
import { existsSync, lstatSync } from "node:fs";
import { resolve } from "node:path";
import { EpisodeCopies } from "../journal/copies.ts";
import { type RepairReport, readJournalFile, repairJournalFile, streamJournalFile } from "../journal/jsonl.ts";
import {
  EnvMismatchError,
  EnvOptionsRefusedError,
  JournalError,
  messageOf,
  NonDeterminismError,
  RecordedOptionsRefusedError,
  UsageError,
} from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { findJournals } from "../observe/journals.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { endsInEnvError, envErrorPlaced, envErrorThrownAt, replayEpisode } from "./replay.ts";

export interface FileVerdict {
  readonly file: string;
  readonly ok: boolean;
  readonly events: number;
  readonly episode?: string;
  readonly return?: number;
  readonly reason?: string;
  /**
   * Where the environment's code threw, for an episode that ended in an environment error and replays with its
   * environment (verified, or, when only reading, an environment known here): the journal keeps the message only.
   */
  readonly thrownAt?: string;
  /**
   * Reading only: the id of the environment, not known here, of an episode that ended in an environment error,
   * whose line was therefore not found (its module, given with --env, would find it).
   */
  readonly thrownAtUnknown?: string;
  readonly repaired?: RepairReport;
  /** The digest of its last event, of a journal read whole. */
  readonly lastDigest?: string;
  /**
   * Verified, but not its token ids: the tokenizer it was recorded with (its id), which the environment it was
   * verified with has not (another version's, or a variant's that no option here gives).
   */
  readonly tokensUnchecked?: { readonly env: string; readonly recorded: string; readonly here: string };
  /** A journal checked before this one that holds the same episode (the same last digest): this is a copy, or it is. */
  readonly copyOf?: string;
  /** What is wrong, naming file and line. */
  readonly problem?: string;
  /**
   * Set when the file was read but could not be verified: its environment is unknown here. The same text
   * for every journal of that environment, so a caller can say it once.
   */
  readonly unverified?: string;
  /** Set with `unverified` when the environment is known but refuses the options the journal records. */
  readonly optionsRefused?: boolean;
}

export interface VerifyOptions {
  readonly verify: boolean;
  readonly repair: boolean;
  /**
   * The environment of a journal, by the id, tokenizer id and options its episode.started records. An
   * EnvOptionsRefusedError (the journal's options are not those of the `--env` given) stops the check.
   */
  readonly envOf: (id: string, tokenizerId?: string, options?: Readonly<Record<string, string>>) => EnvDefinition;
  /** Told the journals found, before any is checked (a caller's progress takes its total from them). */
  readonly found?: (files: readonly string[]) => void;
}

/** Reads a file without keeping its events: the count, the first and the last. */
const skim = async (file: string) => {
  let first: EpisodeEvent | undefined;
  let last: EpisodeEvent | undefined;
  let count = 0;
  for await (const event of streamJournalFile(file)) {
    first ??= event;
    last = event;
    count += 1;
  }
  return { first: first!, last: last!, count };
};

/**
 * Reading only: where the environment's code threw, for a journal that ended in an environment error of an
 * environment known here (built in, or --env's). Only such journals are read whole and replayed; an unknown
 * environment, or one the journal does not replay with, gives none (reading checks nothing more).
 */
const thrownAtIfKnown = async (
  file: string,
  first: EpisodeEvent,
  last: EpisodeEvent,
  options: VerifyOptions,
): Promise<{ readonly thrownAt?: string; readonly thrownAtUnknown?: string }> => {
  if (first.type !== "episode.started" || !endsInEnvError(last)) return {};
  let env: EnvDefinition;
  try {
    env = options.envOf(first.env.id, first.tokenizer, first.env.options);
  } catch (cause) {
    if (cause instanceof EnvOptionsRefusedError) throw cause;
    // Its message names the line already: nothing for --env to find.
    return envErrorPlaced(last) ? {} : { thrownAtUnknown: first.env.id };
  }
  const thrownAt = envErrorThrownAt(await readJournalFile(file), env);
  return thrownAt ? { thrownAt } : {};
};

export const checkFile = async (file: string, options: VerifyOptions): Promise<FileVerdict> => {
  let repaired: RepairReport | undefined;
  try {
    if (options.repair) {
      repaired = await repairJournalFile(file);
      if (repaired && repaired.keptEvents === 0) return { file, ok: true, events: 0, repaired };
    }
    if (!options.verify) {
      const { first, last, count } = await skim(file);
      const thrown = await thrownAtIfKnown(file, first, last, options);
      return {
        file,
        ok: true,
        events: count,
        episode: first.episode,
        repaired,
        lastDigest: last.digest,
        ...(last.type === "episode.ended" ? { return: last.return, reason: last.reason } : { reason: "(not ended)" }),
        ...thrown,
      };
    }
    const events = await readJournalFile(file);
    const started = events[0];
    const ended = events.at(-1);
    /** A verdict on a journal that was read whole but did not pass. */
    const failed = (
      verdict: Pick<FileVerdict, "problem" | "reason" | "unverified" | "optionsRefused">,
    ): FileVerdict => ({
      file,
      ok: false,
      events: events.length,
      episode: started.episode,
      repaired,
      ...verdict,
    });
    if (ended?.type !== "episode.ended") {
      // Not verified, but its environment is known: resolving it tells the caller whose journal this is
      // (replay's note on an --env that no journal names must not count this one out).
      try {
        if (started.type === "episode.started") options.envOf(started.env.id, started.tokenizer, started.env.options);
      } catch (cause) {
        if (cause instanceof EnvOptionsRefusedError) throw cause;
        // an unknown environment changes nothing here: the journal fails for being cut short
      }
      return failed({
        reason: "(not ended)",
        problem: `${file}:${events.length + 1}: the episode has no episode.ended (the journal stops after ${events.length} events: cut short, or still recording)`,
      });
    }
    if (started.type !== "episode.started") throw new Error("unreachable: the validator checks the first event");
    let env: EnvDefinition;
    try {
      env = options.envOf(started.env.id, started.tokenizer, started.env.options);
    } catch (cause) {
      if (!(cause instanceof UsageError) || cause instanceof EnvOptionsRefusedError) throw cause;
      return failed({
        unverified: cause.message,
        problem: `${file}: ${events.length} events read; not verified: environment ${JSON.stringify(started.env.id)} ${
          cause instanceof RecordedOptionsRefusedError ? "refuses the options it records" : "is unknown"
        }`,
        ...(cause instanceof RecordedOptionsRefusedError ? { optionsRefused: true } : {}),
      });
    }
    let result: ReturnType<typeof replayEpisode>;
    try {
      // No file for the error to name: the verdict's problem starts with the file and line.
      result = replayEpisode(events, env);
    } catch (cause) {
      if (cause instanceof NonDeterminismError || cause instanceof EnvMismatchError) throw cause;
      // The environment's own code threw on these recorded inputs: a journal it cannot have produced.
      return failed({
        problem: `${file}:1: replay failed: environment ${env.id} threw on the recorded inputs: ${messageOf(cause)}`,
      });
    }
    return {
      file,
      ok: true,
      events: events.length,
      episode: started.episode,
      repaired,
      lastDigest: ended.digest,
      return: result.return,
      reason: result.reason,
      ...(result.thrownAt ? { thrownAt: result.thrownAt } : {}),
      ...(result.tokensVerified
        ? {}
        : { tokensUnchecked: { env: env.id, recorded: started.tokenizer, here: env.tokenizer.id } }),
    };
  } catch (cause) {
    // Journals of other options than --env's: refused, once, with the file that showed it.
    if (cause instanceof EnvOptionsRefusedError)
      throw new EnvOptionsRefusedError({ detail: `${file}: ${cause.detail}` });
    if (cause instanceof NonDeterminismError)
      return { file, ok: false, events: 0, repaired, problem: `${file}:${cause.seq + 1}: ${cause.message}` };
    if (cause instanceof EnvMismatchError)
      return { file, ok: false, events: 0, repaired, problem: `${file}:1: ${cause.message}` };
    if (cause instanceof JournalError) {
      // --repair mends a torn last line only; say so where the damage is elsewhere, rather than nothing.
      const untouched =
        options.repair && !cause.repairable
          ? " (--repair cuts back only a torn last line, or blank lines after the last event; it does not mend damage before the end)"
          : "";
      return { file, ok: false, events: 0, repaired, problem: cause.message + untouched };
    }
    return { file, ok: false, events: 0, repaired, problem: `${file}: ${messageOf(cause)}` };
  }
};

/** Journals in a folder must be regular files: a link could point anywhere. */
const notRegular = (file: string): string | undefined => {
  const info = lstatSync(file);
  if (info.isFile()) return undefined;
  const kind = info.isSymbolicLink() ? "a symbolic link" : info.isDirectory() ? "a folder" : "a special file";
  return `${file}: unreadable: ${kind}, not a regular file; journals in a run folder are read only from regular files, so nothing outside the folder is read`;
};

/**
 * Verdicts on the journals at `path`: a journal, a folder of them (`record --out`), or a run folder
 * (`train --out`: episodes/u00012/, warm-start/demos/), found as `inspect` finds them. Several paths (a shell glob's
 * files) are one list: each is checked to exist and hold journals before any is read, a file named twice is read
 * once, and a copy of an episode is found across them as within a folder.
 */
export async function* checkPath(
  path: string | readonly string[],
  options: VerifyOptions,
): AsyncGenerator<FileVerdict> {
  const paths = typeof path === "string" ? [path] : path;
  const files: string[] = [];
  /** Files named themselves (not found in a folder): the one kind of path that may be a link. */
  const named = new Set<string>();
  const seen = new Set<string>();
  for (const each of paths) {
    if (!existsSync(each)) throw new UsageError({ detail: `no such file or folder: ${each}` });
    const found = await findJournals(each, { links: true });
    // A folder without journals is a wrong path, not a failed check.
    if (found.length === 0)
      throw new UsageError({
        detail: `no .jsonl journal files in ${each} (nor in its subfolders): give a journal, a folder of them, or a run folder (train --out)`,
      });
    if (found.length === 1 && found[0] === each) named.add(each);
    for (const file of found) {
      if (seen.has(resolve(file))) continue;
      seen.add(resolve(file));
      files.push(file);
    }
  }
  options.found?.(files);
  const copies = new EpisodeCopies();
  for (const file of files) {
    const problem = named.has(file) ? undefined : notRegular(file);
    const verdict: FileVerdict = problem ? { file, ok: false, events: 0, problem } : await checkFile(file, options);
    const copyOf = verdict.ok ? copies.earlier(file, verdict.lastDigest) : undefined;
    yield copyOf === undefined ? verdict : { ...verdict, copyOf };
  }
}

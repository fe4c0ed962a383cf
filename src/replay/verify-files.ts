/**
 * Checks journal files: each is read (schema, seq, hash chain), optionally repaired (a torn tail is
 * truncated) and optionally replay-verified against its environment. Every file gets a verdict; one bad
 * file never hides the others.
 */
import { existsSync } from "node:fs";
import { journalFilesAt, type RepairReport, readJournalFile, repairJournalFile } from "../journal/jsonl.ts";
import { JournalError, NonDeterminismError, UsageError } from "../kernel/errors.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { replayEpisode } from "./replay.ts";

export interface FileVerdict {
  readonly file: string;
  readonly ok: boolean;
  readonly events: number;
  readonly episode?: string;
  readonly return?: number;
  readonly reason?: string;
  readonly repaired?: RepairReport;
  /** What is wrong, naming file and line. */
  readonly problem?: string;
}

export interface VerifyOptions {
  readonly verify: boolean;
  readonly repair: boolean;
  readonly envOf: (id: string) => EnvDefinition;
}

const describe = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

export const checkFile = async (file: string, options: VerifyOptions): Promise<FileVerdict> => {
  let repaired: RepairReport | undefined;
  try {
    if (options.repair) {
      repaired = await repairJournalFile(file);
      if (repaired && repaired.keptEvents === 0) return { file, ok: true, events: 0, repaired };
    }
    const events = await readJournalFile(file);
    const started = events[0];
    const ended = events.at(-1);
    let verdict: FileVerdict = {
      file,
      ok: true,
      events: events.length,
      episode: started.episode,
      repaired,
      ...(ended?.type === "episode.ended" ? { return: ended.return, reason: ended.reason } : { reason: "(not ended)" }),
    };
    if (options.verify && started.type === "episode.started") {
      const env = options.envOf(started.env.id);
      if (ended?.type !== "episode.ended")
        return {
          ...verdict,
          ok: false,
          problem: `${file}:${events.length + 1}: the episode has no episode.ended (the journal stops after ${events.length} events: cut short, or still recording)`,
        };
      const result = replayEpisode(events, env, { file });
      verdict = { ...verdict, return: result.return, reason: result.reason };
    }
    return verdict;
  } catch (cause) {
    if (cause instanceof NonDeterminismError)
      return { file, ok: false, events: 0, repaired, problem: `${file}:${cause.seq + 1}: ${cause.message}` };
    if (cause instanceof JournalError) return { file, ok: false, events: 0, repaired, problem: cause.message };
    return { file, ok: false, events: 0, repaired, problem: `${file}: ${describe(cause)}` };
  }
};

export async function* checkPath(path: string, options: VerifyOptions): AsyncGenerator<FileVerdict> {
  if (!existsSync(path)) throw new UsageError({ detail: `no such file or folder: ${path}` });
  const files = await journalFilesAt(path);
  if (files.length === 0) yield { file: path, ok: false, events: 0, problem: `${path}: no .jsonl journal files here` };
  for (const file of files) yield checkFile(file, options);
}

/**
 * Where the journals of a path are: a journal file, a folder of journals (`record --out`), or a run
 * folder (`train --out`: metrics.jsonl, and the journals under episodes/u00012/).
 */
import { existsSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  JOURNAL_SUFFIX,
  NOT_JOURNAL_FILES as NOT_JOURNALS,
  NOT_JOURNAL_FOLDERS as SKIPPED_FOLDERS,
} from "../journal/jsonl.ts";
import { UsageError } from "../kernel/errors.ts";

/** A run folder: written by `agent-r1 train` (metrics.jsonl, episodes/). */
export const isRunFolder = (dir: string): boolean =>
  existsSync(join(dir, "metrics.jsonl")) || existsSync(join(dir, "episodes"));

/** An absolute path as a user would type it from here: relative when it lies under the working folder. */
export const shownPath = (path: string): string => {
  const rel = relative(process.cwd(), path);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? path : rel;
};

/**
 * The train run (or `start` folder) that `out` is, or lies in up to three levels down (episodes/u00000,
 * warm-start/demos, checkpoints/v00001), as an absolute path; undefined when none.
 */
export const enclosingRun = (out: string): string | undefined => {
  let dir = resolve(out);
  for (let up = 0; up <= 3; up++, dir = dirname(dir)) {
    const isRun =
      up === 0
        ? isRunFolder(dir) || existsSync(join(dir, "start.json"))
        : existsSync(join(dir, "start.json")) ||
          (existsSync(join(dir, "config.json")) &&
            (existsSync(join(dir, "metrics.jsonl")) || existsSync(join(dir, "checkpoints", "latest.json"))));
    if (isRun) return dir;
    if (dirname(dir) === dir) break;
  }
  return undefined;
};

/**
 * The journal files at `path`, sorted: the file itself, or the .jsonl files of a folder and of its
 * subfolders (at most `depth` levels down), skipping metrics.jsonl and checkpoint folders. Links are
 * never followed into; with `links`, a link named like a journal is listed (for the caller to refuse).
 */
export const findJournals = async (
  path: string,
  { depth = 3, links = false }: { readonly depth?: number; readonly links?: boolean } = {},
): Promise<string[]> => {
  const info = await stat(path).catch(() => {
    throw new UsageError({ detail: `no such file or folder: ${path}` });
  });
  if (!info.isDirectory()) {
    // A single file must look like a journal: metrics.jsonl or config.json would fail with an obscure parse error.
    if (!path.endsWith(JOURNAL_SUFFIX) || NOT_JOURNALS.has(basename(path)))
      throw new UsageError({
        detail: `${path} is not an episode journal (journals are <episode>.jsonl files${NOT_JOURNALS.has(basename(path)) ? `; ${basename(path)} holds a run's per-update metrics: plot it with agent-r1 plot` : ""})`,
      });
    return [path];
  }
  const files: string[] = [];
  const walk = async (dir: string, level: number) => {
    // Natural order: ep-1-2 before ep-1-10.
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name.localeCompare(b.name, "en", { numeric: true }),
    );
    for (const e of entries)
      if ((e.isFile() || (links && e.isSymbolicLink())) && e.name.endsWith(JOURNAL_SUFFIX) && !NOT_JOURNALS.has(e.name))
        files.push(join(dir, e.name));
    if (level >= depth) return;
    for (const e of entries)
      if (e.isDirectory() && !SKIPPED_FOLDERS.has(e.name) && !e.name.startsWith("."))
        await walk(join(dir, e.name), level + 1);
  };
  await walk(path, 0);
  return files;
};

/** `n` of `items`, evenly spaced, always with the first and the last; all of them when there are no more. */
export const evenlySpaced = <T>(items: readonly T[], n: number): T[] => {
  if (items.length <= n) return [...items];
  if (n <= 1) return items.slice(0, Math.max(0, n));
  return Array.from({ length: n }, (_, i) => items[Math.round((i * (items.length - 1)) / (n - 1))]);
};

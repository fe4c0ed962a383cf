/**
 * Figure 2: journal append throughput with fsync per episode.
 *
 * - journal: `JsonlJournal(dir, "episode")`: per episode `create`, `await append(event)` for each stamped
 *   event, `close()` (write, fsync of the file, and, since the journal makes a new file's folder entry
 *   durable too, an fsync of the folder).
 * - raw: the least a writer does for the same bytes: per episode open a new file (O_CREAT | O_EXCL |
 *   O_APPEND, as the journal does), `JSON.stringify` each event into a line, one `fs.writeSync` of the
 *   episode's lines, one `fsyncSync` of the file, close. (The figure's baseline.)
 * - raw+dir: raw plus one fsync of the folder per episode: the same guarantee the journal gives.
 * All write the same episodes (pre-stamped outside the timed region) into fresh temp folders, interleaved
 * episode by episode (see `interleavedAppend`).
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type EpisodeEvent, JsonlJournal } from "../src/index.ts";
import type { Sample } from "./stats.ts";
import { timed } from "./stats.ts";

const syncDir = (dir: string) => {
  const fd = openSync(dir, "r");
  fsyncSync(fd);
  closeSync(fd);
};

/** Writes one episode; returns its events. */
type EpisodeWrite = (events: readonly EpisodeEvent[]) => Promise<number> | number;

/** A fresh journal in `dir` (mkdir and its one folder fsync happen here, outside any timing). */
export const journalWriter = (dir: string): EpisodeWrite => {
  const journal = new JsonlJournal(dir, "episode");
  return async (events) => {
    const writer = await journal.create(events[0].episode);
    for (const event of events) await writer.append(event);
    await writer.close();
    return events.length;
  };
};

const RAW_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;

export const rawWriter = (dir: string, syncFolder: boolean): EpisodeWrite => {
  mkdirSync(dir, { recursive: true });
  syncDir(dir);
  return (events) => {
    const fd = openSync(join(dir, `${events[0].episode}.jsonl`), RAW_FLAGS, 0o644);
    let text = "";
    for (const event of events) text += `${JSON.stringify(event)}\n`;
    writeSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    if (syncFolder) syncDir(dir);
    return events.length;
  };
};

/** One writer over all episodes, timed as a whole (for profiling one side alone). */
export const appendAll = (write: EpisodeWrite, episodes: readonly EpisodeEvent[][]): Promise<Sample> =>
  timed(async () => {
    let n = 0;
    for (const events of episodes) n += await write(events);
    return n;
  });

/**
 * The writers interleaved episode by episode, the order rotating from one episode to the next, each
 * writer's time summed: fsync latency on a shared disk drifts by several times within seconds, and
 * interleaving puts every side under the same drift. Returns one sample per writer.
 */
export const interleavedAppend = async (
  writers: readonly EpisodeWrite[],
  episodes: readonly EpisodeEvent[][],
): Promise<Sample[]> => {
  const ms = writers.map(() => 0);
  let n = 0;
  await timed(async () => {
    for (let i = 0; i < episodes.length; i++) {
      for (let k = 0; k < writers.length; k++) {
        const w = (i + k) % writers.length;
        const t0 = performance.now();
        await writers[w](episodes[i]);
        ms[w] += performance.now() - t0;
      }
      n += episodes[i].length;
    }
    return n;
  });
  return ms.map((m) => ({ units: n, ms: m }));
};

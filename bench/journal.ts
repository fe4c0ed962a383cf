/**
 * Figure 2: journal append throughput with one fsync per episode.
 *
 * - journal: `JsonlJournal(dir, "episode")`: per episode `create`, `await append(event)` for each stamped
 *   event, `close()` (write + fsync + close).
 * - raw: the least a writer has to do for the same bytes and the same durability: per episode open a new
 *   file (O_CREAT | O_EXCL | O_APPEND, as the journal does), `JSON.stringify` each event into a line,
 *   one `fs.writeSync` of the episode's lines, one `fsyncSync`, close.
 * Both sides write the same episodes (pre-stamped outside the timed region) into fresh temp folders.
 */
import { closeSync, constants, fsyncSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { type EpisodeEvent, JsonlJournal } from "../src/index.ts";
import type { Sample } from "./stats.ts";
import { timed } from "./stats.ts";

const syncDir = (dir: string) => {
  const fd = openSync(dir, "r");
  fsyncSync(fd);
  closeSync(fd);
};

export const journalAppend = async (dir: string, episodes: readonly EpisodeEvent[][]): Promise<Sample> => {
  const journal = new JsonlJournal(dir, "episode"); // mkdir + one folder fsync, outside the timing
  return timed(async () => {
    let n = 0;
    for (const events of episodes) {
      const writer = await journal.create(events[0].episode);
      for (const event of events) await writer.append(event);
      await writer.close();
      n += events.length;
    }
    return n;
  });
};

export const rawAppend = async (dir: string, episodes: readonly EpisodeEvent[][]): Promise<Sample> => {
  mkdirSync(dir, { recursive: true });
  syncDir(dir);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
  return timed(() => {
    let n = 0;
    for (const events of episodes) {
      const fd = openSync(join(dir, `${events[0].episode}.jsonl`), flags, 0o644);
      let text = "";
      for (const event of events) text += `${JSON.stringify(event)}\n`;
      writeSync(fd, text);
      fsyncSync(fd);
      closeSync(fd);
      n += events.length;
    }
    return n;
  });
};

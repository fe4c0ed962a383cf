/**
 * Resource bounds of the runtime (the 1,000,000-event replay is bench/replay-memory.ts): a rollout never
 * has more episodes open than its concurrency, nor more rows in a policy call than the batch bound; the
 * journal's line limit holds on the writing side too, and an event over it fails its episode cleanly,
 * leaving a readable journal.
 */
import { existsSync, statSync } from "node:fs";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { randomPolicy } from "../../actors/lookup/policies.ts";
import {
  type EpisodeEvent,
  type Journal,
  JsonlJournal,
  MemoryJournal,
  type Policy,
  PolicyActor,
} from "../../src/index.ts";
import { MAX_LINE_BYTES } from "../../src/journal/jsonl.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { tempDir } from "../support/index.ts";

/** A journal that counts open episode streams. */
const gauged = () => {
  const inner = new MemoryJournal();
  const gauge = { open: 0, maxOpen: 0, created: 0 };
  const journal: Journal = {
    location: "gauged",
    episodes: () => inner.episodes(),
    read: (e) => inner.read(e),
    create: async (episode) => {
      const writer = await inner.create(episode);
      gauge.open += 1;
      gauge.created += 1;
      gauge.maxOpen = Math.max(gauge.maxOpen, gauge.open);
      return {
        ...writer,
        close: async () => {
          gauge.open -= 1;
          await writer.close();
        },
      };
    },
  };
  return { journal, gauge };
};

describe("rollouts bound their concurrency and buffers", () => {
  it.each([1, 5, 32])("concurrency %i: never more episodes open, never more rows per policy call", async (c) => {
    const { journal, gauge } = gauged();
    let maxRows = 0;
    const inner = randomPolicy();
    const policy: Policy = {
      ...inner,
      act: (requests) => {
        maxRows = Math.max(maxRows, requests.length);
        return inner.act(requests);
      },
    };
    const episodes = 120;
    const run = rollout({
      env: lookupEnv,
      policy: new PolicyActor(policy, 8),
      journal,
      seed: `b${c}`,
      episodes,
      concurrency: c,
    });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    expect(records).toHaveLength(episodes);
    expect(gauge.created).toBe(episodes);
    expect(gauge.open).toBe(0);
    expect(gauge.maxOpen).toBeLessThanOrEqual(c);
    if (c > 1) expect(gauge.maxOpen).toBeGreaterThan(1);
    // Each open episode waits for at most one action: a call holds at most min(concurrency, batch bound) rows.
    expect(maxRows).toBeLessThanOrEqual(Math.min(c, 8));
  });
});

describe("the journal's line limit", () => {
  it("the writer refuses an event longer than a reader accepts, without writing any of it", async () => {
    const dir = tempDir("agent-r1-bounds-");
    const journal = new JsonlJournal(dir, "none");
    const writer = journal.createSync("ep-big");
    // The writer does not hash: an event with the right seq and a big field is enough.
    const event = { v: 1, episode: "ep-big", seq: 0, task: "x".repeat(MAX_LINE_BYTES) } as unknown as EpisodeEvent;
    expect(() => writer.appendSync(event)).toThrow(RangeError);
    writer.closeSync();
    // Nothing was written: the file was never created (or is empty).
    const file = journal.fileOf("ep-big");
    expect(existsSync(file) ? statSync(file).size : 0).toBe(0);
  });
});

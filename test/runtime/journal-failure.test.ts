import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { type EpisodeEvent, type EpisodeWriter, MemoryJournal, PolicyActor, runEpisode } from "../../src/index.ts";
import { playing } from "../support/index.ts";

/** A journal whose writes fail from the nth event on, as on a full disk. */
class FullJournal extends MemoryJournal {
  constructor(private readonly writable: number) {
    super();
  }
  override async create(episode: string): Promise<EpisodeWriter> {
    const inner = await super.create(episode);
    let written = 0;
    return {
      episode,
      append: async (event: EpisodeEvent) => {
        if (written++ >= this.writable)
          throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
        await inner.append(event);
      },
      flush: () => inner.flush(),
      close: () => inner.close(),
    };
  }
}

describe("a journal that fails mid-episode (a full disk)", () => {
  it("rejects the episode with the write's error, and leaves nothing unhandled behind", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push((reason as Error).stack);
    process.on("unhandledRejection", onUnhandled);
    try {
      for (const writable of [1, 3, 6]) {
        const journal = new FullJournal(writable);
        await expect(
          runEpisode({
            env: lookupEnv,
            policy: new PolicyActor(playing(["<lookup>k1</lookup>", "<lookup>k2</lookup>", "<answer>red</answer>"])),
            journal,
            seed: `full-${writable}`,
          }),
        ).rejects.toThrow("ENOSPC: no space left on device");
        // What was written before the failure is kept.
        const [episode] = await journal.episodes();
        expect((await journal.read(episode)).length).toBe(writable);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});

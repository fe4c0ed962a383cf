/** collect: episodes come back in seed order whatever order they ended in. */
import { describe, expect, it } from "vitest";
import { lookupEnv, randomPolicy } from "../../actors/lookup/index.ts";
import { collect } from "../../src/learn/collect.ts";

const indexOf = (seed: string) => Number(seed.slice(seed.lastIndexOf(":") + 1));

describe("collect", () => {
  it("returns the episodes in the order of their seeds' indices (9 before 10), not the order they ended", async () => {
    const ended: number[] = [];
    const batch = await collect({
      env: lookupEnv,
      policy: randomPolicy(),
      seed: "order",
      episodes: 12,
      onEpisode: (record) => ended.push(indexOf(record.seed)),
    });
    const indices = Array.from({ length: 12 }, (_, i) => i);
    // The random policy's episodes take different numbers of turns: they end out of order.
    expect(ended).not.toEqual(indices);
    expect(batch.map(({ record }) => indexOf(record.seed))).toEqual(indices);
    for (const { record, events } of batch) expect(events[0].episode).toBe(record.episode);
  });
});

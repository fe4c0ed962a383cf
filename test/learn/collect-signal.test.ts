/**
 * collect, the first piece of a training loop of one's own: stopped by an AbortSignal as rollout and train are,
 * with every episode that started journaled and verified; a misspelt option refused by name.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lookup as lookupEnv } from "../../actors/lookup/index.ts";
import type { Policy } from "../../src/index.ts";
import { collect } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

describe("collect", () => {
  it("stops at its signal: no further episode starts, those in flight end journaled as stopped", async () => {
    const expert = lookupEnv.policies!.expert();
    const stop = new AbortController();
    let calls = 0;
    // The user's stop arrives while the first episodes wait for their second action.
    const policy: Policy = {
      ...expert,
      act: async (requests) => {
        if (++calls === 2) stop.abort(new Error("user stop"));
        return expert.act(requests);
      },
    };
    const dir = tempDir("agent-r1-collect-signal-");
    const batch = await collect({
      env: lookupEnv,
      policy,
      seed: "stop",
      episodes: 12,
      groupSize: 2,
      concurrency: 2,
      dir,
      signal: stop.signal,
    });
    expect(batch.length).toBeGreaterThan(0);
    expect(batch.length).toBeLessThan(12);
    expect(batch.some(({ record }) => /^aborted: stopped: .*user stop/.test(record.reason))).toBe(true);
    // Nothing recorded is lost: every episode returned is in the folder, read back and verified.
    expect(readdirSync(dir).sort()).toEqual(batch.map(({ record }) => `${record.episode}.jsonl`).sort());
    for (const { record, events } of batch)
      expect(events.at(-1)).toMatchObject({ type: "episode.ended", reason: record.reason });
  });

  it("refuses a misspelt option by name instead of ignoring it", async () => {
    const policy = lookupEnv.policies!.expert();
    await expect(
      collect({ env: lookupEnv, policy, seed: "s", episodes: 1, signl: new AbortController().signal } as never),
    ).rejects.toThrow(/collect: unknown option `signl` \(did you mean `signal`\?\)/);
  });
});

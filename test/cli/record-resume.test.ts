/**
 * `record --resume` keeps the episodes a stopped recording journaled whole, but only while the environment's
 * code still derives them: a reward changed in between (without a new version) would leave one folder of
 * episodes from two versions of the code.
 */
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLookupEnv, DEFAULT_REWARDS } from "../../actors/lookup/env.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import { record } from "../../src/cli/record.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { tempDir } from "../support/index.ts";

describe("record --resume", () => {
  it("refuses kept episodes that the environment's code no longer derives, naming the journal, and keeps them", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 4, seed: "5", out, concurrency: 2, durability: "episode" as const, quiet: true };
    await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
    const journals = readdirSync(out).filter((f) => f.endsWith(".jsonl"));
    expect(journals).toHaveLength(4);
    // A stop after three episodes.
    rmSync(join(out, journals.sort().at(-1)!));

    const changed = createLookupEnv({ ...DEFAULT_REWARDS, neededKey: 0.3 });
    const refused = await record({ ...base, resume: true, env: changed, policy: expertPolicy() }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(
      /^--resume: .*demos\/ep-5-\d\.jsonl was recorded by other code than this --env lookup v\S+ runs now: .*seq \d+: replay diverged .*give the changed environment a new version/,
    );
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(3);

    // The code that recorded them resumes as before.
    const resumed = await record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() });
    expect(resumed.episodes).toBe(4);
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(4);
  });
});

/**
 * A new recording into a folder that already holds journals of other seeds: replay, sft --data and inspect
 * read a folder as one set of episodes, so another environment's journals there are refused, and this
 * environment's are added to with a note.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { policyFor, record } from "../../src/cli/record.ts";
import { envById } from "../../src/cli/registry.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { tempDir, withStderr } from "../support/index.ts";

const recordInto = (out: string, spec: string, seed: string, quiet = false, episodes = 2) => {
  const env = envById(spec);
  return record({
    episodes,
    seed,
    out,
    concurrency: 1,
    durability: "episode",
    quiet,
    env,
    policy: policyFor(env, "expert"),
  }).then(
    () => undefined,
    (cause: unknown) => cause,
  );
};

describe("record into a folder holding other seeds' journals", () => {
  it("refuses another environment's folder, naming it and a journal, and leaves the journals as they were", async () => {
    const out = join(tempDir("agent-r1-record-mix-"), "demos");
    expect(await recordInto(out, "lookup", "1", true)).toBeUndefined();
    const before = readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")]);
    const refused = await withStderr(() => recordInto(out, "hopqa", "2"));
    expect(refused.result).toBeInstanceOf(UsageError);
    expect((refused.result as Error).message).toBe(
      `--out ${out} holds journals of environment "lookup" (ep-1-0.jsonl), not hopqa: replay, sft --data and inspect ` +
        "read a folder as one set of episodes, so nothing was recorded; record into a folder of its own",
    );
    expect(readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")])).toEqual(before);
  });

  it("adds to the same environment's journals of another seed, and says so once", async () => {
    const out = join(tempDir("agent-r1-record-mix-"), "demos");
    expect(await recordInto(out, "lookup", "1", true)).toBeUndefined();
    const added = await withStderr(() => recordInto(out, "lookup", "2"));
    expect(added.result).toBeUndefined();
    expect(added.written.join("")).toContain(
      `note: --out ${out} already holds 2 journals of other episodes (ep-1-0.jsonl, ep-1-1.jsonl); they stay, beside these 2 ` +
        "(replay, inspect and sft --data read all of a folder's journals; another --out keeps recordings apart)",
    );
    expect(
      readdirSync(out)
        .filter((name) => name.endsWith(".jsonl"))
        .sort(),
    ).toEqual(["ep-1-0.jsonl", "ep-1-1.jsonl", "ep-2-0.jsonl", "ep-2-1.jsonl"]);
    // One episode: "beside this one".
    const one = await withStderr(() => recordInto(out, "lookup", "3", false, 1));
    expect(one.written.join("")).toContain(
      "already holds 4 journals of other episodes (ep-1-0.jsonl, ep-1-1.jsonl, ep-2-0.jsonl, ...); they stay, beside this one (",
    );
  });
});

/**
 * The journal's line limit, end to end (slow: a 17 MB tool result goes through the runtime): an event
 * over the limit fails its episode with a clear error, and the journal stays readable.
 */
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import {
  defineEnv,
  defineTool,
  JsonlJournal,
  PolicyActor,
  readJournalFile,
  runEpisode,
  Schema,
} from "../../src/index.ts";
import { MAX_LINE_BYTES } from "../../src/journal/jsonl.ts";
import { playing, tempDir } from "../support/index.ts";

describe("the journal's line limit, end to end", () => {
  it("a tool result over the limit fails its episode with a clear error; the journal stays readable", async () => {
    const dir = tempDir("agent-r1-bounds-");
    const huge = defineTool({
      name: "lookup",
      description: "returns 17 MB",
      parameters: Schema.Struct({ key: Schema.String }),
      maxResultChars: 20_000_000,
      execute: () => "h".repeat(MAX_LINE_BYTES + 1024),
    });
    const env = defineEnv({ ...lookupEnv, tools: { lookup: huge }, machine: lookupEnv.machine.provide({}) });
    const journal = new JsonlJournal(dir, "none");
    await expect(
      runEpisode({ env, journal, policy: new PolicyActor(playing(["<lookup>k1</lookup>"])), seed: "big" }),
    ).rejects.toThrow(/a journal line holds at most \d+ bytes \(cut large tool results with maxResultChars\)/);
    const events = await readJournalFile(journal.fileOf("ep-big"));
    expect(events.some((e) => e.type === "tool.called")).toBe(true);
    expect(events.some((e) => e.type === "tool.returned" || e.type === "episode.ended")).toBe(false);
  });
});

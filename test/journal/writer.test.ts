/** The journal writers' contract at its edges: appends in seq order only, and the line limit writer and reader share. */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstLineOf, JsonlJournal, MAX_LINE_BYTES } from "../../src/journal/jsonl.ts";
import { MemoryJournal } from "../../src/journal/memory.ts";
import { assertEpisodeId, isEpisodeId } from "../../src/journal/stamp.ts";
import { JournalConflictError, JournalError } from "../../src/kernel/errors.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { tempDir } from "../support/index.ts";

// The writers do not hash: an event with the right seq is enough here.
const event = (episode: string, seq: number, task: unknown = "t") =>
  ({ v: 1, episode, seq, type: "x", task }) as unknown as EpisodeEvent;

describe("appends out of seq order", () => {
  it("are refused on disk, naming both seqs, and nothing of them is written", () => {
    const journal = new JsonlJournal(tempDir("agent-r1-writer-"), "none");
    const writer = journal.createSync("ep-a");
    writer.appendSync(event("ep-a", 0));
    expect(() => writer.appendSync(event("ep-a", 2))).toThrow(
      new JournalConflictError({ episode: "ep-a", expectedSeq: 2, actualSeq: 1 }).message,
    );
    expect(() => writer.appendSync(event("ep-a", 0))).toThrow(JournalConflictError);
    writer.appendSync(event("ep-a", 1));
    writer.closeSync();
    const lines = readFileSync(journal.fileOf("ep-a"), "utf8").trim().split("\n");
    expect(lines.map((line) => JSON.parse(line).seq)).toEqual([0, 1]);
  });

  it("are refused in memory", async () => {
    const writer = await new MemoryJournal().create("ep-m");
    await writer.append(event("ep-m", 0));
    await expect(writer.append(event("ep-m", 2))).rejects.toThrow(
      "episode ep-m: append expected seq 2 but the journal is at seq 1",
    );
  });
});

describe("the line limit", () => {
  it("a line of exactly MAX_LINE_BYTES (newline included) is written and read back; one byte more is refused", () => {
    const dir = tempDir("agent-r1-writer-");
    const journal = new JsonlJournal(dir, "none");
    const overhead = `${JSON.stringify(event("ep-edge", 0, ""))}\n`.length;
    const fits = event("ep-edge", 0, "x".repeat(MAX_LINE_BYTES - overhead));
    const writer = journal.createSync("ep-edge");
    writer.appendSync(fits);
    writer.closeSync();
    expect(firstLineOf(journal.fileOf("ep-edge"))).toBe(JSON.stringify(fits));

    const over = journal.createSync("ep-over");
    expect(() => over.appendSync(event("ep-over", 0, "x".repeat(MAX_LINE_BYTES - overhead + 1)))).toThrow(
      `is ${MAX_LINE_BYTES + 1} bytes as JSON; a journal line holds at most ${MAX_LINE_BYTES} bytes`,
    );
    over.closeSync();
    const long = join(dir, "long.jsonl");
    writeFileSync(long, `${"y".repeat(MAX_LINE_BYTES)}\n`);
    expect(() => firstLineOf(long)).toThrow(JournalError);
    expect(() => firstLineOf(long)).toThrow(`the line is longer than ${MAX_LINE_BYTES} bytes`);
  });
});

describe("episode ids", () => {
  it("take up to 128 characters, starting with a letter or digit", () => {
    expect(isEpisodeId("e".repeat(128))).toBe(true);
    expect(isEpisodeId("e".repeat(129))).toBe(false);
    expect(() => assertEpisodeId("e".repeat(129))).toThrow(/at most 128/);
    for (const id of [".hidden", "-x", "_y", ""]) expect(isEpisodeId(id), id).toBe(false);
  });
});

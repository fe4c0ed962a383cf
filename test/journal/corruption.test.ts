import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync } from "node:zlib";
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import {
  JournalError,
  JsonlJournal,
  journalFilesAt,
  PolicyActor,
  readJournalFile,
  repairJournalFile,
  runEpisode,
} from "../../src/index.ts";
import { hashEvent } from "../../src/kernel/canonical.ts";
import { tempDir } from "../support/index.ts";

let original: Buffer;
let lineStarts: number[];
const dir = tempDir();

/** 1-based line holding byte `offset`. */
const lineAt = (offset: number) => lineStarts.filter((s) => s <= offset).length;

/** Where a mutated journal is read from: a file named as its episode's, as every journal is. */
let mutatedFile: string;

const readError = async (bytes: Buffer): Promise<JournalError | undefined> => {
  const file = mutatedFile;
  writeFileSync(file, bytes);
  try {
    await readJournalFile(file);
    return undefined;
  } catch (e) {
    if (!(e instanceof JournalError)) throw e; // anything but a typed error fails the test
    expect(e.file).toBe(file);
    // The line where there is one; a file with no line to point at (empty) is named alone.
    expect(e.message).toContain(e.line > 0 ? `${file}:${e.line}` : `${file}: `);
    return e;
  }
};

beforeAll(async () => {
  const journal = new JsonlJournal(join(dir, "rec"), "none");
  const run = await runEpisode({
    env: lookupEnv,
    policy: new PolicyActor(expertPolicy()),
    journal,
    seed: "corrupt:1",
  });
  original = readFileSync(journal.fileOf(run.episode));
  mkdirSync(join(dir, "mutated"), { recursive: true });
  mutatedFile = join(dir, "mutated", basename(journal.fileOf(run.episode)));
  lineStarts = [0];
  for (let i = 0; i < original.length - 1; i++) if (original[i] === 10) lineStarts.push(i + 1);
});

describe("a journal file detects every kind of damage, naming file and line", () => {
  it("reads back an intact file", async () => {
    expect(await readError(original)).toBeUndefined();
  });

  fcTest.prop([fc.nat(), fc.integer({ min: 1, max: 255 })], { numRuns: 300 })(
    "any single-byte change is an error at the changed line",
    async (at, delta) => {
      const offset = at % original.length;
      const bytes = Buffer.from(original);
      bytes[offset] = (bytes[offset] + delta) % 256;
      const error = await readError(bytes);
      expect(error, `byte ${offset} changed`).toBeDefined();
      // A newline turned into something else merges two lines: the error is at the first of them.
      expect(error!.line).toBe(lineAt(offset));
    },
  );

  fcTest.prop([fc.nat()], { numRuns: 100 })(
    "truncation: a torn tail, or a valid prefix without episode.ended",
    async (at) => {
      const cut = at % original.length;
      const error = await readError(original.subarray(0, cut));
      if (cut === 0) expect(error?.problem).toBe("empty");
      // Cut at a newline, or just before one (a whole event lacking only its newline): every event read is valid.
      else if (original[cut - 1] === 10 || original[cut] === 10) expect(error).toBeUndefined();
      else {
        expect(error?.problem).toBe("torn-tail");
        expect(error?.line).toBe(lineAt(cut - 1));
      }
    },
  );

  fcTest.prop([fc.nat(), fc.nat()], { numRuns: 100 })("duplicated, dropped and reordered lines", async (i0, j0) => {
    const lines = original.toString("utf8").trimEnd().split("\n");
    const i = i0 % lines.length;
    const j = j0 % lines.length;
    const join = (ls: string[]) => Buffer.from(`${ls.join("\n")}\n`);
    const duplicated = await readError(join([...lines.slice(0, i + 1), lines[i], ...lines.slice(i + 1)]));
    expect(duplicated?.line).toBe(i + 2);
    if (i < lines.length - 1) {
      const dropped = await readError(join(lines.filter((_, k) => k !== i)));
      expect(dropped?.line).toBe(i + 1);
    }
    if (i !== j) {
      const swapped = [...lines];
      [swapped[i], swapped[j]] = [swapped[j], swapped[i]];
      const error = await readError(join(swapped));
      expect(error?.line).toBe(Math.min(i, j) + 1);
    }
  });

  it("valid JSON with wrong types, another version, or an unknown field is refused", async () => {
    const lines = original.toString("utf8").trimEnd().split("\n");
    const edit = (k: number, change: (e: Record<string, unknown>) => void) => {
      const ls = [...lines];
      const event = JSON.parse(ls[k]);
      change(event);
      ls[k] = JSON.stringify(event);
      return Buffer.from(`${ls.join("\n")}\n`);
    };
    expect((await readError(edit(0, (e) => (e.v = 2))))?.problem).toBe("version");
    // JSON that is no event, or an object without a format version: named as that, not "format version undefined".
    for (const [text, says] of [
      ["null", "the line is null, not an event (a JSON object with v, seq, type, episode, ...)"],
      ["[1,2,3]", "the line is an array, not an event"],
      [
        '{"a":1}',
        "the line is an object without an event format version (field v), not an event of a journal; its fields: a",
      ],
    ] as const) {
      const error = await readError(Buffer.from(`${text}\n`));
      expect(error?.problem).toBe("schema");
      expect(error?.message).toContain(says);
    }
    expect((await readError(edit(1, (e) => (e.turn = "zero"))))?.problem).toBe("schema");
    expect((await readError(edit(1, (e) => (e.extra = 1))))?.problem).toBe("schema");
    expect((await readError(Buffer.from("")))?.problem).toBe("empty");
  });

  fcTest.prop([fc.uint8Array({ minLength: 1, maxLength: 2000 })], { numRuns: 100 })(
    "binary junk is never echoed raw: the message has no control characters and stays short",
    async (junk) => {
      const error = await readError(Buffer.concat([Buffer.from("\u0000\u001b[31m\u202e"), junk, Buffer.from("\n")]));
      expect(error).toBeDefined();
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is there
      expect(error!.message).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e\ufffd]/);
      expect(error!.message.length).toBeLessThan(1500);
    },
  );

  it("names what is wrong with a line whose digest was recomputed: the chain, the order, the logprobs", async () => {
    type Line = Record<string, unknown> & { seq: number; prev: string; digest: string; type: string };
    const events = (): Line[] =>
      original
        .toString("utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
    const write = (ls: Line[]) => Buffer.from(`${ls.map((e) => JSON.stringify(e)).join("\n")}\n`);
    /** Every digest and prev recomputed from `from` on, as a forger would: only the other checks are left. */
    const rechain = (ls: Line[], from = 0): Line[] => {
      for (let k = from; k < ls.length; k++) {
        if (k > 0) ls[k].prev = ls[k - 1].digest;
        ls[k].digest = hashEvent(ls[k]);
      }
      return ls;
    };
    const at = (error: JournalError | undefined) => [error?.problem, error?.line];

    // A reward edited, and its own digest recomputed: the next line's prev no longer matches.
    const edited = events();
    const r = edited.findIndex((e) => e.type === "reward.assigned");
    edited[r].value = 100;
    edited[r].digest = hashEvent(edited[r]);
    expect(at(await readError(write(edited)))).toEqual(["chain", r + 2]);

    // A line dropped: the seq after it is one too far.
    const dropped = events().filter((_, k) => k !== 1);
    const gap = await readError(write(dropped));
    expect(at(gap)).toEqual(["sequence", 2]);
    // Said as what a hand edit did, not only as the numbers.
    expect(gap?.message).toContain(
      "expected seq 1, found seq 2: a line before this one was removed, or lines were reordered",
    );
    // Two lines swapped (3 and 4): the first out of place is the later one, so it says the same; a line pasted
    // twice shows a seq already seen.
    const swapped = events();
    [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
    expect((await readError(write(swapped)))?.message).toContain(
      "expected seq 2, found seq 3: a line before this one was removed, or lines were reordered",
    );
    const doubled = events();
    doubled.splice(2, 0, doubled[1]);
    expect((await readError(write(doubled)))?.message).toContain(
      "expected seq 2, found seq 1: a line was duplicated, or lines were reordered",
    );

    // An event after episode.ended, chained and numbered as the writer would.
    const after = events();
    after.push({ ...after[after.length - 1], seq: after.length });
    expect(at(await readError(write(rechain(after))))).toEqual(["order", after.length]);

    // A logprob above 0 (a probability above 1) in an action, its chain recomputed.
    const acted = events();
    const a = acted.findIndex((e) => e.type === "agent.acted");
    (acted[a].logprobs as number[])[0] = 0.5;
    const error = await readError(write(rechain(acted, a)));
    expect(at(error)).toEqual(["schema", a + 1]);
    expect(error?.message).toContain("a logprob is above 0");
  });

  it("meta (wall-clock time for other writers) is never hashed: adding or changing it keeps the journal valid", async () => {
    const lines = original
      .toString("utf8")
      .trimEnd()
      .split("\n")
      .map((l, k) => JSON.stringify({ ...JSON.parse(l), meta: { at: 1_700_000_000_000 + k } }));
    expect(await readError(Buffer.from(`${lines.join("\n")}\n`))).toBeUndefined();
  });

  it("a byte order mark an editor added is named as one (it was shown as an invisible character)", async () => {
    const error = await readError(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), original]));
    expect(error).toMatchObject({ problem: "parse", line: 1 });
    expect(error?.message).toContain("the line starts with a byte order mark (U+FEFF, bytes EF BB BF)");
    expect(error?.message).not.toContain("\uFEFF");
  });

  it("a gzip-compressed journal is named as one, not dumped as binary JSON", async () => {
    const error = await readError(gzipSync(original));
    expect(error).toMatchObject({ problem: "parse", line: 1 });
    expect(error?.message).toContain("the file is gzip-compressed (it starts with the gzip bytes 1F 8B)");
    expect(error?.message.length).toBeLessThan(400);
  });

  it("a byte that is not UTF-8 (a file saved as Latin-1) is named as a likely other encoding, at its line", async () => {
    const text = original.toString("latin1");
    const at = text.indexOf('"text":"') + 8; // in the first observation's text
    const latin1 = Buffer.from(text.slice(0, at) + "\u00e9" + text.slice(at + 1), "latin1"); // one byte, E9
    const error = await readError(latin1);
    expect(error).toMatchObject({ problem: "digest", line: lineAt(at) });
    expect(error?.message).toContain("it holds U+FFFD, which bytes that are not UTF-8 read as");
    // An edit in plain ASCII says nothing of encodings.
    const ascii = await readError(Buffer.from(text.slice(0, at) + "#" + text.slice(at + 1), "latin1"));
    expect(ascii).toMatchObject({ problem: "digest", line: lineAt(at) });
    expect(ascii?.message).not.toContain("U+FFFD");
  });

  it("a blank line in the middle is named as one, at its line", async () => {
    const lines = original.toString("utf8").trimEnd().split("\n");
    const error = await readError(Buffer.from(`${[lines[0], "", ...lines.slice(1)].join("\n")}\n`));
    expect(error).toMatchObject({ problem: "parse", line: 2 });
    expect(error?.message).toContain("a blank line where an event belongs");
  });

  it("repair removes blank lines after the last event, and refuses one with an event after it", async () => {
    const file = join(dir, "blank-tail.jsonl");
    writeFileSync(file, Buffer.concat([original, Buffer.from("\n  \n\n")]));
    expect((await readError(readFileSync(file)))?.message).toContain("replay --repair");
    const report = await repairJournalFile(file);
    expect(report).toMatchObject({ keptEvents: original.toString("utf8").trimEnd().split("\n").length });
    expect(report?.removedText).toBe("\n  \n\n");
    expect(readFileSync(file).equals(original)).toBe(true);
    const lines = original.toString("utf8").trimEnd().split("\n");
    writeFileSync(file, `${[lines[0], "", ...lines.slice(1)].join("\n")}\n`);
    await expect(repairJournalFile(file)).rejects.toMatchObject({ problem: "parse", line: 2 });
  });

  it("repair truncates a torn tail, says what it removed, and keeps every valid event", async () => {
    const file = join(dir, "torn.jsonl");
    writeFileSync(file, original.subarray(0, original.length - 10));
    const report = await repairJournalFile(file);
    const lines = original.toString("utf8").trimEnd().split("\n");
    expect(report?.keptEvents).toBe(lines.length - 1);
    expect(report?.removedText).toBe(lines.at(-1)!.slice(0, -9));
    expect((await readJournalFile(file)).length).toBe(lines.length - 1);
  });

  it("a whole last event missing only its newline is read, and repair adds the newline rather than drop the event", async () => {
    const file = join(dir, "no-newline.jsonl");
    writeFileSync(file, original.subarray(0, original.length - 1));
    const lines = original.toString("utf8").trimEnd().split("\n");
    expect((await readJournalFile(file)).at(-1)?.type).toBe("episode.ended");
    const report = await repairJournalFile(file);
    expect(report).toMatchObject({ keptEvents: lines.length, removedBytes: 0, addedNewline: true });
    expect(readFileSync(file)).toEqual(original);
    expect(await repairJournalFile(file)).toBeUndefined();
  });

  it("a torn tail is advised --repair only when it is what a cut write leaves, as --repair decides", async () => {
    const torn = join(dir, "torn-advice.jsonl");
    writeFileSync(torn, original.subarray(0, original.length - 10));
    await expect(readJournalFile(torn)).rejects.toThrow(/a write was cut off; run `npx agent-r1 replay --repair /);
    // Bytes appended after the last event that do not begin the next one: no crash wrote them.
    const appended = join(dir, "appended.jsonl");
    writeFileSync(appended, Buffer.concat([original, Buffer.from("xx")]));
    const error = await readJournalFile(appended).catch((e: unknown) => e as JournalError);
    expect(error).toMatchObject({ problem: "parse", repairable: false });
    expect((error as Error).message).toMatch(
      /is not the start of event seq \d+, so no cut write left it.*--repair does not remove it/,
    );
    await expect(repairJournalFile(appended)).rejects.toThrow(/not a crash artefact/);
  });

  it("repair refuses damage in the middle: that is not a crash artefact", async () => {
    const file = join(dir, "middle.jsonl");
    const bytes = Buffer.from(original);
    bytes[lineStarts[2] + 5] ^= 1;
    writeFileSync(file, bytes);
    await expect(repairJournalFile(file)).rejects.toBeInstanceOf(JournalError);
    expect(readFileSync(file)).toEqual(bytes);
  });
});

describe("journalFilesAt", () => {
  it("lists a folder's journals, sorted; with recursive: true its subfolders' too (a run's episodes/u00000/...)", async () => {
    const dir = tempDir("agent-r1-files-at-");
    for (const file of ["b.jsonl", "a.jsonl", "notes.txt", join("u00001", "c.jsonl"), join("u00000", "d.jsonl")]) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), "");
    }
    expect(await journalFilesAt(dir)).toEqual([join(dir, "a.jsonl"), join(dir, "b.jsonl")]);
    expect(await journalFilesAt(dir, { recursive: true })).toEqual([
      join(dir, "a.jsonl"),
      join(dir, "b.jsonl"),
      join(dir, "u00000", "d.jsonl"),
      join(dir, "u00001", "c.jsonl"),
    ]);
    expect(await journalFilesAt(join(dir, "a.jsonl"))).toEqual([join(dir, "a.jsonl")]);
  });

  it("leaves out what a run folder holds that is no journal: metrics.jsonl, checkpoints/, plots/, hidden folders", async () => {
    const dir = tempDir("agent-r1-files-at-run-");
    const files = [
      "metrics.jsonl",
      "checkpoints/v00001/x.jsonl",
      "plots/p.jsonl",
      ".cache/c.jsonl",
      "episodes/u00000/ep-0-0.jsonl",
    ];
    for (const file of files) {
      mkdirSync(join(dir, file, ".."), { recursive: true });
      writeFileSync(join(dir, file), "");
    }
    expect(await journalFilesAt(dir)).toEqual([]);
    expect(await journalFilesAt(dir, { recursive: true })).toEqual([join(dir, "episodes", "u00000", "ep-0-0.jsonl")]);
  });
});

/** recordedEnvOfRun: which environment version a run's journals were recorded with, read from their first lines. */
import { spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordedEnvOfRun } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

const started = (version: string) => `${JSON.stringify({ type: "episode.started", env: { id: "x", version } })}\n`;

describe("recordedEnvOfRun", () => {
  it("finds a later journal of another version past a named pipe, a folder, a link loop and a line with no end", () => {
    const run = tempDir();
    const updates = join(run, "episodes");
    for (const u of ["u00000", "u00001", "u00002", "u00003"]) mkdirSync(join(updates, u), { recursive: true });
    // Opening a named pipe for reading blocks until a writer comes: it must not be opened at all.
    expect(spawnSync("mkfifo", [join(updates, "u00000", "a.jsonl")]).status).toBe(0);
    mkdirSync(join(updates, "u00000", "b.jsonl"));
    // A uNNNNN link to its own folder: followed once, not forever.
    symlinkSync(updates, join(updates, "u00001", "u00009"));
    writeFileSync(join(updates, "u00001", "c.jsonl"), started("1"));
    // Past the 16 MiB a journal line may hold, with no newline: no journal (it was read to its end before).
    writeFileSync(join(updates, "u00002", "d.jsonl"), "x".repeat(17 * 1024 * 1024));
    writeFileSync(join(updates, "u00003", "e.jsonl"), started("2"));
    expect(recordedEnvOfRun(run, { id: "x", version: "1" })).toEqual({
      id: "x",
      version: "2",
      file: join(updates, "u00003", "e.jsonl"),
    });
    expect(recordedEnvOfRun(run)).toEqual({ id: "x", version: "1", file: join(updates, "u00001", "c.jsonl") });
  }, 20_000);
});

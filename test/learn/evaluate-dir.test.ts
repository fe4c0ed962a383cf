/**
 * evaluate({ dir }) keeps its episodes' journals in a new or empty folder, as `eval --out` does: into a folder that
 * held other journals it wrote its own beside them, and inspect and replay then read them all as one set.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { UsageError } from "../../src/index.ts";
import { LOCK_FILE } from "../../src/journal/lock.ts";
import { evaluate } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

describe("evaluate({ dir })", () => {
  it("refuses a folder that holds other journals, naming it and what it holds, and writes nothing there", async () => {
    const dir = join(tempDir("agent-r1-eval-dir-"), "evals");
    const expert = lookup.policies.expert();
    // A new folder, then one that holds only a lock's file (eval --out holds its lock while it evaluates): taken.
    expect((await evaluate(lookup, expert, { episodes: 2, seed: "first", dir })).episodes).toBe(2);
    const locked = join(dir, "..", "locked");
    mkdirSync(locked);
    writeFileSync(join(locked, LOCK_FILE), "{}");
    expect((await evaluate(lookup, expert, { episodes: 1, seed: "first", dir: locked })).episodes).toBe(1);
    const refused = evaluate(lookup, expert, { episodes: 2, seed: "second", dir });
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toThrow(
      `evaluate: dir ${dir} is not a new or empty folder: it holds 2 journals (ep-first-0.jsonl, ep-first-1.jsonl); evaluate keeps its episodes' journals in one, as eval --out does (inspect and replay read a folder as one set): give a new folder, or empty this one`,
    );
    expect(readdirSync(dir).sort()).toEqual(["ep-first-0.jsonl", "ep-first-1.jsonl"]);
    writeFileSync(join(dir, "notes.txt"), "mine");
    await expect(evaluate(lookup, expert, { episodes: 1, seed: "third", dir })).rejects.toThrow(
      "it holds 2 journals (ep-first-0.jsonl, ep-first-1.jsonl) and 1 other entry (notes.txt);",
    );
  });
});

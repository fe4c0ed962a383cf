/** findJournals: which files of a folder are read as episode journals, in which order. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findJournals } from "../../src/observe/journals.ts";
import { tempDir } from "../support/index.ts";

const touch = (file: string) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(file, "");
};

describe("findJournals", () => {
  it("lists journals in natural order, three folders deep, skipping metrics, checkpoints, plots and hidden folders", async () => {
    const root = tempDir("agent-r1-find-");
    for (const name of ["ep-1-10", "ep-1-2", "ep-1-1"]) touch(join(root, `${name}.jsonl`));
    touch(join(root, "metrics.jsonl"));
    touch(join(root, "a", "b", "c", "deep.jsonl"));
    touch(join(root, "a", "b", "c", "d", "too-deep.jsonl"));
    for (const skipped of ["checkpoints", "plots", "node_modules", ".hidden"]) touch(join(root, skipped, "x.jsonl"));
    expect(await findJournals(root)).toEqual([
      join(root, "ep-1-1.jsonl"),
      join(root, "ep-1-2.jsonl"),
      join(root, "ep-1-10.jsonl"),
      join(root, "a", "b", "c", "deep.jsonl"),
    ]);
  });

  it("refuses a run's metrics.jsonl given as a journal, pointing to plot", async () => {
    const root = tempDir("agent-r1-find-");
    touch(join(root, "metrics.jsonl"));
    await expect(findJournals(join(root, "metrics.jsonl"))).rejects.toThrow(
      "metrics.jsonl holds a run's per-update metrics: plot it with agent-r1 plot",
    );
  });
});

/**
 * Each episode's machine starts from a copy of its task of its own, as replay starts from the journal's. A
 * machine that changed its task in place (here: pushes each answer into the task's array) changed the object
 * every episode of that task shares (a GRPO group's, or one env.task hands out from a list), so a later
 * episode started from the changed task, live only, and `replay --verify` failed (4 of 6 episodes here).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { collect } from "../../src/learn/collect.ts";
import { findJournals } from "../../src/observe/journals.ts";
import env, { TASKS } from "../fixtures/shared-task-env.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const module = join(import.meta.dirname, "..", "fixtures", "shared-task-env.ts");

describe("a machine that changes its task in place", () => {
  it("changes only its own episode's copy: a group's episodes start alike, and replay --verify passes", async () => {
    const out = join(tempDir(), "demos");
    const record = ["record", "--env", module, "--policy", "expert", "--episodes", "6", "--group-size", "3"];
    expect(await main([...record, "--out", out]), output.stderr).toBe(0);
    output.clear();
    expect(await main(["replay", out, "--verify", "--env", module]), output.stdout + output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 6 journal(s) ok, 0 failed");
    for (const file of await findJournals(out)) {
      const [started, observed] = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(started.task.said).toEqual([]);
      expect(observed.text).toBe(`say ${started.task.word} said nothing`);
    }
    // The environment's own list of tasks is left as it was.
    expect(TASKS.every((t) => t.said.length === 0)).toBe(true);
  });

  it("from code: collect's groups (one task, G episodes) each verify, and their records keep the task as drawn", async () => {
    const { expert } = env.policies!;
    const batch = await collect({ env, policy: expert(), seed: "g", episodes: 8, groupSize: 4 });
    expect(batch).toHaveLength(8);
    for (const { record, events } of batch) {
      expect(record.task.said).toEqual([]);
      expect(events.find((e) => e.type === "env.observed")).toMatchObject({
        text: `say ${record.task.word} said nothing`,
      });
    }
    expect(TASKS.every((t) => t.said.length === 0)).toBe(true);
  });
});

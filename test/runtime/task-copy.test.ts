/**
 * Each episode's machine starts from a copy of its task of its own, as replay starts from the journal's. A
 * machine that changed its task in place (here: pushes each answer into the task's array) changed the object
 * every episode of that task shares (a GRPO group's, or one env.task hands out from a list), so a later
 * episode started from the changed task, live only, and `replay --verify` failed (4 of 6 episodes here).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import { main } from "../../src/cli/main.ts";
import { canonicalJson, type Policy } from "../../src/index.ts";
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

  it("a policy that changes request.task changes neither the episode's later requests nor the group's other episodes", async () => {
    // Each request carried the task object every episode of the group shared: the meddler (it says the word,
    // then changes the task) made the other rows of its batch that shared the task say another word than the
    // task they were journaled with.
    const out = join(tempDir(), "meddled");
    const record = ["record", "--env", module, "--policy", "meddler", "--episodes", "12", "--group-size", "4"];
    expect(await main([...record, "--out", out]), output.stderr).toBe(0);
    output.clear();
    expect(await main(["replay", out, "--verify", "--env", module]), output.stdout + output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 12 journal(s) ok, 0 failed");
    for (const file of await findJournals(out)) {
      const events = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      const [started, observed] = events;
      expect(started.task.said).toEqual([]);
      expect(observed.text).toBe(`say ${started.task.word} said nothing`);
      expect(events.find((e) => e.type === "agent.acted").text).toBe(started.task.word);
      expect(events.at(-1)).toMatchObject({ type: "episode.ended", return: 1 });
    }
    expect(TASKS.every((t) => t.said.length === 0)).toBe(true);
  });

  it("from code: every request of an episode (its later turns too) sees the task as drawn, whatever a policy did to it", async () => {
    // lookup's episodes take several turns: the wrapped expert marks each request's task after reading it.
    const inner = expertPolicy();
    const seen: { episode: string; task: string }[] = [];
    const meddling: Policy = {
      ...inner,
      act: (requests) => {
        for (const request of requests) {
          seen.push({ episode: request.episode, task: canonicalJson(request.task) });
          (request.task as { meddled?: number }).meddled = seen.length;
        }
        return inner.act(requests);
      },
    };
    const batch = await collect({ env: lookupEnv, policy: meddling, seed: "m", episodes: 8, groupSize: 4 });
    const drawn = new Map(batch.map(({ record }) => [record.episode, canonicalJson(record.task)]));
    expect(seen.length).toBeGreaterThan(batch.length);
    for (const { episode, task } of seen) expect(task).toBe(drawn.get(episode));
    for (const { record, events } of batch) {
      expect(record.task).not.toHaveProperty("meddled");
      expect(events[0]).toMatchObject({ type: "episode.started", task: record.task });
      expect(record.metrics.success).toBe(1);
    }
  });
});

/**
 * `replay --repair` of a folder a live record (or train) is writing: with --durability event an episode's
 * journal is created empty before its first event, and repair removed it as "a file with no event"; the
 * recorder then wrote the episode into the removed file and reported it recorded. Repair now refuses a folder
 * whose writer's lock is held by a live process (the folder given or one up to three levels above), and
 * changes nothing; plain replay still reads it. And a folder standing where the lock file goes is named.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { LOCK_FILE, processStart } from "../../src/journal/lock.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

/** A lock as a live writer holds it: this test's own process stands for the recorder. */
const lockAsLive = (folder: string, command: string) =>
  writeFileSync(
    join(folder, LOCK_FILE),
    JSON.stringify({ pid: process.pid, command, since: "now", started: processStart(process.pid) }),
  );

it("replay --repair refuses a recording in progress and leaves its in-flight journals alone", async () => {
  const folder = tempDir("agent-r1-repair-live-");
  const golden = join("replays", "lookup", "expert", readdirSync("replays/lookup/expert")[0]);
  copyFileSync(golden, join(folder, "ep-done.jsonl"));
  writeFileSync(join(folder, "ep-x-1.jsonl"), ""); // created, its first event not yet appended
  lockAsLive(folder, "record");
  expect(await main(["replay", "--repair", folder])).toBe(2);
  expect(output.stderr).toContain(
    `error: --repair: ${folder} is being written by agent-r1 process ${process.pid} (record,`,
  );
  expect(existsSync(join(folder, "ep-x-1.jsonl"))).toBe(true);
  // One journal of it, and a journal in a run's episodes/uNNNNN while train holds the run's lock.
  expect(await main(["replay", "--repair", join(folder, "ep-x-1.jsonl")])).toBe(2);
  expect(existsSync(join(folder, "ep-x-1.jsonl"))).toBe(true);
  const run = tempDir("agent-r1-repair-live-run-");
  mkdirSync(join(run, "episodes", "u00000"), { recursive: true });
  writeFileSync(join(run, "episodes", "u00000", "ep-0-u0-0.jsonl"), "");
  lockAsLive(run, "train");
  expect(await main(["replay", "--repair", join(run, "episodes", "u00000")])).toBe(2);
  expect(output.stderr).toContain(
    `error: --repair: ${run} is being written by agent-r1 process ${process.pid} (train,`,
  );
  expect(existsSync(join(run, "episodes", "u00000", "ep-0-u0-0.jsonl"))).toBe(true);
});

it("replay --repair goes on where the lock's process is gone (a recording that was killed)", async () => {
  const folder = tempDir("agent-r1-repair-dead-");
  writeFileSync(join(folder, "ep-x-1.jsonl"), "");
  writeFileSync(join(folder, LOCK_FILE), JSON.stringify({ pid: 2 ** 22 + 12345, command: "record", since: "then" }));
  await main(["replay", "--repair", folder]);
  expect(output.stderr).not.toContain("--repair:");
  expect(existsSync(join(folder, "ep-x-1.jsonl"))).toBe(false);
});

it("a folder in the lock's place is named, not Node's EISDIR without a path", async () => {
  const folder = tempDir("agent-r1-lock-folder-");
  mkdirSync(join(folder, LOCK_FILE));
  expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "1", "--out", folder])).toBe(2);
  expect(output.stderr).toContain(
    `error: ${join(folder, LOCK_FILE)} is a folder, where agent-r1 keeps the lock of the folder it writes (a file)`,
  );
});

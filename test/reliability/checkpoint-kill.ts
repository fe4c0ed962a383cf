/**
 * Checkpoint saves killed mid-way: fixtures/checkpoint-writer.ts saves checkpoints in a loop (three
 * folders in turn, each replaced every third save, latest.json after each) and gets SIGKILL at a random
 * moment. Whatever the moment: every folder under a checkpoint's name loads whole and holds exactly one
 * save (every weight and moment that save's values, none mixed); latest.json names a folder that loads,
 * at the last save reported done or later; the only leftovers are one `*.tmp-*` folder (a save cut before
 * its rename) and one `*.old-*` (cut between the two renames of a replacement), which
 * removeUnfinishedSaves clears.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { Rng } from "../../src/index.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { loadCheckpoint, readLatestCheckpoint, removeUnfinishedSaves } from "../../src/policy/checkpoint.ts";
import { ROOT } from "./crash-harness.ts";

export interface SaveKillOutcome {
  readonly acknowledged: number;
  readonly folders: number;
  /** A `*.tmp-*` folder was left (the kill landed in a save, before its rename). */
  readonly cutBeforeRename: boolean;
  /** A `*.old-*` folder was left (the kill landed between the two renames of a replacement). */
  readonly cutBetweenRenames: boolean;
  readonly latestTmpLeft: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One kill: start the writer, wait for its first save, SIGKILL it `delayMs` later, check the folder. */
export const killSave = async (folder: string, delayMs: number): Promise<SaveKillOutcome> => {
  await initBackend("cpu", { log: () => {} });
  const child = spawn(process.execPath, ["bin/run-ts.js", "test/reliability/fixtures/checkpoint-writer.ts", folder], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_, signal) => resolve(signal)));
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const deadline = Date.now() + 60_000;
  while (running && !stdout.includes("saved ") && Date.now() < deadline) await sleep(5);
  await sleep(delayMs);
  const reported = stdout;
  child.kill("SIGKILL");
  expect(await exited, `the writer died before the kill: ${stderr}`).toBe("SIGKILL");
  const acknowledged = Math.max(...[...reported.matchAll(/^saved (\d+)$/gm)].map((m) => Number(m[1])));

  const names = readdirSync(folder);
  let folders = 0;
  for (const name of names.filter((n) => /^v\d$/.test(n))) {
    const loaded = await loadCheckpoint(join(folder, name));
    const i = loaded.version;
    expect(i % 3, `${name} holds save ${i}`).toBe(Number(name.slice(1)));
    for (const [param, variable] of loaded.model.parameters) {
      const values = variable.dataSync();
      expect(
        values.every((x) => x === i),
        `${name}/${param}: weights of save ${i}`,
      ).toBe(true);
      const moments = loaded.optimizer!.moments.get(param)!;
      expect(moments.m.every((x) => x === i + 0.5) && moments.v.every((x) => x === i + 0.25)).toBe(true);
    }
    expect(loaded.optimizer!.step).toBe(i);
    loaded.model.dispose();
    folders += 1;
  }
  const latest = readLatestCheckpoint(folder);
  expect(latest, "latest.json").toBeDefined();
  expect(latest!.version).toBeGreaterThanOrEqual(acknowledged);
  const pointed = await loadCheckpoint(join(folder, latest!.dir));
  expect(pointed.version).toBe(latest!.version);
  pointed.model.dispose();

  const leftovers = names.filter((n) => n !== "latest.json" && !/^v\d$/.test(n));
  const tmp = leftovers.filter((n) => /^v\d\.tmp-\d+-\d+$/.test(n));
  const old = leftovers.filter((n) => /^v\d\.old-\d+-\d+$/.test(n));
  const latestTmp = leftovers.filter((n) => /^latest\.json\.tmp-\d+$/.test(n));
  expect(leftovers.length, `leftovers: ${leftovers}`).toBe(tmp.length + old.length + latestTmp.length);
  expect(tmp.length).toBeLessThanOrEqual(1);
  expect(old.length).toBeLessThanOrEqual(1);
  const removed = await removeUnfinishedSaves(folder);
  expect(removed.sort()).toEqual([...tmp, ...old, ...latestTmp].sort());
  expect(readdirSync(folder).every((n) => n === "latest.json" || /^v\d$/.test(n))).toBe(true);
  return {
    acknowledged,
    folders,
    cutBeforeRename: tmp.length > 0,
    cutBetweenRenames: old.length > 0,
    latestTmpLeft: latestTmp.length > 0,
  };
};

/** Kill moments from a seed: 0 to `maxDelayMs` after the first save. */
export const planSaveKills = (count: number, seed: string, maxDelayMs = 400): number[] => {
  const rng = Rng.fromSeed(`save-kill-plan:${seed}`);
  return Array.from({ length: count }, () => rng.int(0, maxDelayMs));
};

export const summarizeSaveKills = (outcomes: readonly SaveKillOutcome[]) => ({
  kills: outcomes.length,
  saves: outcomes.reduce((s, o) => s + o.acknowledged + 1, 0),
  cutBeforeRename: outcomes.filter((o) => o.cutBeforeRename).length,
  cutBetweenRenames: outcomes.filter((o) => o.cutBetweenRenames).length,
  latestTmpLeft: outcomes.filter((o) => o.latestTmpLeft).length,
  foldersLoaded: outcomes.reduce((s, o) => s + o.folders, 0),
});

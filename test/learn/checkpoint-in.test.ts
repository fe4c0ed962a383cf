/**
 * What a user types where a checkpoint belongs (eval --checkpoint, train/sft --init): a run folder, its
 * checkpoints/ folder, or the folder that holds the runs. Each is either resolved, said truly, or refused
 * by name before tfjs loads.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/kernel/errors.ts";
import { checkpointIn } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

/** A run folder as train leaves it, with checkpoints v00001..v0000N (manifests only: checkpointIn reads no weights). */
const fakeRun = (dir: string, versions: number) => {
  for (let v = 1; v <= versions; v++) {
    const name = `v${String(v).padStart(5, "0")}`;
    mkdirSync(join(dir, "checkpoints", name), { recursive: true });
    writeFileSync(join(dir, "checkpoints", name, "manifest.json"), JSON.stringify({ version: v }));
  }
  writeFileSync(
    join(dir, "checkpoints", "latest.json"),
    JSON.stringify({ version: versions, dir: `v${String(versions).padStart(5, "0")}` }),
  );
  writeFileSync(join(dir, "config.json"), JSON.stringify({ env: "lookup" }));
};

describe("checkpointIn: where a checkpoint belongs", () => {
  it("a run's checkpoints/ folder is said to be that, not a run folder", () => {
    const runs = tempDir();
    const run = join(runs, "grpo");
    fakeRun(run, 3);
    const said: string[] = [];
    expect(checkpointIn(join(run, "checkpoints"), "--checkpoint", (l) => said.push(l))).toBe(
      join(run, "checkpoints", "v00003"),
    );
    expect(said).toEqual([
      `--checkpoint ${join(run, "checkpoints")} is the checkpoints folder of the run ${run}: using its latest checkpoint, ${join(run, "checkpoints", "v00003")}`,
    ]);
    said.length = 0;
    checkpointIn(run, "--init", (l) => said.push(l));
    expect(said[0]).toMatch(/^--init .* is a run folder: using its latest checkpoint/);
  });

  it("a folder of run folders is refused, naming the runs in it", () => {
    const runs = tempDir();
    fakeRun(join(runs, "grpo"), 2);
    fakeRun(join(runs, "grpo2"), 1);
    mkdirSync(join(runs, "demos"));
    const attempt = () => checkpointIn(runs, "--checkpoint");
    expect(attempt).toThrow(UsageError);
    expect(attempt).toThrow(
      `--checkpoint ${runs} holds run folders but is no checkpoint: give one of them (its latest checkpoint) or a checkpoint in it: ${join(runs, "grpo")}, ${join(runs, "grpo2")}`,
    );
  });
  it("a folder of a checkpoint beside a run (npm start's runs/start) names both (it named the checkpoint alone)", () => {
    const start = tempDir();
    fakeRun(join(start, "grpo"), 2);
    mkdirSync(join(start, "warm-start"));
    writeFileSync(join(start, "warm-start", "manifest.json"), JSON.stringify({ version: 0 }));
    expect(() => checkpointIn(start, "--checkpoint")).toThrow(
      `--checkpoint ${start} holds checkpoints and run folders but is no checkpoint (no manifest.json): give a checkpoint, ${join(start, "warm-start")}, or a run (its latest checkpoint), ${join(start, "grpo")}`,
    );
  });
});

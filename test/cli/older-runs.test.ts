/**
 * Run folders and journals of older versions, made here by hand from current ones (origin.json removed, an
 * environment's version changed, a config.json the old way): what is read, what is refused, and what is said.
 */
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/index.ts";

const tiny = ["--no-warm-start", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
const cli = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [resolve("bin/agent-r1.js"), ...args], { cwd, encoding: "utf8", timeout: 120_000 });

describe("a run without origin.json (made before it was recorded)", () => {
  it("train --resume says which folder a relative --init was taken from, and that the run predates origin.json", () => {
    const root = tempDir("agent-r1-old-origin-");
    const other = tempDir("agent-r1-old-origin-other-");
    const base = ["train", "--env", "lookup", ...tiny, ...shape];
    expect(cli(root, ...base, "--steps", "1", "--out", "warm").status).toBe(0);
    expect(cli(other, ...base, "--steps", "1", "--seed", "9", "--out", "warm").status).toBe(0);
    expect(cli(root, ...base, "--steps", "1", "--init", "warm", "--kl", "0.1", "--out", "run").status).toBe(0);
    rmSync(join(root, "run", "origin.json"));
    const elsewhere = cli(other, "train", "--out", join(root, "run"), "--resume", "--steps", "2");
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toContain(
      `note: ${join(root, "run", "config.json")} names warm/checkpoints/v00001, relative to the folder train was started in, which the run does not record (it predates origin.json): using ${join(other, "warm", "checkpoints", "v00001")}, from here (${other})`,
    );
  }, 300_000);
});

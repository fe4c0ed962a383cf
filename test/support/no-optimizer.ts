/** A checkpoint copied without the optimizer state its manifest lists (its own file: it imports the checkpoint code). */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { manifestDigest } from "../../src/policy/checkpoint.ts";
import { tempDir } from "./temp.ts";

/**
 * A copy of a checkpoint whose manifest lists optimizer state that the folder does not hold (its digest made
 * again, so only the missing optimizer.bin is wrong): a checkpoint copied out of a run without that file, as
 * docs/checkpoints/hopqa-sloppy-grpo-60 once shipped. Commands that start a fresh optimizer (train --init, sft
 * --init, average) or need none (eval, hopqa:failures) must take it.
 */
export const withoutItsOptimizer = (checkpoint: string): string => {
  const dir = join(tempDir("agent-r1-no-optimizer-"), "checkpoint");
  cpSync(checkpoint, dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Record<string, unknown>;
  const body = { ...manifest, optimizer: { kind: "adamw", step: 240, bytes: 4087816, sha256: "0".repeat(64) } };
  writeFileSync(join(dir, "manifest.json"), JSON.stringify({ ...body, digest: manifestDigest(body) }, null, 2));
  rmSync(join(dir, "optimizer.bin"), { force: true });
  return dir;
};

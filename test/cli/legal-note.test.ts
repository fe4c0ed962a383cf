/**
 * hopqa's `legal` option chooses the legal actions of constrained decoding and nothing else: given to a command
 * that decodes freely, it is said to change nothing (it changed nothing without a word).
 */
import { expect, it } from "vitest";
import { runCli } from "../support/index.ts";

const clone = "docs/checkpoints/hopqa-copy-warm-start";
const spec = "hopqa?split=test&legal=relations";
const note = `note: legal=relations in --env ${spec} chooses the legal actions of constrained decoding, and eval decodes freely, so it changes nothing: add --constrained for it to apply`;

it("eval --env hopqa?legal=relations says it changes nothing when decoding freely, and not when constrained", async () => {
  const free = await runCli("eval", "--checkpoint", clone, "--env", spec, "--episodes", "1", "--no-constrained");
  expect(free.code, free.stderr).toBe(0);
  expect(free.stderr.split("\n")).toContain(note);
  const constrained = await runCli("eval", "--checkpoint", clone, "--env", spec, "--episodes", "1", "--constrained");
  expect(constrained.code, constrained.stderr).toBe(0);
  expect(constrained.stderr).not.toContain("changes nothing");
}, 60_000);

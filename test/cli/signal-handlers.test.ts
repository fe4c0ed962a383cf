/**
 * Commands run in-process (main(), as tests and `npm start` call it) remove the signal handlers they add:
 * sft left its Ctrl-C handler behind after every run, so a later Ctrl-C in the same process said "sft
 * stopped" and exited, whatever was running.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { STOP_SIGNALS } from "../../src/cli/signals.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();
const dir = tempDir("agent-r1-signal-handlers-");
const counts = () => STOP_SIGNALS.map((signal) => process.listenerCount(signal));
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];

describe("signal handlers", () => {
  it("record, sft, average and train leave none behind", async () => {
    const before = counts();
    const data = join(dir, "demos");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", data])).toBe(0);
    expect(counts()).toEqual(before);
    const clone = join(dir, "clone");
    expect(await main(["sft", "--env", "lookup", "--data", data, "--epochs", "1", ...shape, "--out", clone])).toBe(0);
    expect(counts()).toEqual(before);
    expect(await main(["average", clone, "--out", join(dir, "avg")])).toBe(0);
    expect(counts()).toEqual(before);
    const train = ["train", "--env", "lookup", "--steps", "1", "--no-warm-start", "--tasks", "2", "--group-size", "2"];
    expect(await main([...train, "--eval-episodes", "0", ...shape, "--out", join(dir, "run")])).toBe(0);
    expect(counts()).toEqual(before);
  }, 120_000);
});

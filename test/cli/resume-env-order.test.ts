/**
 * `train --resume --env SPEC`, `record --resume --env SPEC` and `sft --resume --env SPEC`: the run's own environment given with its options
 * in another order (`hopqa?legal=relations&wording=possessive` for a run started as
 * `hopqa?wording=possessive&legal=relations`), or spelt another way (hopqa's `worlds=5` for `world-seed=5`), is
 * the same environment, and goes on; other options are still refused, naming both. The same order rule for a
 * module's path with options.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { writeCitiesEnv } from "../support/cities-env.ts";
import { captureOutput, interruptedCli, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-resume-env-order-");
const tiny = ["--no-warm-start", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0", "--backend", "wasm"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
const train = (env: string, out: string, steps: number, ...more: string[]) =>
  main(["train", "--env", env, "--steps", String(steps), "--out", out, ...more]);

describe("train --resume --env with the run's options in another order", () => {
  it("a built-in environment: goes on; other options are refused, naming both", async () => {
    const run = join(dir, "hopqa");
    expect(await train("hopqa?wording=possessive&legal=relations", run, 1, ...tiny, ...shape), output.stderr).toBe(0);
    output.clear();
    expect(await train("hopqa?legal=relations&wording=possessive", run, 2, "--resume"), output.stderr).toBe(0);
    expect(output.stdout).toContain("for 1 update (policy version 2");
    output.clear();
    expect(await train("hopqa?legal=types&wording=possessive", run, 3, "--resume")).toBe(2);
    // The run keeps its own spelling of its environment (config.json).
    expect(output.stderr).toContain(
      "--env hopqa?legal=types&wording=possessive (the run has hopqa?wording=possessive&legal=relations) cannot apply",
    );
  }, 120_000);

  it("hopqa's worlds given as world-seed (or a range of one world): goes on; other worlds are refused", async () => {
    const run = join(dir, "worlds");
    expect(await train("hopqa?world-seed=5", run, 1, ...tiny, ...shape), output.stderr).toBe(0);
    output.clear();
    expect(await train("hopqa?worlds=5-5", run, 2, "--resume"), output.stderr).toBe(0);
    expect(output.stdout).toContain("trained grpo on hopqa?world-seed=5 for 1 update (policy version 2");
    output.clear();
    expect(await train("hopqa?worlds=5-6", run, 3, "--resume")).toBe(2);
    expect(output.stderr).toContain("--env hopqa?worlds=5-6 (the run has hopqa?world-seed=5) cannot apply");
  }, 120_000);

  it("record: journals of hopqa?world-seed=5 go on under hopqa?worlds=5; other worlds are refused", async () => {
    const out = join(dir, "journals");
    const record = (env: string, episodes: number, ...more: string[]) =>
      main(["record", "--env", env, "--policy", "expert", "--episodes", String(episodes), "--out", out, ...more]);
    expect(await record("hopqa?world-seed=5", 2), output.stderr).toBe(0);
    output.clear();
    expect(await record("hopqa?worlds=5", 3, "--resume"), output.stderr).toBe(0);
    expect(readdirSync(out).filter((name) => name.endsWith(".jsonl"))).toHaveLength(3);
    output.clear();
    expect(await record("hopqa?worlds=6", 4, "--resume")).toBe(2);
    expect(output.stderr).toContain(
      `--resume: ${join(out, "ep-0-0.jsonl")} was recorded with environment option worlds 5, not 6-6`,
    );
  }, 60_000);

  it("a module's path: goes on; other options are refused, naming the run's", async () => {
    const module = writeCitiesEnv(join(dir, "cities.mts"), { optionKeys: ["cities", "units"] });
    const run = join(dir, "cities");
    expect(await train(`${module}?units=metric&cities=oslo,rome`, run, 1, ...tiny, ...shape), output.stderr).toBe(0);
    output.clear();
    expect(await train(`${module}?cities=oslo,rome&units=metric`, run, 2, "--resume"), output.stderr).toBe(0);
    expect(output.stdout).toContain("for 1 update (policy version 2");
    output.clear();
    expect(await train(`${module}?cities=oslo,lima&units=metric`, run, 3, "--resume")).toBe(2);
    expect(output.stderr).toContain(
      `--resume --env ${module}?cities=oslo,lima&units=metric: ${join(run, "config.json")} has ${module}?cities=oslo,rome&units=metric; its options ?cities=oslo,rome&units=metric must stay`,
    );
  }, 120_000);

  it("sft: a clone stopped under hopqa?world-seed=5 goes on under hopqa?worlds=5, and keeps its own spelling", async () => {
    const data = join(dir, "demos");
    const record = ["record", "--env", "hopqa?world-seed=5", "--policy", "expert", "--episodes", "4", "--out", data];
    expect(await main(record), output.stderr).toBe(0);
    const out = join(dir, "clone");
    const args = ["--data", data, "--epochs", "20", "--batch-size", "2", ...shape, "--backend", "wasm", "--out", out];
    // Ctrl-C after the first epoch's tick: mid-run.
    const { code, stderr } = await interruptedCli(["sft", "--env", "hopqa?world-seed=5", ...args], /sft steps: [1-9]/);
    expect(code, stderr).toBe(130);
    output.clear();
    expect(await main(["sft", "--env", "hopqa?worlds=5", ...args, "--resume"]), output.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(out, "sft.json"), "utf8")).env).toBe("hopqa?world-seed=5");
  }, 120_000);
});

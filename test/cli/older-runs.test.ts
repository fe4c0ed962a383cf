/**
 * Run folders and journals of older versions, made here by hand from current ones (origin.json removed, an
 * environment's version changed, a config.json the old way): what is read, what is refused, and what is said.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { hashEvent } from "../../src/index.ts";
import { loadEnv, readRunConfig, train } from "../../src/learn/index.ts";
import { captureOutput, inFolder, tempDir } from "../support/index.ts";

const output = captureOutput();

const tiny = ["--no-warm-start", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
/** The command line a refusal suggests ("... with train --init RUN --env E ... --out NEW"), without --out NEW. */
const suggested = (stderr: string): string[] => {
  const command = /with (train --init \S+(?: --[\w-]+ \S+)*) --out NEW/.exec(stderr)?.[1];
  expect(command, stderr).toBeDefined();
  return (command as string).split(" ");
};
/** A short run's flags that no suggestion names. */
const small = ["--steps", "1", "--no-warm-start", "--tasks", "2", "--eval-episodes", "0"];
/** agent-r1 run from the folder `cwd`, in this process: its exit status and what it said. */
const cli = async (cwd: string, ...args: string[]) => {
  output.clear();
  const status = await inFolder(cwd, () => main(args));
  return { status, stdout: output.stdout, stderr: output.stderr };
};

describe("a run without origin.json (made before it was recorded)", () => {
  it("train --resume says which folder a relative --init was taken from, and that the run predates origin.json", async () => {
    const root = tempDir("agent-r1-old-origin-");
    const other = tempDir("agent-r1-old-origin-other-");
    const base = ["train", "--env", "lookup", ...tiny, ...shape];
    expect((await cli(root, ...base, "--steps", "1", "--out", "warm")).status).toBe(0);
    expect((await cli(other, ...base, "--steps", "1", "--seed", "9", "--out", "warm")).status).toBe(0);
    expect((await cli(root, ...base, "--steps", "1", "--init", "warm", "--kl", "0.1", "--out", "run")).status).toBe(0);
    rmSync(join(root, "run", "origin.json"));
    const elsewhere = await cli(other, "train", "--out", join(root, "run"), "--resume", "--steps", "2");
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    expect(elsewhere.stderr).toContain(
      `note: ${join(root, "run", "config.json")} names warm/checkpoints/v00001, relative to the folder train was started in, which the run does not record (it predates origin.json): using ${join(other, "warm", "checkpoints", "v00001")}, from here (${other})`,
    );
  }, 300_000);
});

/** A run's journals made to look recorded on another version of lookup (this build's is 1). */
const recordedOnVersion = (run: string, version: string, updates = readdirSync(join(run, "episodes"))) => {
  for (const update of updates)
    for (const name of readdirSync(join(run, "episodes", update))) {
      const file = join(run, "episodes", update, name);
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace(
          '"env":{"id":"lookup","version":"1"}',
          `"env":{"id":"lookup","version":"${version}"}`,
        ),
      );
    }
};

describe("a run recorded on an older version of its environment", () => {
  const run = join(tempDir("agent-r1-old-env-"), "run");

  it("train --resume refuses it, saying what was recorded, what this build has, and to start a new run from its weights", async () => {
    expect(await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", run])).toBe(0);
    recordedOnVersion(run, "0");
    expect(await main(["train", "--out", run, "--resume", "--steps", "2"])).toBe(2);
    expect(output.stderr).toContain(
      `${join(run, "episodes", "u00000")}/ep-0-u0-0.jsonl was recorded with environment lookup v0, and this build has lookup v1: going on would mix episodes of two versions in one run folder`,
    );
    expect(output.stderr).toContain(
      `start a new run from its weights with train --init ${run} --env lookup --algo grpo --out NEW`,
    );
    // From code, the same refusal, worded for both (it said "--resume", which code does not pass).
    const config = readRunConfig(run)!;
    await expect(
      train({ env: await loadEnv("lookup"), config: { ...config, steps: 2 }, out: run, resume: true, log: () => {} }),
    ).rejects.toThrow(
      /^resume: .* going on would mix episodes of two versions in one run folder .*\(from code: train\(\{ \.\.\., config: \{ \.\.\.config, init: /,
    );
    expect(readdirSync(join(run, "checkpoints")).filter((d) => d.startsWith("v"))).toEqual(["v00001"]);
    // What it says works, as it says it.
    const next = join(run, "..", "new");
    expect(await main([...suggested(output.stderr), ...small, "--out", next]), output.stderr).toBe(0);
  }, 120_000);

  it("train --resume refuses a run whose later update alone was recorded on another version (every journal's first line is read)", async () => {
    const later = join(run, "..", "later");
    expect(await main(["train", "--env", "lookup", "--steps", "2", ...tiny, ...shape, "--out", later])).toBe(0);
    recordedOnVersion(later, "0", ["u00001"]);
    // And the first journal damaged: it is passed over, not taken for the run's.
    writeFileSync(join(later, "episodes", "u00000", "ep-0-u0-0.jsonl"), "not a journal\n");
    expect(await main(["train", "--out", later, "--resume", "--steps", "3"])).toBe(2);
    expect(output.stderr).toMatch(
      /\/later\/episodes\/u00001\/ep-\S+\.jsonl was recorded with environment lookup v0, and this build has lookup v1/,
    );
    expect(readdirSync(join(later, "checkpoints")).filter((d) => d.startsWith("v"))).toEqual(["v00002"]);
  }, 120_000);

  it("eval --checkpoint scores it on this build's version, with a note naming both", async () => {
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1"])).toBe(0);
    expect(output.stderr).toContain(
      `note: ${run} was trained on lookup version 0 (its journals), and is scored here on version 1`,
    );
  }, 60_000);
});

describe("a journal recorded before 2026-12-03 with an action of two tags of one name", () => {
  it("replay --verify says that the parser changed and to record it again, not only that the environment is impure", async () => {
    const dir = join(tempDir("agent-r1-old-parse-"), "rec");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "1", "--out", dir])).toBe(0);
    const file = join(dir, "ep-0-0.jsonl");
    // The expert's first action doubled (`<lookup>k</lookup><lookup>k</lookup>`), its tokens spelling it, the
    // journal resealed: what an older version recorded, when such an action parsed as one call.
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const at = lines.findIndex((line) => JSON.parse(line).type === "agent.acted");
    const acted = JSON.parse(lines[at]);
    const spelt = acted.tokens.slice(0, -1);
    acted.text = `${acted.text}${acted.text}`;
    acted.tokens = [...spelt, ...spelt, acted.tokens.at(-1)];
    acted.logprobs = acted.tokens.map(() => 0);
    let prev = JSON.parse(lines[at - 1]).digest;
    for (let k = at; k < lines.length; k++) {
      const event = k === at ? acted : JSON.parse(lines[k]);
      event.prev = prev;
      delete event.digest;
      event.digest = hashEvent(event);
      prev = event.digest;
      lines[k] = JSON.stringify(event);
    }
    writeFileSync(file, `${lines.join("\n")}\n`);
    expect(await main(["replay", "--verify", file])).toBe(1);
    expect(output.stderr).toMatch(
      new RegExp(
        `the action at seq ${acted.seq} \\(.*\\) holds two <lookup> tags, which is malformed since 2026-12-03 and was read otherwise before: a journal recorded earlier diverges at it, however pure its environment; record it again; if it was recorded later, the usual cause is`,
      ),
    );
  }, 60_000);
});

describe("a grpo run with --group-size 1 (allowed before the check)", () => {
  it("train --resume says an older version allowed it and that it cannot be resumed; train --init RUN --out NEW works", async () => {
    const run = join(tempDir("agent-r1-old-g1-"), "run");
    expect(
      await main(["train", "--env", "lookup", "--algo", "grpo", "--steps", "1", ...tiny, ...shape, "--out", run]),
    ).toBe(0);
    const file = join(run, "config.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"groupSize": 2', '"groupSize": 1'));
    const said = `${file}: this run is grpo with groupSize 1, which an older version allowed and this one refuses`;
    for (const more of [[], ["--group-size", "2"], ["--algo", "ppo"]]) {
      output.clear();
      expect(await main(["train", "--out", run, "--resume", "--steps", "2", ...more])).toBe(2);
      expect(output.stderr).toContain(said);
      expect(output.stderr).toContain(
        `cannot be resumed: start a new run from its weights with train --init ${run} --env lookup --algo grpo --group-size 2 --out NEW`,
      );
      expect(output.stderr).not.toContain("give at least 2");
    }
    const next = join(run, "..", "new");
    expect(await main([...suggested(output.stderr), ...small, "--out", next]), output.stderr).toBe(0);
  }, 120_000);
});

describe("eval --checkpoint RUN without --env", () => {
  it("scores on the run's environment with its options (the worlds it trained in); --split and --world-seed replace theirs", async () => {
    const run = join(tempDir("agent-r1-eval-options-"), "run");
    const hopqa = ["--env", "hopqa?worlds=1-100", "--steps", "1", ...tiny, ...shape, "--out", run];
    expect(await main(["train", ...hopqa]), output.stderr).toBe(0);
    const last = () => JSON.parse(output.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1"])).toBe(0);
    expect(output.stderr).toContain(`eval: --env not given: hopqa?worlds=1-100, from ${join(run, "config.json")}`);
    expect(last()).toMatchObject({ env: "hopqa", split: "train", worlds: "1-100" });
    output.clear();
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1", "--split", "test"])).toBe(0);
    expect(last()).toMatchObject({ env: "hopqa", split: "test", worlds: "1-100" });
    output.clear();
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1", "--world-seed", "1000001-1000200"])).toBe(0);
    expect(last()).toMatchObject({ env: "hopqa", split: "train", worlds: "1000001-1000200" });
  }, 120_000);
});

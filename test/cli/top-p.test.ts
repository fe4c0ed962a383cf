/**
 * `--top-p P` (nucleus sampling, the API's topP) on train and eval: it reaches the sampler (at a tiny P every
 * sampled token is the likeliest, so sampling equals greedy decoding), it is saved in the run's config.json
 * so --resume samples with it, and a value the sampler cannot take is refused before any work (the API's
 * rule: in (0, 1]). Before, the CLI had no way to set it. eval's --temperature (with --sample) likewise reaches
 * the sampler. A fresh tiny model on lookup: seconds.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-top-p-");
const tiny = ["--no-warm-start", "--tasks", "1", "--group-size", "4", "--eval-episodes", "0", "--steps", "1"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];

/** Each journal's actions, in order, of the .jsonl journals under `folder`. */
const actionsUnder = (folder: string): string[][] =>
  readdirSync(folder, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) =>
      readFileSync(join(folder, file), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; text?: string })
        .filter((event) => event.type === "agent.acted")
        .map((event) => event.text ?? ""),
    );

describe("--top-p", () => {
  const nucleus = join(dir, "nucleus");
  const full = join(dir, "full");
  beforeAll(async () => {
    expect(await main(["train", "--env", "lookup", ...tiny, ...shape, "--top-p", "1e-9", "--out", nucleus])).toBe(0);
    expect(await main(["train", "--env", "lookup", ...tiny, ...shape, "--out", full])).toBe(0);
  }, 60_000);

  /** eval of the `full` run's checkpoint into `name` with `flags`: its journals' actions and its JSON summary. */
  const evalOf = async (name: string, ...flags: string[]) => {
    output.clear();
    const out = join(dir, name);
    const args = ["eval", "--checkpoint", full, "--episodes", "3", "--seed", "e", "--out", out, ...flags];
    expect(await main(args), output.stderr).toBe(0);
    return { actions: actionsUnder(out), summary: JSON.parse(output.stdout.trim().split("\n").at(-1)!) };
  };

  it("train samples with it: at a tiny P the group's episodes (one task) all take the likeliest actions alike", () => {
    const narrow = actionsUnder(join(nucleus, "episodes"));
    expect(narrow).toHaveLength(4);
    expect(narrow.every((actions) => JSON.stringify(actions) === JSON.stringify(narrow[0]))).toBe(true);
    // The same fresh model sampling the whole distribution writes different actions in each episode.
    const wide = actionsUnder(join(full, "episodes"));
    expect(new Set(wide.map((actions) => JSON.stringify(actions))).size).toBe(4);
  });

  it("is saved in the run's config.json, and --resume refuses another value", async () => {
    expect(JSON.parse(readFileSync(join(nucleus, "config.json"), "utf8")).topP).toBe(1e-9);
    expect(JSON.parse(readFileSync(join(full, "config.json"), "utf8")).topP).toBe(1);
    output.clear();
    expect(await main(["train", "--out", nucleus, "--resume", "--steps", "2", "--top-p", "0.5"])).toBe(2);
    expect(output.stderr).toContain(`--top-p 0.5 (the run has 1e-9) cannot apply`);
  });

  it("eval --sample --top-p samples with it: at a tiny P its actions are greedy decoding's, and its summary says so", async () => {
    const greedy = await evalOf("greedy");
    const narrow = await evalOf("narrow", "--sample", "--top-p", "1e-9");
    const sampled = await evalOf("sampled", "--sample");
    expect(narrow.actions).toEqual(greedy.actions);
    expect(sampled.actions).not.toEqual(greedy.actions);
    expect(narrow.summary).toMatchObject({ sample: true, topP: 1e-9 });
    expect(sampled.summary.topP).toBeUndefined();
    expect(greedy.summary.sample).toBeUndefined();
  }, 60_000);

  it("eval --sample --temperature samples at it (at a tiny one, greedy decoding's actions); without --sample, or a bad value, refused", async () => {
    const greedy = await evalOf("greedy-t");
    const cold = await evalOf("cold", "--sample", "--temperature", "1e-4");
    const sampled = await evalOf("sampled-t", "--sample", "--temperature", "1");
    expect(cold.actions).toEqual(greedy.actions);
    expect(sampled.actions).not.toEqual(greedy.actions);
    expect(cold.summary).toMatchObject({ sample: true, temperature: 1e-4 });
    expect(greedy.summary.temperature).toBeUndefined();
    const refused = async (...flags: string[]) => {
      output.clear();
      expect(await main(["eval", "--checkpoint", full, "--episodes", "1", ...flags])).toBe(2);
      return output.stderr;
    };
    expect(await refused("--temperature", "0.5")).toContain(
      "--temperature 0.5 applies to sampling, and eval decodes greedily unless told: add --sample",
    );
    // Read as train reads it: > 0, decimal.
    expect(await refused("--sample", "--temperature", "0")).toContain(
      '--temperature must be a number > 0 (decimal, like 0.001 or 1e-3), got "0"',
    );
  }, 60_000);
});

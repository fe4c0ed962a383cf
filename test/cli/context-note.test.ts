/**
 * `record` says when its episodes are longer than the context of the model they would be cloned into: sft (and
 * train's warm start) refuse such a demonstration, and before, a recording said nothing until the clone failed
 * (found writing a flight rebooking desk whose search results made 194-token episodes, against a context of 64).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-context-");
const output = captureOutput();
const src = JSON.stringify(pathToFileURL(resolve("src/index.ts")).href);
const weather = JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href);
/** The weather example, its model's context set. */
const module = (contextLength: number) => {
  const file = join(dir, `weather-${contextLength}.ts`);
  writeFileSync(
    file,
    `import * as r1 from ${src};\nimport weather from ${weather};\n` +
      `export default r1.defineEnv({ ...weather, model: { contextLength: ${contextLength} } });\n`,
  );
  return file;
};
const record = async (env: string, out: string, episodes = 3) => {
  output.clear();
  const code = await main(["record", "--env", env, "--policy", "expert", "--episodes", String(episodes), "--out", out]);
  expect(code, output.stderr).toBe(0);
  return output.stderr;
};

describe("record's note on episodes longer than the model's context", () => {
  it("names the longest episode, its tokens, and what to set; nothing when they fit", async () => {
    const said = await record(module(16), join(dir, "tight"));
    expect(said).toMatch(
      /^note: the longest recorded episode \(ep-0-\d\) takes (\d+) tokens, more than the model's context of 16 \(environment weather's model\.contextLength\): sft, and train's warm start, refuse such demonstrations, and train trains only on the actions that fit: set model: \{ contextLength: \1 \} in environment weather, or pass sft and train --context-length \1$/m,
    );
    // The count is sft's: cloning into the context it names goes through.
    const tokens = Number(/takes (\d+) tokens/.exec(said)?.[1]);
    output.clear();
    const clone = await main([
      "sft",
      "--env",
      module(16),
      "--data",
      join(dir, "tight"),
      "--out",
      join(dir, "clone"),
      "--epochs",
      "1",
      "--layers",
      "1",
      "--width",
      "16",
      "--heads",
      "2",
      "--context-length",
      String(tokens),
    ]);
    expect(clone, output.stderr).toBe(0);
    expect(await record(module(192), join(dir, "roomy"))).not.toContain("longest recorded episode");
    // lookup's episodes fit its model: no note.
    expect(await record("lookup", join(dir, "lookup"))).not.toContain("longest recorded episode");
  }, 60_000);

  it("sft names the longest demonstration that does not fit, not the first: the context it names fits them all", async () => {
    // lookup's episodes take one hop or two: of other lengths. Before, sft named the first too long, and a clone
    // into that context was refused again at a longer one.
    const demos = join(dir, "hops");
    await record("lookup", demos, 8);
    const lengths = readdirSync(demos)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) =>
        readFileSync(join(demos, name), "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line))
          .filter((e) => e.type === "agent.acted" || e.type === "env.observed")
          .reduce((sum, e) => sum + e.tokens.length, 0),
      );
    const shortest = Math.min(...lengths);
    const longest = Math.max(...lengths);
    expect(longest).toBeGreaterThan(shortest);
    output.clear();
    const sft = ["sft", "--env", "lookup", "--data", demos, "--out", join(dir, "hops-clone"), "--epochs", "1"];
    expect(await main([...sft, "--context-length", String(shortest)])).toBe(2);
    const over = lengths.filter((n) => n > shortest).length;
    expect(output.stderr).toContain(
      `has ${longest} tokens, more than the model's context of ${shortest}${over > 1 ? ` (the longest of ${over} demonstrations that do not fit)` : ""}; clone into a new model with --context-length ${longest} or more`,
    );
  }, 60_000);
});

/**
 * Actions without `<eos>`: a Policy of one's own that leaves it out records and clones without a word, and the
 * clone never learns where an action ends. `record` and `sft` say so; a policy that ends its actions says nothing.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-eos-");
const output = captureOutput();
const src = JSON.stringify(pathToFileURL(resolve("src/index.ts")).href);
const weather = JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href);
/** The weather example with a Policy of its own, writing the expert's actions with or without <eos>. */
const envModule = (name: string, withEos: boolean) => {
  const file = join(dir, `${name}.ts`);
  writeFileSync(
    file,
    `import * as r1 from ${src};\nimport weather from ${weather};\n` +
      "const tokenizer = weather.tokenizer;\n" +
      'const eos = tokenizer.idOf("<eos>");\n' +
      "const own = () => ({ id: 'own', version: 0, tokenizer, act: async (requests) => requests.map(({ task, history }) => {\n" +
      "  const text = history.some((t) => t.role === 'action') ? r1.formatAnswer(task.a) : r1.formatCall(weather.tools.weather, { city: task.a });\n" +
      `  const tokens = ${withEos ? "[...tokenizer.encode(text), eos]" : "tokenizer.encode(text)"};\n` +
      "  return { tokens, text: tokenizer.decode(tokens), logprobs: tokens.map(() => 0), version: 0 };\n" +
      "}) });\n" +
      "export default r1.defineEnv({ ...weather, policies: { ...weather.policies, own } });\n",
  );
  return file;
};

const run = async (args: string[]) => {
  output.clear();
  const code = await main(args);
  expect(code, output.stderr).toBe(0);
  return output.stderr;
};

/** Records 4 episodes of the module's own policy, then clones them (all of them, 1 epoch): what each says. */
const recordAndClone = async (env: string, name: string) => {
  const data = join(dir, name);
  const recorded = await run(`record --env ${env} --policy own --episodes 4 --seed 1 --out ${data}`.split(" "));
  const cloned = await run(`sft --env ${env} --data ${data} --out ${data}-clone --epochs 1 --all-episodes`.split(" "));
  return { recorded, cloned };
};

describe("actions that end without <eos>", () => {
  it("record and sft say how many, and what a clone of them does; with <eos>, neither says a word", async () => {
    const { recorded, cloned } = await recordAndClone(envModule("without", false), "a");
    expect(recorded).toContain(
      "note: 8 of the 8 recorded actions end without <eos>: a model cloned from them does not learn where an action ends",
    );
    expect(recorded).toContain('ends each action\'s tokens with tokenizer.idOf("<eos>")');
    expect(cloned).toContain("note: 8 of the 8 demonstrated actions end without <eos>");
    const fine = await recordAndClone(envModule("with", true), "b");
    expect(fine.recorded).not.toContain("<eos>");
    expect(fine.cloned).not.toContain("without <eos>");
  }, 120_000);
});

/**
 * `record` notes the words of the recorded episodes that the environment's word tokenizer spells a token per
 * byte: a corpus that missed `answer` made `<answer>unavailable</answer>` 19 tokens, and the only note was the
 * action budget's, which sent the user to raise `maxActionTokens` (found writing a library desk).
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { SpelledTally } from "../../src/cli/record.ts";
import { type EpisodeEvent, WordTokenizer } from "../../src/index.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-spelled-");
const output = captureOutput();
const src = JSON.stringify(pathToFileURL(resolve("src/index.ts")).href);
const weather = JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href);
/** The weather example with a corpus of its own: `answer` left out, or not. */
const module = (name: string, corpus: string) => {
  const file = join(dir, `${name}.ts`);
  writeFileSync(
    file,
    `import * as r1 from ${src};\nimport weather from ${weather};\n` +
      `const tokenizer = r1.WordTokenizer.fromCorpus([${JSON.stringify(corpus)}]);\n` +
      "const expert = () => r1.scriptedPolicy('ask-then-answer', tokenizer, ({ task, turn }) =>\n" +
      "  turn === 0 ? r1.formatCall(weather.tools.weather, { city: task.a }) : r1.formatAnswer(task.a));\n" +
      "export default r1.defineEnv({ ...weather, tokenizer, policies: { expert } });\n",
  );
  return file;
};
const CITIES = "oslo rome cairo lima quito";

const record = async (env: string, out: string) => {
  output.clear();
  const code = await main([
    "record",
    "--env",
    env,
    "--policy",
    "expert",
    "--episodes",
    "3",
    "--seed",
    "1",
    "--out",
    out,
  ]);
  expect(code, output.stderr).toBe(0);
  return output.stderr;
};

describe("words a tokenizer spells byte by byte", () => {
  it("spelledOut gives the pieces of more than one byte that ids spell as bytes", () => {
    const tokenizer = WordTokenizer.fromCorpus(["lima"]);
    expect(tokenizer.spelledOut(tokenizer.encode("<answer>lima</answer> é 42"))).toEqual([
      "answer",
      "answer",
      "é",
      "42",
    ]);
    expect(tokenizer.spelledOut(tokenizer.encode("lima < / >"))).toEqual([]);
    // Byte tokens that spell no UTF-8 (a sampling policy's junk) are no word to add to a corpus: not "\uFFFD".
    expect(tokenizer.spelledOut([0xff, 0xfe, ...tokenizer.encode("lima"), 0xc3, 0x41, 0x42])).toEqual(["AB"]);
  });

  it("a runaway word (a model's junk) is named by its first 40 characters and its length, not in full", () => {
    const tokenizer = WordTokenizer.fromCorpus(["lima"]);
    const tally = new SpelledTally({ id: "junk", tokenizer });
    const text = `${"x".repeat(5000)} lima`;
    tally.add([{ type: "agent.acted", turn: 0, text, tokens: tokenizer.encode(text) } as unknown as EpisodeEvent]);
    const note = tally.note() ?? "";
    expect(note).toContain(`${JSON.stringify("x".repeat(40))}... (5000 characters, 5000 tokens; 1x, in actions)`);
    expect(note.length).toBeLessThan(600);
  });

  it("record names them, most frequent first, with their cost and where they were seen; none when the corpus covers them", async () => {
    const missing = await record(
      module("missing", `${CITIES} which is warmer : or ? weather error use city`),
      join(dir, "a"),
    );
    expect(missing).toContain(
      "note: 1 word(s) of the recorded episodes are not in environment weather's tokenizer vocabulary, so each is spelt a token per byte",
    );
    expect(missing).toMatch(
      /"answer" \(6 tokens; 6x, in actions\); add those the environment and its demonstrators write to the texts its WordTokenizer\.fromCorpus is built from/,
    );
    // Numbers (the temperatures the tool returns) are spelt by digit on purpose: not named.
    expect(missing).not.toMatch(/"\d+" \(/);
    const covered = await record(
      module("covered", `${CITIES} which is warmer : or ? weather answer error use city`),
      join(dir, "b"),
    );
    expect(covered).not.toContain("tokenizer vocabulary");
  }, 60_000);

  it("a policy with a tokenizer of its own is said so, not read with the environment's (words it has were named missing)", async () => {
    // The environment keeps weather's tokenizer; only the policy's is another (an LLM's, a user's mistake).
    const file = join(dir, "own-tokenizer.ts");
    writeFileSync(
      file,
      `import * as r1 from ${src};\nimport weather from ${weather};\n` +
        'const own = r1.WordTokenizer.fromCorpus(["oslo answer"]);\n' +
        "const expert = () => r1.scriptedPolicy('own-words', own, ({ task, turn }) =>\n" +
        "  turn === 0 ? r1.formatCall(weather.tools.weather, { city: task.a }) : r1.formatAnswer(task.a));\n" +
        "export default r1.defineEnv({ ...weather, policies: { expert } });\n",
    );
    const said = await record(file, join(dir, "own"));
    expect(said).toMatch(
      /note: policy own-words tokenizes with its own tokenizer \(words-v1:[0-9a-f]+\), not environment weather's \(words-v1:[0-9a-f]+\), so the journals keep its token ids: they replay, but sft and train of weather's model refuse them/,
    );
    expect(said).not.toContain("tokenizer vocabulary");
    expect(said).not.toMatch(/maxActionTokens/);
  }, 60_000);

  it("a built-in environment's words are not the user's to add: none named for hopqa, by --env or configured in code", async () => {
    // hopqa's prompt spells "question" by bytes; its tokenizer is fixed by the shipped checkpoints.
    const hopqa = JSON.stringify(pathToFileURL(resolve("actors/hopqa/index.ts")).href);
    const file = join(dir, "relations.mts");
    writeFileSync(file, `import { hopqa } from ${hopqa};\nexport default hopqa.configure({ legal: "relations" });\n`);
    expect(await record(file, join(dir, "code"))).not.toContain("tokenizer vocabulary");
    expect(await record("hopqa?legal=relations", join(dir, "flag"))).not.toContain("tokenizer vocabulary");
  }, 60_000);
});

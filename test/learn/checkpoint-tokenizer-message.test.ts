/**
 * A checkpoint whose tokenizer is not the environment's: the refusal names what differs. For a run trained from
 * code on loadEnv(path), config.json names the module, not the id, and the refusal said the checkpoint "was trained
 * on environment ./env.ts, not tutor" of the very environment whose tokenizer had since changed.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hopqa } from "../../actors/hopqa/index.ts";
import { lookup } from "../../actors/lookup/index.ts";
import { checkTokenizerOf } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

const runOf = (env: string, journal: string) => {
  const run = tempDir("agent-r1-tokenizer-message-");
  mkdirSync(join(run, "checkpoints", "v00001"), { recursive: true });
  mkdirSync(join(run, "episodes", "u00000"), { recursive: true });
  writeFileSync(join(run, "config.json"), JSON.stringify({ env }));
  copyFileSync(journal, join(run, "episodes", "u00000", "ep-0-u0-0.jsonl"));
  return join(run, "checkpoints", "v00001");
};

describe("a checkpoint of another tokenizer, from a run that names its environment's module", () => {
  it("of the same environment (by its journals' id): says the tokenizer changed, not that it is another environment", () => {
    const checkpoint = runOf("./envs/lookup-copy.ts", "replays/lookup/expert/ep-golden-0.jsonl");
    const check = () => checkTokenizerOf(lookup, checkpoint, "words-v1:0000000000000000");
    expect(check).toThrow(/was made for another tokenizer \(words-v1:0000000000000000\) than environment lookup's/);
    expect(check).not.toThrow(/not lookup/);
  });

  it("of another environment: names the module the run was trained on", () => {
    const checkpoint = runOf("./envs/qa.ts", "replays/hopqa/expert/ep-golden-0.jsonl");
    expect(() => checkTokenizerOf(lookup, checkpoint, "words-v1:0000000000000000")).toThrow(
      /was trained on environment \.\/envs\/qa\.ts \(.*config\.json\), not lookup/,
    );
  });
});

describe("a checkpoint of another variant of an environment whose options change its tokenizer", () => {
  it("says it may be of this environment with other options (a possessive-wording clone evaluated under plain hopqa)", () => {
    const clone = tempDir("agent-r1-tokenizer-message-");
    const possessive = hopqa.configure({ wording: "possessive" }).tokenizer.id;
    expect(() => checkTokenizerOf(hopqa, clone, possessive)).toThrow(
      `checkpoint ${clone} was made for another tokenizer (${possessive}) than environment hopqa's (${hopqa.tokenizer.id}): it belongs to another environment, or to an older version of this one, or to this one with other options (--env "hopqa?...": hopqa's wording, say, has a tokenizer of its own)`,
    );
  });
});

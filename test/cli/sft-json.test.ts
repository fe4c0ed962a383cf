/** A clone's sft.json, edited by hand or damaged: eval and train --init say what is wrong with it, never crash or guess. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkpointOriginEnv, runConfigEnv } from "../../src/cli/registry.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { tempDir } from "../support/index.ts";

const cloneWith = (name: string, sftJson: string | null) => {
  const clone = join(tempDir("agent-r1-sft-json-"), name);
  mkdirSync(clone, { recursive: true });
  if (sftJson === null) mkdirSync(join(clone, "sft.json"));
  else writeFileSync(join(clone, "sft.json"), sftJson);
  return clone;
};

const problemOf = (clone: string): string => {
  try {
    checkpointOriginEnv(clone);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as UsageError).message;
  }
  throw new Error("checkpointOriginEnv took it");
};

describe("a clone's sft.json", () => {
  it("gives the env it names, and nothing for a clone without one", () => {
    expect(checkpointOriginEnv(cloneWith("ok", '{ "env": "hopqa?split=test", "data": "/d" }\n'))?.env).toBe(
      "hopqa?split=test",
    );
    expect(checkpointOriginEnv(tempDir("agent-r1-sft-json-"))).toBeUndefined();
  });

  it.each([
    ["null", "null", 'not an object with "env" (it holds null)'],
    ["array", '["hopqa"]', 'not an object with "env" (it holds an array)'],
    ["no-env", '{ "data": "/d" }', 'no "env" in it'],
    ["number", '{ "env": 5 }', 'its "env" is 5,'],
    ["empty", '{ "env": "" }', 'its "env" is "" (a string),'],
    ["syntax", '{ "env": ', "not valid JSON (Unexpected end of JSON input"],
    ["folder", null, "a folder, where sft writes a file"],
  ])("%s: a UsageError naming the file and what is wrong (not 'not valid JSON' for valid JSON)", (name, text, said) => {
    const message = problemOf(cloneWith(name, text));
    expect(message).toContain(join(name, "sft.json"));
    expect(message).toContain(said);
    expect(message).toContain("mend the file, or give --env");
    if (text !== null && !name.startsWith("syntax")) expect(message).not.toContain("not valid JSON");
  });
});

describe("an average's average.json", () => {
  it("gives the env it names, and a damaged one is the average's, named", () => {
    const soup = join(tempDir("agent-r1-average-json-"), "soup");
    mkdirSync(soup, { recursive: true });
    writeFileSync(join(soup, "average.json"), '{ "env": "lookup", "checkpoints": ["/a", "/b"] }\n');
    expect(checkpointOriginEnv(soup)).toEqual({ file: join(soup, "average.json"), env: "lookup", whose: "average" });
    writeFileSync(join(soup, "average.json"), '{ "checkpoints": [] }');
    expect(problemOf(soup)).toBe(
      `${join(soup, "average.json")}: no "env" in it (the --env of the checkpoints averaged), so the average's environment is unknown; mend the file, or give --env`,
    );
  });
});

describe("a run's config.json, as eval reads it for the run's environment", () => {
  const runWith = (name: string, configJson: string | null) => {
    const run = join(tempDir("agent-r1-config-json-"), name);
    mkdirSync(join(run, "checkpoints", "v00001"), { recursive: true });
    if (configJson === null) mkdirSync(join(run, "config.json"));
    else writeFileSync(join(run, "config.json"), configJson);
    return run;
  };

  it.each([
    ["null", "null", 'not an object with "env" (it holds null)'],
    ["array", '["lookup"]', 'not an object with "env" (it holds an array)'],
    ["number", '{ "env": 5 }', 'its "env" is 5, where train writes the environment it trained on'],
    ["folder", null, "a folder, where train writes a file"],
  ])(
    "%s: a UsageError naming the file and what is wrong, from the run or one of its checkpoints",
    (name, text, said) => {
      const run = runWith(name, text);
      for (const from of [run, join(run, "checkpoints", "v00001")])
        expect(() => runConfigEnv(from)).toThrow(
          `${join(run, "config.json")}: ${said}, so the run's environment is unknown; mend the file, or give --env`,
        );
    },
  );

  it("one without env (another program's config.json up the tree) is not the run's: skipped", () => {
    expect(runConfigEnv(runWith("other", '{ "steps": 3 }'))).toBeUndefined();
    expect(runConfigEnv(runWith("run", '{ "env": "lookup", "constrained": true }'))).toMatchObject({
      env: "lookup",
      constrained: true,
    });
  });
});

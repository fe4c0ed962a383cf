import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { envResolver } from "../../src/cli/registry.ts";
import { readJournalFile } from "../../src/index.ts";
import { checkFile, checkPath } from "../../src/replay/verify-files.ts";
import {
  CounterexampleError,
  checkRewards,
  describeEpisode,
  noRewardForRepeatedCalls,
  playEpisode,
  rewardBounds,
} from "../../src/testing/index.ts";
import { tempDir } from "../support/index.ts";
import { createSecretEnv, secretActions } from "./fixtures.ts";

const failureOf = (check: Promise<void>) =>
  check.then(
    () => expect.fail("the property should have failed"),
    (cause: unknown) => cause as CounterexampleError,
  );

describe("a failing property prints its counterexample and writes it as a journal", () => {
  it("the message says what broke, shows the episode step by step, and how to replay and rerun it", async () => {
    const dir = tempDir("agent-r1-cx-");
    const env = createSecretEnv({ process: () => 0.1 });
    const failure = await failureOf(
      checkRewards(env, {
        ...secretActions,
        invariants: [noRewardForRepeatedCalls()],
        numRuns: 100,
        counterexampleDir: dir,
        envModule: "./my-env.ts",
      }),
    );
    expect(failure).toBeInstanceOf(CounterexampleError);
    const [file] = failure.files;
    expect(file.startsWith(dir)).toBe(true);
    expect(existsSync(file)).toBe(true);
    const lines = failure.message.split("\n");
    expect(lines[0]).toMatch(
      /^property "no reward for repeating a call" failed on environment secret after \d+ case\(s\), shrunk \d+ time\(s\):$/,
    );
    expect(lines[1]).toMatch(/^ {2}turn 1 repeats the call "<check>.*?<\/check>" of turn 0 and earns 0\.1: /);
    expect(failure.message).toContain("counterexample episode 1 of 1:");
    expect(failure.message).toMatch(
      /\n {5}0 {2}act {6}"<check>(.*?)<\/check>"\n {8}call {5}c0 check \{"word":"\1"\}\n/,
    );
    expect(failure.message).toMatch(/\n {8}reward {3}\+0\.1 process \(checked a word\)\n/);
    expect(failure.message).toContain(
      `journal: ${file}\n  see it step by step: npx agent-r1 inspect ${file}\n  replay-verify it: npx agent-r1 replay ${file} --verify --env ./my-env.ts`,
    );
    expect(failure.message).toContain(`fast-check: seed ${failure.seed}, path "${failure.path}"`);
    expect(failure.message).toContain(`only: "no reward for repeating a call", seed: ${failure.seed}`);

    // The file is a valid journal of the shrunk episode, and it replays through the environment.
    const events = await readJournalFile(file);
    expect(events.map((e) => e.type)).toEqual(failure.violation.episodes[0].map((e) => e.type));
    const verdict = await checkFile(file, { verify: true, repair: false, envOf: () => env });
    expect(verdict.problem).toBeUndefined();
    expect(verdict.ok).toBe(true);
  });

  it("`agent-r1 replay --verify` replays a counterexample of a built-in environment", async () => {
    const failure = await failureOf(
      checkRewards(lookupEnv, {
        invariants: [rewardBounds({ min: 0, max: 1 })],
        numRuns: 100,
        counterexampleDir: tempDir("agent-r1-cx-"),
      }),
    );
    expect(failure.message).toContain("(for an environment that is not built in, add --env <path of the module");
    // What `npx agent-r1 replay <file> --verify` runs: the environment found by the id in the journal.
    const verdicts = [];
    for await (const verdict of checkPath(failure.files[0], { verify: true, repair: false, envOf: envResolver() }))
      verdicts.push(verdict);
    expect(verdicts).toMatchObject([{ ok: true, episode: expect.stringMatching(/^each-reward-lies-in-0-1-/) }]);
  });

  it("describeEpisode shows hidden characters and cuts long text", async () => {
    const played = await playEpisode(createSecretEnv(), {
      seed: "s1",
      actions: ["bad\u0000\n", "\u00a0", "x".repeat(500), "<answer>ant</answer>"],
      toolResults: [],
    });
    const text = describeEpisode(played.events);
    expect(text).toContain('act      "bad\\u0000\\n"');
    expect(text).toContain('act      "\\u00a0"');
    expect(text).toContain(`act      "${"x".repeat(100)}"… (500 characters)`);
    expect(text).toMatch(/end {6}answered, return -?[\d.]+, 4 turn\(s\)$/);
  });
});

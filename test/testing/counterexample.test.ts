import { existsSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { envResolver, loadEnv } from "../../src/cli/registry.ts";
import { readJournalFile } from "../../src/index.ts";
import { checkFile, checkPath } from "../../src/replay/verify-files.ts";
import {
  CounterexampleError,
  checkRewards,
  describeEpisode,
  episodeInvariant,
  noRewardForRepeatedCalls,
  playEpisode,
  returnBounds,
  rewardBounds,
} from "../../src/testing/index.ts";
import { runCli, tempDir } from "../support/index.ts";
import { createSecretEnv, secretActions } from "./fixtures.ts";
import secretEnv from "./secret-env.ts";
import turnsEnv from "./secret-turns-env.ts";

/** A module whose default export is the sound `secret` environment. */
const SECRET_MODULE = "test/testing/secret-env.ts";
/** A module whose default export is `secret` with a `turns` option that changes its machine. */
const TURNS_MODULE = "test/testing/secret-turns-env.ts";

const failureOf = (check: Promise<void>) =>
  check.then(
    () => expect.fail("the property should have failed"),
    (cause: unknown) => cause as CounterexampleError,
  );

/** A turns-env check whose property fails at the turn limit, journaled with envModule as given. */
const turnLimitFailure = (env: typeof turnsEnv, envModule: string) =>
  failureOf(
    checkRewards(env, {
      ...secretActions,
      invariants: [
        episodeInvariant("never stops at the turn limit", (e) =>
          e.record.reason === "turn-limit" ? "stopped at the turn limit" : undefined,
        ),
      ],
      seed: 1,
      counterexampleDir: tempDir("agent-r1-cx-"),
      envModule,
    }),
  );

describe("the kit's own mistakes are named", () => {
  it("an environment that failed to import, and a path that leads to no case", async () => {
    await expect(checkRewards(undefined as never, { invariants: [rewardBounds({ min: -1, max: 1 })] })).rejects.toThrow(
      "checkRewards: the first argument must be an environment (defineEnv(...)), got undefined; check its import",
    );
    await expect(checkRewards(lookupEnv, undefined as never)).rejects.toThrow(
      "checkRewards: the options must be an object, got undefined",
    );
    await expect(
      checkRewards(lookupEnv, { invariants: [rewardBounds({ min: -1, max: 1 })], seed: 7, path: "99:99:99" }),
    ).rejects.toThrow('path "99:99:99" leads to no case of this property with seed 7; pass the seed and path');
  });
});

describe("a failing property prints its counterexample and writes it as a journal", () => {
  it("the message says what broke, shows the episode step by step, and how to replay and rerun it", async () => {
    const dir = tempDir("agent-r1-cx-");
    const env = createSecretEnv({ process: () => 0.1 });
    const failure = await failureOf(
      checkRewards(env, {
        ...secretActions,
        invariants: [noRewardForRepeatedCalls()],
        numRuns: 100,
        // Fixed: what the shrunk action looks like varies with the seed, and the lines below are matched exactly;
        // a fresh-clone run of a random seed once kept a 10,015-character call, which the report shows cut
        // ("<check>[[[…]]]</check>" (10015 characters); the cut is tested with the printed episode below).
        seed: 1,
        counterexampleDir: dir,
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
    // The printed episode carries its journal's id, as `inspect` of that journal shows it.
    expect(failure.message).toContain(`\n  episode ${basename(file, ".jsonl")}: secret v`);
    // The call's word is the text between the tags without the whitespace around it (a real or an escaped
    // newline: a fresh-clone run shrank to "<check>\\n</check>", called with the word "").
    expect(failure.message).toMatch(
      /\n {5}0 {2}act {6}"<check>(?:\s|\\[nrt])*(.*?)(?:\s|\\[nrt])*<\/check>"\n {8}call {5}c0 check \{"word":"\1"\}\n/,
    );
    expect(failure.message).toMatch(/\n {8}reward {3}\+0\.1 process \(checked a word\)\n/);
    expect(failure.message).toContain(
      `journal: ${file}\n  see it step by step: npx agent-r1 inspect ${file}\n  replay-verify it: npx agent-r1 replay ${file} --verify\n`,
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

  it("with envModule, the --env replay command is printed only when the environment under test is its default export", async () => {
    // The module's own default export: the printed command replays it, as the CLI loads it.
    const exported = await failureOf(
      checkRewards(secretEnv, {
        ...secretActions,
        invariants: [returnBounds({ min: 0, max: 1 })],
        counterexampleDir: tempDir("agent-r1-cx-"),
        envModule: SECRET_MODULE,
      }),
    );
    const [file] = exported.files;
    expect(exported.message).toContain(
      `  replay-verify it: npx agent-r1 replay ${file} --verify --env ${SECRET_MODULE}\n`,
    );
    const fromCli = await loadEnv(SECRET_MODULE);
    expect((await checkFile(file, { verify: true, repair: false, envOf: () => fromCli })).ok).toBe(true);

    // A variant a factory builds (same id and version, another reward): that command would diverge, so it is
    // left out, and the message says why.
    const variant = createSecretEnv({ process: () => 0.1 });
    const failure = await failureOf(
      checkRewards(variant, {
        ...secretActions,
        invariants: [noRewardForRepeatedCalls()],
        numRuns: 100,
        counterexampleDir: tempDir("agent-r1-cx-"),
        envModule: SECRET_MODULE,
      }),
    );
    expect(failure.message).not.toContain("replay-verify it:");
    expect(failure.message).toContain(
      `  (no replay-verify command: \`--env ${SECRET_MODULE}\` replays against that module's default export, and the environment under test is not that export, so a replay against it would diverge; verify it in code: replayEpisode(await readJournalFile(journal), env))`,
    );
    const diverged = await checkFile(failure.files[0], { verify: true, repair: false, envOf: () => fromCli });
    expect(diverged.ok).toBe(false);
    expect((await checkFile(failure.files[0], { verify: true, repair: false, envOf: () => variant })).ok).toBe(true);

    // A module that cannot be loaded: no command either, and the reason.
    const missing = await failureOf(
      checkRewards(secretEnv, {
        ...secretActions,
        invariants: [returnBounds({ min: 0, max: 1 })],
        counterexampleDir: tempDir("agent-r1-cx-"),
        envModule: "./no-such-env.ts",
      }),
    );
    expect(missing.message).not.toContain("replay-verify it:");
    // Said as the CLI's --env says it, with its full path and the folder it is read from (before: Node's "Cannot find module
    // 'file:///...' imported from .../src/testing/counterexample.ts", which blamed the kit's own file).
    expect(missing.message).toContain(
      `\`--env ./no-such-env.ts\` replays against that module's default export, and environment module not found: ${resolve("no-such-env.ts")} (envModule is a path from the working folder, ${process.cwd()})`,
    );
    expect(missing.message).not.toContain("counterexample.ts");

    // A module with a syntax error: the reason names the file, line and error, as the CLI's --env does (before:
    // only "Transform failed with 1 error:", the first line of esbuild's message).
    const dir = tempDir("agent-r1-broken-env-");
    const broken = join(dir, "broken-env.ts");
    writeFileSync(broken, 'export default { id: "x",\n');
    const syntax = await failureOf(
      checkRewards(secretEnv, {
        ...secretActions,
        invariants: [returnBounds({ min: 0, max: 1 })],
        counterexampleDir: tempDir("agent-r1-cx-"),
        envModule: broken,
      }),
    );
    expect(syntax.message).not.toContain("replay-verify it:");
    expect(syntax.message).toMatch(
      // (tsx's esbuild says `broken-env.ts:2:0: ERROR: Expected identifier ...`; vitest's transform, as here, a
      // `[PARSE_ERROR] ... broken-env.ts:1:27`: the place and the error either way)
      /and it cannot be loaded: Transform failed with 1 error: .*(ERROR|Expected).*broken-env\.ts:\d+:\d+|and it cannot be loaded: Transform failed with 1 error: \S*broken-env\.ts:\d+:\d+: ERROR: /,
    );
  });

  it("with envModule, a variant its configure made (another machine) gets the command, which rebuilds it from the journal's options", async () => {
    // turns=1 ends every episode whose first action is no answer at the turn limit; the module's export (5 turns)
    // plays such an action otherwise, so replay against the export alone would diverge.
    const variant = turnsEnv.configure!({ turns: "1" });
    expect(variant.machine).not.toBe(turnsEnv.machine);
    const failure = await turnLimitFailure(variant, TURNS_MODULE);
    const [file] = failure.files;
    expect(failure.message).toContain(
      `  replay-verify it: npx agent-r1 replay ${file} --verify --env ${TURNS_MODULE}\n`,
    );
    expect(failure.message).not.toContain("no replay-verify command");
    // The journal says which variant it was, and the command offered verifies it (the CLI rebuilds the variant).
    expect((await readJournalFile(file))[0]).toMatchObject({ env: { id: "secret", options: { turns: "1" } } });
    const command = failure.message.match(/replay-verify it: npx agent-r1 (.*)\n/)![1].split(" ");
    const run = await runCli(...command);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("verified 1 journal(s) ok, 0 failed");
    expect(run.code).toBe(0);
    const fromCli = await loadEnv(TURNS_MODULE);
    // Against the export itself (a journal read as if it recorded no options) it would diverge: the variant matters.
    expect((await checkFile(file, { verify: true, repair: false, envOf: () => fromCli })).ok).toBe(false);
  });

  it("with envModule MODULE?key=value, as --env takes it, the command is checked against that variant", async () => {
    const variant = turnsEnv.configure!({ turns: "1" });
    const noCommand = (envModule: string, problem: string) =>
      `  (no replay-verify command: \`--env ${envModule}\` replays against that module's default export configured with those options, and ${problem}; verify it in code: replayEpisode(await readJournalFile(journal), env))`;
    // The variant's own options: the command is printed, quoted for the shell (`?` globs; `&`, before a second
    // option, would end the command), and the CLI verifies the journal with it.
    const same = `${TURNS_MODULE}?turns=1`;
    const ok = await turnLimitFailure(variant, same);
    expect(ok.message).toContain(`  replay-verify it: npx agent-r1 replay ${ok.files[0]} --verify --env '${same}'\n`);
    const command = ok.message
      .match(/replay-verify it: npx agent-r1 (.*)\n/)![1]
      .replace(/'/g, "")
      .split(" ");
    const run = await runCli(...command);
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toContain("verified 1 journal(s) ok, 0 failed");
    // Other options than the journal's: the CLI would refuse them (before, the kit printed that command anyway).
    const other = `${TURNS_MODULE}?turns=2`;
    const refused = await turnLimitFailure(variant, other);
    expect(refused.message).not.toContain("replay-verify it:");
    expect(refused.message).toContain(
      noCommand(
        other,
        `the command would refuse it: the journal was recorded on secret?turns=1 (the options its episode.started records), not on --env '${other}': pass --env '${same}'`,
      ),
    );
    // The module's export under test, --env's variant in the command: a replay against the variant would diverge.
    const diverged = await turnLimitFailure(turnsEnv, same);
    expect(diverged.message).toContain(
      noCommand(same, "the environment under test is not that variant, so a replay against it would diverge"),
    );
    // A misspelt option: refused by name, as the CLI's --env refuses it.
    const misspelt = `${TURNS_MODULE}?trns=1`;
    expect((await turnLimitFailure(variant, misspelt)).message).toContain(
      noCommand(
        misspelt,
        'the command would refuse it: environment secret: unknown option "trns" in "?trns=1" (did you mean "turns"?); its options: turns',
      ),
    );
  }, 60_000);

  it("rewards and returns are printed rounded; the journal keeps the exact values", async () => {
    const played = await playEpisode(createSecretEnv({ process: () => 0.1 }), {
      seed: "s1",
      actions: ["<check>ant</check>", "<check>bee</check>", "<check>cat</check>"],
      toolResults: [],
    });
    expect(played.record.return).toBe(0.1 + 0.1 + 0.1);
    expect(played.record.return).not.toBe(0.3);
    const text = describeEpisode(played.events);
    expect(text).toMatch(/\n {8}reward {3}\+0\.1 process \(checked a word\)\n/);
    expect(text).toMatch(/end {6}aborted: .*, return 0\.3, 3 turn\(s\)$/);
    const thirds = await playEpisode(createSecretEnv({ process: () => 1 / 3 }), {
      seed: "s1",
      actions: ["<check>ant</check>"],
      toolResults: [],
    });
    expect(describeEpisode(thirds.events)).toContain("reward   +0.333333 process");
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
    expect(text).toContain(`act      "${"x".repeat(75)}…${"x".repeat(25)}" (500 characters)`);
    // The cut never splits an emoji (a surrogate pair) at either end.
    const { quote } = await import("../../src/testing/counterexample.ts");
    const emoji = "\u{1F600}";
    for (const text of [
      `${"a".repeat(74)}${emoji}${"c".repeat(60)}`,
      `${"a".repeat(80)}${"c".repeat(49)}${emoji}${"c".repeat(24)}`,
    ])
      expect(quote(text)).not.toMatch(/\\ud8|\\ude/);
    expect(text).toMatch(/end {6}answered, return -?[\d.]+, 4 turn\(s\)$/);
  });
});

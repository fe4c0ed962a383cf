/**
 * What `record` and `replay` say about an environment that is not built in (test/reliability/fixtures/
 * fickle-env.ts): aborted episodes, journals of an unknown environment, and a divergence caused by an
 * impure guard. Run in process through `main`, as test/reliability/cli-input.test.ts does.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { namespaceNameFor } from "../../src/cli/registry.ts";
import { readJournalFile } from "../../src/journal/jsonl.ts";
import { captureOutput, inFolder, tempDir, writeLookupModule } from "../support/index.ts";

const FICKLE = "./test/reliability/fixtures/fickle-env.ts";
const dir = tempDir("agent-r1-cli-messages-");

const output = captureOutput();

/** stderr without the progress bar. */
const errors = () => output.stderr.split("\n").filter((line) => line !== "" && !line.startsWith("record fickle:"));

/** Records `episodes` episodes of fickle with a policy; the fickle guard makes each seed record once only. */
const record = (policy: string, seed: string, episodes = 3) =>
  main([
    "record",
    "--env",
    FICKLE,
    "--policy",
    policy,
    "--seed",
    seed,
    "--episodes",
    String(episodes),
    "--out",
    join(dir, seed),
  ]);

describe("record says when episodes aborted", () => {
  it("all of them: exit 1, with how many, the first reason and the policy's line that threw", async () => {
    expect(await record("broken", "all")).toBe(1);
    expect(errors()).toEqual([
      "error: all 3 episodes aborted; the first, ep-all-0: policy fickle-broken failed: no model loaded (thrown at test/reliability/fixtures/fickle-env.ts:66:11)",
    ]);
  });

  it("some of them: exit 0, with how many and the first reason", async () => {
    expect(await record("flaky", "some"), output.stderr).toBe(0);
    // Success is of the two that ended on their own; it says so.
    expect(output.stdout).toMatch(
      /mean return -?\d\.\d{3} over all 3, success \d\.\d{3} of the 2 not aborted, 1 aborted \(/,
    );
    expect(errors()).toEqual([
      "1 of 3 episodes aborted; the first, ep-some-1: policy fickle-flaky returned an invalid action: token ids must be integers in [0, 267)",
    ]);
  });

  it("some of them with --strict: exit 1 (for CI), the same report", async () => {
    const args = ["record", "--env", FICKLE, "--policy", "flaky", "--seed", "some", "--episodes", "3"];
    expect(await main([...args, "--strict", "--out", join(dir, "some-strict")])).toBe(1);
    expect(errors()).toEqual([
      "1 of 3 episodes aborted; the first, ep-some-1: policy fickle-flaky returned an invalid action: token ids must be integers in [0, 267)",
    ]);
  });

  it("a tool that returns nothing (a forgotten `return`): counted in a note and in --json's tools", async () => {
    const args = [
      "record",
      "--env",
      "./test/reliability/fixtures/silent-tool-env.ts",
      "--policy",
      "expert",
      "--episodes",
      "3",
    ];
    expect(await main([...args, "--out", join(dir, "silent")])).toBe(0);
    expect(output.stdout).toMatch(/success 1\.000/);
    expect(output.stderr.split("\n").filter((line) => line.startsWith("note:"))).toEqual([
      "note: look returned nothing (undefined) on 3 calls: the machine got null as the result; an execute that forgets to `return` looks like this (return null where nothing is meant)",
    ]);
    expect(await main([...args, "--out", join(dir, "silent-json"), "--json"])).toBe(0);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1) as string).tools).toEqual({
      calls: 3,
      failed: 0,
      cut: 0,
      failures: [],
      returnedNothing: [{ tool: "look", count: 3 }],
    });
  });

  it("a tool's or a policy's own text is shown, not obeyed: its terminal escapes are written as \\uXXXX", async () => {
    const args = ["record", "--env", "./test/reliability/fixtures/escape-env.ts", "--episodes", "1"];
    expect(await main([...args, "--policy", "expert", "--out", join(dir, "escapes")])).toBe(0);
    // (clear the screen, turn text red, retitle the terminal: an HTTP error body may hold any of them)
    const shown = "\\u001b[2J\\u001b[31mbusy\\u001b]0;pwned\\u0007";
    expect(output.stderr.split("\n").filter((line) => line.startsWith("note:"))).toEqual([
      `note: 1 of 1 tool call failed (the machine got { ok: false, error }): 1x page error: ${shown} (thrown at test/reliability/fixtures/escape-env.ts:14:11)`,
    ]);
    output.clear();
    expect(await main([...args, "--policy", "api", "--out", join(dir, "escapes-api")])).toBe(1);
    expect(output.stderr).toContain(`the first, ep-0-0: policy escape-api failed: 429 ${shown}`);
    expect(output.stderr.includes("\x1b") || output.stderr.includes("\x07")).toBe(false);
  });

  it("tools whose code threw or whose results were cut: counted, with the line that threw (exit 0: the machine handled them; 1 with --strict)", async () => {
    const args = [
      "record",
      "--env",
      "./test/reliability/fixtures/buggy-tool-env.ts",
      "--policy",
      "expert",
      "--episodes",
      "3",
    ];
    expect(await main([...args, "--out", join(dir, "buggy")])).toBe(0);
    expect(output.stdout).toMatch(/success 1\.000/);
    const notes = output.stderr.split("\n").filter((line) => line.startsWith("note:"));
    expect(notes).toEqual([
      "note: 3 of 6 tool calls failed (the machine got { ok: false, error }): 3x shout error: Cannot read properties of undefined (reading 'toUpperCase') (thrown at test/reliability/fixtures/buggy-tool-env.ts:14:41)",
      "note: 3 of 6 tool results were cut to the tool's maxResultChars: the machine saw a string ending in …[truncated] or { truncated: true, preview }, not the value; return less, or raise maxResultChars in defineTool",
    ]);
    // --strict (for CI) fails the run, naming the failure; a tool's tagged failure (one meant for the machine) not.
    output.clear();
    expect(await main([...args, "--strict", "--out", join(dir, "buggy-strict")])).toBe(1);
    expect(output.stderr).toContain(
      "error: --strict: tool calls failed with errors their code threw (likely bugs; a failure meant for the machine has a tag, e.g. Data.TaggedError): 3x shout error: Cannot read properties of undefined (reading 'toUpperCase') (thrown at test/reliability/fixtures/buggy-tool-env.ts:14:41)",
    );
    const tagged = ["record", "--env", "./test/reliability/fixtures/tagged-failure-env.ts", "--policy", "expert"];
    output.clear();
    expect(await main([...tagged, "--episodes", "3", "--strict", "--out", join(dir, "tagged-strict")])).toBe(0);
    expect(output.stderr).toContain(
      "note: 3 of 3 tool calls failed (the machine got { ok: false, error }): 3x fetch error (StoreBusy): the store is busy",
    );
    expect(await main([...args, "--out", join(dir, "buggy-json"), "--json"])).toBe(0);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1) as string).tools).toEqual({
      calls: 6,
      failed: 3,
      cut: 3,
      failures: [
        {
          tool: "shout",
          kind: "error",
          message: "Cannot read properties of undefined (reading 'toUpperCase')",
          count: 3,
          thrownAt: "test/reliability/fixtures/buggy-tool-env.ts:14:41",
        },
      ],
    });
    // inspect marks a cut result on its line (the marker at the end of a long result never showed).
    output.clear();
    expect(await main(["inspect", join(dir, "buggy")])).toBe(0);
    const lines = output.stdout.split("\n");
    expect(lines.filter((line) => line.includes("result [cut to maxResultChars]"))).toHaveLength(3);
    expect(lines.filter((line) => / FAILED c\d+ /.test(line))).toHaveLength(3);
  });

  it("eval's JSON (evaluate's summary) lists the tools' failures as record --json does, in the same shape", async () => {
    // It carried the counts only ({ calls, failed }): which tool failed, and with what, was record's alone.
    const { default: env } = await import("../reliability/fixtures/buggy-tool-env.ts");
    const { evaluate } = await import("../../src/learn/evaluate.ts");
    const summary = await evaluate(env, env.policies!.expert(), { episodes: 3, seed: "s" });
    const args = ["record", "--env", "./test/reliability/fixtures/buggy-tool-env.ts", "--policy", "expert"];
    expect(await main([...args, "--episodes", "3", "--seed", "s", "--out", join(dir, "buggy-eval"), "--json"])).toBe(0);
    const recorded = JSON.parse(output.stdout.trim().split("\n").at(-1) as string).tools;
    expect(summary.tools).toEqual(recorded);
    expect(summary.tools).toMatchObject({
      calls: 6,
      failed: 3,
      cut: 3,
      failures: [
        { tool: "shout", kind: "error", count: 3, thrownAt: "test/reliability/fixtures/buggy-tool-env.ts:14:41" },
      ],
    });
    // A tool that returned nothing is counted too (its events do not say it: the tally begins before the episodes).
    const { default: silent } = await import("../reliability/fixtures/silent-tool-env.ts");
    expect((await evaluate(silent, silent.policies!.expert(), { episodes: 3, seed: "s" })).tools).toEqual({
      calls: 3,
      failed: 0,
      cut: 0,
      failures: [],
      returnedNothing: [{ tool: "look", count: 3 }],
    });
  });

  it("a machine that never ends: the turn-limit abort says it is the runtime's safety net and what to do", async () => {
    const args = [
      "record",
      "--env",
      "./test/reliability/fixtures/endless-env.ts",
      "--policy",
      "say",
      "--episodes",
      "2",
    ];
    expect(await main([...args, "--out", join(dir, "endless")])).toBe(1);
    expect(errors().filter((line) => !line.startsWith("record endless:"))).toEqual([
      "error: all 2 episodes aborted; the first, ep-0-0: turn limit 3 reached (the runtime's safety net: the machine never ended the episode; end it with end() on a turn limit of its own, as README's example does, or set maxTurns higher)",
    ]);
  });

  it("an environment that throws: the first reason and the environment's line that threw", async () => {
    expect(await record("crash", "crash")).toBe(1);
    expect(errors()).toEqual([
      "error: all 3 episodes aborted; the first, ep-crash-0: environment error: this reward crashed (thrown at test/reliability/fixtures/fickle-env.ts:33:23)",
    ]);
  });

  it("none: exit 0 and nothing on stderr", async () => {
    expect(await record("answer", "none")).toBe(0);
    expect(errors()).toEqual([]);
  });
});

describe("replay --verify of journals whose environment is not built in", () => {
  it("without --env: says so with the hint, one line per journal, and the hint again after them, exit 2", async () => {
    expect(await record("answer", "unknown", 4)).toBe(0);
    output.clear();
    const folder = join(dir, "unknown");
    expect(await main(["replay", folder, "--verify"])).toBe(2);
    const lines = errors();
    expect(lines[0]).toBe(
      'error: environment "fickle" is not built in (built in: lookup, hopqa, warehouse); to verify its journals, pass the module that defines it: --env ./path/to/env.ts',
    );
    expect(lines.slice(1, -1)).toEqual(
      readdirSync(folder)
        .sort()
        .map((f) => `skip ${join(folder, f)}: 7 events read; not verified: environment "fickle" is unknown`),
    );
    // Past a few skip lines the hint has scrolled away: said again after them, once.
    expect(lines.at(-1)).toBe(
      `note: the 4 journals skipped above were not verified: ${lines[0].slice("error: ".length)}`,
    );
    expect(output.stdout).toContain("verified 0 journal(s) ok, 0 failed, 4 not verified (unknown environment)");
    // --quiet: the reason once and the count, no line per skipped journal.
    output.clear();
    expect(await main(["replay", folder, "--verify", "--quiet"])).toBe(2);
    expect(errors()).toEqual([lines[0]]);
    expect(output.stdout).toContain("4 not verified (unknown environment)");
  });

  it("with --env naming another environment: says which one it defines", async () => {
    expect(await main(["replay", join(dir, "unknown"), "--verify", "--env", "./actors/weather/env.ts"])).toBe(2);
    expect(errors().filter((line) => line.startsWith("error: "))).toEqual([
      'error: environment "fickle" is not built in (built in: lookup, hopqa, warehouse), and --env defines "weather"; to verify its journals, pass the module that defines it: --env ./path/to/env.ts',
    ]);
  });
});

describe("a divergence", () => {
  it("names the file once, and says that an impure function is the usual cause", async () => {
    expect(await record("answer", "impure", 1)).toBe(0);
    const file = join(dir, "impure", "ep-impure-0.jsonl");
    output.stderr = "";
    // Replayed in the process that recorded it, the guard remembers the seed and takes the other branch.
    expect(await main(["replay", file, "--verify", "--env", FICKLE])).toBe(1);
    const fail = output.stderr.slice(output.stderr.indexOf("FAIL "));
    expect(fail).toMatch(new RegExp(`^FAIL ${file}:\\d+: episode ep-impure-0, seq \\d+: replay diverged\\n`));
    expect(fail.split(file)).toHaveLength(2);
    expect(fail).toMatch(
      /\n {2}hint: the usual cause is a guard, action, observe, reward or end function that is not pure \(Math\.random, Date\.now, timers/,
    );
  });
});

describe("eval says which questions it scored", () => {
  const args = ["eval", "--env", "hopqa", "--checkpoint", "docs/checkpoints/hopqa-copy-warm-start", "--episodes", "1"];

  it("reports every option in effect and the sampling, and notes when the questions are hopqa's training ones", async () => {
    expect(await main([...args, "--sample"]), output.stderr).toBe(0);
    const summary = JSON.parse(output.stdout.trim().split("\n").at(-1)!);
    expect(summary).toMatchObject({ env: "hopqa", split: "train", worlds: "1-1000", sample: true, episodes: 1 });
    expect(output.stderr).toContain("note: these are hopqa's training questions (split train); --split test or ood");
    output.clear();
    // --json, as record and train take it: the same JSON summary (eval's always is).
    expect(await main([...args, "--split", "test", "--json"]), output.stderr).toBe(0);
    const withJson = JSON.parse(output.stdout.trim().split("\n").at(-1)!);
    output.clear();
    expect(await main([...args, "--split", "test"]), output.stderr).toBe(0);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1)!)).toMatchObject({ split: "test", episodes: 1 });
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1)!)).toEqual(withJson);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1)!).sample).toBeUndefined();
    expect(output.stderr).not.toContain("training questions");
    // Held-out questions, but in the training worlds: said, with how to score unseen worlds.
    expect(output.stderr).toContain(
      "note: held-out questions in the training worlds (1-1000, whose facts training saw); --world-seed 1000001-1000200 scores worlds training never saw",
    );
    output.clear();
    expect(await main([...args, "--split", "ood", "--world-seed", "1000001-1000200"]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("note: held-out questions");
  }, 60_000);

  it('reports --world-seed as it was read, beside the worlds it chose: 00042 is 42, not "00042"', async () => {
    expect(await main([...args, "--split", "test", "--world-seed", "00042"]), output.stderr).toBe(0);
    const padded = JSON.parse(output.stdout.trim().split("\n").at(-1)!);
    expect(padded).toMatchObject({ "world-seed": "42", worlds: "42-42" });
    output.clear();
    // The same questions as --world-seed 42: only the report changed.
    expect(await main([...args, "--split", "test", "--world-seed", "42"]), output.stderr).toBe(0);
    const plain = JSON.parse(output.stdout.trim().split("\n").at(-1)!);
    expect({ ...padded, seconds: 0 }).toEqual({ ...plain, seconds: 0 });
    output.clear();
    expect(await main([...args, "--split", "test", "--world-seed", "0007-0010"]), output.stderr).toBe(0);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      "world-seed": "7-10",
      worlds: "7-10",
    });
  }, 60_000);
});

describe("an environment that reports success on some endings only", () => {
  const PARTIAL = "./test/reliability/fixtures/partial-success-env.ts";
  const common = ["--env", PARTIAL, "--seed", "p", "--episodes", "12"];

  it("record says success is of the episodes that report it, and how many ended without (it said 1.000)", async () => {
    expect(await main(["record", ...common, "--policy", "say", "--out", join(dir, "partial")])).toBe(0);
    const lines = output.stdout.trim().split("\n");
    const line = lines.find((l) => l.startsWith("recorded "))!;
    // How the episodes ended, and the rewards given, on the line after (the fixture's reasons and reward).
    const ending = /^ {2}ended: answered (\d+), gave up (\d+); non-zero rewards: even (\d+)$/.exec(lines.at(-1)!) ?? [];
    expect(Number(ending[1]) + Number(ending[2]), lines.at(-1)).toBe(12);
    const [, reported, without] =
      /success 1\.000 \(success is of the (\d+) episodes that report it; (\d+) ended without a success metric \(end\(reason, \{ success: 0 \}\) counts a failure\)\)/.exec(
        line,
      ) ?? [];
    expect(Number(reported) + Number(without), line).toBe(12);
    expect(Number(reported)).toBeGreaterThan(0);
    expect(Number(without)).toBeGreaterThan(0);
    output.clear();
    expect(await main(["record", ...common, "--policy", "say", "--json", "--out", join(dir, "partial-json")])).toBe(0);
    const summary = JSON.parse(output.stdout.trim().split("\n").at(-1)!) as {
      successReported: number;
      episodes: number;
      endReasons: Record<string, number>;
      rewardCounts: Record<string, number>;
    };
    expect(summary.successReported).toBe(Number(reported));
    expect(summary.endReasons).toEqual({ answered: Number(ending[1]), "gave up": Number(ending[2]) });
    expect(summary.rewardCounts).toEqual({ even: Number(ending[3]) });
  });

  it("record of an environment that reports no success says so, and how a metric is reported", async () => {
    const module = join(dir, "no-success.ts");
    const fixture = pathToFileURL(resolve("test/reliability/fixtures/partial-success-env.ts")).href;
    writeFileSync(
      module,
      `import { evenOddEnv } from ${JSON.stringify(fixture)};\n\nexport default evenOddEnv({ id: "no-success", description: "never reports success", even: {}, oddReason: "gave up" });\n`,
    );
    output.clear();
    const args = ["record", "--env", module, "--seed", "p", "--episodes", "4", "--policy", "say"];
    expect(await main([...args, "--out", join(dir, "no-success")])).toBe(0);
    const line = output.stdout.split("\n").find((l) => l.startsWith("recorded "))!;
    expect(line).toMatch(
      /mean return \d\.\d{3} \(no success metric: the environment's end\(reason, \{ success \}\) reports one\) \(/,
    );
    // The partial fixture reports one: no such note there.
    output.clear();
    expect(await main(["record", ...common, "--policy", "say", "--out", join(dir, "partial-again")])).toBe(0);
    expect(output.stdout).not.toContain("no success metric");
  });

  it("eval says it in its summary line", async () => {
    const { describeEval, summarizeEpisodes } = await import("../../src/learn/evaluate.ts");
    const ended = (metrics: Record<string, number>) =>
      ({
        reason: "answered",
        return: 0,
        turns: 1,
        metrics,
        events: [],
      }) as unknown as import("../../src/index.ts").EpisodeRecord;
    const summary = summarizeEpisodes([ended({ success: 1 }), ended({}), ended({ success: 0 }), ended({})]);
    expect(summary).toMatchObject({ successRate: 0.5, successReported: 2 });
    expect(describeEval(summary)).toContain(
      "success is of the 2 episodes that report it; 2 ended without a success metric (end(reason, { success: 0 }) counts a failure)",
    );
    expect(describeEval(summarizeEpisodes([ended({ success: 1 })]))).not.toContain("that report it");
  });
});

describe("an environment that reports success outside [0, 1] (a percentage)", () => {
  const PERCENT = "./test/reliability/fixtures/percent-success-env.ts";
  const NOTE =
    /(\d+) of 12 episodes ended with a success metric outside \[0, 1\] \(e\.g\. (ep-\S+): success 100\), so the success shown is no rate: success is read as a rate/;

  it("record warns on one line, how many and one of them; its journals are kept and replay", async () => {
    const out = join(dir, "percent");
    expect(
      await main(["record", "--env", PERCENT, "--seed", "p", "--episodes", "12", "--policy", "say", "--out", out]),
    ).toBe(0);
    const warnings = errors().filter((line) => line.startsWith("warning: "));
    expect(warnings, output.stderr).toHaveLength(1);
    const [, count, episode] = NOTE.exec(warnings[0]) ?? [];
    const ended = /^ {2}ended: answered (\d+), missed (\d+)/.exec(output.stdout.trim().split("\n").at(-1)!) ?? [];
    expect(Number(count), warnings[0]).toBe(Number(ended[1]));
    expect(Number(count)).toBeGreaterThan(0);
    expect(existsSync(join(out, `${episode}.jsonl`))).toBe(true);
    output.clear();
    expect(await main(["replay", out, "--verify", "--env", PERCENT]), output.stderr).toBe(0);
  });

  it("eval's summary line (and train's before/after) says it; a success within [0, 1] says nothing", async () => {
    const { describeEval, summarizeEpisodes } = await import("../../src/learn/evaluate.ts");
    const ended = (episode: string, metrics: Record<string, number>) =>
      ({
        episode,
        reason: "answered",
        return: 0,
        turns: 1,
        metrics,
        events: [],
      }) as unknown as import("../../src/index.ts").EpisodeRecord;
    const summary = summarizeEpisodes([
      ended("ep-a", { success: 0 }),
      ended("ep-b", { success: 100 }),
      ended("ep-c", { success: -1 }),
    ]);
    expect(summary.successOutOfRange).toEqual({ episodes: 2, episode: "ep-b", success: 100 });
    expect(describeEval(summary)).toContain(
      "2 of 3 episodes ended with a success metric outside [0, 1] (e.g. ep-b: success 100), so the success shown is no rate",
    );
    const fine = summarizeEpisodes([
      ended("ep-a", { success: 0 }),
      ended("ep-b", { success: 1 }),
      ended("ep-c", { success: 0.5 }),
    ]);
    expect(fine.successOutOfRange).toBeUndefined();
    expect(describeEval(fine)).not.toContain("outside [0, 1]");
  });
});

describe("training on an impure environment", () => {
  it("stops at the first episode that does not replay: exit 1 (a failed check, not bad usage), the hint said", async () => {
    const args = ["--steps", "1", "--tasks", "1", "--group-size", "2", "--eval-episodes", "0", "--no-warm-start"];
    const code = await main(["train", "--env", FICKLE, ...args, "--out", join(dir, "impure-run")]);
    expect(code, output.stderr).toBe(1);
    const last = errors().filter((line) => line.startsWith("error: "));
    expect(last[0]).toMatch(/^error: .*replay diverged/);
    expect(output.stderr).toMatch(/hint: .*not pure/);
  });
});

describe("training where every episode aborts", () => {
  it("legal actions that throw: exit 1 (a bug, not bad usage), with the reason and the environment's line", async () => {
    const env = writeLookupModule(
      join(dir, "throwing-legal.ts"),
      "export default defineEnv({",
      "  ...lookupEnv,",
      "  legalActions: (view) => {",
      '    if (view.history.some((t) => t.role === "action")) throw new Error("my legalActions bug");',
      "    return lookupEnv.legalActions!(view);",
      "  },",
      "});",
    );
    const args = ["--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0", "--no-warm-start"];
    const code = await main(["train", "--env", env, ...args, "--constrained", "--out", join(dir, "aborting-run")]);
    expect(code, output.stderr).toBe(1);
    const last = errors().filter((line) => line.startsWith("error: "));
    expect(last).toHaveLength(1);
    expect(last[0]).toBe(
      `error: every episode of update 1 of 1 was aborted: environment error: legalActions threw for turn 1: my legalActions bug (asked by policy lookup-gpt's constrained decoding) (thrown at ${env}:7:62); the first: ${join(dir, "aborting-run", "episodes", "u00000", "ep-0-u0-0.jsonl")}; nothing to learn from`,
    );
  });
});

describe("an environment module outside an ESM package", () => {
  it("fails to load as CommonJS with a note saying how to fix it, and loads once renamed to .mts", () => {
    // Through the real bin/ (vitest's own loader would import it as ESM whatever its folder says).
    const outside = join(dir, "outside");
    mkdirSync(outside);
    const source =
      `import weather from ${JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href)};\n` +
      "const extra: number = 0;\nexport default { ...weather, maxTurns: 8 + extra };\n";
    const cli = (env: string) =>
      spawnSync(
        process.execPath,
        ["bin/agent-r1.js", "record", "--env", env, "--policy", "expert", "--episodes", "1", "--out", `${env}.out`],
        { encoding: "utf8", timeout: 60_000 },
      );
    writeFileSync(join(outside, "env.ts"), source);
    const failed = cli(join(outside, "env.ts"));
    expect(failed.status).toBe(2);
    expect(failed.stderr).toMatch(
      /^error: cannot load environment module .*env\.ts: .*; note: .*env\.ts is loaded as CommonJS: no package\.json above it says "type": "module"; rename it to \.mts, or add a package\.json with \{"type": "module"\} to its folder$/m,
    );
    // A package.json without "type" under a project whose own says "module": the nearest one is named.
    const nested = join(outside, "nested");
    mkdirSync(nested);
    writeFileSync(join(outside, "package.json"), '{"type": "module"}');
    writeFileSync(join(nested, "package.json"), "{}");
    writeFileSync(join(nested, "env.ts"), source);
    const shadowed = cli(join(nested, "env.ts"));
    expect(shadowed.status).toBe(2);
    expect(shadowed.stderr).toMatch(
      /; note: .*env\.ts is loaded as CommonJS: the package\.json nearest to it, .*nested\/package\.json, does not say "type": "module" \(the nearest one decides\); rename it to \.mts, or add "type": "module" to .*nested\/package\.json$/m,
    );
    // A link from an ESM folder to it: Node loads the real path, and the note names the real folder's package.json.
    symlinkSync(join(nested, "env.ts"), join(outside, "linked.ts"));
    const linked = cli(join(outside, "linked.ts"));
    expect(linked.status).toBe(2);
    expect(linked.stderr).toMatch(
      /; note: .* is loaded as CommonJS: the package\.json nearest to it, .*nested\/package\.json/m,
    );
    rmSync(join(outside, "package.json"));
    writeFileSync(join(outside, "env.mts"), source);
    const loaded = cli(join(outside, "env.mts"));
    expect(loaded.status, loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain("recorded 1 episode of weather");
  }, 120_000);

  it("a module outside any project that has its packages says where packages are looked for", () => {
    // Run from this project, which has xstate: Node looks from the module's folder, and said only "Cannot find
    // package 'xstate' imported from ...", which read as if xstate were not installed at all.
    const alone = join(dir, "alone");
    mkdirSync(alone);
    writeFileSync(join(alone, "env.mts"), 'import { setup } from "xstate";\nexport default setup;\n');
    const failed = spawnSync(
      process.execPath,
      ["bin/agent-r1.js", "record", "--env", join(alone, "env.mts"), "--policy", "expert", "--out", join(alone, "out")],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(failed.status).toBe(2);
    expect(failed.stderr).toMatch(
      /^error: cannot load environment module .*env\.mts: Cannot find package 'xstate' imported from .*env\.mts; note: a module's packages are looked for in the node_modules of its own folder and the folders above it, not of the folder the command runs in: keep .*env\.mts inside a project that has xstate installed \(README: "From your own project"\)$/m,
    );
  }, 60_000);

  it("a default import of a package that has named exports only says how to import it", () => {
    // `import r1 from "agent-r1-ts"` (the README writes `import * as r1`): Node says only that there is no
    // default export. A project of its own, the package linked into its node_modules as npm i links a clone.
    const project = join(dir, "default-import");
    mkdirSync(join(project, "node_modules"), { recursive: true });
    symlinkSync(resolve("."), join(project, "node_modules", "agent-r1-ts"));
    writeFileSync(join(project, "package.json"), '{"type": "module"}');
    const file = join(project, "env.ts");
    writeFileSync(file, 'import r1 from "agent-r1-ts";\nexport default r1.defineEnv({});\n');
    const failed = spawnSync(
      process.execPath,
      ["bin/agent-r1.js", "record", "--env", file, "--policy", "expert", "--episodes", "1", "--out", join(dir, "di")],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(failed.status).toBe(2);
    expect(failed.stderr).toContain(
      `does not provide an export named 'default'; note: agent-r1-ts has named exports only: import them all, import * as r1 from "agent-r1-ts", or by name, import { ... } from "agent-r1-ts"`,
    );
  }, 60_000);

  it("a default import of a module of one's own with named exports only suggests a namespace name that is an identifier", () => {
    // `./2d.ts` was suggested as `import * as 2dts`: the extension kept, and a name that cannot start with a digit.
    const project = join(dir, "default-import-local");
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "package.json"), '{"type": "module"}');
    writeFileSync(join(project, "2d.ts"), "export const width = 2;\n");
    const file = join(project, "env.ts");
    writeFileSync(file, 'import grid from "./2d.ts";\nexport default grid;\n');
    const failed = spawnSync(
      process.execPath,
      ["bin/agent-r1.js", "record", "--env", file, "--policy", "expert", "--episodes", "1", "--out", join(dir, "dl")],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(failed.status).toBe(2);
    expect(failed.stderr).toContain(
      `note: ./2d.ts has named exports only: import them all, import * as _2d from "./2d.ts", or by name, import { ... } from "./2d.ts"`,
    );
    expect(namespaceNameFor("./helpers.ts")).toBe("helpers");
    expect(namespaceNameFor("../lib/tool-kit.mjs")).toBe("toolKit");
    expect(namespaceNameFor("./class.js")).toBe("_class");
    expect(namespaceNameFor("lodash-es")).toBe("lodashEs");
    expect(namespaceNameFor("@scope/pkg")).toBe("pkg");
    expect(namespaceNameFor("./-.ts")).toBe("m");
  }, 60_000);
});

describe("eval --checkpoint names what it was given", () => {
  it("a folder holding checkpoints (docs/) is no run: the checkpoints in it are named", async () => {
    expect(await main(["eval", "--env", "hopqa", "--checkpoint", "docs", "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(
      "error: --checkpoint docs is no checkpoint (no manifest.json) and no run folder (no checkpoints/latest.json); checkpoints in it: docs/checkpoints/hopqa-best",
    );
  });

  it("the folder of checkpoints itself, or a folder of journals: what it is and what to give instead", async () => {
    expect(await main(["eval", "--env", "hopqa", "--checkpoint", "docs/checkpoints", "--episodes", "1"])).toBe(2);
    expect(output.stderr).toMatch(
      /^error: --checkpoint docs\/checkpoints holds checkpoints but is none \(no manifest\.json\): give one of them: docs\/checkpoints\/hopqa-best, /m,
    );
    output.clear();
    expect(await main(["eval", "--env", "lookup", "--checkpoint", "replays/lookup/expert", "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(
      "error: --checkpoint replays/lookup/expert is a folder of journals (.jsonl), not a checkpoint (manifest.json, weights.bin, ...): clone one from it with `agent-r1 sft --data replays/lookup/expert`",
    );
    // A run folder that has written its config.json and no checkpoint yet.
    const run = tempDir();
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "lookup" }));
    output.clear();
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(`error: --checkpoint ${run}: a run folder with no checkpoint yet`);
  });
});

describe("eval --out keeps the evaluated episodes", () => {
  const args = ["eval", "--env", "hopqa", "--checkpoint", "docs/checkpoints/hopqa-copy-warm-start", "--episodes", "2"];

  it("writes one journal per episode, which replay verifies; refuses a folder that holds files, and --suite", async () => {
    const out = join(dir, "eval-out");
    expect(await main([...args, "--split", "test", "--out", out]), output.stderr).toBe(0);
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(2);
    output.clear();
    expect(await main(["replay", out, "--verify"]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
    output.clear();
    expect(await main([...args, "--split", "test", "--out", out])).toBe(2);
    expect(output.stderr).toContain(
      `error: --out ${out} is not an empty folder: eval keeps its episodes in a new or empty one (inspect and replay read a folder as one set); it holds 2 journals (ep-eval-0.jsonl, ep-eval-1.jsonl)`,
    );
    output.clear();
    expect(await main([...args, "--suite", "--out", join(dir, "eval-suite-out")])).toBe(2);
    expect(output.stderr).toContain("error: --out keeps one evaluation's episodes; --suite runs three");
    expect(existsSync(join(dir, "eval-suite-out"))).toBe(false);
  }, 60_000);
});

describe("start refuses hopqa's flags with --env lookup", () => {
  it("--demonstrator and --rebuild-warm-start are named, exit 2, and nothing is written", async () => {
    const out = join(dir, "start-lookup-refused");
    expect(
      await main(["start", "--env", "lookup", "--demonstrator", "expert", "--rebuild-warm-start", "--out", out]),
    ).toBe(2);
    expect(output.stderr).toContain(
      "error: --demonstrator and --rebuild-warm-start: hopqa only; --env lookup always builds",
    );
    expect(readdirSync(dir)).not.toContain("start-lookup-refused");
  });
});

describe("training from --init follows the constrained decoding the checkpoint was trained or cloned with", () => {
  it("train, sft, average and eval follow a --constrained run or clone and say so; --no-constrained overrides; an unknown checkpoint gets a note", async () => {
    const train = (out: string, ...extra: string[]) =>
      main([
        ...["train", "--env", "lookup", "--steps", "1", "--tasks", "2", "--group-size", "2"],
        ...extra,
        "--out",
        out,
      ]);
    const saved = (run: string) => JSON.parse(readFileSync(join(run, "config.json"), "utf8")).constrained;
    const lines = () => errors().filter((line) => !/^(train \w+|sft): \d/.test(line));
    const first = join(dir, "constrained-run");
    expect(await train(first, "--constrained", "--no-warm-start", "--eval-episodes", "0")).toBe(0);
    const init = join(first, "checkpoints", "v00001");

    output.clear();
    const followed = join(dir, "followed");
    expect(await train(followed, "--init", init, "--eval-episodes", "0")).toBe(0);
    expect(lines()).toContain(
      `train: --constrained, as --init's run was trained (${join(first, "config.json")}; --no-constrained samples freely)`,
    );
    expect(saved(followed)).toBe(true);

    output.clear();
    const free = join(dir, "free");
    expect(await train(free, "--init", init, "--no-constrained", "--eval-episodes", "0")).toBe(0);
    expect(lines().join("\n")).not.toMatch(/constrained/);
    expect(saved(free)).toBe(false);

    const data = join(dir, "expert-demos");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", data])).toBe(0);
    output.clear();
    const clone = join(dir, "clone");
    expect(
      await main(["sft", "--env", "lookup", "--data", data, "--init", init, "--epochs", "1", "--out", clone]),
    ).toBe(0);
    expect(lines()).toContain(
      `sft: --constrained, as --init's run was trained (${join(first, "config.json")}; --no-constrained clones freely)`,
    );

    // The clone records its decoding in its manifest: training and evaluating it follow that.
    output.clear();
    expect(await train(join(dir, "from-clone"), "--init", clone, "--eval-episodes", "0")).toBe(0);
    expect(lines()).toContain(
      `train: --constrained, as --init was trained or cloned (${join(clone, "manifest.json")}; --no-constrained samples freely)`,
    );
    expect(saved(join(dir, "from-clone"))).toBe(true);
    output.clear();
    expect(await main(["eval", "--env", "lookup", "--checkpoint", clone, "--episodes", "1"])).toBe(0);
    expect(lines()).toContain(
      `eval: --constrained, as the checkpoint was trained or cloned (${join(clone, "manifest.json")}; --no-constrained decodes freely)`,
    );

    // An average of checkpoints trained alike records it too; one of mixed decodings records nothing.
    const averaged = join(dir, "averaged");
    expect(await main(["average", clone, init, "--out", averaged])).toBe(0);
    output.clear();
    expect(await main(["eval", "--env", "lookup", "--checkpoint", averaged, "--episodes", "1"])).toBe(0);
    expect(lines()).toContain(
      `eval: --constrained, as the checkpoint was trained or cloned (${join(averaged, "manifest.json")}; --no-constrained decodes freely)`,
    );
    const mixed = join(dir, "mixed");
    expect(await main(["average", clone, join(free, "checkpoints", "v00001"), "--out", mixed])).toBe(0);

    // A free clone, or a mixed average, records nothing: lookup declares legal actions, so a note.
    const freeClone = join(dir, "free-clone");
    expect(
      await main(["sft", "--env", "lookup", "--data", data, "--epochs", "1", "--no-constrained", "--out", freeClone]),
    ).toBe(0);
    for (const unknown of [freeClone, mixed]) {
      output.clear();
      expect(
        await train(join(dir, `from-${unknown.split("/").at(-1)}`), "--init", unknown, "--eval-episodes", "0"),
      ).toBe(0);
      expect(lines().join("\n")).toMatch(
        /^note: sampling freely: lookup declares legal actions, .* add --constrained to sample under them .*--no-constrained to silence this$/m,
      );
    }
  }, 120_000);
});

describe("a clone of sft keeps the --env it was cloned under (its sft.json)", () => {
  const PARTIAL = "./test/reliability/fixtures/partial-success-env.ts";
  const shape = ["--layers", "1", "--heads", "2", "--width", "16"];

  it("sft without --env clones under the built-in environment its journals were recorded in, and says so", async () => {
    const data = join(dir, "warehouse-demos");
    expect(await main(["record", "--env", "warehouse", "--policy", "expert", "--episodes", "2", "--out", data])).toBe(
      0,
    );
    const clone = join(dir, "warehouse-clone");
    output.clear();
    expect(await main(["sft", "--data", data, "--epochs", "1", ...shape, "--out", clone]), output.stderr).toBe(0);
    expect(errors()).toContain(
      `note: --env not given; the journals in ${data} are episodes of warehouse, so sft clones under it`,
    );
    expect(JSON.parse(readFileSync(join(clone, "sft.json"), "utf8"))).toMatchObject({ env: "warehouse" });
  }, 120_000);

  it("sft --data of a train run of an environment module, without --env, clones under the module its config.json names", async () => {
    // A module of its own, so that it can be removed afterwards.
    const module = join(dir, "partial-copy.ts");
    writeFileSync(module, `export { default } from ${JSON.stringify(pathToFileURL(resolve(PARTIAL)).href)};\n`);
    const run = join(dir, "partial-run");
    const tiny = ["--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0", "--no-warm-start"];
    expect(await main(["train", "--env", module, ...tiny, ...shape, "--out", run]), output.stderr).toBe(0);
    const sft = ["sft", "--data", run, "--all-episodes", "--epochs", "1", ...shape];
    output.clear();
    expect(await main([...sft, "--out", join(dir, "partial-run-clone")]), output.stderr).toBe(0);
    expect(errors()).toContain(
      `note: --env not given; ${run} holds episodes of a train run whose config.json names ${module} (${join(run, "config.json")}), so sft clones under it`,
    );
    expect(JSON.parse(readFileSync(join(dir, "partial-run-clone", "sft.json"), "utf8"))).toMatchObject({ env: module });
    // The module gone: said, naming the path and the config.json it came from.
    rmSync(module);
    output.clear();
    expect(await main([...sft, "--out", join(dir, "partial-run-clone-2")])).toBe(2);
    expect(errors().at(-1)).toBe(
      `error: --env not given, and ${join(run, "config.json")} names the environment module ${module}, which is not there any more: pass --env with the module's path`,
    );
  }, 120_000);

  it("replay --verify of a glob of a train run's journals (RUN/episodes/uNNNNN/*.jsonl) finds the run's environment module", async () => {
    // The run's config.json, three folders above such a journal, was looked for two folders up only: every
    // journal was skipped as of an unknown environment. Where there is no run, the summary says to pass --env.
    const module = join(dir, "partial-glob.ts");
    writeFileSync(module, `export { default } from ${JSON.stringify(pathToFileURL(resolve(PARTIAL)).href)};\n`);
    const run = join(dir, "partial-glob-run");
    const tiny = ["--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0", "--no-warm-start"];
    expect(await main(["train", "--env", module, ...tiny, ...shape, "--out", run]), output.stderr).toBe(0);
    const folder = join(run, "episodes", "u00000");
    const files = readdirSync(folder).map((name) => join(folder, name));
    expect(files).toHaveLength(4);
    output.clear();
    // A copy outside the run first: the run is found from the first path that is in one.
    const loose = join(dir, "partial-glob-loose.jsonl");
    cpSync(files[0], loose);
    expect(await main(["replay", "--verify", loose, ...files]), output.stderr).toBe(0);
    expect(output.stdout).toMatch(
      /^verified 5 journal\(s\) ok \(1 of them a copy of another: the same episode\), 0 failed$/m,
    );
    output.clear();
    expect(await main(["replay", "--verify", loose])).toBe(2);
    expect(output.stderr).toContain(
      'error: environment "partial-success" is not built in (built in: lookup, hopqa, warehouse); to verify its journals, pass the module that defines it: --env ./path/to/env.ts',
    );
  }, 120_000);

  it("eval without --env says that --split and --world-seed replace the options it took only where they replace one", async () => {
    const clone = join(dir, "top-k-clone");
    cpSync("docs/checkpoints/hopqa-copy-warm-start", clone, { recursive: true });
    const sftJson = join(clone, "sft.json");
    for (const [env, note] of [
      // Before, said of any options: of a module's own (`?fail=0.5`) too, which neither flag touches.
      ["hopqa?top-k=2", ""],
      ["hopqa?worlds=1-100&top-k=2", " (the clone's options: --split and --world-seed replace theirs)"],
    ] as const) {
      writeFileSync(sftJson, JSON.stringify({ env, data: join(dir, "nowhere") }));
      output.clear();
      expect(await main(["eval", "--checkpoint", clone, "--episodes", "1"]), output.stderr).toBe(0);
      expect(errors()).toContain(`eval: --env not given: ${env}, from ${sftJson}${note}`);
    }
  }, 120_000);

  it("eval without --env takes it, as it takes a run's; train --init without --env says it", async () => {
    const data = join(dir, "partial-demos");
    expect(await main(["record", "--env", PARTIAL, "--policy", "say", "--episodes", "2", "--out", data])).toBe(0);
    const clone = join(dir, "partial-clone");
    // Without --env, sft's default environment is not the one recorded: said, with what to pass.
    output.clear();
    expect(await main(["sft", "--data", data, "--epochs", "1", ...shape, "--out", join(dir, "no-env-clone")])).toBe(2);
    expect(errors().at(-1)).toBe(
      `error: --env not given, and the journals in ${data} are episodes of partial-success, which is not built in (a journal names its environment's id, not its module's path): pass --env with the path of the module that defines partial-success`,
    );
    const sft = ["sft", "--env", PARTIAL, "--data", data, "--all-episodes", "--epochs", "1", ...shape];
    expect(await main([...sft, "--out", clone]), output.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(clone, "sft.json"), "utf8"))).toEqual({
      env: resolve(PARTIAL),
      data: resolve(data),
    });
    output.clear();
    expect(await main(["eval", "--checkpoint", clone, "--episodes", "1"]), output.stderr).toBe(0);
    expect(errors()).toContain(`eval: --env not given: ${resolve(PARTIAL)}, from ${join(clone, "sft.json")}`);
    output.clear();
    // Taken by train too (it trained under the default, lookup, and failed on the clone's tokenizer).
    const quick = ["--steps", "1", "--tasks", "1", "--group-size", "2", "--eval-episodes", "0"];
    const fromClone = join(dir, "from-partial-clone");
    expect(await main(["train", "--init", clone, ...quick, "--out", fromClone]), output.stderr).toBe(0);
    expect(errors()[0]).toBe(`train: --env not given: ${resolve(PARTIAL)}, from ${join(clone, "sft.json")}`);
    expect(JSON.parse(readFileSync(join(fromClone, "config.json"), "utf8")).env).toBe(resolve(PARTIAL));
    // sft --replace writes the clone again, sft.json with it (a checkpoint folder that holds one is a checkpoint).
    expect(await main([...sft, "--out", clone, "--replace"]), output.stderr).toBe(0);
    expect(existsSync(join(clone, "sft.json"))).toBe(true);

    // An average of clones made under one --env records it (average.json), and eval without --env takes it.
    const next = join(dir, "partial-clone-next");
    expect(await main([...sft, "--init", clone, "--out", next]), output.stderr).toBe(0);
    const soup = join(dir, "partial-soup");
    output.clear();
    expect(await main(["average", clone, next, "--out", soup]), output.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(soup, "average.json"), "utf8"))).toEqual({
      env: resolve(PARTIAL),
      checkpoints: [resolve(clone), resolve(next)],
    });
    output.clear();
    expect(await main(["eval", "--checkpoint", soup, "--episodes", "1"]), output.stderr).toBe(0);
    expect(errors()).toContain(`eval: --env not given: ${resolve(PARTIAL)}, from ${join(soup, "average.json")}`);
    output.clear();
    expect(await main(["train", "--init", soup, ...quick, "--out", join(dir, "from-partial-soup")])).toBe(0);
    expect(errors()[0]).toBe(`train: --env not given: ${resolve(PARTIAL)}, from ${join(soup, "average.json")}`);
    // With one checkpoint of no known environment, the average records none, and says which.
    rmSync(join(next, "sft.json"));
    output.clear();
    expect(await main(["average", clone, next, "--out", join(dir, "partial-soup-unknown")]), output.stderr).toBe(0);
    expect(existsSync(join(dir, "partial-soup-unknown", "average.json"))).toBe(false);
    expect(errors()).toContain(
      `note: the average records no environment (eval it with --env, or average again with --env to record one): ${clone} was made under ${resolve(PARTIAL)} (${join(clone, "sft.json")}); ${next} has no readable record of its environment`,
    );
    // average --env records the environment for them, and eval of the average takes it.
    const named = join(dir, "partial-soup-named");
    output.clear();
    expect(await main(["average", clone, next, "--env", PARTIAL, "--out", named]), output.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(named, "average.json"), "utf8")).env).toBe(resolve(PARTIAL));
    expect(errors().join("\n")).not.toMatch(/records no environment/);
    output.clear();
    expect(await main(["eval", "--checkpoint", named, "--episodes", "1"]), output.stderr).toBe(0);
    expect(errors()).toContain(`eval: --env not given: ${resolve(PARTIAL)}, from ${join(named, "average.json")}`);
    // An --env of another tokenizer is refused before anything is written, naming the checkpoint.
    const wrong = join(dir, "partial-soup-wrong");
    output.clear();
    expect(await main(["average", clone, next, "--env", "hopqa", "--out", wrong])).toBe(2);
    expect(output.stderr).toMatch(new RegExp(`checkpoint ${clone} .*tokenizer`));
    expect(existsSync(wrong)).toBe(false);
    // One environment with its options in another order is the same environment; other options are not.
    for (const [first, second, recorded] of [
      ["?a=1&b=2", "?b=2&a=1", true],
      ["?a=1", "?a=2", false],
    ] as const) {
      writeFileSync(join(clone, "sft.json"), JSON.stringify({ env: `${resolve(PARTIAL)}${first}` }));
      writeFileSync(join(next, "sft.json"), JSON.stringify({ env: `${resolve(PARTIAL)}${second}` }));
      const out = join(dir, `partial-soup-${recorded}`);
      expect(await main(["average", clone, next, "--out", out]), output.stderr).toBe(0);
      expect(existsSync(join(out, "average.json"))).toBe(recorded);
      if (recorded)
        expect(JSON.parse(readFileSync(join(out, "average.json"), "utf8")).env).toBe(`${resolve(PARTIAL)}${first}`);
    }
  }, 120_000);
  it("hopqa's wording and legal options go from record through sft to eval --suite, which keeps them from sft.json", async () => {
    const spec = "hopqa?split=test&wording=possessive&legal=relations";
    const data = join(dir, "possessive-demos");
    output.clear();
    expect(await main(["record", "--env", spec, "--policy", "expert", "--episodes", "2", "--out", data])).toBe(0);
    const clone = join(dir, "possessive-clone");
    expect(
      await main(["sft", "--env", spec, "--data", data, "--epochs", "1", ...shape, "--out", clone]),
      output.stderr,
    ).toBe(0);
    expect(JSON.parse(readFileSync(join(clone, "tokenizer.json"), "utf8")).id).toBe(
      "words-v2-implicit:8d0c70283f3f8158",
    );
    output.clear();
    const suite = ["eval", "--checkpoint", clone, "--suite", "--episodes", "1", "--no-constrained"];
    expect(await main(suite), output.stderr).toBe(0);
    // The columns set split and worlds; the wording (its tokenizer) and the grammar are kept.
    expect(errors()).toContain(
      `eval: --env not given: hopqa?wording=possessive&legal=relations, from ${join(clone, "sft.json")} (without its cloning options ?split=test: --suite fixes each column's)`,
    );
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({
      env: "hopqa",
      wording: "possessive",
      legal: "relations",
      suite: true,
    });
    // npm run hopqa:failures takes the options too (split and worlds are the columns'): the same suite.
    const failures = (...args: string[]) =>
      spawnSync(process.execPath, ["bin/run-ts.js", "scripts/hopqa-failures.ts", clone, "1", ...args], {
        encoding: "utf8",
      });
    const counted = failures("--env", "hopqa?wording=possessive&legal=relations");
    expect(counted.status, counted.stderr).toBe(0);
    expect(counted.stdout).toMatch(/^test \(seen worlds\): exact match \d\.\d\d \(1 questions\)$/m);
    const fixed = failures("--env", "hopqa?wording=possessive&split=test");
    expect(fixed.status).toBe(2);
    expect(fixed.stderr).toContain(
      "error: --env hopqa?wording=possessive&split=test: the suite's columns set split and worlds; drop split (other options hold in every column)",
    );
    // Under the default wording the clone's tokenizer is another: refused, naming both.
    output.clear();
    expect(await main([...suite, "--env", "hopqa"])).toBe(2);
    expect(errors().at(-1)).toMatch(
      /made for another tokenizer \(words-v2-implicit:8d0c70283f3f8158\) than environment hopqa's \(words-v2-implicit:bfb10aadf8ddeff9\)/,
    );
  }, 120_000);
});

describe("a damaged checkpoint of a run", () => {
  it("names the run's other checkpoints and how to resume from one, and resuming from it works", async () => {
    const run = join(dir, "damaged-latest");
    const base = ["--env", "lookup", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
    expect(
      await main(["train", ...base, "--no-warm-start", "--steps", "2", "--checkpoint-every", "1", "--out", run]),
    ).toBe(0);
    const weights = join(run, "checkpoints", "v00002", "weights.bin");
    writeFileSync(weights, readFileSync(weights).subarray(0, 1000));
    output.clear();
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1"])).toBe(2);
    const latest = join(run, "checkpoints", "latest.json");
    expect(output.stderr).toMatch(/^error: checkpoint \S+v00002\/weights\.bin: truncated: 1000 bytes/m);
    expect(output.stderr).toContain(
      `; the run's other checkpoints: v00001 (give one, e.g. ${join(run, "checkpoints", "v00001")}, as --checkpoint or --init; train --resume goes on from ${latest}: set its "dir" and "version" to one of them to resume from there)`,
    );
    writeFileSync(latest, JSON.stringify({ version: 1, dir: "v00001" }));
    output.clear();
    expect(await main(["train", "--out", run, "--resume", "--steps", "3"])).toBe(0);
    // The damaged one is moved aside (not deleted), and written again when training gets there.
    expect(output.stderr).toContain(
      `moved the checkpoints after version 1 (v00002) to ${join(run, "dropped-checkpoints")}: training writes them again`,
    );
    expect(readFileSync(join(run, "dropped-checkpoints", "v00002", "weights.bin")).length).toBe(1000);
    expect(existsSync(join(run, "checkpoints", "v00003", "manifest.json"))).toBe(true);
    expect(await main(["average", run, "--last", "2", "--out", join(dir, "damaged-latest-avg")])).toBe(0);
    // latest.json that does not match its checkpoint gets the same advice.
    writeFileSync(latest, JSON.stringify({ version: 3, dir: "v00001" }));
    output.clear();
    expect(await main(["train", "--out", run, "--resume", "--steps", "4"])).toBe(2);
    expect(output.stderr).toMatch(/latest\.json: mismatch: .*; the run's checkpoints: v00001, v00002, v00003 \(/);
    // Naming a folder that is gone: its error lists the checkpoints there, once.
    writeFileSync(latest, JSON.stringify({ version: 9, dir: "v00009" }));
    output.clear();
    expect(await main(["eval", "--checkpoint", run, "--episodes", "1"])).toBe(2);
    expect(output.stderr.match(/v00001, v00002, v00003/g)).toHaveLength(1);
    expect(output.stderr).toContain(
      `; or give one of them, e.g. ${join(run, "checkpoints", "v00003")}, as --checkpoint or --init`,
    );
  }, 120_000);
});

describe("usage without a command, and a flag the chosen view does not use", () => {
  it("no command: the help on stderr and exit 2 (bad usage); `help` and --help exit 0", async () => {
    expect(await main([])).toBe(2);
    expect(output.stderr).toMatch(/Usage: agent-r1/);
    expect(await main(["help"])).toBe(0);
    expect(await main(["--help"])).toBe(0);
    expect(await main(["help", "record"])).toBe(0);
  });

  it("help for a command that does not exist says so and suggests one (exit 2), not the whole help", async () => {
    expect(await main(["help", "recrod"])).toBe(2);
    expect(output.stderr).toContain("error: unknown command 'recrod'");
    expect(output.stderr).toContain("(Did you mean record?)");
    // With --help after it, commander showed the whole help, exit 0, as if the command existed.
    output.clear();
    expect(await main(["recrod", "--help"])).toBe(2);
    expect(output.stdout).toBe("");
    expect(output.stderr).toContain("error: unknown command 'recrod'");
    expect(output.stderr).toContain("(Did you mean record?)");
    expect(await main(["record", "--help"])).toBe(0);
  });

  it("an npm script of the repository given as a command names the npm run to use (exit 2)", async () => {
    // `agent-r1 experiment --help` showed agent-r1's help, exit 0, which lists no experiment.
    for (const argv of [["experiment", "--help"], ["experiment"], ["help", "experiment"]]) {
      output.clear();
      expect(await main(argv)).toBe(2);
      expect(output.stdout).toBe("");
      expect(output.stderr).toContain(
        "error: unknown command 'experiment': experiment is an npm script of the agent-r1-ts repository (run in its clone), not an agent-r1 command: npm run experiment -- --help",
      );
    }
  });

  it("an option of one value given twice is refused, naming both values (exit 2, nothing written); a bare flag may repeat", async () => {
    const out = join(dir, "repeated");
    for (const [argv, said] of [
      [
        ["record", "--env", "lookup", "--policy", "expert", "--seed", "1", "--seed", "2", "--out", out],
        "--seed given twice (1, 2)",
      ],
      [["train", "--env", "lookup", "--out", out, "--steps", "1", "--steps=2"], "--steps given twice (1, 2)"],
      [
        ["sft", "--env", "lookup", "--data", "replays/lookup", "--out", out, "--out", `${out}-2`],
        `--out given twice (${out}, ${out}-2)`,
      ],
      [
        ["eval", "--env", "lookup", "--episodes", "1", "--checkpoint", "a", "--episodes", "3"],
        "--episodes given twice (1, 3)",
      ],
      [["replay", "replays/lookup", "--env", "lookup", "--env", "weather"], "--env given twice (lookup, weather)"],
      [["start", "--quick", "--seed", "1", "--out", out, "--seed", "1"], "--seed given twice (1, 1)"],
    ] as const) {
      output.clear();
      expect(await main([...argv]), argv.join(" ")).toBe(2);
      expect(errors()[0]).toBe(`error: ${said}: give it once`);
    }
    expect(existsSync(out)).toBe(false);
    output.clear();
    expect(await main(["replay", "replays/lookup/expert", "--quiet", "--quiet"])).toBe(0);
    expect(output.stdout).toContain("read 4 journal(s) ok, 0 failed");
  });

  it("an option whose value is forgotten, so that it takes the next option as its value, is refused naming both (exit 2)", async () => {
    const out = join(dir, "option-as-value");
    for (const [argv, said] of [
      // Before: "required option '--out <dir>' not specified", with --out given.
      [
        ["record", "--env", "lookup", "--policy", "expert", "--seed", "--out", out],
        '--seed took "--out" as its value: give --seed <seed> before --out (or, for the value "--out", --seed=--out)',
      ],
      // Before: "too many arguments for 'record'. Expected 0 arguments but got 1."
      [
        ["record", "--env", "lookup", "--policy", "--episodes", "2", "--out", out],
        '--policy took "--episodes" as its value: give --policy <name> before --episodes (or, for the value "--episodes", --policy=--episodes)',
      ],
      [
        ["eval", "--env", "lookup", "--checkpoint", "--episodes=3"],
        '--checkpoint took "--episodes=3" as its value: give --checkpoint <dir> before --episodes (or, for the value "--episodes=3", --checkpoint=--episodes=3)',
      ],
      [
        ["replay", "replays/lookup", "--env", "-h"],
        '--env took "-h" as its value: give --env <path> before -h (or, for the value "-h", --env=-h)',
      ],
    ] as const) {
      output.clear();
      expect(await main([...argv]), argv.join(" ")).toBe(2);
      expect(errors()[0]).toBe(`error: ${said}`);
    }
    expect(existsSync(out)).toBe(false);
  });

  it("a value that looks like an option, given in the option's own argument (--seed=-h), is taken: the spelling the refusal above names", async () => {
    const out = join(dir, "seed-dash-h");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--seed", "-h", "--out", out])).toBe(2);
    expect(errors()[0]).toContain('(or, for the value "-h", --seed=-h)');
    expect(existsSync(out)).toBe(false);
    output.clear();
    expect(
      await main(["record", "--env", "lookup", "--policy", "expert", "--seed=-h", "--out", out]),
      output.stderr,
    ).toBe(0);
    const [journal] = readdirSync(out).filter((name) => name.endsWith(".jsonl"));
    const started = (await readJournalFile(join(out, journal)))[0];
    expect(started).toMatchObject({ type: "episode.started", seed: "-h:0" });
  });

  it('an empty value (--out "", an unset $VAR) is refused, naming the option, before anything is written to the working folder', async () => {
    // Run in a folder of its own: before, `average --out ""` wrote its checkpoint over the working folder.
    const cwd = join(dir, "empty-values");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(join(cwd, "keep.txt"), "mine");
    const checkpoint = resolve("docs/checkpoints/hopqa-best");
    const folder = "an empty path would be the working folder";
    for (const [argv, said] of [
      [["average", checkpoint, "--out", ""], `--out is empty (""): give <dir>; ${folder}`],
      [["record", "--env", "lookup", "--policy", "expert", "--out", ""], `--out is empty (""): give <dir>; ${folder}`],
      [["train", "--env", "lookup", "--steps", "1", "--out="], `--out is empty (""): give <dir>; ${folder}`],
      [["inspect", resolve("replays/lookup/expert"), "--html", ""], `--html is empty (""): give <file>; ${folder}`],
      [
        ["replay", resolve("replays/lookup/expert"), "--verify", "--env", ""],
        `--env is empty (""): give <path>; ${folder}`,
      ],
      [["eval", "--checkpoint", ""], `--checkpoint is empty (""): give <dir>; ${folder}`],
      [["record", "--env", "lookup", "--policy", "", "--out", "x"], `--policy is empty (""): give <name>`],
      [["plot", resolve("replays/lookup"), ""], `the <runs...> argument is empty (""): give <runs...>; ${folder}`],
      [["inspect", ""], `the <paths...> argument is empty (""): give <paths...>; ${folder}`],
      [["replay", ""], `the <paths...> argument is empty (""): give <paths...>; ${folder}`],
    ] as const) {
      // In this process, run from that folder (as a user in it would run the command).
      output.clear();
      const code = await inFolder(cwd, () => main([...argv]));
      expect(code, `${argv.join(" ")}: ${output.stderr}`).toBe(2);
      expect(output.stderr.split("\n")[0], argv.join(" ")).toBe(`error: ${said}`);
      expect(readdirSync(cwd), argv.join(" ")).toEqual(["keep.txt"]);
    }
    // A value that a parser checks keeps its own message (and a new process ends with status 2).
    const seed = spawnSync(process.execPath, [resolve("bin/agent-r1.js"), "train", "--seed", ""], {
      cwd,
      encoding: "utf8",
    });
    expect(seed.status, seed.stderr).toBe(2);
    expect(seed.stderr).toMatch(/^error: option '--seed <seed>' argument '' is invalid\. --seed must be 1 to 100/);
    expect(readdirSync(cwd)).toEqual(["keep.txt"]);
  }, 120_000);

  it("a flag given with its negation is refused, in either order (exit 2, nothing written); one form may repeat", async () => {
    const out = join(dir, "both-forms");
    for (const [argv, said] of [
      [
        ["train", "--env", "lookup", "--out", out, "--constrained", "--no-constrained"],
        "--constrained and --no-constrained",
      ],
      [
        ["sft", "--env", "lookup", "--data", "replays/lookup", "--out", out, "--no-constrained", "--constrained"],
        "--no-constrained and --constrained",
      ],
      [
        ["eval", "--env", "lookup", "--checkpoint", "a", "--constrained", "--constrained", "--no-constrained"],
        "--constrained and --no-constrained",
      ],
      [
        ["train", "--env", "lookup", "--out", out, "--no-copy-head", "--steps", "1", "--copy-head"],
        "--no-copy-head and --copy-head",
      ],
    ] as const) {
      output.clear();
      expect(await main([...argv]), argv.join(" ")).toBe(2);
      expect(errors()[0]).toBe(`error: ${said} both given: give one of them`);
    }
    expect(existsSync(out)).toBe(false);
    output.clear();
    // One form repeated is one flag; eval goes on to the missing checkpoint.
    expect(
      await main([
        "eval",
        "--env",
        "lookup",
        "--checkpoint",
        join(dir, "none"),
        "--no-constrained",
        "--no-constrained",
      ]),
    ).toBe(2);
    expect(output.stderr).not.toContain("both given");
  });

  it("inspect --env without --html: loaded (a wrong path is said), and used without a note (it names where an environment threw)", async () => {
    expect(await main(["inspect", "replays/lookup", "--env", "./no-such-env.ts"])).toBe(2);
    expect(output.stderr).toMatch(/environment module not found: .*no-such-env\.ts/);
    output.clear();
    expect(await main(["inspect", "replays/lookup/expert", "--env", "lookup", "--max-episodes", "1"])).toBe(0);
    expect(output.stderr).toBe("");
  });
});

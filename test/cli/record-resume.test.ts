/**
 * `record --resume` keeps the episodes a stopped recording journaled whole, but only while the environment's
 * code still derives them: a reward changed in between (without a new version) would leave one folder of
 * episodes from two versions of the code.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLookupEnv, DEFAULT_REWARDS } from "../../actors/lookup/env.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import { policyFor, record } from "../../src/cli/record.ts";
import { envById } from "../../src/cli/registry.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { tempDir } from "../support/index.ts";

describe("record --resume", () => {
  it("refuses kept episodes that the environment's code no longer derives, naming the journal, and keeps them", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 4, seed: "5", out, concurrency: 2, durability: "episode" as const, quiet: true };
    await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
    const journals = readdirSync(out).filter((f) => f.endsWith(".jsonl"));
    expect(journals).toHaveLength(4);
    // A stop after three episodes.
    rmSync(join(out, journals.sort().at(-1)!));

    const changed = createLookupEnv({ ...DEFAULT_REWARDS, neededKey: 0.3 });
    const refused = await record({ ...base, resume: true, env: changed, policy: expertPolicy() }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(
      /^--resume: .*demos\/ep-5-\d\.jsonl was recorded by other code than this --env lookup v\S+ runs now: .*seq \d+: replay diverged .*give the changed environment a new version/,
    );
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(3);

    // The code that recorded them resumes as before.
    const resumed = await record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() });
    expect(resumed.episodes).toBe(4);
    expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(4);
  });

  it("stopped from code (signal), records again the episodes the stop ended: the folder an unbroken recording gives", async () => {
    const dir = tempDir("agent-r1-record-resume-");
    const base = { episodes: 12, seed: "5", concurrency: 4, durability: "episode" as const, quiet: true };
    await record({ ...base, out: join(dir, "unbroken"), env: createLookupEnv(), policy: expertPolicy() });
    const out = join(dir, "stopped");
    const stopping = new AbortController();
    const expert = expertPolicy();
    // Stopped once the first episodes have ended: the others in flight end as `aborted: stopped: ...`.
    const stopsLater: typeof expert = {
      ...expert,
      act: (requests) => {
        if (readdirSync(out).filter((f) => f.endsWith(".jsonl")).length >= 4) stopping.abort(new Error("deadline"));
        return expert.act(requests);
      },
    };
    const stopped = await record({ ...base, out, env: createLookupEnv(), policy: stopsLater, signal: stopping.signal });
    const endOf = (file: string) => JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1)!).reason as string;
    const journals = () =>
      readdirSync(out)
        .filter((f) => f.endsWith(".jsonl"))
        .sort();
    const answered = journals().filter((f) => endOf(join(out, f)) === "answered");
    expect(answered.length).toBeGreaterThanOrEqual(4);
    expect(stopped.aborted).toBeGreaterThan(0);
    expect(journals().filter((f) => endOf(join(out, f)) === "aborted: stopped: deadline")).toHaveLength(
      stopped.aborted,
    );
    const keptAt = Object.fromEntries(answered.map((f) => [f, statSync(join(out, f)).mtimeMs]));

    const lines: string[] = [];
    const resumed = await record({
      ...base,
      out,
      resume: true,
      env: createLookupEnv(),
      policy: expertPolicy(),
      log: (l) => lines.push(l),
    });
    expect(lines[0]).toBe(
      `record --resume: ${answered.length} of 12 episodes are journaled already and kept; removed ${stopped.aborted} that the stop cut short; recording the other ${12 - answered.length}`,
    );
    expect(resumed).toMatchObject({ episodes: 12, aborted: 0, endReasons: { answered: 12 } });
    for (const f of answered) expect(statSync(join(out, f)).mtimeMs, f).toBe(keptAt[f]);
    expect(journals()).toEqual(readdirSync(join(dir, "unbroken")).sort());
    for (const f of journals()) expect(readFileSync(join(out, f)), f).toEqual(readFileSync(join(dir, "unbroken", f)));
  });

  it("names a journal renamed to another episode's name as that, not as another seed", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 3, seed: "5", out, concurrency: 1, durability: "episode" as const, quiet: true };
    await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
    renameSync(join(out, "ep-5-1.jsonl"), join(out, "ep-5-2.jsonl"));
    const refused = await record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect((refused as Error).message).toBe(
      `--resume: ${join(out, "ep-5-2.jsonl")} was recorded with episode ep-5-1 (seed "5:1"), not ep-5-2 (seed "5:2"): another episode's journal, renamed or copied to this name: --resume goes on with the same recording (the same --env, --policy, --seed and --group-size); record into another --out`,
    );
  });

  it("refuses a journal of its episodes under another name, rather than record that episode again beside it", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 3, seed: "5", out, concurrency: 1, durability: "episode" as const, quiet: true };
    await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
    renameSync(join(out, "ep-5-1.jsonl"), join(out, "kept.jsonl"));
    rmSync(join(out, "ep-5-2.jsonl")); // a stop before the last episode ended
    const resume = () =>
      record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() }).then(
        () => undefined,
        (cause: unknown) => cause,
      );
    // Before, ep-5-1 was recorded again: two journals of one episode, the renamed one left out of the summary.
    const refused = await resume();
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe(
      `--resume: ${join(out, "kept.jsonl")} holds episode ep-5-1 of this recording under another name than its own, ep-5-1.jsonl: ` +
        "going on would record that episode again beside it, two journals of one episode; nothing was removed or recorded: " +
        "rename it back to ep-5-1.jsonl to keep it (or delete it to record the episode again)",
    );
    expect(readdirSync(out).sort()).toEqual(["ep-5-0.jsonl", "kept.jsonl"]);
    // Renamed back, it is kept and counted; only the missing episode is recorded.
    renameSync(join(out, "kept.jsonl"), join(out, "ep-5-1.jsonl"));
    const kept = statSync(join(out, "ep-5-1.jsonl")).mtimeMs;
    expect((await record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() })).episodes).toBe(3);
    expect(readdirSync(out).sort()).toEqual(["ep-5-0.jsonl", "ep-5-1.jsonl", "ep-5-2.jsonl"]);
    expect(statSync(join(out, "ep-5-1.jsonl")).mtimeMs).toBe(kept);
    // A folder whose journals were all renamed is said so too, not taken for another --seed's.
    for (const name of readdirSync(out)) renameSync(join(out, name), join(out, `old-${name}`));
    expect(((await resume()) as Error).message).toMatch(
      /^--resume: .*old-ep-5-0\.jsonl holds episode ep-5-0 of this recording under another name than its own, ep-5-0\.jsonl \(and 2 more journals so\)/,
    );
  });

  it("says a journal it cannot read (a folder in its place) cannot be read, not that it changed, and removes nothing", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 3, seed: "5", out, concurrency: 1, durability: "episode" as const, quiet: true };
    await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
    // A folder where the last journal was (a reader gets EISDIR): no stop leaves that, and no edit either.
    const last = join(out, "ep-5-2.jsonl");
    rmSync(last);
    mkdirSync(last);
    const refused = await record({ ...base, resume: true, env: createLookupEnv(), policy: expertPolicy() }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe(
      `--resume: cannot read ${last}: illegal operation on a directory (EISDIR); nothing was removed or recorded: make it readable and run the same command again (or delete it to record the episode again)`,
    );
    expect(readdirSync(out).sort()).toEqual(["ep-5-0.jsonl", "ep-5-1.jsonl", "ep-5-2.jsonl"]);
  });

  // chmod 000 does not stop root from reading: as root, the command runs as nobody (uid 65534), where nobody can.
  const root = process.getuid?.() === 0;
  const nobody = { uid: 65534, gid: 65534 };
  const nobodyRuns = root && spawnSync(process.execPath, ["bin/agent-r1.js", "--version"], nobody).status === 0;
  it.skipIf(root && !nobodyRuns)(
    "says a journal without read permission cannot be read (permission denied), exit 2, and removes nothing",
    async () => {
      const dir = tempDir("agent-r1-record-resume-");
      const out = join(dir, "demos");
      const base = { episodes: 3, seed: "5", out, concurrency: 1, durability: "episode" as const, quiet: true };
      await record({ ...base, env: createLookupEnv(), policy: expertPolicy() });
      // nobody writes the lock file; the journals stay root's, the first one unreadable to anyone but root.
      if (root) for (const folder of [dir, out]) chmodSync(folder, 0o777);
      const first = join(out, "ep-5-0.jsonl");
      chmodSync(first, 0o000);
      const run = spawnSync(
        process.execPath,
        ["bin/agent-r1.js", "record", "--env", "lookup", "--policy", "expert", "--episodes", "3", "--seed", "5"].concat(
          ["--out", out, "--resume"],
        ),
        { encoding: "utf8", timeout: 60_000, ...(root ? nobody : {}) },
      );
      chmodSync(first, 0o644);
      expect(run.stderr).toBe(
        `error: --resume: cannot read ${first}: permission denied (EACCES); nothing was removed or recorded: make it readable and run the same command again (or delete it to record the episode again)\n`,
      );
      expect(run.status).toBe(2);
      expect(readdirSync(out).sort()).toEqual(["ep-5-0.jsonl", "ep-5-1.jsonl", "ep-5-2.jsonl"]);
    },
    60_000,
  );

  it("names the environment option a folder was recorded with when --env gives another (hopqa's top-k, tool-only)", async () => {
    const out = join(tempDir("agent-r1-record-resume-"), "demos");
    const base = { episodes: 2, seed: "5", out, concurrency: 1, durability: "episode" as const, quiet: true };
    const recordWith = (spec: string, resume = false) => {
      const env = envById(spec);
      return record({ ...base, resume, env, policy: policyFor(env, "expert") }).then(
        () => undefined,
        (cause: unknown) => cause,
      );
    };
    expect(await recordWith("hopqa?top-k=3")).toBeUndefined();
    rmSync(join(out, "ep-5-1.jsonl"));
    const journal = join(out, "ep-5-0.jsonl");
    const same = "--resume goes on with the same recording";
    for (const [spec, option] of [
      ["hopqa?top-k=4", "top-k 3, not 4 (its task is the one this --env gives with top-k=3)"],
      ["hopqa", "top-k 3, not 2 (its task is the one this --env gives with top-k=3)"],
      ["hopqa?top-k=3&split=test", "split train, not test (its task is the one this --env gives with split=train)"],
    ]) {
      const refused = await recordWith(spec, true);
      expect(refused, spec).toBeInstanceOf(UsageError);
      expect((refused as Error).message).toBe(
        `--resume: ${journal} was recorded with environment option ${option}: ${same} (the same --env, --policy, --seed and --group-size); record into another --out`,
      );
    }
    // Recorded with the default (a task without topK): no recorded value to name, so the task's field is.
    rmSync(out, { recursive: true });
    expect(await recordWith("hopqa")).toBeUndefined();
    rmSync(join(out, "ep-5-1.jsonl"));
    const refused = await recordWith("hopqa?top-k=3", true);
    expect((refused as Error).message).toContain(
      "was recorded with another task than this recording gives its episode (topK none, not 3: another --group-size, other environment options than this --env's split train, worlds 1-1000, top-k 3, wording outer, legal types,",
    );
    expect(readdirSync(out)).toEqual(["ep-5-0.jsonl"]);
    // The wording is the task's too (its question's text): resumed under another, it is named as top-k is.
    rmSync(out, { recursive: true });
    expect(await recordWith("hopqa?wording=possessive")).toBeUndefined();
    rmSync(join(out, "ep-5-1.jsonl"));
    expect(((await recordWith("hopqa", true)) as Error).message).toBe(
      `--resume: ${journal} was recorded with environment option wording possessive, not outer (its task is the one this --env gives with wording=possessive): ${same} (the same --env, --policy, --seed and --group-size); record into another --out`,
    );
  });

  it("says the same failure lines as an unbroken recording, and where a kept journal cannot say where its code threw, says so", () => {
    const dir = tempDir("agent-r1-record-resume-");
    const run = (env: string, policy: string, exit: number, ...more: string[]) => {
      const args = ["record", "--env", `./test/reliability/fixtures/${env}.ts`, "--policy", policy, "--episodes", "3"];
      const ran = spawnSync(process.execPath, ["bin/agent-r1.js", ...args, "--out", join(dir, env), ...more], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(ran.status, ran.stderr).toBe(exit);
      return ran.stderr.split("\n").filter((line) => /^(note: \d+ of \d+ tool calls failed|error: all)/.test(line));
    };
    const notJournaled =
      "(thrown before --resume, in a kept episode: the journal keeps the message, not where it was thrown)";
    const failed =
      "note: 3 of 6 tool calls failed (the machine got { ok: false, error }): 3x shout error: Cannot read properties of undefined (reading 'toUpperCase')";
    const unbroken = run("buggy-tool-env", "expert", 0);
    expect(unbroken).toEqual([`${failed} (thrown at test/reliability/fixtures/buggy-tool-env.ts:14:41)`]);
    // A stop after two episodes: the third throws again in the resumed process, so it knows where.
    rmSync(join(dir, "buggy-tool-env", "ep-0-2.jsonl"));
    expect(run("buggy-tool-env", "expert", 0, "--resume")).toEqual(unbroken);
    // Every episode kept: nothing threw in this process, and a journal keeps the message, not the line.
    expect(run("buggy-tool-env", "expert", 0, "--resume")).toEqual([`${failed} ${notJournaled}`]);

    // The first abort's line: the same.
    const aborted = "error: all 3 episodes aborted; the first, ep-0-0: policy fickle-broken failed: no model loaded";
    expect(run("fickle-env", "broken", 1)).toEqual([
      `${aborted} (thrown at test/reliability/fixtures/fickle-env.ts:66:11)`,
    ]);
    expect(run("fickle-env", "broken", 1, "--resume")).toEqual([`${aborted} ${notJournaled}`]);
  }, 120_000);
});

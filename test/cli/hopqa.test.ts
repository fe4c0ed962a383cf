/** The main job and hopqa's evaluation command, run the way a user runs them. */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replaceRunFolder, START_MARKER } from "../../src/cli/start.ts";
import { runCli, tempDir } from "../support/index.ts";

const words = (text: string) => text.split(" ");
/** A command's messages, files and exit code: the CLI's main in this process (runCli), no new process to start. */
const cli = runCli;

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}
/**
 * `cli` in a child process that runs while this one waits: the three `npm start` runs below begin together
 * (each is single-threaded, about half a minute of a core; one after another they took two to three minutes
 * of the suite). `closeStdout`: the reader of stdout leaves after its first chunk (`| head -1`), and stdout
 * is not kept. Never rejects: a child that cannot start resolves with code null and the error as stderr.
 * One still running when the file ends (a test failed early) is killed then.
 */
const running = new Set<ChildProcess>();
const cliInBackground = (args: readonly string[], closeStdout = false): Promise<Ran> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ["bin/agent-r1.js", ...args], {
      stdio: ["ignore", "pipe", closeStdout ? "ignore" : "pipe"],
    });
    running.add(child);
    const said = { stdout: "", stderr: "" };
    if (closeStdout)
      // The reader has its line and leaves (head -1): every later stage line fails with EPIPE.
      child.stdout?.once("data", () => child.stdout?.destroy());
    else {
      child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
        said.stdout += chunk;
      });
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
        said.stderr += chunk;
      });
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), 400_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      done({ code: null, stdout: said.stdout, stderr: String(error) });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      done({ code, ...said });
    });
  });

let lookupOut: string;
let closedOut: string;
let hopqaOut: string;
let starts: { lookup: Promise<Ran>; closed: Promise<Ran>; hopqa: Promise<Ran> };
beforeAll(() => {
  lookupOut = join(tempDir(), "start-lookup");
  closedOut = join(tempDir(), "start-closed");
  hopqaOut = join(tempDir(), "start");
  starts = {
    lookup: cliInBackground(["start", "--env", "lookup", "--quick", "--out", lookupOut]),
    closed: cliInBackground(["start", "--quick", "--out", closedOut], true),
    hopqa: cliInBackground(["start", "--quick", "--out", hopqaOut]),
  };
});
afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
});

describe("npm start -- --env lookup --quick", () => {
  it("runs train's own warm start, then GRPO, and prints the success rate before and after", async () => {
    const out = lookupOut;
    const run = await starts.lookup;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("1/2 warm start: 64 expert episodes cloned for 2 epochs");
    expect(run.stderr).toMatch(/warm start: 64 expert episodes cloned for 2 epochs \(expert success 1\.000/);
    expect(run.stdout).toMatch(/warm start \(behaviour cloning\):\s+success \d\.\d{3}/);
    expect(run.stdout).toMatch(/after GRPO \(3 updates\):\s+success \d\.\d{3}/);
    expect(existsSync(join(out, "warm-start", "checkpoint", "manifest.json"))).toBe(true);
    expect(existsSync(join(out, "checkpoints", "latest.json"))).toBe(true);
    // The printed numbers are kept: results.json, and train's eval.json says how they were taken.
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    const printed = /after GRPO \(3 updates\):\s+success (\d\.\d{3})/.exec(run.stdout)?.[1];
    expect(results.after.successRate.toFixed(3)).toBe(printed);
    const evalJson = JSON.parse(readFileSync(join(out, "eval.json"), "utf8"));
    expect(evalJson.evaluatedWith).toMatchObject({ seed: results.evaluation.seed, episodes: 32, decoding: "greedy" });
    expect(results.evaluation.seed).toMatch(/^eval:/);
  }, 420_000);
});

describe("npm start -- --quick | head -1", () => {
  it("goes on to the end when the reader of stdout is gone: trained, results.json written, exit 0", async () => {
    const out = closedOut;
    const { code } = await starts.closed;
    expect(code).toBe(0);
    expect(existsSync(join(out, "results.json"))).toBe(true);
    expect(existsSync(join(out, "grpo", "checkpoints", "latest.json"))).toBe(true);
  }, 420_000);
});

describe("npm start -- --quick, then eval on any world", () => {
  let out: string;
  beforeAll(() => {
    out = hopqaOut;
  });

  it("runs every stage of the main job and prints exact match per column before and after RL", async () => {
    const run = await starts.hopqa;
    expect(run.code, run.stderr).toBe(0);
    for (const stage of ["1/4 warm start", "2/4 evaluating", "3/4 GRPO", "4/4 evaluating"])
      expect(run.stdout).toContain(stage);
    expect(run.stdout).toMatch(/warm start \(hasty clone\)\s+\d\.\d{3}\s+\d\.\d{3}\s+\d\.\d{3}\s+\d\.\d{3}/);
    const after = /after GRPO \(2 updates\)\s+(\d\.\d{3})\s+(\d\.\d{3})\s+(\d\.\d{3})\s+(\d\.\d{3})/.exec(run.stdout);
    expect(after, run.stdout).not.toBeNull();
    // The table is kept in results.json, the same numbers.
    const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
    expect(
      [
        results.after["test-seen"].em,
        results.after["test-new"].em,
        results.after["ood-new"].em,
        results.after.average,
      ].map((x: number) => x.toFixed(3)),
    ).toEqual(after!.slice(1));
    expect(results.checkpoint).toBe(join(out, "grpo", "checkpoints", "v00002"));
    expect(existsSync(join(out, "grpo", "checkpoints", "latest.json"))).toBe(true);
  }, 420_000);

  it("run again with the same --out, start replaces the folder it wrote (it refused its own demos-recorded.json)", async () => {
    expect((await starts.hopqa).code).toBe(0);
    // A copy: the tests below read the run. What start checks before it replaces the folder is what it holds.
    const again = join(tempDir(), "start-again");
    cpSync(out, again, { recursive: true });
    replaceRunFolder(again, "hopqa");
    expect(readdirSync(again)).toEqual([START_MARKER]);
  }, 420_000);

  it("eval --world-seed --split prints exact match and F1 as JSON; a wrong split is a one-line error, exit 2", async () => {
    const checkpoint = join(out, "grpo", "checkpoints", "v00002");
    const run = await cli(
      "eval",
      "--env",
      "hopqa",
      "--checkpoint",
      checkpoint,
      "--world-seed",
      "2000123",
      "--split",
      "ood",
      "--episodes",
      "4",
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({ env: "hopqa", split: "ood", "world-seed": "2000123", episodes: 4 });
    expect(summary).toMatchObject({ worlds: "2000123-2000123", "top-k": 2 }); // every option in effect
    expect(summary.exactMatch).toBeGreaterThanOrEqual(0);
    expect(summary.f1).toBeGreaterThanOrEqual(summary.exactMatch);
    const bad = await cli("eval", "--env", "hopqa", "--checkpoint", checkpoint, "--split", "dev");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/split must be one of train, test, ood, got "dev"/);
    const unknown = await cli("eval", "--env", "hopqa?colour=red", "--checkpoint", checkpoint);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option "colour"/);
  }, 120_000);

  it("eval --suite scores the benchmark's three columns as the results table does; --split with it is refused", async () => {
    const checkpoint = join(out, "grpo", "checkpoints", "v00002");
    const run = await cli(
      "eval",
      "--checkpoint",
      checkpoint,
      ...words("--env hopqa --suite --constrained --episodes 3"),
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({
      env: "hopqa",
      suite: true,
      constrained: true,
      seed: "suite",
      episodesPerColumn: 3,
    });
    const columns = ["test-seen", "test-new", "ood-new"].map((id) => summary[id]);
    for (const column of columns) expect(column).toMatchObject({ episodes: 3 });
    const mean = columns.reduce((sum, c) => sum + c.em, 0) / 3;
    expect(summary.average).toBeCloseTo(mean, 12);
    const mixed = await cli("eval", "--checkpoint", checkpoint, ...words("--env hopqa --suite --split ood"));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/--suite fixes each column's split and worlds/);
    const other = await cli("eval", "--checkpoint", checkpoint, ...words("--env lookup --suite"));
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/only hopqa has an evaluation suite, got --env lookup/);
  }, 120_000);

  it("eval --constrained decodes under the legal actions; an environment that declares none is refused, exit 2", async () => {
    const checkpoint = join(out, "grpo", "checkpoints", "v00002");
    const run = await cli(
      "eval",
      "--checkpoint",
      checkpoint,
      ...words("--env hopqa --split test --episodes 4 --constrained"),
    );
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({ env: "hopqa", constrained: true, episodes: 4 });
    const refused = await cli(
      ...words("train --env ./test/reliability/fixtures/bulky-env.ts --constrained --steps 1 --out"),
      join(tempDir(), "refused"),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /--constrained \(constrained: true from code\): environment \S+ declares no legal actions/,
    );
  }, 120_000);

  it("eval without --env or --constrained follows what it knows of the checkpoint, and says so", async () => {
    const last = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    // A run folder: its environment and its constrained decoding, from its config.json (npm start trains constrained).
    const run = await cli("eval", "--checkpoint", join(out, "grpo"), ...words("--split test --episodes 2"));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/eval: --env not given: hopqa, from .*config\.json/);
    expect(run.stderr).toMatch(/eval: --constrained, as the run was trained/);
    expect(last(run.stdout)).toMatchObject({ env: "hopqa", split: "test", constrained: true, episodes: 2 });
    const free = await cli(
      "eval",
      "--checkpoint",
      join(out, "grpo"),
      ...words("--split test --episodes 2 --no-constrained"),
    );
    expect(free.code, free.stderr).toBe(0);
    expect(free.stderr).not.toMatch(/decoding freely|as the run was trained/);
    expect(last(free.stdout)).toMatchObject({ constrained: false });
    // A shipped checkpoint, outside any run folder: the built-in environment whose tokenizer it carries,
    // and a note that it decodes freely where hopqa declares legal actions.
    const shipped = await cli(
      ...words("eval --checkpoint docs/checkpoints/hopqa-copy-warm-start --split test --episodes 2"),
    );
    expect(shipped.code, shipped.stderr).toBe(0);
    expect(shipped.stderr).toContain(
      "eval: --env not given: hopqa, whose tokenizer docs/checkpoints/hopqa-copy-warm-start carries",
    );
    expect(shipped.stderr).toMatch(/note: decoding freely: hopqa declares legal actions.*add --constrained/);
    expect(last(shipped.stdout)).toMatchObject({ env: "hopqa", constrained: false });
    // A checkpoint that is not there names those that are.
    const missing = await cli("eval", "--checkpoint", join(out, "grpo", "checkpoints", "v00009"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no checkpoint at .*v00009; checkpoints in .*checkpoints: v00002$/m);
    const lookup = await cli(...words("eval --env lookup --split ood --checkpoint"), join(out, "grpo"));
    expect(lookup.code).toBe(2);
    expect(lookup.stderr).toMatch(/--split: environment lookup takes no options/);
  }, 120_000);
});

describe("record --env hopqa?split=test", () => {
  it("names the options the environment ran with in its summary", async () => {
    const run = await cli(
      ...words("record --env hopqa?split=test --policy expert --episodes 2 --seed q --out"),
      join(tempDir(), "rec"),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^recorded 2 episodes of hopqa \(split test, worlds 1-1000, top-k 2, wording outer, legal types, left none\) with hopqa-expert into /,
    );
  }, 60_000);
});

describe("train --env hopqa without --init", () => {
  it("says that hopqa has no default warm start and names the shipped clone (--no-warm-start silences it), and when it trains on held-out questions", async () => {
    const tiny = words("--steps 1 --tasks 1 --group-size 2 --eval-episodes 0 --layers 1 --width 16 --heads 2 --out");
    const fresh = await cli("train", "--env", "hopqa", ...tiny, join(tempDir(), "fresh"));
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(
      /note: hopqa declares no default warm start and no --init was given, so RL starts from a fresh, untrained model.*--init DIR \(docs\/checkpoints\/hopqa-copy-warm-start/,
    );
    // Under constrained decoding too (README: "without --init, train says so", of a --constrained command), with
    // the reason that applies there: every action is well formed, but the model has seen no demonstration.
    const constrained = await cli("train", "--env", "hopqa", "--constrained", ...tiny, join(tempDir(), "constrained"));
    expect(constrained.code, constrained.stderr).toBe(0);
    expect(constrained.stderr).toMatch(
      /note: hopqa declares no default warm start and no --init was given, so RL starts from a fresh, untrained model, whose actions --constrained keeps legal but which has seen no demonstration of the task; start from a clone with --init DIR \(docs\/checkpoints\/hopqa-copy-warm-start/,
    );
    expect(constrained.stderr).not.toMatch(/rarely writes a well-formed action/);
    const meant = await cli("train", "--env", "hopqa", "--no-warm-start", ...tiny, join(tempDir(), "meant"));
    expect(meant.code, meant.stderr).toBe(0);
    expect(meant.stderr).not.toMatch(/declares no default warm start/);
    expect(meant.stderr).not.toMatch(/training on hopqa's split/);
    const heldOutRun = join(tempDir(), "held-out");
    const heldOut = await cli("train", "--env", "hopqa?split=test", "--no-warm-start", ...tiny, heldOutRun);
    expect(heldOut.code, heldOut.stderr).toBe(0);
    expect(heldOut.stderr).toMatch(/note: training on hopqa's split test: these are questions held out for evaluation/);
    // Its eval on that split does not call the questions held out: in the worlds it trained in, it warns.
    const scored = await cli("eval", "--checkpoint", heldOutRun, "--split", "test", "--episodes", "1");
    expect(scored.code, scored.stderr).toBe(0);
    expect(scored.stderr).toContain(
      `warning: eval draws split test questions from worlds 1-1000, which training drew from too (hopqa?split=test, ${join(heldOutRun, "config.json")})`,
    );
    expect(scored.stderr).not.toMatch(/held-out questions in the training worlds/);
  }, 180_000); // five CLI processes: about 40 s alone, more when the cores are shared
});

describe("eval of a run on what it trained on", () => {
  it("warns that the score measures memory when the world and split are ones training drew from, and says so in the summary", async () => {
    const run = join(tempDir(), "few-worlds");
    const tiny = words("--steps 1 --tasks 1 --group-size 2 --eval-episodes 0 --layers 1 --width 16 --heads 2");
    const trained = await cli("train", "--env", "hopqa?worlds=1-50", "--no-warm-start", ...tiny, "--out", run);
    expect(trained.code, trained.stderr).toBe(0);
    const seen = await cli("eval", "--checkpoint", run, "--world-seed", "7", "--episodes", "1");
    expect(seen.code, seen.stderr).toBe(0);
    expect(seen.stderr).toContain(
      `warning: eval draws split train questions from world 7, which training drew from too (hopqa?worlds=1-50, ${join(run, "config.json")}): the score then measures memory of the training questions, not search; --split test or ood, or a --world-seed outside 1-50, scores unseen ones\n`,
    );
    expect(JSON.parse(seen.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      "world-seed": "7",
      overlapsTraining: true,
    });
    // A world training never drew from: no warning (and no note calling them training questions).
    const unseen = await cli("eval", "--checkpoint", run, "--world-seed", "51", "--episodes", "1");
    expect(unseen.code, unseen.stderr).toBe(0);
    expect(unseen.stderr).not.toMatch(/training drew from|training questions/);
    expect(JSON.parse(unseen.stdout.trim().split("\n").at(-1)!)).toMatchObject({ overlapsTraining: false });
  }, 60_000);
});

describe("train --constrained with legal actions longer than the context", () => {
  it("aborts every episode, and training says why instead of learning from nothing", async () => {
    // weather answering in sentences: "the" is not in its vocabulary, so a legal action takes 19 tokens, and
    // a 16-token context has no room for them.
    const module = join(tempDir(), "wordy-weather.mts");
    writeFileSync(
      module,
      `import weather from ${JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href)};\n` +
        `import { formatAnswer } from ${JSON.stringify(pathToFileURL(resolve("src/index.ts")).href)};\n` +
        "export default { ...weather, legalActions: ({ task }: { task: { a: string; b: string } }) =>\n" +
        '  [task.a, task.b].map((city) => formatAnswer("the warmer city is " + city)) };\n',
    );
    const cramped = await cli(
      ...words(`train --env ${module} --constrained --context-length 16 --steps 1 --tasks 2`),
      ...words("--group-size 2 --eval-episodes 0 --out"),
      join(tempDir(), "cramped"),
    );
    // Found once the update ran, not from the flags alone: a failed run (exit 1), as any update that aborts every episode.
    expect(cramped.code, cramped.stderr).toBe(1);
    expect(cramped.stderr).toMatch(
      /every episode of update 1 of \d+ was aborted: .*a legal action of .* takes 19 tokens, which leaves no room for a context in contextLength 16/,
    );
    // eval of a checkpoint whose every episode aborts fails too (exit 1), blaming the aborts.
    const run = join(tempDir(), "roomy");
    const trained = await cli(
      ...words("train --env actors/weather/env.ts --no-warm-start --context-length 16 --steps 1 --tasks 1"),
      ...words("--group-size 2 --eval-episodes 0 --out"),
      run,
    );
    expect(trained.code, trained.stderr).toBe(0);
    const scored = await cli("eval", "--env", module, "--constrained", "--checkpoint", run, "--episodes", "2");
    expect(scored.code, scored.stderr).toBe(1);
    expect(scored.stderr).toMatch(
      /warning: eval of .*roomy.* on weather, 2 episodes of seed "eval": mean return 0\.000 \(no episode ended, so no success to count\); 2 of 2 episodes aborted/,
    );
    expect(scored.stderr).toContain("eval: all 2 episodes aborted, so nothing was scored");
    expect(JSON.parse(scored.stdout.trim().split("\n").at(-1) ?? "{}")).toMatchObject({ episodes: 2, aborted: 2 });
  }, 120_000);
});

describe("sft --all-episodes (cloning a demonstrator that is often wrong)", () => {
  it("clones only successful episodes unless told, and says how to clone the rest", async () => {
    const dir = tempDir();
    const demos = join(dir, "demos");
    expect((await cli(...words(`record --env hopqa --policy hasty --episodes 12 --seed 3 --out ${demos}`))).code).toBe(
      0,
    );
    const tiny = "--layers 1 --heads 2 --width 16 --epochs 1 --batch-size 4";
    const some = await cli(...words(`sft --env hopqa --data ${demos} --out ${join(dir, "some")} ${tiny}`));
    expect(some.code, some.stderr).toBe(0);
    const skipped = Number(
      /sft: (\d+) of 12 episodes did not succeed and are not cloned \(sft --all-episodes/.exec(some.stderr)?.[1],
    );
    expect(skipped).toBeGreaterThan(0); // the hasty demonstrator stops early on most questions
    expect(some.stdout).toContain(`cloned ${12 - skipped} episodes`);
    const all = await cli(...words(`sft --env hopqa --data ${demos} --out ${join(dir, "all")} ${tiny} --all-episodes`));
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("cloned 12 episodes");
    expect(all.stderr).not.toContain("did not succeed");
    // None succeeded: the error itself says why there is nothing to clone, and how to clone them anyway.
    const failed = join(dir, "failed");
    expect((await cli(...words(`record --env hopqa --policy random --episodes 3 --out ${failed}`))).code).toBe(0);
    const none = await cli(...words(`sft --env hopqa --data ${failed} --out ${join(dir, "none")} ${tiny}`));
    expect(none.code).toBe(2);
    expect(none.stderr.trim().split("\n").at(-1)).toMatch(
      /^error: no episode to clone: of the 3 journals, 3 did not succeed; .*--all-episodes .* clones the unsuccessful ones too$/,
    );
  }, 120_000);
});

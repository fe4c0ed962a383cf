/** `npm run experiment`'s guards: mistakes that would cost hours are refused at once, with what to do. */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { runCaptured, tempDir } from "../support/index.ts";

/** `npm run experiment -- ...args` as a user runs it, in a new process: for its exit status and the one line it says. */
const spawned = (...args: string[]) => {
  const run = spawnSync(process.execPath, ["bin/run-ts.js", "actors/hopqa/experiment.ts", ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: run.status, stderr: run.stderr, stdout: run.stdout };
};
/** The same command in this process (runExperiment, what the script runs): its messages, files and exit code. */
const experiment = async (...args: string[]) => {
  const { runExperiment } = await import("../../actors/hopqa/experiment.ts");
  return runCaptured(() => runExperiment(args));
};

describe("npm run experiment", () => {
  it("Ctrl-C stops the runs in progress at a checkpoint, waits for them, says what is kept and how to go on", async () => {
    const root = tempDir("agent-r1-experiment-int-");
    const out = join(root, "runs");
    const docs = join(root, "docs");
    const args = ["--quick", "--only", "grpo", "--seeds", "1", "--jobs", "1", "--out", out, "--docs", docs];
    const child = spawn(process.execPath, ["bin/run-ts.js", "actors/hopqa/experiment.ts", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    // Once its run is training (the warm start cloned, the run's config.json written).
    const run = join(out, "grpo-s0");
    while (!existsSync(join(run, "config.json"))) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGINT");
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain("interrupted: the run in progress finishes its update");
    // It waited for its run: the run's log holds the run's own stop message, its checkpoint is written, and
    // it is not scored (a suite.json would mark it finished, and the next sitting would skip it).
    expect(existsSync(join(run, "log.txt"))).toBe(true);
    expect(readFileSync(join(run, "log.txt"), "utf8")).toContain("interrupted: finishing what runs now");
    expect(existsSync(join(run, "checkpoints", "latest.json"))).toBe(true);
    expect(existsSync(join(run, "suite.json"))).toBe(false);
    expect(stdout).toContain("grpo-s0: stopped at its last checkpoint (it resumes from there)");
    // The page says so too: stopped, not failed (it said "failed: grpo-s0 (see their log.txt)").
    const page = readFileSync(join(docs, "results.md"), "utf8");
    expect(page).toContain("n=0; stopped: grpo-s0 (they resume)");
    expect(page).not.toContain("failed: grpo-s0");
    expect(stderr).toContain(
      `interrupted: every run stopped; finished runs are kept in ${out} (and recorded in ${join(docs, "run-records")})`,
    );
    expect(stderr).toContain(`run \`npm run experiment -- ${args.join(" ")}\` again to go on`);
  }, 120_000);

  it("Ctrl-C while the warm start is cloned: its step finishes, its progress and demonstrations are kept, exit 130", async () => {
    const root = tempDir("agent-r1-experiment-warm-int-");
    const out = join(root, "runs");
    const args = [
      "--quick",
      "--only",
      "grpo",
      "--seeds",
      "1",
      "--jobs",
      "1",
      "--out",
      out,
      "--docs",
      join(root, "docs"),
    ];
    const child = spawn(process.execPath, ["bin/run-ts.js", "actors/hopqa/experiment.ts", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let sent = false;
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      // The demonstrations recorded: the cloning is starting.
      if (!sent && /record hopqa: 16\/16/.test(stderr)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain("interrupted: the warm start's cloning finishes its step and saves its progress");
    expect(stderr).toContain(
      `interrupted: the warm start's cloning stopped; its demonstrations and the cloning's progress (its steps up to the stop) are kept in ${out}; run \`npm run experiment -- ${args.join(" ")}\` again to go on`,
    );
    expect(existsSync(join(out, "demos-recorded.json"))).toBe(true);
    expect(readdirSync(join(out, "demos")).filter((f) => f.endsWith(".jsonl"))).toHaveLength(16);
    // No baselines and no run: the warm start is not finished.
    expect(existsSync(join(out, "baselines.json"))).toBe(false);
    expect(existsSync(join(out, "grpo-s0"))).toBe(false);
  }, 120_000);

  it("the page written when one run ends names its sibling still running as running, not failed (logs grow as runs go)", async () => {
    const { writeReport } = await import("../../actors/hopqa/experiment.ts");
    const root = tempDir("agent-r1-experiment-running-");
    for (const [name, log] of [
      ["grpo-s0", "train grpo: 3/15\n"],
      ["ppo-s0", "Error: out of memory\n"],
    ]) {
      mkdirSync(join(root, "runs", name), { recursive: true });
      writeFileSync(join(root, "runs", name, "log.txt"), log);
    }
    const docs = join(root, "docs");
    await writeReport(join(root, "runs"), 1, docs, "npm run experiment", new Set(["grpo-s0"]));
    const page = readFileSync(join(docs, "results.md"), "utf8");
    expect(page).toMatch(/\| GRPO \|.*n=0; running: grpo-s0 \|/);
    expect(page).toMatch(/\| PPO \|.*n=0; failed: ppo-s0 \(see their log.txt\) \|/);
  });

  it("refuses a folder whose runs were trained with another plan, before building anything", async () => {
    // A run of the 15-update table, as its config.json records it; --long would skip it and report it.
    const out = join(tempDir(), "experiment-plan");
    mkdirSync(join(out, "grpo-s0"), { recursive: true });
    writeFileSync(
      join(out, "grpo-s0", "config.json"),
      JSON.stringify({ steps: 15, tasksPerStep: 8, groupSize: 8, temperature: 1, minibatches: 1, epochs: 1 }),
    );
    const run = await experiment("--long", "--out", out);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(out, "grpo-s0")} was trained with another plan (steps 15, not 45;`);
    expect(run.stderr).toContain("give this experiment its own --out");
    expect(run.stderr).not.toMatch(/\n\s+at /); // one line, no stack
    expect(existsSync(join(out, "warm-start"))).toBe(false);
    // --report too: another plan's finished runs would be recorded and reported as this plan's.
    writeFileSync(join(out, "grpo-s0", "suite.json"), "{}");
    const report = await experiment("--long", "--report", "--out", out, "--docs", join(tempDir(), "docs"));
    expect(report.code).toBe(2);
    expect(report.stderr).toContain("was trained with another plan (steps 15, not 45;");
  }, 60_000);

  it("refuses a --docs page of another plan, a --warm-start that is no checkpoint, and a wrong flag (exit 2)", async () => {
    // docs/ holds the 15-update table: --long (or --quick) must not replace its page and best checkpoint.
    let run = await experiment("--long", "--report", "--out", join(tempDir(), "none"), "--docs", "docs");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("docs/results.md is the page of another plan (steps 15, not 45;");
    const out = join(tempDir(), "experiment-warm");
    run = await experiment("--warm-start", "docs/checkpoints/nope", "--out", out, "--docs", join(tempDir(), "docs"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "error: --warm-start docs/checkpoints/nope: checkpoint docs/checkpoints/nope/manifest.json: missing",
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, "warm-start"))).toBe(false);
    run = await experiment("--qiuck");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("(Did you mean --quick?)");
  }, 60_000);

  it("refuses a --warm-start of turn-local attention for a plan of full attention, before anything is copied", async () => {
    // The recipe's shape but turn-local (a clone made for --possessive's attention): the shipped plans ran full
    // attention, and a run from it would train another model than the page describes.
    const [{ initBackend }, { Gpt }, { saveCheckpoint }, { hopqa }, { recipeModel, COPY_WARM_START }] =
      await Promise.all([
        import("../../src/policy/backend.ts"),
        import("../../src/policy/gpt.ts"),
        import("../../src/policy/checkpoint.ts"),
        import("../../actors/hopqa/index.ts"),
        import("../../actors/hopqa/warm-start.ts"),
      ]);
    await initBackend("wasm", { log: () => {} });
    const from = join(tempDir(), "turn-local");
    const model = new Gpt({ ...recipeModel(COPY_WARM_START), attention: "turn-local", turnStarts: [1] }, "local");
    await saveCheckpoint(from, { model, tokenizer: hopqa.tokenizer as WordTokenizer, version: 0 });
    model.dispose();
    const out = join(tempDir(), "experiment-turn-local");
    const run = await experiment("--quick", "--warm-start", from, "--out", out, "--docs", join(tempDir(), "docs"));
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--warm-start ${from}: not this recipe's model (attention turn-local, not full)`);
    expect(existsSync(join(out, "warm-start"))).toBe(false);
  }, 60_000);

  it("refuses a folder or page whose warm start came from another demonstrator (--hasty vs the expert's)", async () => {
    // The expert table's folder: its baselines were scored on the expert's clone, with no recipe.json.
    const out = join(tempDir(), "experiment-expert");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "baselines.json"), "{}");
    let run = await experiment("--hasty", "--out", out, "--docs", join(tempDir(), "docs"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${out} holds a warm start cloned from the expert demonstrator, not the hasty`);
    // A hasty folder, the other way round.
    const hasty = join(tempDir(), "experiment-hasty");
    mkdirSync(hasty, { recursive: true });
    writeFileSync(join(hasty, "recipe.json"), JSON.stringify({ demonstrator: "hasty" }));
    run = await experiment("--explore", "--out", hasty, "--docs", join(tempDir(), "docs"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cloned from the hasty demonstrator, not the expert");
    // The expert's page (docs/, written before the demonstrator was recorded) is not the hasty plan's.
    run = await experiment("--hasty", "--report", "--out", join(tempDir(), "none"), "--docs", "docs");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("docs/results.md is the page of another plan (");
    expect(run.stderr).toContain("demonstrator expert, not hasty");
    run = await experiment("--hasty", "--no-copy-head");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--hasty clones into a model with the copy head: drop --no-copy-head");
  }, 60_000);

  it("--half-hasty has its own folders and refuses the hasty plan's, and the two warm starts together", async () => {
    const hasty = join(tempDir(), "experiment-hasty-2");
    mkdirSync(hasty, { recursive: true });
    writeFileSync(join(hasty, "recipe.json"), JSON.stringify({ demonstrator: "hasty" }));
    let run = await experiment("--half-hasty", "--out", hasty, "--docs", join(tempDir(), "docs"));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("cloned from the hasty demonstrator, not the half-hasty");
    // The hasty table's page is not the half-hasty plan's (same RL budget, another clone).
    run = await experiment("--half-hasty", "--report", "--out", join(tempDir(), "none"), "--docs", "docs/hasty");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("demonstrator hasty, not half-hasty");
    run = await experiment("--half-hasty", "--hasty");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--hasty and --half-hasty are two warm starts: give one");
  }, 60_000);

  it("--possessive trains and scores on the variant, in folders of its own, and refuses the shipped plan's", async () => {
    const root = tempDir("agent-r1-experiment-possessive-");
    const out = join(root, "runs");
    const docs = join(root, "docs");
    let run = await experiment(
      "--possessive",
      "--quick",
      "--only",
      "grpo",
      "--seeds",
      "1",
      "--out",
      out,
      "--docs",
      docs,
    );
    expect(run.code, run.stderr).toBe(0);
    // The page was written after the run, so the last line says so (it said "already says this (left as it is)":
    // its last report, after the run's, found nothing new).
    expect(run.stdout).toContain(`runs finished; wrote ${join(docs, "results.md")}`);
    // The warm start is cloned on the variant with turn-local attention, and the run trains on the variant.
    const warm = JSON.parse(readFileSync(join(out, "warm-start", "config.json"), "utf8"));
    expect(warm.attention).toBe("turn-local");
    const sft = JSON.parse(readFileSync(join(out, "warm-start", "sft.json"), "utf8"));
    expect(JSON.stringify(sft)).toContain("hopqa?legal=relations&wording=possessive");
    const config = JSON.parse(readFileSync(join(out, "grpo-s0", "config.json"), "utf8"));
    expect(config.env).toBe("hopqa?legal=relations&wording=possessive");
    // Its train config states the warm start's attention (train refuses one that is not the checkpoint's).
    expect(config.model.attention).toBe("turn-local");
    expect(existsSync(join(out, "grpo-s0", "suite.json"))).toBe(true);
    const page = readFileSync(join(docs, "results.md"), "utf8");
    expect(page).toContain("- Environment: `hopqa?legal=relations&wording=possessive`");
    expect(page).toContain('eval --env "hopqa?legal=relations&wording=possessive" --checkpoint');
    expect(page).toContain("under `legal=relations`");
    // The shipped hopqa's plans refuse this folder: its runs (trained on the variant), its warm start (cloned
    // on it, by the same demonstrator) and its page.
    const explore = () =>
      experiment("--explore", "--quick", "--only", "grpo", "--seeds", "1", "--out", out, "--docs", join(root, "d2"));
    run = await explore();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "was trained with another plan (env hopqa?legal=relations&wording=possessive, not hopqa)",
    );
    rmSync(join(out, "grpo-s0"), { recursive: true });
    run = await explore();
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "holds a warm start cloned on hopqa?legal=relations&wording=possessive, not hopqa: give this experiment its own --out",
    );
    run = await experiment("--quick", "--report", "--out", join(root, "none"), "--docs", docs);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("is the page of another plan (");
    for (const other of ["--hasty", "--explore", "--no-copy-head"]) {
      run = await experiment("--possessive", other);
      expect(run.code, other).toBe(2);
      expect(run.stderr).toContain(
        `--possessive is a plan of its own (its warm start, 30 updates sampled as --explore): drop ${other}`,
      );
    }
  }, 180_000);

  it("refuses an option of one value given twice, a flag with its negation, and an option that took the next as its value, before any work (exit 2)", async () => {
    const out = join(tempDir(), "experiment-repeated");
    // --quick --report, so that were the flags let through (the last kept), nothing is built: a report of no runs.
    for (const [args, said] of [
      [["--seeds", "1", "--out", out, "--seeds", "3"], "--seeds given twice (1, 3): give it once"],
      [["--out", out, "--only", "grpo", "--only=ppo"], "--only given twice (grpo, ppo): give it once"],
      [["--out", out, "--copy-head", "--no-copy-head"], "--copy-head and --no-copy-head both given: give one of them"],
      // A value forgotten: `--out --quick` made a folder named --quick and ran the full plan, not the quick one.
      [
        ["--out", "--only", "grpo"],
        '--out took "--only" as its value: give --out <dir> before --only (or, for the value "--only", --out=--only)',
      ],
      [
        ["--out", out, "--docs", "--seeds=1"],
        '--docs took "--seeds=1" as its value: give --docs <dir> before --seeds (or, for the value "--seeds=1", --docs=--seeds=1)',
      ],
    ] as const) {
      const run = await experiment("--quick", "--report", ...args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toBe(`error: ${said}\n`);
    }
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("refuses a file as --out or --docs before any work, in one line (exit 2)", async () => {
    const dir = tempDir();
    const file = join(dir, "a-file");
    writeFileSync(file, "mine\n");
    const out = spawned("--quick", "--only", "grpo", "--seeds", "1", "--out", file);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe(`error: --out ${file} is a file, not a folder: give a folder (created if missing)\n`);
    const docs = await experiment(
      "--quick",
      "--only",
      "grpo",
      "--seeds",
      "1",
      "--out",
      join(dir, "runs"),
      "--docs",
      file,
    );
    expect(docs.code).toBe(2);
    expect(docs.stderr).toContain(`error: --docs ${file} is a file, not a folder`);
    expect(existsSync(join(dir, "runs"))).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("mine\n");
  }, 60_000);

  it("names the known groups when --only has an unknown one, before the warm start", async () => {
    const out = join(tempDir(), "experiment-only");
    const run = spawned("--only", "grpo,gpro", "--out", out);
    expect(run.code).toBe(2);
    // One line, `error: ` as every other error of the command line says.
    expect(run.stderr).toMatch(/^error: unknown group\(s\) gpro; known: ppo, grpo,[^\n]*\n$/);
    expect(existsSync(join(out, "warm-start"))).toBe(false);
  }, 60_000);

  it("a resumed run's train time counts the updates it made before it was killed (from metrics.jsonl)", async () => {
    const { updateSeconds } = await import("../../actors/hopqa/experiment.ts");
    const dir = tempDir();
    expect(updateSeconds(dir)).toBe(0);
    const line = (sample: number, train: number) =>
      JSON.stringify({ step: 0, sampleSeconds: sample, trainSeconds: train });
    writeFileSync(join(dir, "metrics.jsonl"), `${line(20, 5)}\n${line(18.5, 4)}\n{"step":2,"sampleSec`);
    expect(updateSeconds(dir)).toBeCloseTo(47.5, 9);
  });

  it("--report with no finished run leaves the committed results page alone", async () => {
    const docs = join(tempDir(), "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "results.md"), "the committed table\n");
    const run = await experiment("--report", "--out", join(tempDir(), "no-runs"), "--docs", docs);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--report: no finished run in \S+no-runs and no run record in \S+run-records, so nothing to report; .*results\.md is left/,
    );
    expect(readFileSync(join(docs, "results.md"), "utf8")).toBe("the committed table\n");
  }, 60_000);

  // The long plan's settings, as a run's config.json and a run record keep them.
  const LONG = {
    steps: 45,
    tasksPerStep: 16,
    groupSize: 8,
    temperature: 2,
    epochs: 1,
    minibatches: 4,
    lr: 0.0003,
    klCoef: 0.05,
    constrained: true,
  };
  const score = (em: number) => ({ em, f1: em, grounded: em, episodes: 100 });
  /** A finished run folder as runOne leaves it: config.json, metrics.jsonl, suite.json. */
  const fakeRun = (out: string, name: string, ems: [number, number, number], minutes: number) => {
    mkdirSync(join(out, name), { recursive: true });
    writeFileSync(join(out, name, "config.json"), JSON.stringify({ ...LONG, algo: "grpo" }));
    const metrics = [
      [0, 0.5, 0.4],
      [1, 0.6, 0.5],
      [2, 0.7, 0.6],
    ].map(([step, meanReturn, successRate]) => JSON.stringify({ step, meanReturn, successRate }));
    writeFileSync(join(out, name, "metrics.jsonl"), `${metrics.join("\n")}\n`);
    const [a, b, c] = ems;
    writeFileSync(
      join(out, name, "suite.json"),
      JSON.stringify({
        "test-seen": score(a),
        "test-new": score(b),
        "ood-new": score(c),
        average: (a + b + c) / 3,
        trainSeconds: minutes * 60,
        steps: 45,
      }),
    );
  };
  const runsTable = (page: string) => page.slice(page.indexOf("## Runs"));

  it("records finished runs next to the page, so --report on a fresh clone (no run folders) writes the same table", async () => {
    const out = join(tempDir(), "runs");
    const docs = join(tempDir(), "docs");
    fakeRun(out, "grpo-s0", [0.8, 0.9, 0.1], 30);
    fakeRun(out, "ppo-s0", [0.7, 0.6, 0.2], 40);
    writeFileSync(
      join(out, "baselines.json"),
      JSON.stringify({
        base: { "test-seen": score(0.7), "test-new": score(0.75), "ood-new": score(0.1), average: 0.5167 },
        rag: { "test-seen": score(0.1), "test-new": score(0.1), "ood-new": score(0.05), average: 0.0833 },
      }),
    );
    expect((await experiment("--long", "--report", "--out", out, "--docs", docs)).code).toBe(0);
    const first = readFileSync(join(docs, "results.md"), "utf8");
    expect(readdirSync(join(docs, "run-records")).sort()).toEqual([
      "baselines.json",
      "grpo-s0.json",
      "plan.json",
      "ppo-s0.json",
    ]);
    const record = JSON.parse(readFileSync(join(docs, "run-records", "grpo-s0.json"), "utf8"));
    expect(record.plan).toEqual(LONG);
    expect(record.curve).toEqual([
      { update: 0, return: 0.5, em: 0.4 },
      { update: 1, return: 0.6, em: 0.5 },
      { update: 2, return: 0.7, em: 0.6 },
    ]);
    expect(first).toContain("| grpo-s0 | 0.800 | 0.900 | 0.100 | 0.600 | 30.0 |");
    expect(first).toContain("| GRPO | 0.800 | 0.900 | 0.100 | 0.600 | n=1, 30.000 min |");
    expect(first).toContain("| Base tool call (warm start, no RL, constrained decoding) | 0.700 | 0.750 | 0.100 |");

    rmSync(out, { recursive: true }); // the run folders are gone, as on a fresh clone
    rmSync(join(docs, "results.md"));
    expect((await experiment("--long", "--report", "--out", out, "--docs", docs)).code).toBe(0);
    const second = readFileSync(join(docs, "results.md"), "utf8");
    expect(runsTable(second)).toBe(runsTable(first));
    expect(second).toContain("| Base tool call (warm start, no RL, constrained decoding) | 0.700 | 0.750 | 0.100 |");
    expect(readFileSync(join(docs, "results-em.svg"), "utf8")).toContain("<svg");

    // A new sitting skips what the records hold: nothing of grpo-s0 is trained again.
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "baselines.json"), readFileSync(join(docs, "run-records", "baselines.json"))); // warm start done
    const again = await experiment("--long", "--only", "grpo", "--seeds", "1", "--out", out, "--docs", docs);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(
      `0 run(s) to do, 2 at a time (finished runs are skipped: 2 recorded in ${join(docs, "run-records")})`,
    );
    expect(existsSync(join(out, "grpo-s0"))).toBe(false);

    // A --report with nothing new leaves the page as it is, though its command differs (the page names the
    // command and the day it was written).
    expect((await experiment("--long", "--report", "--out", out, "--docs", docs)).code).toBe(0);
    const page = readFileSync(join(docs, "results.md"), "utf8");
    const same = await experiment("--long", "--report", "--jobs", "1", "--out", out, "--docs", docs);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain(`2/27 runs finished; ${join(docs, "results.md")} already says this (left as it is)`);
    expect(readFileSync(join(docs, "results.md"), "utf8")).toBe(page);

    // A run of a later seed is finished: a page of fewer --seeds would drop it, so that is refused.
    fakeRun(out, "rloo-s2", [0.6, 0.6, 0.1], 35);
    const fewer = await experiment("--long", "--report", "--seeds", "1", "--out", out, "--docs", docs);
    expect(fewer.code).toBe(2);
    expect(fewer.stderr).toContain(
      `--seeds 1: 1 finished or recorded runs are of later seeds (${out}, ${join(docs, "run-records")}), and ${join(docs, "results.md")} would drop them`,
    );
    expect(readFileSync(join(docs, "results.md"), "utf8")).toBe(page);
    expect((await experiment("--long", "--report", "--only", "grpo", "--out", out, "--docs", docs)).stderr).toContain(
      "--only chooses runs to train; --report reports every finished run",
    );
  }, 120_000);

  it("marks imported records with their source, and refuses a record of another plan or a malformed one by file", async () => {
    const docs = join(tempDir(), "docs");
    const runs = join(docs, "run-records");
    mkdirSync(runs, { recursive: true });
    const record = (run: string, plan: object, extra: object = {}) =>
      writeFileSync(
        join(runs, `${run}.json`),
        JSON.stringify({
          run,
          plan,
          suite: {
            "test-seen": { em: 0.5 },
            "test-new": { em: 0.6 },
            "ood-new": { em: 0 },
            average: 0.3667,
            trainSeconds: 600,
            steps: 45,
          },
          curve: [],
          ...extra,
        }),
      );
    record("rloo-s2", LONG, { source: "copied from an old page" });
    const out = join(tempDir(), "none");
    expect((await experiment("--long", "--report", "--out", out, "--docs", docs)).code).toBe(0);
    const page = readFileSync(join(docs, "results.md"), "utf8");
    expect(page).toContain("| rloo-s2 † | 0.500 | 0.600 | 0.000 | 0.367 | 10.0 |");
    expect(page).toContain("\n† copied from an old page.\n");

    record("grpo-s0", { ...LONG, steps: 15 });
    let run = await experiment("--long", "--report", "--out", out, "--docs", docs);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${join(runs, "grpo-s0.json")} records a run of another plan (steps 15, not 45)`);

    writeFileSync(
      join(runs, "grpo-s0.json"),
      JSON.stringify({ run: "grpo-s0", plan: LONG, suite: { average: "high" } }),
    );
    run = await experiment("--long", "--report", "--out", out, "--docs", docs);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${join(runs, "grpo-s0.json")}: not a run record (Missing key at ["suite"]["test-seen"]); fix or delete it`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(join(docs, "results.md"), "utf8")).toBe(page); // nothing rewritten
  }, 120_000);
});

/**
 * `train --resume`: a run continues with its own config.json, so flags that ask for something else are
 * refused (they were silently ignored), a folder that holds no run is refused (a new run was started in
 * it), and a run already at its --steps says so. In process through `main`; Ctrl-C in a child process.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { loadEnv, readRunConfig, train, trainConfigFor } from "../../src/learn/index.ts";
import { captureOutput, inFolder, interruptedCli, tempDir } from "../support/index.ts";

const output = captureOutput();
const run = join(tempDir("agent-r1-resume-"), "run");
const tiny = ["--no-warm-start", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];

describe("train --resume", () => {
  beforeAll(async () => {
    expect(await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", run])).toBe(0);
  }, 60_000);

  it("refuses flags that contradict the run's config.json, naming each and what the run has", async () => {
    const code = await main([
      "train",
      "--out",
      run,
      "--resume",
      "--steps",
      "2",
      "--lr",
      "0.5",
      "--layers",
      "3",
      "--env",
      "weather",
    ]);
    expect(code).toBe(2);
    expect(output.stderr).toContain(
      `error: --resume continues ${run} with its own config.json, so --lr 0.5 (the run has 0.001), --layers 3 (the run has 1), --env weather (the run has lookup) cannot apply`,
    );
    expect(readdirSync(join(run, "checkpoints")).filter((d) => d.startsWith("v"))).toEqual(["v00001"]);
  });

  it("accepts the run's own flags again (as a crashed command rerun with --resume passes them), and --steps extends it", async () => {
    expect(await main(["train", "--env", "lookup", "--steps", "2", ...tiny, ...shape, "--out", run, "--resume"])).toBe(
      0,
    );
    expect(output.stdout).toContain("for 1 update (policy version 2");
  }, 60_000);

  it("says when the run is already at --steps", async () => {
    expect(await main(["train", "--out", run, "--resume", "--steps", "2"])).toBe(0);
    expect(output.stderr).toContain(
      `${run} is already at policy version 2 of 2 updates: nothing to train; raise --steps`,
    );
  }, 60_000);

  it("refuses --steps below the run's policy version: --steps counts all its updates", async () => {
    expect(await main(["train", "--out", run, "--resume", "--steps", "1"])).toBe(2);
    expect(output.stderr).toContain(
      `error: --resume --steps 1: ${run} is already at policy version 2; --steps counts all the run's updates, so give more than 2 to continue it`,
    );
    // The run has done all its 2 updates: "drop --steps to finish it" would be advice that does nothing.
    expect(output.stderr).not.toContain("drop --steps");
    expect(readdirSync(join(run, "checkpoints")).filter((d) => d.startsWith("v"))).toEqual(["v00001", "v00002"]);
  });

  it("refuses a folder that does not exist (a misspelt --out started a whole new run)", async () => {
    const missing = join(tempDir("agent-r1-resume-missing-"), "nope");
    expect(await main(["train", "--out", missing, "--resume", "--steps", "1"])).toBe(2);
    expect(output.stderr).toContain(`error: --resume: no run folder ${missing}; give the --out of the run to continue`);
    expect(existsSync(missing)).toBe(false);
  });

  it("names a misspelt field of an edited config.json, then every wrong value at once, and leaves the run as it was", async () => {
    const edited = join(tempDir("agent-r1-resume-edited-"), "run");
    cpSync(run, edited, { recursive: true });
    const file = join(edited, "config.json");
    const config = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...config, grupSize: 3, lr: "abc", tasksPerStep: -2 }));
    expect(await main(["train", "--out", edited, "--resume", "--steps", "3"])).toBe(2);
    expect(output.stderr).toContain(`error: ${file}: no field \`grupSize\` (did you mean \`groupSize\`?)`);
    writeFileSync(file, JSON.stringify({ ...config, lr: "abc", tasksPerStep: -2 }));
    expect(await main(["train", "--out", edited, "--resume", "--steps", "3"])).toBe(2);
    const line = output.stderr.split("\n").find((l) => l.startsWith(`error: ${file}: Expected`)) ?? "";
    expect(line).toContain('at ["lr"]');
    expect(line).toContain('at ["tasksPerStep"]');
    expect(readdirSync(join(edited, "checkpoints")).filter((d) => d.startsWith("v"))).toEqual(
      readdirSync(join(run, "checkpoints")).filter((d) => d.startsWith("v")),
    );
  });

  it("says which checkpoints it sets aside when latest.json is gone, not that there are none", async () => {
    const unnamed = join(tempDir("agent-r1-resume-unnamed-"), "run");
    cpSync(run, unnamed, { recursive: true });
    rmSync(join(unnamed, "checkpoints", "latest.json"));
    expect(await main(["train", "--out", unnamed, "--resume", "--steps", "1"])).toBe(0);
    expect(output.stderr).toContain(
      `${unnamed}/checkpoints has no latest.json, which names the checkpoint a resume starts from: starting from the beginning, and v00001, v00002 go to ${unnamed}/dropped-checkpoints`,
    );
    expect(output.stderr).not.toContain("no checkpoint in");
    expect(readdirSync(join(unnamed, "dropped-checkpoints")).sort()).toEqual(["v00001", "v00002"]);
  }, 60_000);

  it("starts a new run in an empty folder (a run killed before it wrote anything) from the command's flags, as docs/training.md says", async () => {
    const empty = tempDir("agent-r1-resume-empty-");
    expect(
      await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", empty, "--resume"]),
    ).toBe(0);
    const said = `no run in ${empty} yet (no config.json): starting one there from the beginning, with the config given`;
    expect(output.stderr).toContain(said);
    expect(output.stderr).not.toContain("no checkpoint in");
    expect(JSON.parse(readFileSync(join(empty, "config.json"), "utf8"))).toMatchObject({ env: "lookup", steps: 1 });
    // docs/training.md (README's "Train a policy" in full) tells this case apart from a folder that does not exist
    // (refused, above).
    const doc = readFileSync("docs/training.md", "utf8").replace(/\s+/g, " ");
    expect(doc).toContain(
      "an empty folder (a run killed before it wrote anything) starts a new run there from the command's own flags, saying `no run in DIR yet (no config.json): starting one there from the beginning, with the config given`",
    );
  }, 60_000);

  it("a run so started and stopped during its warm start resumes with the config it was started with, not the defaults", async () => {
    // Its config.json was written only after the warm start: the resume it suggested ran 40 updates of 8 x 8.
    const empty = tempDir("agent-r1-resume-empty-warm-");
    const lookup = await loadEnv("lookup");
    const config = trainConfigFor(lookup, {
      steps: 2,
      tasksPerStep: 2,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: { episodes: 8, epochs: 1 },
      model: { layers: 1, heads: 2, width: 16 },
    });
    const stopping = new AbortController();
    const lines: string[] = [];
    const log = (line: string) => {
      lines.push(line);
      if (line.startsWith("warm start: recording")) stopping.abort(new Error("stopped by the test"));
    };
    const stopped = await train({ env: lookup, config, out: empty, resume: true, signal: stopping.signal, log });
    expect(stopped.stopped).toBe(true);
    expect(lines.join("\n")).toContain(
      `no run in ${empty} yet (no config.json): starting one there from the beginning`,
    );
    expect(readRunConfig(empty)).toMatchObject({ steps: 2, tasksPerStep: 2, groupSize: 2, evalEpisodes: 0 });
    // The CLI's bare resume goes on with it.
    expect(await main(["train", "--out", empty, "--resume", "--json"])).toBe(0);
    expect(JSON.parse(output.stdout)).toMatchObject({ version: 2, steps: 2 });
  }, 120_000);

  it("refuses a folder that holds other files and no run", async () => {
    const other = tempDir("agent-r1-resume-other-");
    writeFileSync(join(other, "ep-0-0.jsonl"), "");
    mkdirSync(join(other, "notes"));
    expect(await main(["train", "--out", other, "--resume", "--steps", "1"])).toBe(2);
    expect(output.stderr).toContain(
      `--resume: ${other} holds no training run (no config.json) but other files (ep-0-0.jsonl, notes)`,
    );
    expect(readdirSync(other).sort()).toEqual(["ep-0-0.jsonl", "notes"]);
  });

  it("refuses a file, and a checkpoint folder, as the run to resume: what it is, not a stack trace or a missing field", async () => {
    const file = join(run, "config.json");
    expect(await main(["train", "--out", file, "--resume", "--steps", "3"])).toBe(2);
    expect(output.stderr).toContain(`error: ${file} is a file; a run's out (--out) is a folder`);
    const checkpoint = join(run, "checkpoints", "v00001");
    expect(await main(["train", "--out", checkpoint, "--resume", "--steps", "3"])).toBe(2);
    expect(output.stderr).toContain(
      `error: ${checkpoint} is a checkpoint (manifest.json, weights.bin, ...), not a run folder; start a run from it with --init ${checkpoint}`,
    );
  });
});

/**
 * A 500-update train in a child process, returned once its first update is on record (metrics.jsonl has a
 * line), while later ones are still to come: the moment a signal tests what an interrupted run keeps.
 */
const trainPastFirstUpdate = async (prefix: string) => {
  const dir = join(tempDir(prefix), "run");
  const child = spawn(
    process.execPath,
    ["bin/agent-r1.js", "train", "--env", "lookup", "--steps", "500", ...tiny, ...shape, "--out", dir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const said = { stdout: "", stderr: "" };
  child.stdout.on("data", (chunk) => {
    said.stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    said.stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  while (!existsSync(join(dir, "metrics.jsonl")) || readFileSync(join(dir, "metrics.jsonl"), "utf8") === "")
    await new Promise((r) => setTimeout(r, 100));
  return { dir, child, exited, said };
};

describe("train, Ctrl-C", () => {
  it("finishes the update, writes a checkpoint, prints the resume command and exits 130", async () => {
    const { dir, child, exited, said } = await trainPastFirstUpdate("agent-r1-sigint-");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    const { stderr, stdout } = said;
    expect(stderr).toContain(`; resume with: npx agent-r1 train --out ${dir} --resume`);
    // The result on stdout says so too (a log of stdout alone read as a finished run).
    expect(stdout).toMatch(/^stopped at update \d+ of 500: trained grpo on lookup for \d+ updates? /);
    const versions = readdirSync(join(dir, "checkpoints")).filter((d) => d.startsWith("v"));
    expect(versions.length).toBeGreaterThan(0);
    expect(versions.length).toBeLessThan(500);
    // Resumed with a --steps below the run's 500, it ends there: one more update, not 500.
    const at = Math.max(...versions.map((v) => Number(v.slice(1))));
    expect(await main(["train", "--out", dir, "--resume", "--steps", String(at + 1)])).toBe(0);
    expect(output.stderr).toContain(`--steps ${at + 1}: ${dir} will end at ${at + 1} updates, not the 500`);
    expect(output.stdout).toContain(`for 1 update (policy version ${at + 1}`);
  }, 180_000);
});

describe("train, SIGTERM and SIGHUP (kill, timeout, docker stop, a scheduler's preemption, a closed terminal)", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)
    it(`${signal}: as Ctrl-C, finishes the update, writes a checkpoint, prints the resume command and exits ${code}`, async () => {
      const { dir, child, exited, said } = await trainPastFirstUpdate("agent-r1-sigterm-");
      child.kill(signal);
      const exitCode = await exited;
      const { stderr } = said;
      expect(exitCode, stderr).toBe(code);
      expect(stderr).toContain(`interrupted by ${signal}: finishing what runs now`);
      expect(stderr).toContain(`; resume with: npx agent-r1 train --out ${dir} --resume`);
      const versions = readdirSync(join(dir, "checkpoints")).filter((d) => d.startsWith("v"));
      expect(versions.length).toBeGreaterThan(0);
      // The lock is released: a resume is not refused.
      expect(existsSync(join(dir, ".agent-r1.lock"))).toBe(false);
    }, 180_000);
});

describe("train --resume from another folder", () => {
  it("finds relative --init and --env paths from the folder train was started in, never a namesake here", async () => {
    const root = tempDir("agent-r1-resume-rel-");
    const other = tempDir("agent-r1-resume-other-");
    // In this process, run from `cwd` (the next test runs agent-r1 in new processes from other folders).
    const cli = async (cwd: string, ...args: string[]) => {
      output.clear();
      const status = await inFolder(cwd, () => main(args));
      return { status, stdout: output.stdout, stderr: output.stderr };
    };
    const base = ["train", "--env", "lookup", ...tiny, ...shape];
    expect((await cli(root, ...base, "--steps", "1", "--out", "warm")).status).toBe(0);
    // Another folder holds a checkpoint of the same name, from another seed: a resume from there must not take it.
    expect((await cli(other, ...base, "--steps", "1", "--seed", "9", "--out", "warm")).status).toBe(0);
    expect((await cli(root, ...base, "--steps", "1", "--init", "warm", "--kl", "0.1", "--out", "run")).status).toBe(0);
    expect(JSON.parse(readFileSync(join(root, "run", "origin.json"), "utf8"))).toEqual({ startedIn: root });
    const elsewhere = await cli(other, "train", "--out", join(root, "run"), "--resume", "--steps", "2");
    expect(elsewhere.status, elsewhere.stderr).toBe(0);
    const meant = join(root, "warm", "checkpoints", "v00001");
    expect(elsewhere.stderr).toContain(
      `--resume from another folder than ${join(root, "run")} was started in (${root}): its --init is ${meant} (config.json now names it so)`,
    );
    expect(JSON.parse(readFileSync(join(root, "run", "config.json"), "utf8")).init).toBe(meant);
    // Not found there either (the run's checkpoint moved away): said, naming both folders.
    const moved = join(root, "run-moved");
    cpSync(join(root, "run"), moved, { recursive: true });
    writeFileSync(join(moved, "config.json"), readFileSync(join(moved, "config.json"), "utf8").replace(meant, "gone"));
    const lost = await cli(other, "train", "--out", moved, "--resume", "--steps", "3");
    expect(lost.status).toBe(2);
    expect(lost.stderr).toContain(
      `error: ${join(moved, "config.json")} names the starting checkpoint gone (--init, or the warm start), a path relative to the folder train was started in (${root}), and it is found neither there nor from here (${other}): run the resume from that folder`,
    );
    // A run's own warm start (config.json: "run2/warm-start/checkpoint") is found in the run folder from anywhere.
    cpSync(join(root, "warm", "checkpoints", "v00001"), join(root, "run2", "warm-start", "checkpoint"), {
      recursive: true,
    });
    const own = ["--init", join("run2", "warm-start", "checkpoint"), "--kl", "0.1", "--out", "run2"];
    expect((await cli(root, ...base, "--steps", "1", ...own)).status).toBe(0);
    const resumed = await cli(tmpdir(), "train", "--out", join(root, "run2"), "--resume", "--steps", "2");
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("for 1 update (policy version 2");
    // A copy of that run (cp -r run2 run3) resumed in the folder both were made in: it takes its own warm
    // start, said as such (it was said to be resumed "from another folder than run3 was started in", the
    // very folder it was resumed from).
    cpSync(join(root, "run2"), join(root, "run3"), { recursive: true });
    // (the resume above, from elsewhere, made run2's config.json name it absolute)
    const named = JSON.parse(readFileSync(join(root, "run3", "config.json"), "utf8")).init;
    expect(named).toBe(join(root, "run2", "warm-start", "checkpoint"));
    const copy = await cli(root, "train", "--out", "run3", "--resume", "--steps", "3");
    expect(copy.status, copy.stderr).toBe(0);
    expect(copy.stderr).toContain(
      `${join("run3", "config.json")} names the warm start ${named}, another run's (this run folder is a copy, or was moved): using its own, ${join("run3", "warm-start", "checkpoint")} (config.json now names it so)`,
    );
    expect(copy.stderr).not.toContain("--resume from another folder");
    expect(JSON.parse(readFileSync(join(root, "run3", "config.json"), "utf8")).init).toBe(
      join("run3", "warm-start", "checkpoint"),
    );
  }, 300_000);

  it("a module --env with options, or a trailing slash, is found again; --resume --env may not name another module or options", async () => {
    const root = tempDir("agent-r1-resume-env-");
    const module = join(root, "my env.ts");
    // A module of the user's own, outside this repository: its imports resolve through a node_modules.
    const source = readFileSync(resolve("test/reliability/fixtures/bulky-env.ts"), "utf8");
    writeFileSync(
      module,
      source.replace('"../../../src/index.ts"', JSON.stringify(pathToFileURL(resolve("src/index.ts")).href)),
    );
    symlinkSync(resolve("node_modules"), join(root, "node_modules"));
    writeFileSync(join(root, "package.json"), '{ "type": "module" }\n');
    const cli = (cwd: string, ...args: string[]) =>
      spawnSync(process.execPath, [resolve("bin/agent-r1.js"), ...args], { cwd, encoding: "utf8", timeout: 120_000 });
    const base = ["train", ...tiny, ...shape, "--steps", "1"];
    expect(cli(root, ...base, "--env", "./my env.ts/", "--out", "slash").status).toBe(0);
    const slash = cli(root, "train", "--out", "slash", "--resume", "--steps", "2");
    expect(slash.status, slash.stderr).toBe(0);
    // From another folder, eval finds the module where train started.
    const evaluated = cli(tmpdir(), "eval", "--checkpoint", join(root, "slash"), "--episodes", "1");
    expect(evaluated.status, evaluated.stderr).toBe(0);
    expect(evaluated.stderr).toContain(`eval: --env not given: ${module}, from ${join(root, "slash", "config.json")}`);
    const copy = join(root, "copy.ts");
    cpSync(module, copy);
    const another = cli(root, "train", "--out", "slash", "--resume", "--steps", "3", "--env", "./copy.ts");
    expect(another.status).toBe(2);
    expect(another.stderr).toContain(
      "--resume --env ./copy.ts: slash/config.json has ./my env.ts/, which is still there and is another file",
    );
    const options = cli(root, "train", "--out", "slash", "--resume", "--steps", "3", "--env", "./my env.ts?x=1");
    expect(options.status).toBe(2);
    expect(options.stderr).toContain("no options must stay (other options draw other tasks)");
  }, 300_000);
});

/**
 * Spawns `agent-r1 eval ARGS`, sends `signal` once `ready(stderr)` says so (or 1 s after the backend is said,
 * when it evaluates); its exit code and stderr.
 */
const stopEval = async (
  args: readonly string[],
  signal: NodeJS.Signals = "SIGINT",
  ready: (stderr: string) => boolean = afterBackend(),
) => {
  const child = spawn(process.execPath, ["bin/agent-r1.js", "eval", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  let ended = false;
  const exited = new Promise<number | null>((done) =>
    child.on("exit", (code) => {
      ended = true;
      done(code);
    }),
  );
  while (!ended && !ready(stderr)) await new Promise((r) => setTimeout(r, 100));
  child.kill(signal);
  return { code: await exited, stderr };
};
/** Ready a second after eval says its backend (the model loaded, it evaluates). */
const afterBackend = () => {
  let evaluating = 0;
  return (stderr: string) => {
    if (!stderr.includes("tfjs backend:")) return false;
    evaluating ||= Date.now();
    return Date.now() - evaluating > 1000;
  };
};

describe("eval, Ctrl-C and SIGTERM", () => {
  const trained = join(tempDir("agent-r1-eval-int-"), "run");
  beforeAll(async () => {
    expect(await main(["train", "--env", "lookup", "--steps", "1", ...tiny, ...shape, "--out", trained])).toBe(0);
  }, 60_000);
  for (const [signal, code, said] of [
    ["SIGINT", 130, "interrupted"],
    ["SIGTERM", 143, "interrupted by SIGTERM"],
  ] as const)
    it(`${signal}: says that nothing was kept and exits ${code} (it said nothing)`, async () => {
      // eval decodes all its episodes together, so a signal waits for the step under way: 1,000 episodes
      // answer it within about a second and still run for ten more (3,000 took 4 to 10 s to answer).
      const { code: exited, stderr } = await stopEval(
        ["--checkpoint", trained, "--episodes", "1000", "--seed", "held"],
        signal,
      );
      expect(exited, stderr).toBe(code);
      expect(stderr).toContain(
        `${said}: eval stopped before its summary, and it writes nothing else, so nothing was kept; run the command again`,
      );
    }, 60_000);
});

describe("eval --out, Ctrl-C", () => {
  // Half of uneven's tasks end after one action, so their journals are written while the others still run;
  // every episode of long runs to its 60th turn.
  const uneven = join(tempDir("agent-r1-eval-int-out-run-"), "uneven");
  const long = join(tempDir("agent-r1-eval-int-out-run-"), "long");
  beforeAll(async () => {
    for (const [name, dir] of [
      ["uneven", uneven],
      ["long", long],
    ]) {
      const env = resolve(`test/reliability/fixtures/${name}-env.ts`);
      expect(await main(["train", "--env", env, "--steps", "1", ...tiny, ...shape, "--out", dir])).toBe(0);
    }
  }, 120_000);
  /** eval --out into a new folder, stopped by SIGINT once `ready` says so; its exit code, stderr and folder. */
  const stopEvalOut = async (checkpoint: string, ready: (out: string, stderr: string) => boolean) => {
    const out = join(tempDir("agent-r1-eval-int-out-"), "evals");
    const args = ["--checkpoint", checkpoint, "--episodes", "200", "--seed", "held", "--out", out];
    return { ...(await stopEval(args, "SIGINT", (stderr) => ready(out, stderr))), out };
  };
  const journalsIn = (out: string) => (existsSync(out) ? readdirSync(out).filter((f) => f.endsWith(".jsonl")) : []);

  it("says the finished episodes' journals stay in the folder and how to run it again", async () => {
    // Once some episodes are written (their journals are what stays).
    const { code, stderr, out } = await stopEvalOut(uneven, (dir) => journalsIn(dir).length > 0);
    expect(code, stderr).toBe(130);
    expect(journalsIn(out).length).toBeGreaterThan(0);
    expect(stderr).toContain(`the journals of the episodes it finished stay in ${out} (no summary was written)`);
    expect(stderr).toContain(`remove ${out} or give another --out`);
    expect(stderr).not.toContain("nothing was kept");
  }, 60_000);

  it("stopped before any episode ended: says nothing was kept, and the folder it made is gone", async () => {
    // A second after it evaluates, long before any 60-turn episode of 200 ends.
    const evaluating = afterBackend();
    const { code, stderr, out } = await stopEvalOut(long, (_, said) => evaluating(said));
    expect(code, stderr).toBe(130);
    expect(existsSync(out)).toBe(false);
    expect(stderr).toContain(
      `eval stopped before its summary and before any episode ended, so nothing was kept in ${out}; run the command again`,
    );
    expect(stderr).not.toContain("stay in");
  }, 60_000);
});

describe("eval of a run folder", () => {
  it("evaluates on the environment the run was trained on when --env is not given, and says so", async () => {
    const env = resolve("test/reliability/fixtures/bulky-env.ts");
    const dir = join(tempDir("agent-r1-eval-run-"), "run");
    expect(await main(["train", "--env", env, "--steps", "1", ...tiny, ...shape, "--out", dir])).toBe(0);
    expect(await main(["eval", "--checkpoint", dir, "--episodes", "2"])).toBe(0);
    expect(output.stderr).toContain(`eval: --env not given: ${env}, from ${join(dir, "config.json")}`);
    expect(JSON.parse(output.stdout.trim().split("\n").at(-1)!)).toMatchObject({ env: "bulky", episodes: 2 });
  }, 120_000);
});

describe("train, Ctrl-C during its default warm start", () => {
  it("finishes the cloning's step, saves its progress, exits 130; --resume clones on to an unbroken run's clone", async () => {
    const dir = tempDir("agent-r1-warm-sigint-");
    // lookup with a small default warm start whose cloning takes long enough to be stopped in it.
    const env = join(dir, "small-warm.mts");
    writeFileSync(
      env,
      `import { lookup } from ${JSON.stringify(pathToFileURL(resolve("actors/lookup/index.ts")).href)};\n` +
        "export default { ...lookup, warmStart: { episodes: 20, epochs: 12 } };\n",
    );
    const args = ["train", "--env", env, "--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
    const run = join(dir, "run");
    const child = spawn(process.execPath, ["bin/agent-r1.js", ...args, ...shape, "--backend", "wasm", "--out", run], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let sent = false;
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      // Once its cloning has taken a step.
      if (!sent && /warm start \(cloning\) steps: [1-9]/.test(stderr)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    const code = await new Promise<number | null>((done) => child.on("exit", (exit) => done(exit)));
    expect(code, stderr).toBe(130);
    expect(stderr).toContain("interrupted: finishing what runs now (a step of the warm start's cloning,");
    const progress = join(run, "warm-start", "checkpoint", "sft-progress");
    expect(stderr).toContain(
      `its progress is saved in ${progress}; resume with: npx agent-r1 train --out ${run} --resume`,
    );
    expect(stderr).toContain(`stopped at policy version 0; resume with: npx agent-r1 train --out ${run} --resume`);
    expect(existsSync(join(progress, "progress.json"))).toBe(true);
    output.clear();
    expect(await main(["train", "--out", run, "--resume"]), output.stderr).toBe(0);
    expect(output.stderr).toContain("warm start: resuming its cloning (");
    const unbroken = join(dir, "unbroken");
    expect(await main([...args, ...shape, "--backend", "wasm", "--out", unbroken])).toBe(0);
    for (const file of ["weights.bin", "manifest.json"])
      expect(readFileSync(join(run, "warm-start", "checkpoint", file)), file).toEqual(
        readFileSync(join(unbroken, "warm-start", "checkpoint", file)),
      );
    expect(readFileSync(join(run, "checkpoints", "v00001", "weights.bin"))).toEqual(
      readFileSync(join(unbroken, "checkpoints", "v00001", "weights.bin")),
    );
  }, 120_000);
});

describe("train, Ctrl-C during its evaluation after training", () => {
  it("says it finishes that evaluation (it named only the one before), then ends as a finished run: exit 0, eval.json whole", async () => {
    const dir = join(tempDir("agent-r1-stop-after-eval-"), "run");
    const args = ["train", "--env", "lookup", "--steps", "1", "--tasks", "1", "--group-size", "2", "--no-warm-start"];
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--backend", "wasm", "--eval-episodes", "20"];
    // Its progress line says the evaluation after training runs (a stop during the last update skips it instead:
    // test/learn/resume-finished-eval.test.ts).
    const { code, stderr } = await interruptedCli([...args, ...shape, "--out", dir], /eval after training: /);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      "interrupted: finishing what runs now (a step of the warm start's cloning, the evaluation before or after training, or an update;",
    );
    expect(JSON.parse(readFileSync(join(dir, "eval.json"), "utf8"))).toMatchObject({
      version: 1,
      after: { episodes: 20 },
    });
  }, 120_000);
});

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createLookupEnv, DEFAULT_REWARDS } from "../../actors/lookup/env.ts";
import { lookup } from "../../actors/lookup/index.ts";
import { loadEnv } from "../../src/cli/registry.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { DEFAULT_TRAIN_CONFIG, type TrainConfig } from "../../src/learn/config.ts";
import { train } from "../../src/learn/trainer.ts";
import { warmStartCheckpoint } from "../../src/learn/warm-start.ts";
import type { Policy } from "../../src/runtime/policy.ts";
import { shapedAbortSignal, tempDir, withStderr } from "../support/index.ts";

const config = (warmStart: TrainConfig["warmStart"]): TrainConfig => ({
  ...DEFAULT_TRAIN_CONFIG,
  backend: "wasm",
  steps: 1,
  tasksPerStep: 2,
  groupSize: 2,
  evalEpisodes: 0,
  model: { layers: 1, heads: 2, width: 16, contextLength: 192, copy: true },
  warmStart,
});

type Act = Policy["act"];
/** lookup with its expert's `act` wrapped (to watch it, or to break it). */
const withExpert = (wrap: (act: Act) => Act) => {
  const expert = lookup.policies!.expert;
  return {
    ...lookup,
    policies: {
      ...lookup.policies,
      expert: () => {
        const inner = expert();
        return { ...inner, act: wrap((requests) => inner.act(requests)) };
      },
    },
  };
};

describe("the warm start before RL", () => {
  it("clones expert episodes into the run folder, starts RL from them, and reuses them on resume", async () => {
    const out = join(tempDir(), "run");
    const lines: string[] = [];
    await train({ env: lookup, config: config({ episodes: 6, epochs: 1 }), out, log: (l) => lines.push(l) });
    expect(readdirSync(join(out, "warm-start", "demos")).filter((f) => f.endsWith(".jsonl"))).toHaveLength(6);
    expect(existsSync(join(warmStartCheckpoint(out), "manifest.json"))).toBe(true);
    const saved = JSON.parse(readFileSync(join(out, "config.json"), "utf8")) as TrainConfig;
    // The run's config says where RL started: a resume (and the KL reference) load the same weights.
    expect(saved.init).toBe(warmStartCheckpoint(out));
    expect(saved.warmStart).toEqual({ episodes: 6, epochs: 1 });
    expect(lines.some((l) => l.startsWith("warm start: 6 expert episodes cloned for 1 epoch"))).toBe(true);

    const resumed: string[] = [];
    await train({ env: lookup, config: { ...saved, steps: 2 }, out, resume: true, log: (l) => resumed.push(l) });
    expect(resumed.some((l) => l.startsWith("warm start"))).toBe(false);
    expect(readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("from code with a log of the caller's, writes nothing to stderr: the warm start's progress is left out too", async () => {
    // It drew its recording's and its cloning's progress ("record lookup: 6/6 ...", "warm start (cloning) steps:
    // 1/1 ...") on process.stderr, past the log given for every other line of the run, and so the recording's
    // note on demonstrations longer than the action budget (here 3 tokens, which every expert action passes).
    const env = { ...lookup, maxActionTokens: 3 };
    const out = join(tempDir(), "run");
    const lines: string[] = [];
    const { written } = await withStderr(() =>
      train({ env, config: config({ episodes: 4, epochs: 1 }), out, log: (l) => lines.push(l) }),
    );
    expect(written).toEqual([]);
    expect(lines.some((l) => l.startsWith("note: the longest recorded action takes"))).toBe(true);
    expect(lines.some((l) => l.startsWith("warm start: 4 expert episodes cloned for 1 epoch"))).toBe(true);
  });

  it("stopped during the warm start (Ctrl-C), skips the evaluation before RL; the resume evaluates it", async () => {
    const out = join(tempDir(), "run");
    let asked = false;
    const stopped = await train({
      env: lookup,
      config: { ...config({ episodes: 4, epochs: 1 }), evalEpisodes: 2 },
      out,
      log: () => {},
      shouldStop: () => (asked = true),
    });
    expect(asked).toBe(true);
    expect(stopped).toMatchObject({ stopped: true, version: 0, steps: 0 });
    expect(stopped.before).toBeUndefined();
    expect(existsSync(join(out, "eval.json"))).toBe(false);
    // Stopped in its recording (or, had that ended first, before its cloning's first step): no clone yet.
    expect(existsSync(join(warmStartCheckpoint(out), "manifest.json"))).toBe(false);
    const saved = JSON.parse(readFileSync(join(out, "config.json"), "utf8")) as TrainConfig;
    const resumed = await train({ env: lookup, config: saved, out, resume: true, log: () => {} });
    expect(resumed.before?.episodes).toBe(2);
    expect(resumed.version).toBe(1);
    // eval.json says how its numbers were taken; `env` only for an environment with options (lookup has none).
    const { evaluatedWith } = JSON.parse(readFileSync(join(out, "eval.json"), "utf8"));
    expect(evaluatedWith).toEqual({
      seed: "eval:0",
      episodes: 2,
      decoding: "greedy",
      constrained: false,
      maxNewTokens: evaluatedWith.maxNewTokens,
    });
  });

  describe("stopped during its warm start, resumed: the run an unbroken one gives, byte for byte", () => {
    // 20 demonstrations in batches of 16: two cloning steps an epoch, three epochs.
    const wanted = { ...config({ episodes: 20, epochs: 3 }), steps: 1 };
    const unbroken = join(tempDir(), "unbroken");
    const CLONE = ["weights.bin", "manifest.json", "config.json", "tokenizer.json"];
    const sameRun = (out: string) => {
      const clone = warmStartCheckpoint(out);
      expect(readdirSync(clone).sort()).toEqual(readdirSync(warmStartCheckpoint(unbroken)).sort());
      for (const file of CLONE)
        expect(readFileSync(join(clone, file)), file).toEqual(readFileSync(join(warmStartCheckpoint(unbroken), file)));
      const weights = (run: string) => readFileSync(join(run, "checkpoints", "v00001", "weights.bin"));
      expect(weights(out)).toEqual(weights(unbroken));
      const strip = (run: string) =>
        readFileSync(join(run, "metrics.jsonl"), "utf8")
          .trim()
          .split("\n")
          .map((l) => {
            const { sampleSeconds: _s, trainSeconds: _t, tokensPerSecond: _r, ...rest } = JSON.parse(l);
            return rest;
          });
      expect(strip(out)).toEqual(strip(unbroken));
    };
    beforeAll(async () => {
      await train({ env: lookup, config: wanted, out: unbroken, log: () => {} });
    }, 60_000);
    /**
     * Trains into `out` and stops it at the first ask past `cloningAsks` once the recording has ended (sft asks
     * once before its first step, then after each step): stopped after cloning step `cloningAsks`.
     */
    const stopWhileCloning = (out: string, cloningAsks: number, log: (line: string) => void = () => {}) => {
      let asked = 0;
      const recorded = join(out, "warm-start", "recorded.json");
      return train({
        env: lookup,
        config: wanted,
        out,
        log,
        shouldStop: () => existsSync(recorded) && ++asked > cloningAsks,
      });
    };

    it("by shouldStop mid-epoch: the resume clones on from its saved point, the demonstrations not recorded again", async () => {
      const out = join(tempDir(), "run");
      const lines: string[] = [];
      // Asked during the recording too; once it ended, sft asks once before its first step: stopped after its
      // third step (mid-epoch 2).
      const stopped = await stopWhileCloning(out, 3, (l) => lines.push(l));
      expect(stopped).toMatchObject({ stopped: true, version: 0 });
      expect(lines.join("\n")).toContain(
        `sft stopped (1 of 3 epochs done, 1 steps into the next): its progress is saved in ${join(warmStartCheckpoint(out), "sft-progress")}; resume with: npx agent-r1 train --out ${out} --resume`,
      );
      const demos = join(out, "warm-start", "demos");
      const recordedAt = statSync(join(demos, readdirSync(demos)[0])).mtimeMs;
      const resumed: string[] = [];
      const saved = JSON.parse(readFileSync(join(out, "config.json"), "utf8")) as TrainConfig;
      const result = await train({ env: lookup, config: saved, out, resume: true, log: (l) => resumed.push(l) });
      expect(result).toMatchObject({ stopped: false, version: 1 });
      expect(resumed.join("\n")).toContain(
        `warm start: resuming its cloning (1 of 3 epochs done, 1 steps into the next) of the 20 expert episodes recorded in ${demos}`,
      );
      expect(statSync(join(demos, readdirSync(demos)[0])).mtimeMs).toBe(recordedAt);
      sameRun(out);
    }, 60_000);

    it("by an AbortSignal during its recording: the recording stops at once; the resume keeps the episodes that ended, records the others and clones", async () => {
      const out = join(tempDir(), "run");
      const demos = join(out, "warm-start", "demos");
      const controller = new AbortController();
      // Aborted once the first episodes have ended: the others, in flight, end as stopped.
      const aborting = withExpert((act) => async (requests) => {
        if (existsSync(demos) && readdirSync(demos).filter((f) => f.endsWith(".jsonl")).length >= 3)
          controller.abort(new Error("deadline"));
        return act(requests);
      });
      const lines: string[] = [];
      const stopped = await train({
        env: aborting,
        config: wanted,
        out,
        log: (l) => lines.push(l),
        signal: controller.signal,
      });
      expect(stopped.stopped).toBe(true);
      const endOf = (file: string) =>
        JSON.parse(readFileSync(join(demos, file), "utf8").trim().split("\n").at(-1)!).reason;
      const ended = readdirSync(demos).filter((f) => f.endsWith(".jsonl") && endOf(f) === "answered");
      const stoppedOnes = readdirSync(demos).filter((f) => f.endsWith(".jsonl") && endOf(f) !== "answered");
      expect(ended.length).toBeGreaterThanOrEqual(3);
      expect(stoppedOnes.length).toBeGreaterThan(0);
      expect(lines).toContain(
        `warm start: stopped during its recording (${ended.length} of 20 expert episodes ended): a resume keeps those, records the others, then clones them`,
      );
      expect(existsSync(join(out, "warm-start", "recorded.json"))).toBe(false);
      const keptAt = ended.map((f) => statSync(join(demos, f)).mtimeMs);
      const resumed: string[] = [];
      await train({ env: lookup, config: wanted, out, resume: true, log: (l) => resumed.push(l) });
      expect(resumed).toContain(`warm start: going on with its recording stopped in ${demos}`);
      expect(resumed).toContain(
        `record --resume: ${ended.length} of 20 episodes are journaled already and kept; removed ${stoppedOnes.length} that the stop cut short; recording the other ${20 - ended.length}`,
      );
      expect(resumed.some((l) => l.startsWith("warm start: 20 expert episodes cloned for 3 epochs"))).toBe(true);
      // The episodes that ended before the stop were kept, not recorded again.
      expect(ended.map((f) => statSync(join(demos, f)).mtimeMs)).toEqual(keptAt);
      // The demonstrations, and so the clone and the run, are those an unbroken warm start gives.
      const unbrokenDemos = join(unbroken, "warm-start", "demos");
      expect(readdirSync(demos).sort()).toEqual(readdirSync(unbrokenDemos).sort());
      for (const f of readdirSync(demos))
        expect(readFileSync(join(demos, f)), f).toEqual(readFileSync(join(unbrokenDemos, f)));
      expect(readFileSync(join(out, "warm-start", "recorded.json"), "utf8")).toBe(
        readFileSync(join(unbroken, "warm-start", "recorded.json"), "utf8"),
      );
      sameRun(out);
    }, 60_000);

    it("by shouldStop after its recording, before its cloning's first step: the resume clones the demonstrations kept", async () => {
      const out = join(tempDir(), "run");
      const recorded = join(out, "warm-start", "recorded.json");
      const stopped = await train({
        env: lookup,
        config: wanted,
        out,
        log: () => {},
        shouldStop: () => existsSync(recorded),
      });
      expect(stopped.stopped).toBe(true);
      const lines: string[] = [];
      await train({ env: lookup, config: wanted, out, resume: true, log: (l) => lines.push(l) });
      expect(lines).toContain(
        `warm start: the 20 expert episodes in ${join(out, "warm-start", "demos")} are recorded already; cloning them`,
      );
      sameRun(out);
    }, 60_000);

    it("stopped mid-cloning, its demonstrations folder removed: the resume records them again and clones", async () => {
      const out = join(tempDir(), "run");
      await stopWhileCloning(out, 3);
      rmSync(join(out, "warm-start", "demos"), { recursive: true });
      // It said "--data <run>/warm-start/demos: no such file or folder", a flag train has not.
      await train({ env: lookup, config: wanted, out, resume: true, log: () => {} });
      sameRun(out);
    }, 60_000);

    it("refuses to resume a cloning whose demonstrations changed, saying how to start it over", async () => {
      const out = join(tempDir(), "run");
      await stopWhileCloning(out, 2);
      const demos = join(out, "warm-start", "demos");
      rmSync(join(demos, readdirSync(demos).filter((f) => f.endsWith(".jsonl"))[0]));
      const attempt = train({ env: lookup, config: wanted, out, resume: true, log: () => {} });
      await expect(attempt).rejects.toThrow(UsageError);
      await expect(attempt).rejects.toThrow(
        `the warm start's cloning in ${warmStartCheckpoint(out)} cannot be resumed: --data ${demos}: its journals are not those the stopped sft was cloning (20 episodes then, 19 now); remove ${join(out, "warm-start")} to record and clone it again from the start`,
      );
    }, 60_000);
  });

  it("stopped during its recording by an object shaped as an AbortSignal (a polyfill's), as by Node's own", async () => {
    // AbortSignal.any, which takes Node's own, never heard it: the recording stopped only when train's
    // shouldStop, polled every 100 ms, saw it aborted (episodes ended meanwhile, stopped as "train was stopped").
    const out = join(tempDir(), "run");
    const { shaped, abort, signal } = shapedAbortSignal();
    const aborting = withExpert((act) => async (requests) => {
      if (!shaped.aborted) abort(new Error("deadline"));
      return act(requests);
    });
    const lines: string[] = [];
    const stopped = await train({
      env: aborting,
      config: config({ episodes: 4, epochs: 1 }),
      out,
      log: (l) => lines.push(l),
      signal,
    });
    expect(stopped.stopped).toBe(true);
    expect(lines).toContain(
      "warm start: stopped during its recording (0 of 4 expert episodes ended): a resume records them, then clones them",
    );
    // Each episode ended on the signal's own reason.
    const demos = join(out, "warm-start", "demos");
    const reasons = readdirSync(demos).map(
      (file) => JSON.parse(readFileSync(join(demos, file), "utf8").trim().split("\n").at(-1) as string).reason,
    );
    expect(reasons).toEqual(Array(4).fill("aborted: stopped: deadline"));
  });

  it("saves the run's settings before its warm start: a run killed during it resumes with them", async () => {
    const out = join(tempDir(), "run");
    // Whether config.json was on disk while the demonstrations were recorded (a kill -9 could come then).
    let savedDuring: TrainConfig | undefined;
    const watched = withExpert((act) => async (requests) => {
      const file = join(out, "config.json");
      if (existsSync(file)) savedDuring ??= JSON.parse(readFileSync(file, "utf8")) as TrainConfig;
      return act(requests);
    });
    const wanted = { ...config({ episodes: 4, epochs: 1 }), steps: 2, seed: "9" };
    await train({ env: watched, config: wanted, out, log: () => {} });
    expect(savedDuring).toMatchObject({ steps: 2, seed: "9", warmStart: { episodes: 4, epochs: 1 }, init: null });
    const finished = readFileSync(join(out, "metrics.jsonl"), "utf8");
    // Killed during the warm start: only that config.json is left. Resumed, the run redoes the warm start
    // with its own settings and ends where the uninterrupted run did.
    const killed = join(tempDir(), "killed");
    mkdirSync(killed);
    writeFileSync(join(killed, "config.json"), JSON.stringify(savedDuring));
    const lines: string[] = [];
    await train({ env: lookup, config: savedDuring!, out: killed, resume: true, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.startsWith("warm start: 4 expert episodes cloned"))).toBe(true);
    const strip = (text: string) =>
      text
        .trim()
        .split("\n")
        .map((l) => {
          const { sampleSeconds: _s, trainSeconds: _t, tokensPerSecond: _r, ...rest } = JSON.parse(l);
          return rest;
        });
    expect(strip(readFileSync(join(killed, "metrics.jsonl"), "utf8"))).toEqual(strip(finished));
  });

  it("records again the demonstrations a killed run left without a saved clone", async () => {
    const out = join(tempDir(), "run");
    mkdirSync(join(out, "warm-start", "demos"), { recursive: true });
    writeFileSync(join(out, "warm-start", "demos", "ep-cut.jsonl"), '{"v":1,"episode":"ep-cut","seq":0');
    await train({ env: lookup, config: config({ episodes: 4, epochs: 1 }), out, log: () => {} });
    expect(readdirSync(join(out, "warm-start", "demos")).sort()).not.toContain("ep-cut.jsonl");
    expect(existsSync(join(warmStartCheckpoint(out), "manifest.json"))).toBe(true);
  });

  it("stopped during its recording, resumed on changed environment code: refused in one sentence, saying how to start over, its demonstrations kept", async () => {
    const out = join(tempDir(), "run");
    const demos = join(out, "warm-start", "demos");
    const controller = new AbortController();
    const journaled = () => (existsSync(demos) ? readdirSync(demos).filter((f) => f.endsWith(".jsonl")) : []);
    const aborting = withExpert((act) => async (requests) => {
      if (journaled().length >= 2) controller.abort(new Error("deadline"));
      return act(requests);
    });
    const wanted = config({ episodes: 8, epochs: 1 });
    const stopped = await train({ env: aborting, config: wanted, out, log: () => {}, signal: controller.signal });
    expect(stopped.stopped).toBe(true);
    const left = journaled().sort();
    // A reward changed without a new version: the kept demonstrations no longer replay.
    const changed = { ...createLookupEnv({ ...DEFAULT_REWARDS, neededKey: 0.3 }), policies: lookup.policies };
    const refused = await train({ env: changed, config: wanted, out, resume: true, log: () => {} }).then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(refused).toBeInstanceOf(UsageError);
    const message = (refused as Error).message;
    expect(message).toMatch(
      new RegExp(
        `^the warm start's recording in ${demos} cannot be gone on with: ${demos}/ep-0-warm-start-\\d+\\.jsonl was recorded by other code than environment lookup v\\S+ runs now: .* replay diverged .*`,
      ),
    );
    // train() from code was given no --env: the refusal names none (it said "this --env lookup v1").
    expect(message).not.toContain("--env");
    // Before: "... without a new version.; remove ...".
    expect(message).toMatch(
      new RegExp(`[^.;]; remove ${join(out, "warm-start")} to record and clone it again from the start$`),
    );
    expect(journaled().sort()).toEqual(left);
  });

  it("train --resume of a warm start stopped during its recording, on changed environment code: refused naming no --env (the resume was given none)", async () => {
    const dir = tempDir();
    const out = join(dir, "run");
    const demos = join(out, "warm-start", "demos");
    const module = join(dir, "my-lookup.mts");
    const writeModule = (neededKey: number) =>
      writeFileSync(
        module,
        `import { createLookupEnv, DEFAULT_REWARDS } from ${JSON.stringify(join(process.cwd(), "actors/lookup/env.ts"))};\n` +
          `import { lookup } from ${JSON.stringify(join(process.cwd(), "actors/lookup/index.ts"))};\n` +
          `export default { ...createLookupEnv({ ...DEFAULT_REWARDS, neededKey: ${neededKey} }), policies: lookup.policies };\n`,
      );
    writeModule(DEFAULT_REWARDS.neededKey);
    const env = await loadEnv(module);
    const controller = new AbortController();
    const journaled = () => (existsSync(demos) ? readdirSync(demos).filter((f) => f.endsWith(".jsonl")) : []);
    const expert = env.policies!.expert;
    const aborting = {
      ...env,
      policies: {
        ...env.policies,
        expert: () => {
          const inner = expert();
          return {
            ...inner,
            act: async (requests: Parameters<Act>[0]) => {
              if (journaled().length >= 2) controller.abort(new Error("deadline"));
              return inner.act(requests);
            },
          };
        },
      },
    };
    const wanted = { ...config({ episodes: 8, epochs: 1 }), env: module };
    expect(
      (await train({ env: aborting, config: wanted, out, log: () => {}, signal: controller.signal })).stopped,
    ).toBe(true);
    // A reward changed without a new version, then the run resumed from the command line.
    writeModule(0.3);
    const run = spawnSync(process.execPath, ["bin/agent-r1.js", "train", "--out", out, "--resume"], {
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `\\nerror: the warm start's recording in ${demos} cannot be gone on with: ${demos}/ep-0-warm-start-\\d+\\.jsonl was recorded by other code than environment lookup v\\S+ runs now: .* replay diverged .*; remove ${join(out, "warm-start")} to record and clone it again from the start\n`,
      ),
    );
    expect(run.stderr).not.toContain("--env");
  }, 60_000);

  it("says how many demonstrations aborted and why, and clones only the others", async () => {
    // An expert that breaks in some episodes: it gives a malformed action (no tokens) on their second turn.
    const flaky = withExpert(
      (act) => async (requests) =>
        (await act(requests)).map((action, i) =>
          requests[i].turn === 1 && /-[13]$/.test(requests[i].episode) ? { ...action, tokens: [] } : action,
        ),
    );
    const out = join(tempDir(), "run");
    const lines: string[] = [];
    await train({ env: flaky, config: config({ episodes: 6, epochs: 1 }), out, log: (l) => lines.push(l) });
    const said = lines.join("\n");
    expect(said).toMatch(/warm start: 2 of 6 expert episodes aborted; the first, \S+-1: /);
    expect(said).toMatch(/sft: 2 of 6 episodes aborted and are not cloned; the first, \S+\.jsonl: /);
    expect(said).toMatch(/warm start: 4 of 6 expert episodes cloned for 1 epoch \(expert success 1\.000 of the 4 not/);
    expect(existsSync(join(warmStartCheckpoint(out), "manifest.json"))).toBe(true);
  });

  it("refuses, before any work, an environment without an expert policy", async () => {
    const { policies: _, ...withoutExpert } = lookup;
    const out = join(tempDir(), "run");
    const lines: string[] = [];
    const run = train({
      env: withoutExpert,
      config: config({ episodes: 4, epochs: 1 }),
      out,
      log: (l) => lines.push(l),
    });
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(
      `train config: warmStart {"episodes":4,"epochs":1} records the environment's "expert" policy, and lookup has none: use --no-warm-start (from code: warmStart: null), or start from a checkpoint with --init DIR (from code: init)`,
    );
    // Refused when the config is checked: no backend loaded, no run folder (config.json, origin.json) written.
    expect(lines).toEqual([]);
    expect(existsSync(out)).toBe(false);
  });

  it("train's command line: lookup's default warm start and copy head, each switched off by its flag; the model's shape", () => {
    const out = join(tempDir(), "cli");
    const shape = ["--layers", "3", "--heads", "2", "--width", "32"];
    const args = ["--env", "lookup", "--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
    const run = spawnSync(
      process.execPath,
      [
        "bin/agent-r1.js",
        "train",
        ...args,
        "--no-warm-start",
        "--no-copy-head",
        "--positions",
        "alibi",
        ...shape,
        "--out",
        out,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(join(out, "config.json"), "utf8")) as TrainConfig;
    expect(saved.warmStart).toBeUndefined();
    expect(saved.init).toBeNull();
    expect(saved.model.copy).toBe(false);
    expect(saved.model.positions).toBe("alibi");
    expect(saved.model).toMatchObject({ layers: 3, heads: 2, width: 32 });
    const latest = JSON.parse(readFileSync(join(out, "checkpoints", "latest.json"), "utf8")) as { dir: string };
    const model = JSON.parse(readFileSync(join(out, "checkpoints", latest.dir, "config.json"), "utf8"));
    expect(model).toMatchObject({ layers: 3, heads: 2, width: 32, positions: "alibi" });
    expect(existsSync(join(out, "warm-start"))).toBe(false);
    expect(run.stderr).not.toContain("warm start");
  });
});

/**
 * `agent-r1 select`: every candidate (a run's checkpoints, its soup, checkpoints given) scored on one development
 * set exactly as eval scores it, the best kept (ties to the later), written to --out as a checkpoint that eval
 * scores the same; bad input refused before any work, naming what was wrong.
 */
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { fc, test as fcTest } from "@fast-check/vitest";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { candidatesOf, pickOf } from "../../src/cli/select.ts";
import { runOfApartCheckpoints } from "../support/apart-run.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-select-");
const run = join(dir, "run");
const ckpt = (v: number) => join(run, "checkpoints", `v0000${v}`);
const DEV = ["--episodes", "6", "--seed", "dev-1", "--constrained"];

/** What eval says of a checkpoint on the same development set: its JSON summary. */
const evalOf = async (checkpoint: string, ...more: string[]) => {
  output.clear();
  expect(await main(["eval", "--env", "lookup", "--checkpoint", checkpoint, ...DEV, ...more])).toBe(0);
  return JSON.parse(output.stdout);
};

describe("agent-r1 select", () => {
  beforeAll(async () => {
    // A real run's folder (its config.json names lookup), whose checkpoints are then replaced by four models
    // initialised apart, so that they score differently.
    await runOfApartCheckpoints(run, 4, "select");
  }, 60_000);

  it("scores each of a run's checkpoints and its soup as eval does, keeps the best, and writes it to --out", async () => {
    const out = join(dir, "pick");
    output.clear();
    const args = ["select", run, "--soup", "2", "--metric", "return", ...DEV, "--out", out];
    expect(await main(args)).toBe(0);
    const summary = JSON.parse(output.stdout);
    const stderr = output.stderr;
    expect(summary).toMatchObject({ env: "lookup", seed: "dev-1", episodes: 6, metric: "return", out });
    expect(summary.candidates.map((c: { name: string }) => c.name)).toEqual([
      ckpt(1),
      ckpt(2),
      ckpt(3),
      ckpt(4),
      `${run} soup of the last 2 (v00003, v00004)`,
    ]);
    expect(summary.candidates[4].checkpoints).toEqual([ckpt(3), ckpt(4)]);
    // Each checkpoint's score is eval's on the same episodes, to the summary's four decimals.
    const scores: number[] = summary.candidates.map((c: { score: number }) => c.score);
    for (const v of [1, 2, 3, 4]) {
      const evaluated = await evalOf(ckpt(v));
      expect(scores[v - 1]).toBeCloseTo(evaluated.meanReturn, 4);
      expect(summary.candidates[v - 1].version).toBe(v);
    }
    // Equal scores (greedy untrained models often act alike) go to the later candidate.
    const best = Math.max(...scores);
    const expected = summary.candidates[scores.lastIndexOf(best)];
    expect(summary.pick).toEqual({
      name: expected.name,
      checkpoints: expected.checkpoints,
      version: expected.version,
      score: best,
    });
    expect(stderr).toContain(`select: [5/5] ${run} soup of the last 2 (v00003, v00004) (version 4): return `);
    expect(stderr).toContain(`select: the pick is ${expected.name}: return ${best.toFixed(3)} on 6 development`);
    // All on one score: said, since the pick then says nothing of the candidates (untrained models may tie).
    const allTied = scores.every((score) => score === best);
    expect(stderr.includes("select: note: all 5 candidates scored return")).toBe(allTied);
    // --out holds the pick as a checkpoint that eval takes without --env and scores as the pick scored.
    expect(existsSync(join(out, "manifest.json"))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, "average.json"), "utf8")).env).toBe("lookup");
    const again = JSON.parse(JSON.stringify(await evalOf(out)));
    expect(again.meanReturn).toBeCloseTo(best, 4);
    expect(again.version).toBe(expected.version);
  });

  it("takes checkpoint folders and --last, ranks by success by default on lookup, and refuses --out's checkpoint without --replace", async () => {
    output.clear();
    expect(await main(["select", ckpt(2), run, "--last", "1", ...DEV])).toBe(0);
    const summary = JSON.parse(output.stdout);
    expect(summary.metric).toBe("success");
    expect(summary.candidates.map((c: { name: string }) => c.name)).toEqual([ckpt(2), ckpt(4)]);
    for (const c of summary.candidates) expect(c.score).toBe(c.successRate);
    output.clear();
    const out = join(dir, "pick");
    const before = readFileSync(join(out, "weights.bin"));
    expect(await main(["select", run, ...DEV, "--out", out])).toBe(2);
    expect(output.stderr).toContain(`--out ${out} already holds a checkpoint; select would replace it`);
    expect(readFileSync(join(out, "weights.bin"))).toEqual(before);
  });

  it("refuses what it cannot score, before any episode: a missing path, a candidate twice, a metric the environment lacks", async () => {
    output.clear();
    expect(await main(["select", run, join(dir, "nowhere"), ...DEV])).toBe(2);
    expect(output.stderr).toContain(`no checkpoint at ${join(dir, "nowhere")}`);
    expect(output.stderr).not.toContain("select: [1/");
    output.clear();
    expect(await main(["select", run, ckpt(3), ...DEV])).toBe(2);
    expect(output.stderr).toContain(
      `one candidate is given twice: as ${ckpt(3)}, from ${run}, and as ${ckpt(3)}; each is scored once: give it once`,
    );
    // By another path to the same folder, too.
    const link = join(dir, "link-to-run");
    symlinkSync(run, link);
    output.clear();
    expect(await main(["select", run, link, ...DEV])).toBe(2);
    expect(output.stderr).toContain(
      `one candidate is given twice: as ${ckpt(1)}, from ${run}, and as ${join(link, "checkpoints", "v00001")}, from ${link}`,
    );
    // A folder that is neither a checkpoint nor a run, a checkpoint without its weights, a checkpoint of another
    // environment: each refused before the first candidate is scored.
    const broken = join(dir, "broken");
    cpSync(ckpt(2), broken, { recursive: true });
    rmSync(join(broken, "weights.bin"));
    for (const [path, said] of [
      [
        join(run, "episodes"),
        `${join(run, "episodes")} is neither a checkpoint folder (no manifest.json in it) nor a run folder`,
      ],
      [broken, `checkpoint ${broken} lacks weights.bin`],
      [
        "docs/checkpoints/hopqa-left-warm-start",
        "select scores every candidate on one environment (lookup, found from",
      ],
    ]) {
      output.clear();
      expect(await main(["select", run, path, ...DEV])).toBe(2);
      expect(output.stderr).toContain(said);
      expect(output.stderr).not.toContain("select: [1/");
    }
    output.clear();
    // A metric's name is known once an episode reports it: the refusal names what the environment reports and keeps
    // the score already measured.
    expect(await main(["select", ckpt(1), ckpt(2), ...DEV, "--metric", "em"])).toBe(2);
    expect(output.stderr).toMatch(
      new RegExp(
        `--metric em: lookup reports success \\(${ckpt(1)}: \\d\\.\\d{3}\\), return \\(${ckpt(1)}: -?\\d\\.\\d{3}\\); give one of them`,
      ),
    );
    output.clear();
    expect(await main(["select", ckpt(1), ...DEV, "--metric", "e m"])).toBe(2);
    expect(output.stderr).toContain('--metric "e m": a metric\'s name');
  });

  it("says when every candidate scored the same, so that the pick tells nothing apart", async () => {
    const twin = join(dir, "twin");
    cpSync(ckpt(2), twin, { recursive: true });
    output.clear();
    expect(await main(["select", ckpt(2), twin, "--metric", "return", ...DEV])).toBe(0);
    expect(output.stderr).toMatch(
      /select: note: all 2 candidates scored return -?\d\.\d{3}, so the pick is only the last of them \(ties go to the later\)/,
    );
  });

  it("candidates: --soup on a checkpoint is said and skipped; a soup of fewer checkpoints than asked is said", () => {
    const said: string[] = [];
    const candidates = candidatesOf([ckpt(1), run], { soup: 9, last: 2 }, (line) => said.push(line));
    expect(candidates.map((c) => c.name).slice(0, 3)).toEqual([ckpt(1), ckpt(3), ckpt(4)]);
    expect(candidates.at(-1)?.folders).toEqual([ckpt(1), ckpt(2), ckpt(3), ckpt(4)]);
    expect(said).toEqual([
      `select: ${ckpt(1)} is a checkpoint, not a run folder: --soup makes soups of run folders' checkpoints only`,
      `select: ${run} has 4 checkpoints, fewer than --soup 9: its soup averages them all`,
    ]);
  });

  it("on hopqa ranks by exact match, picks the better of two checkpoints, and says when its worlds are the suite's", async () => {
    const spec = "hopqa?wording=possessive&legal=relations&left=phrases";
    const [clone, trained] = ["docs/checkpoints/hopqa-left-warm-start", "docs/checkpoints/hopqa-left-grpo-30"];
    const dev = ["--split", "ood", "--world-seed", "1000001-1000200", "--episodes", "12", "--seed", "dev-2"];
    const out = join(dir, "hopqa-pick");
    output.clear();
    expect(await main(["select", trained, clone, "--env", spec, ...dev, "--constrained", "--out", out])).toBe(0);
    expect(output.stderr).toContain(
      `note: the development set's worlds 1000001-1000200 meet those of eval --suite's "test (new worlds)" column`,
    );
    const summary = JSON.parse(output.stdout);
    expect(summary.metric).toBe("em");
    expect(summary.options).toMatchObject({ split: "ood", "world-seed": "1000001-1000200" });
    const [a, b] = summary.candidates;
    expect(a.score).toBe(a.exactMatch);
    expect(b.score).toBe(b.exactMatch);
    // RL lifted the clone on these questions; the pick is the trained checkpoint, though given first.
    expect(a.score).toBeGreaterThan(b.score);
    expect(summary.pick.checkpoints).toEqual([trained]);
    for (const [checkpoint, scored] of [
      [trained, a],
      [clone, b],
    ]) {
      output.clear();
      const args = ["eval", "--checkpoint", checkpoint, "--env", spec, ...dev, "--constrained"];
      expect(await main(args)).toBe(0);
      expect(JSON.parse(output.stdout).exactMatch).toBeCloseTo(scored.exactMatch, 4);
    }
    // The shipped checkpoints record no environment: the pick records the one it was scored on (without the
    // development set's split and worlds), so eval of it needs no --env, and decodes as it was scored.
    output.clear();
    expect(await main(["eval", "--checkpoint", out, ...dev])).toBe(0);
    expect(output.stderr).toContain(`eval: --env not given: ${spec}, from ${join(out, "average.json")}`);
    expect(JSON.parse(output.stdout).exactMatch).toBeCloseTo(a.exactMatch, 4);
  }, 120_000);
});

describe("select's pick", () => {
  fcTest.prop([fc.array(fc.option(fc.integer({ min: 0, max: 5 }), { nil: null }), { maxLength: 12 })])(
    "is the best score, ties to the later candidate, and none when nothing was scored",
    (scores) => {
      const scored = scores.map((score, i) => ({ score, i }));
      const pick = pickOf(scored);
      const given = scores.filter((s): s is number => s !== null);
      if (given.length === 0) {
        expect(pick).toBeUndefined();
        return;
      }
      const best = Math.max(...given);
      expect(pick?.score).toBe(best);
      expect(pick?.i).toBe(scores.lastIndexOf(best));
    },
  );
});

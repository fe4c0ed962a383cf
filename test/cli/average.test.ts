/**
 * `agent-r1 average`: the mean of checkpoints' weights (a run's last few with --last, or any list), and
 * clear refusals for checkpoints that cannot average, written nowhere.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { loadCheckpoint, saveCheckpoint } from "../../src/policy/checkpoint.ts";
import { Gpt } from "../../src/policy/gpt.ts";
import { runOfApartCheckpoints } from "../support/apart-run.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-average-");
const run = join(dir, "run");
const ckpt = (v: number) => join(run, "checkpoints", `v0000${v}`);

const weightsOf = async (folder: string) => {
  const { model } = await loadCheckpoint(folder);
  const out = new Map<string, Float32Array>();
  for (const [name, variable] of model.parameters) out.set(name, (await variable.data()) as Float32Array);
  model.dispose();
  return out;
};

describe("agent-r1 average", () => {
  beforeAll(async () => {
    // A real run's folder, for a model shape and tokenizer that `eval --env lookup` takes; its checkpoints
    // are then replaced by three differently initialised models, so that they surely differ.
    await runOfApartCheckpoints(run, 3, "average");
  }, 60_000);

  it("--last N averages a run's last N checkpoints, parameter by parameter", async () => {
    const out = join(dir, "last2");
    expect(await main(["average", run, "--last", "2", "--out", out, "--json"])).toBe(0);
    const summary = JSON.parse(output.stdout);
    expect(summary).toEqual({
      out,
      checkpoints: [ckpt(2), ckpt(3)],
      versions: [2, 3],
      version: 3,
      similarity: [1, expect.any(Number)],
    });
    // Two models initialised apart: averaged as asked, and said to be no soup.
    expect(Math.abs(summary.similarity[1])).toBeLessThan(0.2);
    expect(output.stderr).toMatch(
      new RegExp(
        `^warning: ${ckpt(3)} \\(cosine -?0\\.\\d{3}\\) is far from ${ckpt(2)}'s weights: .* evaluate it before use$`,
        "m",
      ),
    );
    const [a, b, mean] = await Promise.all([weightsOf(ckpt(2)), weightsOf(ckpt(3)), weightsOf(out)]);
    let differ = 0;
    for (const [name, values] of mean) {
      const [x, y] = [a.get(name) as Float32Array, b.get(name) as Float32Array];
      for (let i = 0; i < values.length; i++) {
        expect(values[i]).toBeCloseTo((x[i] + y[i]) / 2, 6);
        if (x[i] !== y[i]) differ++;
      }
    }
    // The two checkpoints are not the same weights, or the test would show nothing.
    expect(differ).toBeGreaterThan(0);
    // It is a checkpoint like any other: eval takes it.
    expect(await main(["eval", "--env", "lookup", "--checkpoint", out, "--episodes", "2"])).toBe(0);
  });

  it("says nothing of checkpoints of one lineage: weights near each other average without a warning", async () => {
    const { model, tokenizer } = await loadCheckpoint(ckpt(3));
    const near = join(dir, "near");
    const nudged = new Gpt(model.config, "near");
    for (const [name, variable] of nudged.parameters) {
      const values = (await model.parameters.get(name)!.data()) as Float32Array;
      variable.assign(
        tf.tensor(
          values.map((x, i) => x * (1 + 0.05 * Math.sin(i))),
          variable.shape,
        ),
      );
    }
    await saveCheckpoint(near, { model: nudged, tokenizer, version: 4 });
    nudged.dispose();
    model.dispose();
    const out = join(dir, "soup");
    expect(await main(["average", ckpt(3), near, "--out", out, "--json"])).toBe(0);
    expect(JSON.parse(output.stdout).similarity[1]).toBeGreaterThan(0.99);
    expect(output.stderr).not.toContain("warning:");
  });

  it("takes checkpoint folders as given, and a run folder as its latest checkpoint", async () => {
    const out = join(dir, "given");
    // The run's latest.json still names v00001, the one checkpoint its training wrote.
    expect(await main(["average", ckpt(3), run, "--out", out])).toBe(0);
    expect(output.stdout).toContain(`averaged 2 checkpoints (policy versions 3, 1) -> ${out}`);
    // The average is of the newest policy version given, whatever the order.
    const averaged = await loadCheckpoint(out);
    averaged.model.dispose();
    expect(averaged.version).toBe(3);
    expect(output.stderr).not.toContain("replaces it");
    expect(output.stderr).not.toContain("only one checkpoint");
    // One checkpoint is a copy: said, since it is likely a run folder given without --last.
    output.clear();
    expect(await main(["average", run, "--out", join(dir, "one")])).toBe(0);
    expect(output.stderr).toContain(
      `note: only one checkpoint (${join(run, "checkpoints", "v00001")}), so the average is a copy of it`,
    );
    output.clear();
    // Writing over an earlier checkpoint is refused unless --replace says so, and then it is said.
    output.clear();
    const before = readFileSync(join(out, "weights.bin"));
    expect(await main(["average", ckpt(2), ckpt(3), "--out", out])).toBe(2);
    expect(output.stderr).toContain(
      `error: --out ${out} already holds a checkpoint; average would replace it: give another --out, or --replace to write over it`,
    );
    expect(readFileSync(join(out, "weights.bin"))).toEqual(before);
    output.clear();
    expect(await main(["average", ckpt(2), ckpt(3), "--out", out, "--replace"])).toBe(0);
    expect(output.stderr).toContain(`average: ${out} holds a checkpoint; the average replaces it`);
    expect(readFileSync(join(out, "weights.bin"))).not.toEqual(before);
    // A folder where an sft stopped holds no checkpoint: the refusal names that sft and the command that finishes it.
    const stopped = join(dir, "stopped-sft");
    mkdirSync(join(stopped, "sft-progress"), { recursive: true });
    const resume = `npx agent-r1 sft --data demos --out ${stopped} --resume`;
    writeFileSync(join(stopped, "sft-progress", "progress.json"), JSON.stringify({ command: resume }));
    output.clear();
    expect(await main(["average", ckpt(2), ckpt(3), "--out", stopped])).toBe(2);
    expect(output.stderr).toContain(
      `error: --out ${stopped} is an unfinished sft clone, not a checkpoint: its sft was stopped before its end and left its progress in ${join(stopped, "sft-progress")}; finish it with \`${resume}\`, or give another --out, or --replace to write over it\n`,
    );
    expect(readdirSync(stopped)).toEqual(["sft-progress"]);
    // A run's own checkpoints are train's, --replace or not.
    output.clear();
    expect(await main(["average", ckpt(2), ckpt(3), "--out", join(run, "checkpoints", "v00009"), "--replace"])).toBe(2);
    expect(output.stderr).toContain("is in a train run's checkpoints/ folder, which only train writes");
  });

  it("names the previous checkpoint that a --replace killed between its two renames left beside --out, and removes nothing", async () => {
    const out = join(dir, "interrupted");
    expect(await main(["average", ckpt(2), ckpt(3), "--out", out])).toBe(0);
    // What a kill between saveCheckpoint's two renames leaves: the old checkpoint moved aside, nothing at --out.
    const aside = `${out}.old-99999-1`;
    renameSync(out, aside);
    output.clear();
    expect(await main(["eval", "--env", "lookup", "--checkpoint", out, "--episodes", "1"])).toBe(2);
    expect(output.stderr).toContain(
      `found ${aside} left by an interrupted --replace of ${out}: it holds the checkpoint ${out} held before (${out} itself is missing): move it back with \`mv ${aside} ${out}\`, or delete it`,
    );
    output.clear();
    // Read as a checkpoint by another command (here average's input), the same.
    expect(await main(["average", out, ckpt(2), "--out", join(dir, "never-made")])).toBe(2);
    expect(output.stderr).toContain(`found ${aside} left by an interrupted --replace of ${out}`);
    output.clear();
    // The next write to --out says so too, and leaves the old checkpoint where it is.
    expect(await main(["average", ckpt(2), ckpt(3), "--out", out])).toBe(0);
    expect(output.stderr).toContain(
      `warning: found ${aside} left by an interrupted --replace of ${out}: it holds the checkpoint ${out} held before (${out} itself is missing)`,
    );
    expect(existsSync(join(aside, "manifest.json"))).toBe(true);
    output.clear();
    expect(await main(["average", ckpt(2), ckpt(3), "--out", out, "--replace"])).toBe(0);
    expect(output.stderr).toContain(
      `warning: found ${aside} left by an interrupted --replace of ${out}: it holds the checkpoint ${out} held before; ${out} holds the new one: delete it once not needed`,
    );
    expect(existsSync(join(aside, "manifest.json"))).toBe(true);
  });

  it("refuses checkpoints of another shape, an --out among the inputs, and a checkpoint given twice, writing nothing", async () => {
    const { model, tokenizer } = await loadCheckpoint(ckpt(1));
    const wider = join(dir, "wider");
    const other = new Gpt({ ...model.config, width: 32 }, "wider");
    await saveCheckpoint(wider, { model: other, tokenizer, version: 0 });
    model.dispose();
    other.dispose();
    const out = join(dir, "never");
    expect(await main(["average", ckpt(1), wider, "--out", out])).toBe(2);
    expect(output.stderr).toContain(`${wider} has another model shape than ${ckpt(1)} (width 32 against 16);`);
    expect(existsSync(out)).toBe(false);

    // Another vocabulary of the same size: another environment's model, refused.
    const { model: same, tokenizer: words } = await loadCheckpoint(ckpt(1));
    const reworded = join(dir, "reworded");
    await saveCheckpoint(reworded, {
      model: same,
      tokenizer: new WordTokenizer([...(words as WordTokenizer).words].reverse()),
      version: 0,
    });
    same.dispose();
    output.clear();
    expect(await main(["average", ckpt(1), reworded, "--out", out])).toBe(2);
    expect(output.stderr).toContain(`${reworded} has another tokenizer than ${ckpt(1)}`);
    expect(existsSync(out)).toBe(false);

    output.clear();
    expect(await main(["average", ckpt(1), ckpt(2), "--out", ckpt(2)])).toBe(2);
    expect(output.stderr).toContain(`--out ${ckpt(2)} is one of the checkpoints to average`);

    // A run folder as --out is said to be one (before: "is not a checkpoint folder (it holds checkpoints)").
    output.clear();
    expect(await main(["average", run, "--out", run])).toBe(2);
    expect(output.stderr).toContain(
      `${run} is a train run's folder, not a checkpoint folder (its checkpoints are in ${join(run, "checkpoints")}); choose another folder`,
    );

    output.clear();
    expect(await main(["average", ckpt(1), `${ckpt(1)}/`, "--out", out])).toBe(2);
    expect(output.stderr).toContain(`${ckpt(1)}/ is given twice (as a checkpoint, or as a run folder's latest)`);
    expect(existsSync(out)).toBe(false);

    output.clear();
    expect(await main(["average", ckpt(1), "--last", "2", "--out", out])).toBe(2);
    expect(output.stderr).toContain(`${ckpt(1)} is a checkpoint, not a run folder`);
    expect(existsSync(out)).toBe(false);
  });
});

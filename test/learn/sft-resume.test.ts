/**
 * sft saves its progress (weights, AdamW's state, its random streams and where it is) in --out/sft-progress at
 * each epoch's end, every --checkpoint-every steps and when stopped; `--resume` continues from it to the clone an
 * unbroken run writes, byte for byte. Before, an interrupted sft kept nothing (the clone was written once, at
 * its end): a warm start of hopqa's lost 12-30 minutes to a Ctrl-C.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { main } from "../../src/cli/main.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { modelConfigFor } from "../../src/learn/config.ts";
import { type SftOptions, sft } from "../../src/learn/sft.ts";
import { loadCheckpoint } from "../../src/policy/checkpoint.ts";
import { captureOutput, interruptedCli, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-sft-resume-");
const data = join(dir, "demos");
const log = () => {};
/** 6 episodes in steps of 2: 3 steps an epoch; a curriculum of 2 steps first; offsets from their own stream. */
const base = {
  env: lookup,
  data,
  envSpec: "lookup",
  epochs: 3,
  batchSize: 2,
  backend: "wasm",
  // As the CLI builds it from --layers 1 --heads 2 --width 16 (the CLI test below continues a library run).
  model: modelConfigFor(lookup, { layers: 1, heads: 2, width: 16 }),
  curriculum: [{ actions: 1, steps: 2 }],
  positionOffsets: "mixed",
  log,
} satisfies Partial<SftOptions>;
const CLONE_FILES = ["weights.bin", "manifest.json", "sft.json", "config.json", "tokenizer.json"];
const same = (a: string, b: string) => {
  expect(readdirSync(a).sort()).toEqual(readdirSync(b).sort());
  for (const file of CLONE_FILES) expect(readFileSync(join(a, file)), file).toEqual(readFileSync(join(b, file)));
};
/**
 * Stops after `steps` steps (curriculum ones included) or, with `epochs`, once that many epochs ended. sft asks
 * once before its first step too (a signal while it loads), so the first question is not counted.
 */
const stopper = (when: { steps?: number; epochs?: number }) => {
  let steps = 0;
  let epochs = 0;
  return {
    shouldStop: () =>
      ++steps > (when.steps ?? Number.POSITIVE_INFINITY) || epochs >= (when.epochs ?? Number.POSITIVE_INFINITY),
    onEpoch: () => {
      epochs++;
    },
  };
};
const unbroken = join(dir, "unbroken");

describe("sft --resume", () => {
  beforeAll(async () => {
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "6", "--out", data])).toBe(0);
    const result = await sft({ ...base, out: unbroken });
    expect(result.stopped).toBeUndefined();
    expect(result.losses).toHaveLength(3);
  }, 60_000);

  it.each<[string, { steps?: number; epochs?: number }]>([
    ["after epoch 1", { epochs: 1 }],
    ["mid-epoch (step 4 of 11)", { steps: 4 }],
    ["in the curriculum (step 1)", { steps: 1 }],
  ])(
    "stopped %s, then resumed: the clone of an unbroken run, byte for byte",
    async (_, when) => {
      const out = join(dir, `stopped-${when.epochs ?? 0}-${when.steps ?? 0}`);
      const first = await sft({ ...base, out, ...stopper(when) });
      expect(first.stopped).toBe(true);
      // No clone yet: its progress only, which loaders refuse.
      expect(readdirSync(out)).toEqual(["sft-progress"]);
      await expect(loadCheckpoint(out)).rejects.toThrow(`${out} is an unfinished sft clone`);
      const second = await sft({ ...base, out, resume: true });
      expect(second.stopped).toBeUndefined();
      same(out, unbroken);
      expect(existsSync(join(out, "sft-progress"))).toBe(false);
    },
    60_000,
  );

  it("an AbortSignal stops it as shouldStop does (train's signal option), and resume finishes it", async () => {
    const out = join(dir, "aborted");
    const controller = new AbortController();
    const first = await sft({ ...base, out, signal: controller.signal, onEpoch: () => controller.abort() });
    expect(first).toMatchObject({ stopped: true, losses: [expect.any(Number)] });
    await sft({ ...base, out, resume: true });
    same(out, unbroken);
  }, 60_000);

  it("stopped while it replaces a clone: the old clone's files are refused too, saying how to get it back", async () => {
    const out = join(dir, "replacing");
    cpSync(unbroken, out, { recursive: true });
    expect((await sft({ ...base, out, seed: "other", ...stopper({ steps: 1 }) })).stopped).toBe(true);
    await expect(loadCheckpoint(out)).rejects.toThrow(
      `(the clone it held before that sft --replace is still there: remove ${join(out, "sft-progress")} to use it)`,
    );
    rmSync(join(out, "sft-progress"), { recursive: true });
    same(out, unbroken);
  }, 60_000);

  it("--checkpoint-every saves a point every N steps: a kill (no chance to save) loses only the steps since", async () => {
    const out = join(dir, "every");
    const kept = join(dir, "every-kept");
    // A copy of --out as it was after step 5 (the first epoch's last; its point not yet saved) stands for a kill
    // then: the point of step 4 is its last (without --checkpoint-every there would be none).
    let steps = 0;
    await sft({
      ...base,
      out,
      checkpointEvery: 2,
      shouldStop: () => {
        if (++steps === 6) cpSync(out, kept, { recursive: true });
        return false;
      },
    });
    same(out, unbroken);
    expect(readdirSync(join(kept, "sft-progress")).sort()).toEqual(["progress.json", "s000004"]);
    await sft({ ...base, out: kept, checkpointEvery: 2, resume: true });
    same(kept, unbroken);
  }, 60_000);

  it("a damaged saved point is refused, naming the file and the way on (starting over), not only the damage", async () => {
    const out = join(dir, "damaged");
    await sft({ ...base, out, ...stopper({ epochs: 1 }) });
    const point = readdirSync(join(out, "sft-progress")).find((f) => f !== "progress.json")!;
    const weights = join(out, "sft-progress", point, "weights.bin");
    truncateSync(weights, 10);
    const attempt = sft({ ...base, out, resume: true });
    await expect(attempt).rejects.toThrow(UsageError);
    await expect(attempt).rejects.toThrow(
      `resume: the saved point of the sft stopped in ${out} is damaged (checkpoint ${weights}: truncated: 10 bytes, the manifest says `,
    );
    await expect(attempt).rejects.toThrow(/so it cannot be resumed; an sft without resume: true starts it over$/);
    // As it says: started over, it clones as an unbroken run does.
    await sft({ ...base, out });
    same(out, unbroken);
  }, 60_000);

  it("refuses a changed argument, naming it and both values; a changed --data too (from code, by its option: sft() has no flags)", async () => {
    const out = join(dir, "changed");
    await sft({ ...base, out, ...stopper({ epochs: 1 }) });
    const refused = async (options: Partial<SftOptions>, said: string) => {
      const attempt = sft({ ...base, out, resume: true, ...options });
      await expect(attempt).rejects.toThrow(UsageError);
      await expect(sft({ ...base, out, resume: true, ...options })).rejects.toThrow(said);
    };
    await refused(
      { lr: 0.01 },
      "resume: lr differs from the stopped sft's: 0.003 then, 0.01 now; the sft in " +
        out +
        " continues only with the arguments it was started with (give them again), or an sft without resume: true starts it over",
    );
    await refused({ epochs: 4 }, "resume: epochs differs from the stopped sft's: 3 then, 4 now");
    await refused({ seed: "1" }, 'resume: seed differs from the stopped sft\'s: "0" then, "1" now');
    await refused(
      { curriculum: [{ actions: 1, steps: 3 }] },
      'resume: curriculum differs from the stopped sft\'s: "1:2" then, "1:3" now',
    );
    await refused(
      { positionOffsets: "none" },
      'resume: positionOffsets differs from the stopped sft\'s: "mixed" then, "none" now',
    );
    await refused(
      { model: { ...base.model, copy: !base.model.copy } },
      `resume: model.copy differs from the stopped sft's: ${!!base.model.copy} then, ${!base.model.copy} now`,
    );
    await refused(
      { model: { ...base.model, width: 32 } },
      "resume: model.width differs from the stopped sft's: 16 then, 32 now",
    );
    // The same folder with one journal less: other episodes.
    const fewer = join(dir, "fewer");
    cpSync(data, fewer, { recursive: true });
    rmSync(join(fewer, readdirSync(fewer).filter((f) => f.endsWith(".jsonl"))[0]));
    await refused({ data: fewer }, `resume: data differs from the stopped sft's`);
    // Still resumable as it was: nothing was changed by the refusals.
    await sft({ ...base, out, resume: true });
    same(out, unbroken);
  }, 60_000);

  it("the CLI: an unfinished --out is refused by eval, train --init and sft without --resume; --resume of a finished or empty one says so", async () => {
    const out = join(dir, "cli");
    const args = ["sft", "--env", "lookup", "--data", data, "--epochs", "3", "--batch-size", "2"];
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--backend", "wasm"];
    const command = ["--curriculum", "1:2", "--position-offsets", "mixed", ...shape, "--out", out];
    await sft({
      ...base,
      out,
      command: `npx agent-r1 ${[...args, ...command].join(" ")} --resume`,
      ...stopper({ epochs: 1 }),
    });
    const resume = `\`npx agent-r1 ${[...args, ...command].join(" ")} --resume\``;
    for (const [argv, flag] of [
      [["eval", "--env", "lookup", "--checkpoint", out, "--episodes", "1"], "--checkpoint"],
      [["train", "--env", "lookup", "--init", out, "--out", join(dir, "run"), "--steps", "1"], "--init"],
      [["average", out, unbroken, "--out", join(dir, "avg")], ""],
    ] as const) {
      output.clear();
      expect(await main([...argv])).toBe(2);
      expect(output.stderr).toContain(
        `${flag ? `${flag} ` : ""}${out} is an unfinished sft clone (1 of 3 epochs done), not a checkpoint`,
      );
      expect(output.stderr).toContain(`finish it with ${resume}`);
    }
    output.clear();
    expect(await main([...args, ...command])).toBe(2);
    expect(output.stderr).toContain(`--out ${out} is an unfinished sft clone (1 of 3 epochs done)`);
    expect(output.stderr).toContain(
      `continue it with ${resume} (the same arguments), or give --replace to start it over`,
    );
    output.clear();
    expect(await main([...args, ...command, "--lr", "0.01", "--resume"])).toBe(2);
    expect(output.stderr).toContain("--lr differs from the stopped sft's: 0.003 then, 0.01 now");
    output.clear();
    expect(await main([...args, ...command, "--resume"]), output.stderr).toBe(0);
    same(out, unbroken);
    output.clear();
    expect(await main([...args, ...command, "--resume"])).toBe(2);
    expect(output.stderr).toContain(
      `--resume: ${out} holds a finished clone (its sft ran to its end): nothing to resume`,
    );
    output.clear();
    const empty = join(dir, "empty");
    expect(await main([...args, ...shape, "--out", empty, "--resume"])).toBe(2);
    expect(output.stderr).toContain(`--resume: ${empty} holds no stopped sft to resume`);
    expect(existsSync(empty)).toBe(false);
  }, 90_000);

  it("the CLI shows the curriculum's steps as they go, then the epochs' steps (the epochs' bar stood at 0 through the curriculum, and through each epoch)", async () => {
    const out = join(dir, "curriculum-progress");
    const args = ["sft", "--env", "lookup", "--data", data, "--epochs", "1", "--batch-size", "2"];
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--backend", "wasm", "--out", out];
    output.clear();
    expect(await main([...args, ...shape, "--curriculum", "1:3,2:2"]), output.stderr).toBe(0);
    // Off a terminal: the first step's line, then at most one every 2 s, and always the last.
    const lines = output.stderr.split("\n").filter((line) => line.startsWith("sft"));
    expect(lines[0]).toMatch(/^sft curriculum steps: 1\/5 \(.*\) stage 1\/2 loss \d+\.\d{3}$/);
    const epochs = lines.findIndex((line) => line.startsWith("sft steps"));
    expect(lines[epochs - 1]).toMatch(/^sft curriculum steps: 5\/5 \(.*, ETA 0s\) stage 2\/2 loss \d+\.\d{3}$/);
    // Then the epoch's steps (6 demonstrations, batches of 2: 3 steps): its first, and the last at its end.
    expect(lines[epochs]).toMatch(/^sft steps: 1\/3 \(.*\) epoch 1\/1 loss \d+\.\d{3}$/);
    expect(lines.at(-1)).toMatch(/^sft steps: 3\/3 \(.*, ETA 0s\) epoch 1\/1 loss \d+\.\d{3}$/);
  }, 60_000);

  it("Ctrl-C (SIGINT) finishes the step, saves a point, says the command that resumes it and exits 130", async () => {
    const out = join(dir, "signal");
    const args = ["sft", "--env", "lookup", "--data", data, "--epochs", "20", "--batch-size", "2"];
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--backend", "wasm", "--out", out];
    // Ctrl-C after the first epoch's tick: mid-run.
    const { code, stderr } = await interruptedCli([...args, ...shape], /sft steps: [1-9]/);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(`interrupted: finishing the current step and saving sft's progress in ${out}`);
    expect(stderr).toMatch(
      /sft stopped \(\d+ of 20 epochs done(, \d+ steps into the next)?\): its progress is saved in/,
    );
    expect(stderr).toContain(`resume with: npx agent-r1 ${[...args, ...shape].join(" ")} --resume`);
    expect(readdirSync(out)).toEqual(["sft-progress"]);
    const [, epochs, steps] = /(\d+) of 20 epochs done(?:, (\d+) steps into the next)?/.exec(stderr) ?? [];
    output.clear();
    expect(await main([...args, ...shape, "--resume"])).toBe(0);
    // Its bar goes on from the step it stopped after (3 steps an epoch), not from 0.
    const first = output.stderr.split("\n").find((line) => line.startsWith("sft steps: "));
    expect(first).toMatch(new RegExp(`^sft steps: ${Number(epochs) * 3 + Number(steps ?? 0) + 1}/60 `));
    const whole = join(dir, "signal-unbroken");
    expect(await main([...args, ...shape.slice(0, -1), whole])).toBe(0);
    same(out, whole);
  }, 90_000);
});

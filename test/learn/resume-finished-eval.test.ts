/**
 * A run resumed with nothing left to train (finished, and resumed again: `train --out RUN --resume` says
 * "nothing to train") evaluated its policy again after training, on the same episodes, for the same numbers:
 * minutes on hopqa, spent after saying there was nothing to do. The evaluation eval.json holds is kept; a
 * resume that trains evaluates its new policy. The journals of an update begun after its last checkpoint are
 * dropped, and said not to be recorded again (it said they were).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { trainConfigFor } from "../../src/learn/config.ts";
import { train } from "../../src/learn/trainer.ts";
import { tempDir } from "../support/index.ts";

/** The tiny run of these tests: `steps` updates of one task x 2 episodes, evaluated on 2 before and after. */
const tinyConfig = (steps: number, more: { tasksPerStep?: number; evalEpisodes?: number } = {}) =>
  trainConfigFor(lookup, {
    backend: "wasm",
    steps,
    tasksPerStep: 1,
    groupSize: 2,
    evalEpisodes: 2,
    warmStart: null,
    model: { layers: 1, heads: 2, width: 16 },
    ...more,
  });

describe("train resumed with nothing left to train", () => {
  it("keeps the evaluation after training that eval.json holds, and says so; a resume that trains evaluates again", async () => {
    const out = join(tempDir("agent-r1-resume-finished-"), "run");
    const config = (steps: number) => tinyConfig(steps);
    const first = await train({ env: lookup, config: config(1), out, log: () => {} });
    const saved = readFileSync(join(out, "eval.json"), "utf8");
    // The journals of an update begun after the last checkpoint (a run of more steps, killed in it, resumed with
    // --steps 1): dropped, and not recorded again, since the run ends here.
    mkdirSync(join(out, "episodes", "u00001"));
    copyFileSync(
      join(out, "episodes", "u00000", "ep-0-u0-0.jsonl"),
      join(out, "episodes", "u00001", "ep-0-u1-0.jsonl"),
    );
    const phases: string[] = [];
    const lines: string[] = [];
    const again = await train({
      env: lookup,
      config: config(1),
      out,
      resume: true,
      log: (line) => lines.push(line),
      onEvalStart: (phase) => phases.push(phase),
    });
    expect(phases).toEqual([]);
    expect(again).toMatchObject({ steps: 0, version: 1, stopped: false });
    expect(again.after).toEqual(first.after);
    expect(lines).toContain(
      "dropped the journals of episodes/u00001, written after version 1: the run ends at version 1 (steps 1), so they are not recorded again",
    );
    expect(existsSync(join(out, "episodes", "u00001"))).toBe(false);
    expect(lines.filter((line) => line.startsWith("after training"))).toEqual([
      expect.stringMatching(`^after training \\(evaluated before, kept in ${join(out, "eval.json")}\\): success `),
    ]);
    expect(readFileSync(join(out, "eval.json"), "utf8")).toBe(saved);
    // One more update: its policy is evaluated.
    const extended = await train({
      env: lookup,
      config: config(2),
      out,
      resume: true,
      log: () => {},
      onEvalStart: (phase) => phases.push(phase),
    });
    expect(phases).toEqual(["after"]);
    expect(extended.version).toBe(2);
    expect(JSON.parse(readFileSync(join(out, "eval.json"), "utf8")).version).toBe(2);
  }, 60_000);

  it("a stop during the last update leaves the evaluation after training, which had not begun, to the resume", async () => {
    // After Ctrl-C in its last update the run went on to evaluate, minutes on hopqa, then exited as if not stopped.
    const out = join(tempDir("agent-r1-stop-last-"), "run");
    const config = tinyConfig(1);
    const phases: string[] = [];
    const lines: string[] = [];
    let stop = false;
    const stopped = await train({
      env: lookup,
      config,
      out,
      shouldStop: () => stop,
      onEpisode: () => {
        stop = true;
      },
      onEvalStart: (phase) => phases.push(phase),
      log: (line) => lines.push(line),
    });
    expect(phases).toEqual(["before"]);
    expect(stopped).toMatchObject({ steps: 1, version: 1, stopped: true });
    expect(stopped.after).toBeUndefined();
    expect(lines).toContain(
      `stopped after the last update, before the evaluation after training: a resume (train --out ${out} --resume) evaluates policy version 1`,
    );
    const resumed = await train({
      env: lookup,
      config,
      out,
      resume: true,
      log: () => {},
      onEvalStart: (phase) => phases.push(phase),
    });
    expect(phases).toEqual(["before", "after"]);
    expect(resumed).toMatchObject({ steps: 0, version: 1, stopped: false });
    expect(resumed.after?.episodes).toBe(2);
    expect(JSON.parse(readFileSync(join(out, "eval.json"), "utf8")).version).toBe(1);
  }, 60_000);

  it("says a torn journal of its last update, naming it, as replay does, and leaves it as it is", async () => {
    const out = join(tempDir("agent-r1-resume-finished-torn-"), "run");
    const config = tinyConfig(1, { tasksPerStep: 2, evalEpisodes: 0 });
    await train({ env: lookup, config, out, log: () => {} });
    // A write cut off: the last event's line without its end.
    const file = join(out, "episodes", "u00000", "ep-0-u0-1.jsonl");
    const whole = readFileSync(file, "utf8");
    const torn = whole.slice(0, whole.length - 20);
    writeFileSync(file, torn);
    const lines: string[] = [];
    const again = await train({ env: lookup, config, out, resume: true, log: (line) => lines.push(line) });
    expect(again).toMatchObject({ steps: 0, version: 1, stopped: false });
    const events = whole.trimEnd().split("\n").length;
    expect(lines).toContain(
      `warning: a journal of update 0, the last one kept, is damaged, and kept as it is: ${file}:${events}: torn-tail: the last line is incomplete (${Buffer.byteLength(whole.trimEnd().split("\n").at(-1) ?? "") - 19} bytes without a newline): a write was cut off; run \`npx agent-r1 replay --repair ${file}\` to truncate it`,
    );
    expect(readFileSync(file, "utf8")).toBe(torn);
    // More than 3: the first 3 named, a line each, and where replay names them all.
    const folder = join(out, "episodes", "u00000");
    const names = readdirSync(folder).sort();
    expect(names).toHaveLength(4);
    for (const name of names.filter((name) => join(folder, name) !== file)) {
      const text = readFileSync(join(folder, name), "utf8");
      writeFileSync(join(folder, name), text.slice(0, text.length - 20));
    }
    lines.length = 0;
    await train({ env: lookup, config, out, resume: true, log: (line) => lines.push(line) });
    expect(lines.filter((line) => line.startsWith("warning: "))).toEqual([
      ...names
        .slice(0, 3)
        .map((name) =>
          expect.stringMatching(
            `^warning: a journal of update 0, the last one kept, is damaged, and kept as it is: ${join(folder, name)}:\\d+: torn-tail: `,
          ),
        ),
      `warning: and 1 more journal of update 0 is damaged: replay ${folder} names them`,
    ]);
  }, 60_000);
});

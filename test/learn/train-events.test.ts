/**
 * trainEvents: train() as an RxJS Observable of the run's events, through the package's `agent-r1-ts/learn` entry
 * point: the events in the order a run makes them, `done` last; a refusal as the Observable's error; unsubscribing
 * stops the run at the next update's boundary, its checkpoint written and its folder unlocked.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { filter, firstValueFrom, lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/journal/lock.ts";
import { loadEnv, sft, type TrainEvent, train, trainConfigFor, trainEvents } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

const tiny = { layers: 1, heads: 2, width: 16 };
const small = { backend: "wasm", tasksPerStep: 1, groupSize: 2, warmStart: null, model: tiny } as const;

/** The events' types, runs of episodes folded into one "episode xN". */
const shape = (events: readonly TrainEvent[]) =>
  events
    .filter((e) => e.type !== "log")
    .map((e) => (e.type === "eval.started" || e.type === "eval.episode" ? `${e.type}:${e.phase}` : e.type))
    .reduce<string[]>((folded, type) => {
      const last = folded.at(-1);
      if (last?.startsWith(`${type} x`)) folded[folded.length - 1] = `${type} x${Number(last.split(" x")[1]) + 1}`;
      else folded.push(type === "episode" || type.startsWith("eval.episode") ? `${type} x1` : type);
      return folded;
    }, []);

describe("trainEvents", () => {
  it("emits a run's evaluations, sampled episodes and updates in order, then done with train's result", async () => {
    const lookup = await loadEnv("lookup");
    const out = join(tempDir(), "run");
    const config = trainConfigFor(lookup, { ...small, steps: 2, evalEpisodes: 1 });
    const events = await lastValueFrom(trainEvents({ env: lookup, config, out, log: () => {} }).pipe(toArray()));
    expect(shape(events)).toEqual([
      "eval.started:before",
      "eval.episode:before x1",
      "updates.started",
      "episode x2",
      "update",
      "episode x2",
      "update",
      "eval.started:after",
      "eval.episode:after x1",
      "done",
    ]);
    const updates = events.flatMap((e) => (e.type === "update" ? [e.metrics.version] : []));
    expect(updates).toEqual([1, 2]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.result.version).toBe(2);
    expect(done?.type === "done" && done.result.stopped).toBe(false);
    // A second subscription is a second run: into a folder that holds one, refused as train() refuses it.
    await expect(lastValueFrom(trainEvents({ env: lookup, config, out, log: () => {} }))).rejects.toThrow("resume");
  }, 120_000);

  it("says the run's lines as log events, a warm start's first, given to the caller's log too", async () => {
    const lookup = await loadEnv("lookup");
    const out = join(tempDir(), "warm");
    const config = trainConfigFor(lookup, {
      ...small,
      steps: 1,
      evalEpisodes: 0,
      warmStart: { episodes: 8, epochs: 1 },
    });
    const heard: string[] = [];
    const events = await lastValueFrom(
      trainEvents({ env: lookup, config, out, log: (line) => heard.push(line) }).pipe(toArray()),
    );
    const lines = events.flatMap((e) => (e.type === "log" ? [e.line] : []));
    expect(lines).toEqual(heard);
    // Before anything else the run does: the warm start's recording and cloning, heard as they begin and end.
    const first = events.findIndex((e) => e.type !== "log");
    const before = lines.slice(0, first);
    expect(before.join("\n")).toMatch(
      /warm start: recording 8 expert episodes into .*demos, then cloning them \(1 epoch\)/,
    );
    expect(before.join("\n")).toMatch(/warm start: .* -> .*warm-start/);
    expect(shape(events)).toEqual(["updates.started", "episode x2", "update", "done"]);
  }, 120_000);

  it("follows the caller's signal (an aborted one stops the run before its first update); a signal that is none is refused", async () => {
    const lookup = await loadEnv("lookup");
    const config = trainConfigFor(lookup, { ...small, steps: 5, evalEpisodes: 0 });
    const controller = new AbortController();
    controller.abort();
    const signal = controller.signal;
    const events = await lastValueFrom(
      trainEvents({ env: lookup, config, out: join(tempDir(), "aborted"), signal, log: () => {} }).pipe(toArray()),
    );
    expect(events.map((e) => e.type)).toEqual(["updates.started", "done"]);
    const done = events.at(-1);
    expect(done?.type === "done" && done.result).toMatchObject({ stopped: true, version: 0 });
    // From plain JavaScript, a string or the controller itself was taken as a signal that never aborts.
    const refusal = "train: signal must be an AbortSignal (new AbortController().signal, or an object with";
    for (const wrong of ["stop", controller]) {
      const options = { env: lookup, config, out: join(tempDir(), "wrong"), signal: wrong as never, log: () => {} };
      await expect(lastValueFrom(trainEvents(options))).rejects.toThrow(refusal);
      await expect(train(options)).rejects.toThrow(refusal);
    }
    await expect(
      sft({ env: lookup, data: join(tempDir(), "none"), out: join(tempDir(), "sft"), signal: controller as never }),
    ).rejects.toThrow(
      "sft: signal must be an AbortSignal (new AbortController().signal, or an object with a boolean 'aborted', 'reason' and addEventListener/removeEventListener methods), got an object without a boolean 'aborted', addEventListener, removeEventListener (an AbortController? give its .signal)",
    );
    await expect(sft(undefined as never)).rejects.toThrow(
      'sft: the options must be an object, e.g. sft({ env, data: "runs/demos", out: "runs/clone" }), got undefined',
    );
  }, 60_000);

  it("unsubscribing stops the run after the update under way: its checkpoint written, the folder unlocked", async () => {
    const lookup = await loadEnv("lookup");
    const out = join(tempDir(), "stopped");
    const config = trainConfigFor(lookup, { ...small, steps: 50, evalEpisodes: 0 });
    const first = await firstValueFrom(
      trainEvents({ env: lookup, config, out, log: () => {} }).pipe(
        filter((e) => e.type === "update"),
        take(1),
      ),
    );
    expect(first.type === "update" && first.metrics.version).toBe(1);
    // The run goes on to its next check of the signal (before the next update), then writes and unlocks.
    const deadline = Date.now() + 60_000;
    while (existsSync(join(out, LOCK_FILE)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
    // One update, or two when the second had begun: not the 50 asked for.
    const updates = readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n");
    expect(updates.length).toBeLessThanOrEqual(2);
    expect(readdirSync(join(out, "checkpoints"))).toContain(`v0000${updates.length}`);
  }, 120_000);
});

/** Cloning under the legal actions' masks, and continuing a clone from its checkpoint (`sft --init`). */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expertPolicy, lookupEnv } from "../../actors/lookup/index.ts";
import { record } from "../../src/cli/record.ts";
import { canonicalJson, defineEnv, EnvProtocolError, formatAnswer } from "../../src/index.ts";
import { loadSequences, sft } from "../../src/learn/sft.ts";
import { tempDir } from "../support/index.ts";

const model = { layers: 1, heads: 2, width: 32, contextLength: 96 };

const sftOptions = (data: string) => ({ env: lookupEnv, data, lr: 3e-3, seed: "s", backend: "wasm" as const, model });

const recordDemos = (out: string, episodes: number, seed: string) =>
  record({
    env: lookupEnv,
    policy: expertPolicy(),
    episodes,
    seed,
    out,
    concurrency: 8,
    durability: "none",
    quiet: true,
  });

describe("sft --constrained and --init", () => {
  it("scores demonstrations under the masks (lower loss than unmasked) and continues from a checkpoint", async () => {
    const dir = tempDir();
    const data = join(dir, "demos");
    await recordDemos(data, 24, "sft-c");
    const base = { ...sftOptions(data), epochs: 2, batchSize: 8 };
    const lines: string[] = [];
    const free = await sft({ ...base, out: join(dir, "free"), log: () => {} });
    const masked = await sft({ ...base, out: join(dir, "masked"), constrained: true, log: (l) => lines.push(l) });
    // Same model, same batches: renormalising over the legal ids can only raise a demonstrated token's probability.
    expect(masked.losses[0]).toBeLessThan(free.losses[0]);
    // tokens counts each epoch's pass; actionTokens the demonstrations' action tokens once.
    expect(free.actionTokens).toBeGreaterThan(0);
    expect(free.tokens).toBe(2 * free.actionTokens);
    // Every expert action of lookup is legal: nothing was left unconstrained.
    expect(lines.filter((l) => l.includes("not among the legal ones"))).toEqual([]);
    const resumed = await sft({ ...base, epochs: 1, out: join(dir, "more"), init: join(dir, "free"), log: () => {} });
    // Continuing starts where the first clone ended, well below a fresh model's first epoch.
    expect(resumed.losses[0]).toBeLessThan(free.losses[0]);
    expect(resumed.losses[0]).toBeLessThan(free.losses[1] * 1.5);
  }, 120_000);

  it("names the first demonstrated action that legalActions does not list, and what it listed", async () => {
    const data = join(tempDir(), "demos");
    await recordDemos(data, 2, "sft-illegal");
    // A legalActions that misses the expert's actions (a user's bug): the clone cannot be constrained there.
    const narrow = defineEnv({ ...lookupEnv, legalActions: () => [formatAnswer("nothing")] });
    const lines: string[] = [];
    const files = readdirSync(data)
      .filter((f) => f.endsWith(".jsonl"))
      .sort()
      .map((f) => join(data, f));
    await loadSequences(narrow, files, 96, true, true, (l) => lines.push(l));
    const said = lines.filter((l) => l.includes("not among the legal ones"));
    expect(said).toHaveLength(1);
    const events = readFileSync(files[0], "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const action = events.find((e: { type: string }) => e.type === "agent.acted");
    expect(said[0]).toContain(
      `the first, ${files[0]} turn 0: ${JSON.stringify(action.text)}, where legalActions listed "<answer>nothing</answer>": fix legalActions`,
    );
  });

  it("a legalActions that returns [] or throws on a demonstration is said in one line, naming the file", async () => {
    const data = join(tempDir(), "demos");
    await recordDemos(data, 1, "sft-empty");
    const files = readdirSync(data)
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(data, f));
    // Was a bare RangeError from the sampler's trie: `sft --constrained` printed its stack, naming no journal.
    const empty = defineEnv({ ...lookupEnv, legalActions: () => [] });
    const refused = loadSequences(empty, files, 96, true, true);
    await expect(refused).rejects.toBeInstanceOf(EnvProtocolError);
    await expect(refused).rejects.toThrow(
      `environment lookup: declared no legal action for turn 0 (legalActions returned []), on the history of ${files[0]} (sft`,
    );
    const throwing = defineEnv({
      ...lookupEnv,
      legalActions: () => {
        throw new Error("legal bug");
      },
    });
    await expect(loadSequences(throwing, files, 96, true, true)).rejects.toThrow(
      /^environment lookup: legalActions threw for turn 0: legal bug \(thrown at test\/learn\/sft-constrained\.test\.ts:\d+:\d+\), on the history of /,
    );
  });

  it("skips journals a stopped record cut short, saying how many, and checks --out before cloning", async () => {
    const dir = tempDir();
    const data = join(dir, "demos");
    await recordDemos(data, 8, "sft-cut");
    // Two journals as a record stopped mid-episode leaves them: no episode.ended.
    const files = readdirSync(data)
      .filter((f) => f.endsWith(".jsonl"))
      .sort();
    for (const file of files.slice(0, 2)) {
      const lines = readFileSync(join(data, file), "utf8").trimEnd().split("\n");
      writeFileSync(join(data, file), `${lines.slice(0, -1).join("\n")}\n`);
    }
    const base = { ...sftOptions(data), epochs: 1, batchSize: 4 };
    const lines: string[] = [];
    const cloned = await sft({ ...base, out: join(dir, "clone"), log: (l) => lines.push(l) });
    expect(cloned.episodes).toBe(6);
    expect(lines.join("\n")).toContain(
      `sft: 2 of 8 journals were cut short (no episode.ended: their record was stopped mid-episode) and are not cloned; the first, ${join(data, files[0])}`,
    );
    // A folder that holds something else is refused before any epoch runs.
    const busy = join(dir, "busy");
    mkdirSync(busy);
    writeFileSync(join(busy, "notes.txt"), "mine");
    let epochs = 0;
    await expect(sft({ ...base, out: busy, log: () => {}, onEpoch: () => void epochs++ })).rejects.toThrow(
      `${busy} exists and is not a checkpoint folder (it holds notes.txt); choose another folder`,
    );
    expect(epochs).toBe(0);
    // An earlier clone is replaced, and said so.
    const again: string[] = [];
    await sft({ ...base, out: join(dir, "clone"), log: (l) => again.push(l) });
    expect(again).toContain(`sft: ${join(dir, "clone")} holds a checkpoint; the clone replaces it`);
  }, 120_000);

  it("clones from a run folder: the journals under episodes/uNNNNN/ and warm-start/ (said), not metrics.jsonl", async () => {
    const run = join(tempDir(), "run");
    await recordDemos(join(run, "episodes", "u00000"), 3, "sft-run-0");
    await recordDemos(join(run, "episodes", "u00001"), 2, "sft-run-1");
    await recordDemos(join(run, "warm-start", "demos"), 2, "sft-run-demos");
    writeFileSync(join(run, "metrics.jsonl"), '{"step":0,"loss":0.5}\n');
    const lines: string[] = [];
    const out = join(run, "..", "clone");
    const cloned = await sft({ ...sftOptions(run), epochs: 1, batchSize: 4, out, log: (l) => lines.push(l) });
    expect(cloned.episodes).toBe(7);
    expect(lines).toContain(
      `sft: ${run} is a run folder: 5 of its journals are the policy's episodes and 2 its warm start's demonstrations (warm-start/); all are cloned (give --data ${join(run, "episodes")} for the policy's alone)`,
    );
    const policyOnly = await sft({ ...sftOptions(join(run, "episodes")), epochs: 1, batchSize: 4, out, log: () => {} });
    expect(policyOnly.episodes).toBe(5);
    // Only metrics.jsonl: a run folder with no episodes says where it looked.
    const empty = join(tempDir(), "empty-run");
    mkdirSync(empty);
    writeFileSync(join(empty, "metrics.jsonl"), '{"step":0}\n');
    await expect(
      sft({ ...sftOptions(empty), epochs: 1, batchSize: 4, out: join(empty, "clone"), log: () => {} }),
    ).rejects.toThrow(`no .jsonl journals in ${empty} or its subfolders`);
  }, 120_000);

  it("refuses a journal that is a copy of another (a file manager's '(copy)'), which would be cloned twice", async () => {
    const data = join(tempDir(), "demos");
    await recordDemos(data, 2, "sft-copy");
    copyFileSync(join(data, "ep-sft-copy-0.jsonl"), join(data, "ep-sft-copy-0 (copy).jsonl"));
    const files = readdirSync(data).map((name) => join(data, name));
    await expect(loadSequences(lookupEnv, files, 96)).rejects.toThrow(
      // Neither is called the copy: the listing reads "ep-sft-copy-0 (copy).jsonl" first (' ' sorts before '.').
      `${join(data, "ep-sft-copy-0 (copy).jsonl")} and ${join(data, "ep-sft-copy-0.jsonl")} hold the same episode (ep-sft-copy-0, the same events): it would be cloned twice`,
    );
    // Distinct episodes load as before.
    const distinct = files.filter((file) => !file.includes("(copy)"));
    expect(await loadSequences(lookupEnv, distinct, 96)).toHaveLength(2);
  });
  it("a legalActions that lists only the demonstrated action: loss 0 and every step counted, none said to be skipped", async () => {
    const data = join(tempDir(), "demos");
    await recordDemos(data, 8, "sft-forced");
    // legalActions lists the one action the demonstrator took in each state (a user's first legalActions is
    // often its expert's plan): every token is forced, so the gradient is 0 everywhere.
    const took = new Map<string, string>();
    for (const file of readdirSync(data).filter((f) => f.endsWith(".jsonl"))) {
      const events = readFileSync(join(data, file), "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      const task = canonicalJson(events.find((e: { type: string }) => e.type === "episode.started").task);
      let turns = 0;
      for (const e of events)
        if (e.type === "env.observed" || e.type === "agent.acted") {
          if (e.type === "agent.acted") took.set(`${task} ${turns}`, e.text);
          turns++;
        }
    }
    const forced = defineEnv({
      ...lookupEnv,
      legalActions: (view) => {
        const action = took.get(`${canonicalJson(view.task)} ${view.history.length}`);
        return action === undefined ? null : [action];
      },
    });
    const lines: string[] = [];
    const clone = await sft({
      ...sftOptions(data),
      env: forced,
      epochs: 2,
      batchSize: 4,
      constrained: true,
      out: join(tempDir(), "clone"),
      log: (l) => lines.push(l),
    });
    // Was: every step "skipped (the gradient is 0 everywhere)", each epoch's loss NaN, and sft blamed --lr.
    expect(clone.losses).toEqual([0, 0]);
    expect(clone.tokens).toBe(2 * clone.actionTokens);
    expect(lines.filter((l) => l.includes("skipped"))).toEqual([]);
  }, 60_000);
});

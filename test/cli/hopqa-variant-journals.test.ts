/**
 * Journals and checkpoints of hopqa's wording=possessive carry its own tokenizer. A journal records its variant's
 * options (test/cli/journal-env-options.test.ts); one of an older version names only its environment's id and
 * tokenizer: replay --verify, inspect and sft --data find its variant by the tokenizer. A checkpoint of one
 * wording evaluated or started from under another is refused naming --env.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { readJournalFile } from "../../src/journal/jsonl.ts";
import { EpisodeChain } from "../../src/journal/stamp.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-hopqa-variant-");
const output = captureOutput();
const POSSESSIVE = "words-v2-implicit:8d0c70283f3f8158";
const OUTER = "words-v2-implicit:bfb10aadf8ddeff9";

/** Rewrites a journal with `change` applied to its events, its hash chain stamped again (a valid journal). */
const rewrite = async (file: string, change: (event: EpisodeEvent) => EpisodeEvent) => {
  const events = await readJournalFile(file);
  const chain = new EpisodeChain(events[0].episode);
  const lines = events.map((event) => {
    const { v, episode, seq, prev, digest, meta, ...body } = change(event) as EpisodeEvent & { meta?: unknown };
    return JSON.stringify(chain.stamp(body as never));
  });
  writeFileSync(file, `${lines.join("\n")}\n`);
};

/** `record --policy expert` of `episodes` episodes of `env` into `out`; its exit code. */
const recordExpert = (env: string, out: string, episodes = 1) =>
  main(["record", "--env", env, "--policy", "expert", "--episodes", String(episodes), "--out", out]);

describe("journals of hopqa?wording=possessive", () => {
  const data = join(dir, "possessive");
  it("record them with the expert: their tokenizer is the possessive one", async () => {
    expect(await recordExpert("hopqa?wording=possessive&legal=relations", data, 2), output.stderr).toBe(0);
    const started = (await readJournalFile(join(data, "ep-0-0.jsonl")))[0];
    expect(started.type === "episode.started" && started.tokenizer).toBe(POSSESSIVE);
  });

  it("replay --verify checks their token ids with the possessive tokenizer (with or without --env hopqa)", async () => {
    expect(await main(["replay", "--verify", data]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
    // One observation token changed, the chain stamped again: only the token check can find it.
    await rewrite(join(data, "ep-0-1.jsonl"), (event) =>
      event.type === "env.observed" && event.turn === 0
        ? { ...event, tokens: [event.tokens[1], event.tokens[0], ...event.tokens.slice(2)] }
        : event,
    );
    for (const extra of [[], ["--env", "hopqa"]]) {
      output.clear();
      expect(await main(["replay", "--verify", data, ...extra])).toBe(1);
      expect(output.stdout).toContain("verified 1 journal(s) ok, 1 failed");
      expect(output.stderr).toContain("ep-0-1.jsonl:2: episode ep-0-1, seq 1: replay diverged");
      expect(output.stderr).toContain('"type":"env.observed"');
    }
  });

  it("a journal of the default wording under --env of the possessive one (a possessive run's demos): its own tokenizer", async () => {
    const outer = join(dir, "outer-journals");
    await recordExpert("hopqa", outer);
    expect(await main(["replay", "--verify", outer, "--env", "hopqa?wording=possessive"]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("token ids were not");
  });

  it("replay --verify says which journals it could not check the token ids of (a tokenizer no variant has)", async () => {
    const other = join(dir, "other-tokenizer");
    await recordExpert("hopqa?wording=possessive", other);
    expect(await main(["replay", "--verify", other]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("token ids were not");
    // As a journal of an older version (no options recorded), with a tokenizer no variant has.
    await rewrite(join(other, "ep-0-0.jsonl"), (event) =>
      event.type === "episode.started"
        ? {
            ...event,
            env: { id: event.env.id, version: event.env.version },
            tokenizer: "words-v2-implicit:0000000000000000",
          }
        : event,
    );
    output.clear();
    expect(await main(["replay", "--verify", other]), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: 1 journal(s) of hopqa were recorded with tokenizer words-v2-implicit:0000000000000000, and hopqa here has ${OUTER}: their events verified, their token ids were not; pass --env with the environment (and options) they were recorded under to check those too`,
    );
  });

  it("inspect --html decodes their tokens (no note that they are shown as ids)", async () => {
    const page = join(dir, "possessive.html");
    expect(await main(["inspect", join(data, "ep-0-0.jsonl"), "--html", page]), output.stderr).toBe(0);
    expect(output.stderr).not.toContain("as ids");
    expect(readFileSync(page, "utf8")).toContain("ledamer");
  });

  const clone = join(dir, "clone");
  const first = join(dir, "one");
  it("sft --data without --env clones under the possessive wording, and says so", async () => {
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--epochs", "1"];
    await recordExpert("hopqa?wording=possessive", first);
    output.clear();
    expect(await main(["sft", "--data", first, ...shape, "--out", clone]), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: --env not given; the journals in ${first} are episodes of hopqa?wording=possessive (the options they record), so sft clones under it`,
    );
    expect(JSON.parse(readFileSync(join(clone, "tokenizer.json"), "utf8")).id).toBe(POSSESSIVE);
    // Journals of an older version record no options: the variant is found by their tokenizer.
    const old = join(dir, "old");
    await recordExpert("hopqa?wording=possessive", old);
    await rewrite(join(old, "ep-0-0.jsonl"), (event) =>
      event.type === "episode.started" ? { ...event, env: { id: event.env.id, version: event.env.version } } : event,
    );
    output.clear();
    expect(await main(["sft", "--data", old, ...shape, "--out", join(dir, "old-clone")]), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: --env not given; the journals in ${old} are episodes of hopqa with the tokenizer of hopqa?wording=possessive, so sft clones under it (a journal of an older version names no other options: pass --env for those)`,
    );
    output.clear();
    expect(
      await main(["sft", "--env", "hopqa?legal=relations", "--data", old, ...shape, "--out", join(dir, "x")]),
    ).toBe(2);
    expect(output.stderr).toContain(
      `the journals in ${old} were recorded with tokenizer ${POSSESSIVE}, not environment hopqa's (${OUTER}): the journals' tokenizer is hopqa's wording=possessive one: pass --env 'hopqa?legal=relations&wording=possessive'`,
    );
    // With --env of other options: refused, naming the --env to pass.
    output.clear();
    const other = join(dir, "other-clone");
    expect(await main(["sft", "--env", "hopqa?legal=relations", "--data", first, ...shape, "--out", other])).toBe(2);
    expect(output.stderr).toContain(
      `the journals in ${first} were recorded on hopqa?wording=possessive (the options its episode.started records), not on --env 'hopqa?legal=relations': pass --env 'hopqa?wording=possessive'`,
    );
  }, 60_000);

  it("a possessive checkpoint under another wording: eval and train --init name the --env to pass (sft takes its journals' options)", async () => {
    // The clone under plain hopqa (another wording's tokenizer): refused, naming the --env to pass.
    output.clear();
    const evaluate = ["eval", "--checkpoint", clone, "--episodes", "1", "--no-constrained"];
    expect(await main([...evaluate, "--env", "hopqa?legal=relations"])).toBe(2);
    expect(output.stderr).toContain(
      `checkpoint ${clone} was made for another tokenizer (${POSSESSIVE}) than environment hopqa's (${OUTER}): this checkpoint's tokenizer is hopqa's wording=possessive one: pass --env 'hopqa?legal=relations&wording=possessive'`,
    );
    // Without sft.json (a checkpoint copied alone) and without --env: the variant whose tokenizer it carries.
    const bare = join(dir, "bare");
    cpSync(clone, bare, { recursive: true });
    rmSync(join(bare, "sft.json"));
    output.clear();
    expect(await main(["eval", "--checkpoint", bare, "--episodes", "1", "--no-constrained"]), output.stderr).toBe(0);
    expect(output.stderr).toContain(`eval: --env not given: hopqa?wording=possessive, whose tokenizer ${bare} carries`);
    output.clear();
    const train = ["train", "--env", "hopqa", "--init", clone, "--steps", "1", "--out", join(dir, "train-out")];
    expect(await main(train)).toBe(2);
    expect(output.stderr).toContain(
      "this checkpoint's tokenizer is hopqa's wording=possessive one: pass --env 'hopqa?wording=possessive'",
    );
    // sft's --env hopqa names the environment alone: the journals' options (the possessive wording) apply.
    output.clear();
    const sft = [
      "sft",
      "--env",
      "hopqa",
      "--init",
      clone,
      "--data",
      first,
      "--epochs",
      "1",
      "--out",
      join(dir, "sft-out"),
    ];
    expect(await main(sft), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: --env hopqa gives no options; the journals in ${first} are episodes of hopqa?`,
    );
    // And the other way: a clone of the default wording under the possessive one.
    const outer = join(dir, "outer");
    await recordExpert("hopqa", outer);
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--epochs", "1"];
    expect(await main(["sft", "--data", outer, ...shape, "--out", join(outer, "clone")]), output.stderr).toBe(0);
    output.clear();
    const under = ["--env", "hopqa?wording=possessive&legal=relations"];
    expect(await main(["eval", "--checkpoint", join(outer, "clone"), "--episodes", "1", ...under])).toBe(2);
    expect(output.stderr).toContain(
      `than environment hopqa's (${POSSESSIVE}): this checkpoint's tokenizer is hopqa's default one: pass --env 'hopqa?legal=relations'`,
    );
  }, 60_000);
});

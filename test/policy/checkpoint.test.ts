import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { checkpointIn } from "../../src/learn/trainer.ts";
import { initBackend } from "../../src/policy/backend.ts";
import {
  CheckpointError,
  checkpointTarget,
  loadCheckpoint,
  manifestDigest,
  readLatestCheckpoint,
  saveCheckpoint,
  savedConstrained,
} from "../../src/policy/checkpoint.ts";
import { Gpt } from "../../src/policy/gpt.ts";

const tokenizer = new WordTokenizer(["alpha", "beta", "gamma"]);
const config = { vocabSize: tokenizer.size, contextLength: 16, width: 16, heads: 2, layers: 2 };
let folder: string;
let model: Gpt;

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
  folder = await mkdtemp(path.join(tmpdir(), "checkpoint-test-"));
  model = new Gpt(config, "saved");
});

afterAll(async () => {
  model.dispose();
  await rm(folder, { recursive: true, force: true });
});

const logitsOf = (m: Gpt): Float32Array =>
  tf.tidy(() => m.logits(tf.tensor2d([[1, 2, 3, 260, 261]], [1, 5], "int32")).dataSync() as Float32Array);

/** A fresh copy of the saved checkpoint, damaged by `damage`. */
const damaged = async (name: string, damage: (dir: string) => Promise<void>): Promise<string> => {
  const dir = path.join(folder, name);
  await saveCheckpoint(dir, { model, tokenizer, version: 3 });
  await damage(dir);
  return dir;
};

const refusal = async (dir: string): Promise<CheckpointError> => {
  const error = await loadCheckpoint(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CheckpointError);
  return error as CheckpointError;
};

describe("checkpoints", () => {
  it("round-trip to a model with identical outputs, the version and the tokenizer", async () => {
    const dir = path.join(folder, "ok");
    await saveCheckpoint(dir, { model, tokenizer, version: 12 });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.version).toBe(12);
    expect(loaded.tokenizer.id).toBe(tokenizer.id);
    expect(loaded.model.config).toEqual(model.config);
    expect(Array.from(logitsOf(loaded.model))).toEqual(Array.from(logitsOf(model)));
    loaded.model.dispose();
  });

  it("round-trip a model with the copy head and ALiBi, and write neither key for a plain model", async () => {
    // A context far longer than the model is wide: the weights hold no position embeddings to cover it.
    const special = new Gpt({ ...config, contextLength: 512, copy: true, positions: "alibi" }, "special");
    const dir = path.join(folder, "special");
    await saveCheckpoint(dir, { model: special, tokenizer, version: 1 });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.model.config).toEqual(special.config);
    expect(Array.from(logitsOf(loaded.model))).toEqual(Array.from(logitsOf(special)));
    for (const m of [special, loaded.model]) m.dispose();
    await saveCheckpoint(path.join(folder, "plain"), { model, tokenizer, version: 1 });
    const written = JSON.parse(await readFile(path.join(folder, "plain", "config.json"), "utf8"));
    expect(Object.keys(written)).not.toContain("copy");
    expect(Object.keys(written)).not.toContain("positions");
    expect(Object.keys(written)).not.toContain("attention");
    expect(Object.keys(written)).not.toContain("turnStarts");
  });

  it("round-trip a model with turn-local attention and the ids that start its turns", async () => {
    const local = new Gpt({ ...config, attention: "turn-local", turnStarts: [3, 4] }, "local");
    const dir = path.join(folder, "turn-local");
    await saveCheckpoint(dir, { model: local, tokenizer, version: 1 });
    const loaded = await loadCheckpoint(dir);
    expect(loaded.model.config).toEqual(local.config);
    expect(Array.from(logitsOf(loaded.model))).toEqual(Array.from(logitsOf(local)));
    for (const m of [local, loaded.model]) m.dispose();
  });

  it("record the decoding they were trained under when told, under the manifest's digest", async () => {
    for (const constrained of [true, false]) {
      const dir = path.join(folder, `decoding-${constrained}`);
      await saveCheckpoint(dir, { model, tokenizer, version: 2, constrained });
      expect(savedConstrained(dir)).toBe(constrained);
      const loaded = await loadCheckpoint(dir);
      expect(loaded.constrained).toBe(constrained);
      loaded.model.dispose();
    }
    // A manifest saved again by an editor, with a byte order mark, loads (its digest is over canonical JSON),
    // and the decoding it states is still read before loading, not taken as unknown.
    const marked = path.join(folder, "decoding-marked");
    await saveCheckpoint(marked, { model, tokenizer, version: 2, constrained: true });
    const manifestFile = path.join(marked, "manifest.json");
    await writeFile(manifestFile, `\uFEFF${await readFile(manifestFile, "utf8")}`);
    expect(savedConstrained(marked)).toBe(true);
    const reloaded = await loadCheckpoint(marked);
    expect(reloaded.constrained).toBe(true);
    reloaded.model.dispose();
    // Not told: the manifest has no such key, and a load says nothing of it.
    const plain = path.join(folder, "decoding-unknown");
    await saveCheckpoint(plain, { model, tokenizer, version: 2 });
    expect(Object.keys(JSON.parse(await readFile(path.join(plain, "manifest.json"), "utf8")))).not.toContain(
      "constrained",
    );
    expect(savedConstrained(plain)).toBeUndefined();
    expect(savedConstrained(path.join(folder, "no-such-checkpoint"))).toBeUndefined();
    // Flipped by hand, the manifest no longer matches its digest.
    const edited = await damaged("decoding-edited", async (d) => {
      const manifest = JSON.parse(await readFile(path.join(d, "manifest.json"), "utf8"));
      await writeFile(path.join(d, "manifest.json"), JSON.stringify({ ...manifest, constrained: true }));
    });
    expect((await refusal(edited)).problem).toBe("checksum");
  });

  it("save where a clone or an average came from in the same swap as the weights (no window without it)", async () => {
    const clone = path.join(folder, "origin-sft");
    await saveCheckpoint(clone, { model, tokenizer, version: 0, origin: { by: "sft", env: "lookup", data: "/d" } });
    expect(JSON.parse(await readFile(path.join(clone, "sft.json"), "utf8"))).toEqual({ env: "lookup", data: "/d" });
    // Saved again over it (sft --replace): the new record, and the folder is a checkpoint to replace, not foreign.
    const soup = { by: "average", env: "./envs/x.ts", checkpoints: ["/a", "/b"] } as const;
    await saveCheckpoint(clone, { model, tokenizer, version: 0, origin: soup });
    expect(JSON.parse(await readFile(path.join(clone, "average.json"), "utf8"))).toEqual({
      env: "./envs/x.ts",
      checkpoints: ["/a", "/b"],
    });
    await expect(readFile(path.join(clone, "sft.json"))).rejects.toThrow(/ENOENT/);
    expect(checkpointTarget(clone)).toBe("checkpoint");
    (await loadCheckpoint(clone)).model.dispose();
  });

  it("are never saved to an empty folder name, which would replace the working folder", async () => {
    // The first expect guards the second: without the check, saving to "" renames the working folder away.
    expect(() => checkpointTarget("")).toThrow(/a checkpoint folder must be named, got ""/);
    await expect(saveCheckpoint("", { model, tokenizer, version: 1 })).rejects.toThrow(/must be named/);
    expect(() => checkpointTarget(" ")).toThrow(/must be named/);
  });

  it("refuses flipped bits in the weights", async () => {
    const dir = await damaged("flipped", async (d) => {
      const bytes = await readFile(path.join(d, "weights.bin"));
      bytes[100] ^= 0x40;
      await writeFile(path.join(d, "weights.bin"), bytes);
    });
    expect((await refusal(dir)).problem).toBe("checksum");
  });

  it("saves optimizer state only when it fits the model, and refuses flipped bits in it on load", async () => {
    const sizes = new Map([...model.parameters].map(([name, v]) => [name, v.size]));
    const moments = () =>
      new Map(
        [...sizes].map(([name, size]) => [
          name,
          { m: new Float32Array(size).fill(0.5), v: new Float32Array(size).fill(0.25) },
        ]),
      );
    const first = [...sizes.keys()][0];
    const save = (
      name: string,
      optimizer: { step: number; moments: Map<string, { m: Float32Array; v: Float32Array }> },
    ) => saveCheckpoint(path.join(folder, name), { model, tokenizer, version: 1, optimizer });
    const shortV = moments();
    shortV.set(first, { m: shortV.get(first)!.m, v: new Float32Array(1) });
    await expect(save("short-v", { step: 1, moments: shortV })).rejects.toThrow(
      `optimizer state has no moments of ${sizes.get(first)} values for parameter ${first}`,
    );
    const extra = moments();
    extra.set("not-a-parameter", { m: new Float32Array(1), v: new Float32Array(1) });
    await expect(save("extra", { step: 1, moments: extra })).rejects.toThrow(
      "optimizer state has moments of non-parameters",
    );
    await expect(save("negative", { step: -1, moments: moments() })).rejects.toThrow("optimizer step must be >= 0");
    await expect(saveCheckpoint(path.join(folder, "v-neg"), { model, tokenizer, version: -1 })).rejects.toThrow(
      "policy version must be >= 0, got -1",
    );

    await save("with-moments", { step: 7, moments: moments() });
    const dir = path.join(folder, "with-moments");
    const loaded = await loadCheckpoint(dir);
    loaded.model.dispose();
    expect(loaded.optimizer?.step).toBe(7);
    expect(loaded.optimizer?.moments.get(first)?.v[0]).toBe(0.25);
    const bytes = await readFile(path.join(dir, "optimizer.bin"));
    bytes[12] ^= 0x40;
    await writeFile(path.join(dir, "optimizer.bin"), bytes);
    expect((await refusal(dir)).problem).toBe("checksum");
  });

  it("refuses a tokenizer with more ids than the model's vocabulary, when saving and when loading", async () => {
    const bigger = new WordTokenizer(["alpha", "beta", "gamma", "delta"]);
    const dir = path.join(folder, "big-vocab");
    await expect(saveCheckpoint(dir, { model, tokenizer: bigger, version: 0 })).rejects.toThrow(
      `the tokenizer's ${tokenizer.size + 1} token ids do not fit the model's vocabSize ${tokenizer.size}: nothing was saved`,
    );
    expect(existsSync(dir)).toBe(false);
    // Written by hand (or by an older version): the bigger tokenizer put into a checkpoint, its hash resealed.
    const crafted = await damaged("big-vocab-crafted", async (d) => {
      const text = JSON.stringify({ kind: "words", id: bigger.id, words: bigger.words });
      await writeFile(path.join(d, "tokenizer.json"), text);
      const manifest = JSON.parse(await readFile(path.join(d, "manifest.json"), "utf8"));
      manifest.files.tokenizer.sha256 = createHash("sha256").update(text).digest("hex");
      manifest.digest = manifestDigest(manifest);
      await writeFile(path.join(d, "manifest.json"), JSON.stringify(manifest));
    });
    expect((await refusal(crafted)).message).toContain(
      `${tokenizer.size + 1} token ids do not fit vocabSize ${tokenizer.size}`,
    );
  });

  it("refuses truncated weights", async () => {
    const dir = await damaged("truncated", async (d) => {
      const bytes = await readFile(path.join(d, "weights.bin"));
      await writeFile(path.join(d, "weights.bin"), bytes.subarray(0, bytes.length - 8));
    });
    const error = await refusal(dir);
    expect(error.problem).toBe("truncated");
    expect(error.message).toMatch(/weights\.bin/);
    expect(error.message).not.toContain("too many");
  });

  it("says of weights longer than the manifest's that they are not a cut write", async () => {
    const dir = await damaged("longer", async (d) => {
      const bytes = await readFile(path.join(d, "weights.bin"));
      await writeFile(path.join(d, "weights.bin"), Buffer.concat([bytes, Buffer.from([1, 2, 3])]));
    });
    const error = await refusal(dir);
    expect(error.message).toMatch(/weights\.bin.*3 bytes too many: not a cut write, something was added to the file/);
  });

  it("refuses an edited config", async () => {
    const dir = await damaged("config", async (d) => {
      const text = await readFile(path.join(d, "config.json"), "utf8");
      await writeFile(path.join(d, "config.json"), text.replace('"layers": 2', '"layers": 1'));
    });
    expect((await refusal(dir)).problem).toBe("checksum");
  });

  it("refuses a folder without its manifest", async () => {
    const dir = await damaged("no-manifest", (d) => rm(path.join(d, "manifest.json")));
    const error = await refusal(dir);
    expect(error.problem).toBe("missing");
    expect(error.detail).toBe(
      "the file is not there: this folder is not a checkpoint, or one whose save never finished",
    );
  });

  it("refuses a train run's folder, or its checkpoints/, naming the latest checkpoint in it", async () => {
    // loadPolicy and the CLI take a run folder (its latest); loadCheckpoint takes one checkpoint, and said only
    // "not a checkpoint" of a run folder.
    const run = await damaged("a-run", async (d) => {
      await mkdir(path.join(d, "checkpoints", "v00003"), { recursive: true });
      await writeFile(path.join(d, "checkpoints", "latest.json"), JSON.stringify({ version: 3, dir: "v00003" }));
      await rm(path.join(d, "manifest.json"));
    });
    for (const folder of [run, path.join(run, "checkpoints")])
      expect((await refusal(folder)).detail).toBe(
        `the file is not there: this folder holds a train run's checkpoints, not one checkpoint: its latest is ${path.join(run, "checkpoints", "v00003")} (load that, or a run with loadPolicy, which takes its latest)`,
      );
  });

  it("refuses a manifest that is not a checkpoint manifest", async () => {
    const dir = await damaged("bad-manifest", async (d) => {
      const manifest = JSON.parse(await readFile(path.join(d, "manifest.json"), "utf8"));
      manifest.formatVersion = 99;
      await writeFile(path.join(d, "manifest.json"), JSON.stringify(manifest));
    });
    expect((await refusal(dir)).problem).toBe("schema");
    // Edited to 1, an older format with other fields: the refusal says why it was read as that one.
    const older = await damaged("format-1", async (d) => {
      const manifest = JSON.parse(await readFile(path.join(d, "manifest.json"), "utf8"));
      manifest.formatVersion = 1;
      await writeFile(path.join(d, "manifest.json"), JSON.stringify(manifest));
    });
    const error = await refusal(older);
    expect(error.problem).toBe("schema");
    expect(error.message).toMatch(/formatVersion is 1, so it was read as a version-1 manifest: .*excess property/);
  });

  it("refuses tensors that do not fit the config, without leaking a half-built model", async () => {
    const dir = await damaged("mismatch", async (d) => {
      const manifest = JSON.parse(await readFile(path.join(d, "manifest.json"), "utf8"));
      manifest.tensors[1].shape = [8, 32];
      manifest.digest = manifestDigest(manifest); // resealed: only the shape check can object
      await writeFile(path.join(d, "manifest.json"), JSON.stringify(manifest));
    });
    const before = tf.memory().numTensors;
    const error = await refusal(dir);
    expect(error.problem).toBe("mismatch");
    expect(error.message).toMatch(/wpe/);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe("checkpoints respelled on the way (git's core.autocrlf, an editor)", () => {
  it("are still refused, with what changed them and how to undo it", async () => {
    const crlf = await damaged("crlf", async (d) => {
      const file = path.join(d, "config.json");
      await writeFile(file, (await readFile(file, "utf8")).replace(/\n/g, "\r\n"));
    });
    const crlfError = await refusal(crlf);
    expect(crlfError.problem).toBe("checksum");
    expect(crlfError.message).toContain("its line endings were made CRLF (a git checkout with core.autocrlf");
    // The .gitattributes line it suggests covers checkpoints at any depth (runs/NAME/checkpoints/, docs/checkpoints/),
    // as this repository's own does: `checkpoints/** -text` matches only a checkpoints/ folder at the top.
    expect(crlfError.message).toContain("`**/checkpoints/** -text` in .gitattributes");
    const bom = await damaged("bom", async (d) => {
      const file = path.join(d, "tokenizer.json");
      await writeFile(file, `\uFEFF${await readFile(file, "utf8")}`);
    });
    const bomError = await refusal(bom);
    expect(bomError.problem).toBe("checksum");
    expect(bomError.message).toContain("a byte order mark was put first (an editor); remove those 3 bytes");
    // An edit that also made the line endings CRLF is an edit: nothing suggests undoing the endings mends it.
    const edited = await damaged("crlf-edited", async (d) => {
      const file = path.join(d, "config.json");
      await writeFile(
        file,
        (await readFile(file, "utf8")).replace(/\n/g, "\r\n").replace(/"width": \d+/, '"width": 9'),
      );
    });
    const editedError = await refusal(edited);
    expect(editedError.message).not.toContain("CRLF");
  });
});

describe("checkpoints/latest.json", () => {
  it("naming a folder that is gone is refused at latest.json, with the checkpoints that are there", async () => {
    const checkpoints = path.join(folder, "latest-gone", "checkpoints");
    await mkdir(path.join(checkpoints, "v00009"), { recursive: true });
    await writeFile(path.join(checkpoints, "v00009", "manifest.json"), "{}");
    await writeFile(path.join(checkpoints, "latest.json"), JSON.stringify({ dir: "v00099", version: 99 }));
    expect(() => readLatestCheckpoint(checkpoints)).toThrow(CheckpointError);
    expect(() => readLatestCheckpoint(checkpoints)).toThrow(
      `latest.json: missing: names checkpoint v00099, which is not in ${checkpoints}; the checkpoints there: v00009`,
    );
    await writeFile(path.join(checkpoints, "latest.json"), JSON.stringify({ dir: "v00009", version: 9 }));
    expect(readLatestCheckpoint(checkpoints)).toEqual({ dir: "v00009", version: 9 });
  });

  it("naming a checkpoint whose manifest has another version (a folder copied in from another run) is refused when a run folder is given as a checkpoint", async () => {
    const run = path.join(folder, "latest-swapped");
    const checkpoints = path.join(run, "checkpoints");
    await mkdir(path.join(checkpoints, "v00002"), { recursive: true });
    await writeFile(path.join(checkpoints, "v00002", "manifest.json"), JSON.stringify({ version: 1 }));
    await writeFile(path.join(checkpoints, "latest.json"), JSON.stringify({ dir: "v00002", version: 2 }));
    expect(() => checkpointIn(run, "--checkpoint")).toThrow(CheckpointError);
    expect(() => checkpointIn(run, "--checkpoint")).toThrow(
      `${path.join(checkpoints, "latest.json")}: mismatch: names v00002 as policy version 2, its manifest says 1`,
    );
    await writeFile(path.join(checkpoints, "v00002", "manifest.json"), JSON.stringify({ version: 2 }));
    expect(checkpointIn(run, "--checkpoint")).toBe(path.join(checkpoints, "v00002"));
  });
});

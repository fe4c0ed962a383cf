import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/kernel/errors.ts";
import { BackendUnavailableError, initBackend } from "../../src/policy/backend.ts";
import { tempDir } from "../support/index.ts";

describe("initBackend", () => {
  it("picks the fastest installed backend, logs the choice once, and names what is available", async () => {
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    // Here neither @tensorflow/tfjs-node nor webgpu is installed: auto falls through to wasm, never cpu.
    expect(await initBackend("auto", { log })).toBe("wasm");
    expect(await initBackend("wasm", { log })).toBe("wasm");
    expect(lines).toEqual(["tfjs backend: wasm"]);
    const error = await initBackend("tensorflow", { log }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect((error as BackendUnavailableError).available).toContain("wasm");
    expect((error as Error).message).toMatch(/tfjs-node.*available here: .*wasm/s);
    // A failed explicit choice leaves the working backend in place.
    expect(tf.getBackend()).toBe("wasm");
  });

  it("lets gather be differentiated on wasm (UnsortedSegmentSum is registered)", async () => {
    await initBackend("wasm", { log: () => {} });
    const table = tf.tensor2d([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    const grad = tf.grad((t: tf.Tensor) => tf.sum(tf.gather(t, tf.tensor1d([2, 0, 2], "int32"))))(table);
    expect(grad.arraySync()).toEqual([
      [1, 1],
      [0, 0],
      [2, 2],
    ]);
  });

  it("refuses a backend name it does not know, naming the ones it does", async () => {
    const error = await initBackend("gpu" as never, { log: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('backend must be "auto" or one of tensorflow, webgpu, wasm, cpu; got "gpu"');
  });

  it("leaves a script's own uncaught errors to Node: no page of the wasm runtime's minified code", () => {
    const script = join(tempDir(), "throws-after-init.mts");
    writeFileSync(
      script,
      `import { initBackend } from ${JSON.stringify(resolve("src/policy/backend.ts"))};\nawait initBackend("wasm", { log: () => {} });\nawait Promise.reject(new Error("my own mistake"));\n`,
    );
    const run = spawnSync(process.execPath, ["bin/run-ts.js", script], { encoding: "utf8", timeout: 60_000 });
    expect(run.stderr).toContain("Error: my own mistake");
    // Emscripten's handlers printed the 38 KB line of tfjs-backend-wasm.js that rethrew, and exit code 7.
    expect(run.stderr).not.toContain("tfjs-backend-wasm.js");
    expect(run.stderr.length).toBeLessThan(2_000);
    expect(run.status).toBe(1);
  }, 60_000);
});

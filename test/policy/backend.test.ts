import * as tf from "@tensorflow/tfjs-core";
import { describe, expect, it } from "vitest";
import { BackendUnavailableError, initBackend } from "../../src/policy/backend.ts";

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
});

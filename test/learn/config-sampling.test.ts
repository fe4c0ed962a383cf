import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/index.ts";
import { DEFAULT_TRAIN_CONFIG, decodeTrainConfig } from "../../src/learn/config.ts";

describe("train config: sampling fields are refused before any work", () => {
  it("a topP of 0 (or below, or above 1) is a UsageError naming topP, not every episode aborting in the sampler", () => {
    for (const topP of [0, -0.5, 1.5]) {
      const decode = () => decodeTrainConfig({ ...DEFAULT_TRAIN_CONFIG, topP }, "train config");
      expect(decode).toThrow(UsageError);
      expect(decode).toThrow(/topP must be a number in \(0, 1\][\s\S]*\["topP"\]/);
    }
    expect(decodeTrainConfig({ ...DEFAULT_TRAIN_CONFIG, topP: 0.9 }, "train config").topP).toBe(0.9);
  });
});

import { describe, expect, it } from "vitest";
import { loadEnv, loadPolicy } from "../../src/learn/index.ts";
import { withStderr } from "../support/index.ts";

// Its own file: the backend's line is said once per process, by the first call that starts the backend.
describe("loadPolicy from code with a log of the caller's", () => {
  it("says the backend it started there, and writes nothing to stderr", async () => {
    // It had no log option: as the first call that started tfjs, it wrote "tfjs backend: wasm" to stderr, past a
    // log the calling program gave everything else (train's, say).
    const hopqa = await loadEnv("hopqa");
    const lines: string[] = [];
    const { result: policy, written } = await withStderr(() =>
      loadPolicy(hopqa, "docs/checkpoints/hopqa-copy-warm-start", { backend: "wasm", log: (line) => lines.push(line) }),
    );
    expect(policy.tokenizer.id).toBe(hopqa.tokenizer.id);
    expect(written).toEqual([]);
    expect(lines).toEqual(["tfjs backend: wasm"]);
  });

  it("refuses a log that is not a function", async () => {
    const hopqa = await loadEnv("hopqa");
    await expect(
      loadPolicy(hopqa, "docs/checkpoints/hopqa-copy-warm-start", { log: "stderr" } as never),
    ).rejects.toThrow("loadPolicy: log must be a function of a line, got string");
  });
});

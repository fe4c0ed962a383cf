/**
 * sft --data given a folder of a run that holds no journal (its checkpoints/, a checkpoint) or a clone: the
 * error names what to give instead. It suggested `record --out` into that very folder, which record refuses.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { main } from "../../src/cli/main.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { sft } from "../../src/learn/sft.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();

describe("sft --data that holds no journal", () => {
  it("inside a run: names the run and its episodes/; a checkpoint: says it is one", async () => {
    const run = join(tempDir(), "run");
    const checkpoint = join(run, "checkpoints", "v00001");
    mkdirSync(checkpoint, { recursive: true });
    writeFileSync(join(run, "config.json"), JSON.stringify({ env: "lookup" }));
    writeFileSync(join(run, "checkpoints", "latest.json"), JSON.stringify({ version: 1, dir: "v00001" }));
    writeFileSync(join(checkpoint, "manifest.json"), "{}");
    const out = join(tempDir(), "clone");
    for (const data of [join(run, "checkpoints"), checkpoint]) {
      const attempt = sft({ env: lookup, data, out, epochs: 1 });
      await expect(attempt).rejects.toThrow(UsageError);
      await expect(sft({ env: lookup, data, out, epochs: 1 })).rejects.toThrow(
        `no .jsonl journals in ${data}: it is inside the train run folder ${run}, whose journals are its episodes/ (and warm-start/demos/): give data ${run}, or ${join(run, "episodes")} for the policy's alone`,
      );
    }
    const clone = tempDir();
    writeFileSync(join(clone, "manifest.json"), "{}");
    await expect(sft({ env: lookup, data: clone, out, epochs: 1 })).rejects.toThrow(
      `data ${clone} is a checkpoint folder (weights), not journals`,
    );
  });

  it("journals of another environment: names the one they were recorded in, as the --env to give", async () => {
    const data = tempDir();
    expect(
      await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "1", "--seed", "o", "--out", data]),
    ).toBe(0);
    const { hopqa } = await import("../../actors/hopqa/index.ts");
    await expect(sft({ env: hopqa, data, out: join(tempDir(), "clone"), epochs: 1 })).rejects.toThrow(
      "is an episode of lookup, not hopqa: clone it under the environment it was recorded in (agent-r1 sft --env lookup where that is built in, else --env with the path of the module that defines lookup)",
    );
  });
});

/**
 * What a new user of the library gets wrong from code, and must be told plainly: found by writing a small
 * environment of their own against the README and the exported types only.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { PolicyActor } from "../../src/index.ts";
import { collect, evaluate } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

describe("the learner from code, used as a new user would", () => {
  it("new Gpt before any backend says to call initBackend, not tfjs's 'No backend found in registry.'", () => {
    const script = join(tempDir(), "gpt-first.mts");
    writeFileSync(
      script,
      `import { Gpt } from ${JSON.stringify(resolve("src/learn/index.ts"))};\n` +
        `try { new Gpt({ vocabSize: 10 }, "0"); console.log("built"); } catch (e) { console.log(e._tag, e.message); }\n`,
    );
    const run = spawnSync(process.execPath, ["bin/run-ts.js", script], { encoding: "utf8", timeout: 60_000 });
    expect(run.stdout).not.toContain("No backend found");
    expect(run.stdout).toContain("UsageError new Gpt: no TensorFlow.js backend is set up; first `await initBackend()`");
  }, 60_000);

  it("evaluate and collect given a PolicyActor say to give the Policy it wraps", async () => {
    const actor = new PolicyActor(weather.policies!.expert());
    const wraps = /that is a PolicyActor, which wraps a Policy; give the Policy itself/;
    // biome-ignore lint/suspicious/noExplicitAny: the mistake under test, which TypeScript would catch
    await expect(evaluate(weather, actor as any, { episodes: 1, seed: "x" })).rejects.toThrow(
      new RegExp(`^evaluate: policy must be a Policy \\(\\{ id, version, tokenizer, act \\}\\): ${wraps.source}`),
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    await expect(collect({ env: weather, policy: actor as any, seed: "x", episodes: 1 })).rejects.toThrow(
      /^collect: policy must be a Policy .*: that is a PolicyActor/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => new PolicyActor(actor as any)).toThrow(/^PolicyActor takes a Policy .*: that is a PolicyActor/);
    // The Policy itself still runs.
    expect((await evaluate(weather, actor.policy, { episodes: 1, seed: "x" })).successRate).toBe(1);
  });
});

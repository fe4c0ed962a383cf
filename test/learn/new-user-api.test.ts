/**
 * What a new user of the library gets wrong from code, and must be told plainly: found by writing a small
 * environment of their own against the README and the exported types only.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
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
});

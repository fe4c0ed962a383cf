/** `npm run bench -- --figure 1`: figure 1 alone, printed, nothing written (bench/all.ts, bench/index.ts). */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const bench = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, ["bin/run-ts.js", script, ...args], { encoding: "utf8", timeout: 120_000 });

describe("bench --figure", () => {
  it("runs figure 1 alone: its ratio per repeat printed, no other figure, the learner's neither", () => {
    // --no-write: were --figure ignored, a full run must not rewrite the committed docs/bench.md.
    const run = bench("bench/all.ts", "--figure=1", "--quick", "--repeats", "1", "--no-write");
    expect(run.stderr).not.toMatch(/figure 2|learner|wrote/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^figure 1, env steps\/s: runtime [\d,]+, bare actor [\d,]+: [\d.]+x time\/step/m);
    expect(run.stdout).toMatch(/^figure 1 overhead per repeat: [\d.]+x$/m);
  }, 120_000);

  it("refuses a figure that does not run alone, or none, saying which do", () => {
    const other = bench("bench/all.ts", "--figure", "2");
    expect(other.status).not.toBe(0);
    expect(other.stderr).toContain("argument '2' is invalid. Allowed choices are 1");
    // bench/index.ts run directly says it too, rather than running (and writing) every figure.
    const none = bench("bench/index.ts", "--figure");
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("bench: --figure without a number: only figure 1 runs alone (--figure 1)");
  });
});

/** `npm run bench -- --figure 1`: figure 1 alone, printed, nothing written (bench/all.ts, bench/index.ts). */
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * `node bin/run-ts.js SCRIPT ARGS`: its exit status and output. Asynchronous, so that a test's runs, which do not
 * depend on each other, start together (one after another, a process each of about 1 to 2 s left the other
 * core idle).
 */
const bench = (script: string, ...args: string[]) =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      ["bin/run-ts.js", script, ...args],
      { encoding: "utf8", timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        done({ status: error ? (typeof code === "number" ? code : null) : 0, stdout, stderr });
      },
    );
  });

describe("bench --figure", () => {
  it("runs figure 1 alone: its ratio per repeat printed, no other figure, the learner's neither", async () => {
    // --no-write: were --figure ignored, a full run must not rewrite the committed docs/bench.md.
    const run = await bench("bench/all.ts", "--figure=1", "--quick", "--repeats", "1", "--no-write");
    expect(run.stderr).not.toMatch(/figure 2|learner|wrote/);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^figure 1, env steps\/s: runtime [\d,]+, bare actor [\d,]+: [\d.]+x time\/step/m);
    expect(run.stdout).toMatch(/^figure 1 overhead per repeat: [\d.]+x$/m);
  }, 120_000);

  it("refuses a figure that does not run alone, or none, saying which do", async () => {
    // bench/index.ts run directly says it too, rather than running (and writing) every figure.
    const [other, none] = await Promise.all([
      bench("bench/all.ts", "--figure", "2"),
      bench("bench/index.ts", "--figure"),
    ]);
    expect(other.status).toBe(2);
    expect(other.stderr).toContain("argument '2' is invalid. Allowed choices are 1");
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("bench: --figure without a number: only figure 1 runs alone (--figure 1)");
  });
});

describe("bench --repeats", () => {
  it("refuses a count it cannot run, before measuring (it printed NaN rates for --repeats abc)", async () => {
    const values = ["abc", "0", "1e2"];
    const runs = await Promise.all(
      values.map(async (value) => {
        const [all, index] = await Promise.all([
          bench("bench/all.ts", "--figure", "1", "--quick", "--repeats", value),
          // bench/index.ts run directly (as all.ts runs it) says it too.
          bench("bench/index.ts", "--figure", "1", "--quick", "--repeats", value),
        ]);
        return { value, all, index };
      }),
    );
    for (const { value, all, index } of runs) {
      // 2, as every bad flag (commander's own exit code, 1, was taken as it was).
      expect(all.status, value).toBe(2);
      expect(all.stderr).toContain(`--repeats must be a whole number from 1 to 1000, got "${value}"`);
      expect(all.stdout).not.toContain("NaN");
      expect(index.status, value).toBe(2);
      expect(index.stderr).toContain(`bench: --repeats "${value}": give a whole number from 1 to 1000`);
      expect(index.stdout).not.toContain("NaN");
    }
  }, 60_000);

  it("reads --repeats=N as --repeats N (bench/all.ts passes it on as written; it ran 5 repeats)", async () => {
    const [all, index] = await Promise.all([
      bench("bench/all.ts", "--figure", "1", "--quick", "--repeats=0"),
      bench("bench/index.ts", "--figure", "1", "--quick", "--repeats=0"),
    ]);
    expect(all.status).toBe(2);
    expect(all.stderr).toContain('--repeats must be a whole number from 1 to 1000, got "0"');
    expect(index.status).toBe(2);
    expect(index.stderr).toContain('bench: --repeats "0": give a whole number from 1 to 1000');
  }, 60_000);
});

describe("the profiling scripts of docs/bench.md", () => {
  it("refuse a workload, a count or a file they cannot use in one line, exit 2, no stack trace", async () => {
    const cases = [
      [["bench/profile.ts", "bogus"], "Allowed choices are runtime, bare, journal, replay, fold, read"],
      [["bench/profile.ts", "runtime", "abc"], 'episodes must be a positive integer, got "abc"'],
      [["bench/cpuprofile-summary.ts", "/no/such.cpuprofile"], "cannot read /no/such.cpuprofile: no such file"],
      [["bench/cpuprofile-summary.ts", "README.md"], "README.md is not a V8 .cpuprofile"],
      [["bench/cpuprofile-summary.ts", "README.md", "0"], 'top must be a positive integer, got "0"'],
    ] as const;
    const runs = await Promise.all(cases.map(([args]) => bench(...(args as unknown as [string, ...string[]]))));
    for (const [i, [args, message]] of cases.entries()) {
      const run = runs[i]!;
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
  }, 60_000);
});

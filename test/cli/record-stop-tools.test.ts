/**
 * A stopped record (Ctrl-C, SIGTERM, SIGHUP) used to exit at once: the tool calls in flight were neither
 * interrupted nor waited for, so their finalizers never ran, and what a call held outside the process (a
 * temporary file, a lock) stayed. Now the episodes in flight halt, journaled no further (cut short, as
 * before, for --resume), their calls' signals abort, and record waits for them, at most a few seconds,
 * before it exits as before. The fixture's tool makes a marker file when it acquires its resource and
 * removes it on release, by an Effect.acquireUseRelease and by a plain `finally`. eval's stop (and start's,
 * outside training) does the same.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { policyFor, record } from "../../src/cli/record.ts";
import { TOOL_SETTLE_MS } from "../../src/cli/signals.ts";
import env from "../reliability/fixtures/held-resource-env.ts";
import { tempDir } from "../support/index.ts";

const ENV = "test/reliability/fixtures/held-resource-env.ts";
const EPISODES = 6;

const journalsOf = (out: string) =>
  Object.fromEntries(
    readdirSync(out)
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
      .map((name) => [name, readFileSync(join(out, name), "utf8")]),
  );

const args = (out: string, durability: string) => [
  "bin/agent-r1.js",
  "record",
  "--env",
  ENV,
  "--policy",
  "expert",
  "--episodes",
  String(EPISODES),
  "--concurrency",
  "2",
  "--durability",
  durability,
  "--out",
  out,
];

const exitOf = (child: ChildProcess) => {
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stderr: string }>((done) =>
    child.on("exit", (code) => done({ code, stderr })),
  );
};

/** The markers of the calls that hang (the first two calls return at once: two episodes end). */
const held = (markers: string) => readdirSync(markers).filter((name) => name.startsWith("held-"));

/**
 * Records with the tool's third call on hanging (so episodes 0 and 1 end, 2 and 3 are in flight), and sends
 * `signal` once both hanging calls hold their resources (`perCall` markers each); resolves with the exit.
 */
const stopped = async (out: string, markers: string, durability: string, signal: NodeJS.Signals, stuck: boolean) => {
  const child = spawn(process.execPath, args(out, durability), {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      AGENT_R1_TEST_MARKERS: markers,
      AGENT_R1_TEST_HANG_FROM: "2",
      AGENT_R1_TEST_STUCK: stuck ? "1" : "0",
    },
  });
  const exited = exitOf(child);
  const perCall = stuck ? 1 : 2;
  while (held(markers).length < 2 * perCall) await new Promise((r) => setTimeout(r, 20));
  const sent = Date.now();
  child.kill(signal);
  return { ...(await exited), seconds: (Date.now() - sent) / 1000 };
};

const resumed = async (out: string, durability: string) => {
  const resume = await exitOf(spawn(process.execPath, [...args(out, durability), "--resume"], { stdio: "pipe" }));
  expect(resume.code, resume.stderr).toBe(0);
};

describe("record stopped with tool calls in flight", () => {
  // The unbroken recording, from code (the tool's calls all return at once here).
  let unbroken: Record<string, string>;
  beforeAll(async () => {
    const out = join(tempDir("agent-r1-stop-tools-unbroken-"), "demos");
    await record({
      env,
      policy: policyFor(env, "expert"),
      episodes: EPISODES,
      seed: "0",
      out,
      concurrency: 2,
      durability: "episode",
      quiet: true,
    });
    unbroken = journalsOf(out);
    expect(Object.keys(unbroken)).toHaveLength(EPISODES);
  });

  it("Ctrl-C ends the calls (their Effect release and finally run), exits 130 as before, and --resume gives the unbroken journals", async () => {
    const folder = tempDir("agent-r1-stop-tools-");
    const [out, markers] = [join(folder, "demos"), folder];
    const { code, stderr, seconds } = await stopped(out, markers, "event", "SIGINT", false);
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(
      `interrupted: 2 of ${EPISODES} episodes ended and are journaled in ${out}; episodes in flight may have left torn journals`,
    );
    expect(stderr).not.toContain("did not settle");
    // Both calls' resources were released (the markers stayed: nothing ran their finalizers).
    expect(held(markers)).toEqual([]);
    expect(seconds).toBeLessThan(TOOL_SETTLE_MS / 1000);
    // The episodes in flight were left cut short (durability event: on disk up to their tool call), not ended.
    const left = journalsOf(out);
    expect(Object.keys(left)).toHaveLength(4);
    for (const name of ["ep-0-2.jsonl", "ep-0-3.jsonl"]) {
      expect(left[name]).not.toContain('"episode.ended"');
      expect(unbroken[name].startsWith(left[name])).toBe(true);
    }
    await resumed(out, "event");
    expect(journalsOf(out)).toEqual(unbroken);
  }, 30_000);

  it("a call that ignores its signal and never settles: SIGTERM still exits 143 within the bound, naming the calls", async () => {
    const folder = tempDir("agent-r1-stop-stuck-");
    const [out, markers] = [join(folder, "demos"), folder];
    const { code, stderr, seconds } = await stopped(out, markers, "episode", "SIGTERM", true);
    expect(code, stderr).toBe(143);
    expect(stderr).toContain(`interrupted by SIGTERM: 2 of ${EPISODES} episodes ended and are journaled in ${out}`);
    expect(stderr).toMatch(
      /2 tool calls did not settle within 3 s of their signal's abort, so their finalizers may not have run .*: hold \(call c0 of ep-0-[23]\), hold \(call c0 of ep-0-[23]\)\n/,
    );
    expect(seconds).toBeGreaterThanOrEqual(TOOL_SETTLE_MS / 1000 - 0.1);
    expect(seconds).toBeLessThan(TOOL_SETTLE_MS / 1000 + 3);
    expect(held(markers)).toHaveLength(2);
    // Durability episode: the episodes in flight wrote nothing; --resume records them.
    expect(Object.keys(journalsOf(out))).toEqual(["ep-0-0.jsonl", "ep-0-1.jsonl"]);
    await resumed(out, "episode");
    expect(journalsOf(out)).toEqual(unbroken);
  }, 30_000);
});

describe("eval stopped with tool calls in flight", () => {
  it("SIGINT ends the calls of the episodes it evaluates, then says its message and exits 130", async () => {
    const folder = tempDir("agent-r1-stop-tools-eval-");
    // What eval runs, with the fixture's scripted policy for a checkpoint's (eval needs one trained on it).
    const script = join(folder, "eval.mts");
    const at = (path: string) => JSON.stringify(resolve(path));
    writeFileSync(
      script,
      `import { exitOnInterrupt } from ${at("src/cli/learn-commands.ts")};
import { evaluate } from ${at("src/learn/evaluate.ts")};
import env from ${at(ENV)};
exitOnInterrupt("eval stopped before its summary");
await evaluate(env, env.policies.expert(), { episodes: 4, seed: "held" });
`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, AGENT_R1_TEST_MARKERS: folder, AGENT_R1_TEST_HANG_FROM: "0" },
    });
    const exited = exitOf(child);
    while (held(folder).length < 2) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const { code, stderr } = await exited;
    expect(code, stderr).toBe(130);
    expect(stderr).toContain("interrupted: eval stopped before its summary\n");
    expect(held(folder)).toEqual([]);
  }, 30_000);
});

/**
 * An episode the environment's own code ended (a guard that throws): the live `record` names the line that threw,
 * and so must `replay`, `replay --verify` and `inspect` (terminal and --html), though the journal keeps only the
 * message: they find the line by replaying the episode with its environment, so journals stay free of paths
 * (the same bytes on every machine). Run in process through `main`, as test/cli/messages.test.ts does.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const ENV = "./test/reliability/fixtures/throwing-guard-env.ts";
const dir = tempDir("agent-r1-env-error-location-");
const out = join(dir, "boom");
const output = captureOutput();

/** Where the live record said the guard threw ("file:line:column"). */
let live = "";

beforeAll(async () => {
  // captureOutput's spies are set for each test, not for beforeAll: record's output is caught here.
  let stderr = "";
  const spies = [
    vi.spyOn(process.stdout, "write").mockImplementation(() => true),
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      stderr += String(chunk);
      return true;
    }),
  ];
  try {
    expect(await main(["record", "--env", ENV, "--policy", "boom", "--episodes", "1", "--out", out])).toBe(1);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  live = /my guard cannot read boom \(thrown at (\S+)\)/.exec(stderr)?.[1] ?? "";
  recordSaid = stderr;
});

/** What the live record wrote on stderr. */
let recordSaid = "";

const journal = () => join(out, readdirSync(out).find((f) => f.endsWith(".jsonl")) as string);

describe("where an environment error was thrown, found again from a journal", () => {
  it("the live record names the guard's line; the journal holds no path (journals stay machine-independent)", () => {
    expect(live).toMatch(/^test\/reliability\/fixtures\/throwing-guard-env\.ts:\d+:\d+$/);
    expect(readFileSync(journal(), "utf8")).not.toContain("throwing-guard-env");
    // One line: XState's rethrow of the guard's error holds a line break, a space in the summary.
    expect(recordSaid).toMatch(
      /^error: all 1 episodes aborted; the first, \S+: environment error: Unable to evaluate guard .*'\(machine\)\.waiting': my guard cannot read boom \(thrown at /m,
    );
  });

  it("replay --verify names the line the live record named", async () => {
    expect(await main(["replay", out, "--verify", "--env", ENV])).toBe(0);
    expect(output.stdout).toContain(`my guard cannot read boom (thrown at ${live})\nverified 1 journal(s) ok`);
    // One line per journal (the guard error's own line break is a space there).
    expect(output.stdout.split("\n")[0]).toMatch(
      /^ok .*: 5 events, .*'\(machine\)\.waiting': my guard cannot read boom \(thrown at /,
    );
  });

  it("replay (reading only) names it when the environment is known, and otherwise says to pass --env for it", async () => {
    expect(await main(["replay", out, "--env", ENV])).toBe(0);
    expect(output.stdout).toContain(`my guard cannot read boom (thrown at ${live})\nread 1 journal(s) ok`);
    expect(output.stderr).toBe("");
    output.clear();
    expect(await main(["replay", out])).toBe(0);
    expect(output.stdout).toContain("my guard cannot read boom\nread 1 journal(s) ok");
    expect(output.stdout).not.toContain("thrown at");
    // Before: nothing said that the line could be had.
    expect(output.stderr).toBe(
      "note: the line that threw is found by replaying the episode, which needs its environment: pass --env with the module that defines throwing-guard\n",
    );
  });

  it("inspect names it on the episode's end, with --env (and without, only the message)", async () => {
    expect(await main(["inspect", out, "--env", ENV])).toBe(0);
    expect(output.stderr).toBe("");
    expect(output.stdout).toContain("ended: aborted: environment error: ");
    expect(output.stdout).toContain(`my guard cannot read boom (thrown at ${live}); return 0, 1 turn`);
    output.clear();
    expect(await main(["inspect", out])).toBe(0);
    expect(output.stdout).toContain("my guard cannot read boom; return 0, 1 turn");
    // Without --env, a note says how to get the line (before: nothing said it could be had).
    expect(output.stderr).toBe(
      "note: the line that threw is found by replaying the episode, which needs its environment: pass --env with the module that defines throwing-guard\n",
    );
  });

  it("inspect --html names it on the episode's end", async () => {
    const page = join(dir, "boom.html");
    expect(await main(["inspect", out, "--env", ENV, "--html", page])).toBe(0);
    expect(readFileSync(page, "utf8")).toContain(`(thrown at <code>${live}</code>)`);
  });
});

describe("an error whose message names its line already", () => {
  it("a reward of NaN: inspect and replay without --env show its reward() line and ask for no --env", async () => {
    const module = join(dir, "nan-env.ts");
    writeFileSync(
      module,
      `import { setup } from "xstate";
import * as r1 from ${JSON.stringify(resolve("src/index.ts"))};
const machine = setup({ types: { events: {} as r1.AgentActEvent } }).createMachine({
  entry: r1.observe("say something"),
  initial: "waiting",
  states: {
    waiting: { on: { "agent.act": { target: "done", actions: [r1.reward("process", () => Number.NaN, "bad sum"), r1.end("answered")] } } },
    done: { type: "final" },
  },
});
const tokenizer = r1.WordTokenizer.fromCorpus(["say something boom"]);
export default r1.defineEnv({
  id: "nan-reward", version: "1", description: "a NaN reward", machine, tools: {}, tokenizer, task: () => ({}),
  policies: { boom: () => r1.scriptedPolicy("nan-boom", tokenizer, () => "boom") },
});
`,
    );
    const journals = join(dir, "nan");
    mkdirSync(dir, { recursive: true });
    expect(await main(["record", "--env", module, "--policy", "boom", "--episodes", "1", "--out", journals])).toBe(1);
    output.clear();
    expect(await main(["inspect", journals])).toBe(0);
    expect(output.stdout).toMatch(/rewards must be finite numbers \(reward\(\) at \S*nan-env\.ts:\d+:\d+\); return 0/);
    // Before: a note asked for --env to find the line the end reason already showed.
    expect(output.stderr).toBe("");
    output.clear();
    expect(await main(["replay", journals])).toBe(0);
    expect(output.stdout).toContain("(reward() at ");
    expect(output.stderr).toBe("");
  });
});

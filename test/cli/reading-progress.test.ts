/**
 * `replay` and `inspect --html` over many journals show progress on stderr, as record, eval and train do
 * (plain lines off a terminal); few journals, `replay --quiet`, and `replay` whose "ok" lines go to the
 * terminal show none. stdout keeps only what it always had.
 */
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { FILES_WORTH_A_BAR } from "../../src/cli/progress.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-reading-progress-");
const many = join(dir, "many");
const few = join(dir, "few");
const progressLines = (text: string, label: string) => text.split("\n").filter((l) => l.startsWith(`${label}: `));

beforeAll(async () => {
  const episodes = String(FILES_WORTH_A_BAR);
  const args = ["record", "--env", "lookup", "--policy", "expert", "--seed", "5"];
  expect(await main([...args, "--episodes", episodes, "--out", many])).toBe(0);
  expect(await main([...args, "--episodes", "3", "--out", few])).toBe(0);
}, 60_000);

describe("progress while many journals are read", () => {
  const tty = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");
  afterEach(() => {
    if (tty) Object.defineProperty(process.stdout, "isTTY", tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
  });
  const stdoutIsTerminal = (value: boolean) =>
    Object.defineProperty(process.stdout, "isTTY", { value, configurable: true, writable: true });

  it("replay --verify, its stdout piped: plain progress lines on stderr, ending on the count; stdout as before", async () => {
    stdoutIsTerminal(false);
    expect(await main(["replay", many, "--verify"]), output.stderr).toBe(0);
    const lines = progressLines(output.stderr, "replay --verify");
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(new RegExp(`^replay --verify: ${FILES_WORTH_A_BAR}/${FILES_WORTH_A_BAR} \\(`));
    expect(output.stdout).not.toContain("replay --verify:");
    expect(output.stdout.trim().split("\n").at(-1)).toBe(`verified ${FILES_WORTH_A_BAR} journal(s) ok, 0 failed`);
    output.clear();
    expect(await main(["replay", many]), output.stderr).toBe(0);
    expect(progressLines(output.stderr, "replay").at(-1)).toMatch(/^replay: \d+\/\d+ \(/);
  });

  it("none with --quiet, for a few journals, or while stdout is the terminal (each journal's ok line says it)", async () => {
    stdoutIsTerminal(false);
    expect(await main(["replay", many, "--verify", "--quiet"]), output.stderr).toBe(0);
    expect(output.stderr).toBe("");
    expect(await main(["replay", few, "--verify"]), output.stderr).toBe(0);
    expect(output.stderr).toBe("");
    stdoutIsTerminal(true);
    expect(await main(["replay", many, "--verify"]), output.stderr).toBe(0);
    expect(output.stderr).toBe("");
  });

  it("inspect --html: progress on stderr while the page's journals are read; none for a few", async () => {
    const page = join(dir, "page.html");
    expect(await main(["inspect", many, "--html", page]), output.stderr).toBe(0);
    expect(progressLines(output.stderr, "inspect --html").at(-1)).toMatch(
      new RegExp(`^inspect --html: ${FILES_WORTH_A_BAR}/${FILES_WORTH_A_BAR} \\(`),
    );
    expect(output.stdout).toBe(`wrote ${page}: ${FILES_WORTH_A_BAR} of ${FILES_WORTH_A_BAR} episode(s)\n`);
    output.clear();
    expect(await main(["inspect", few, "--html", page]), output.stderr).toBe(0);
    expect(output.stderr).toBe("");
    // Fewer shown than found: the bar counts the journals read, not those found.
    output.clear();
    expect(await main(["inspect", many, "--html", page, "--max-episodes", "5"]), output.stderr).toBe(0);
    expect(output.stderr).toBe("");
  });
});

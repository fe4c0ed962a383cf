import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();
/** What a user reads: README, and the reference pages it links for every command's options. */
const PAGES = ["README.md", "docs/cli.md", "docs/training.md"];
const docs = PAGES.map((page) => readFileSync(page, "utf8")).join("\n");
const COMMANDS = ["record", "replay", "inspect", "plot", "start", "train", "sft", "average", "eval", "select"];

describe("the CLI's options and the docs (README, docs/cli.md, docs/training.md)", () => {
  it("every option a command's --help lists is named in README or the reference pages it links (a user reads them, not only --help)", async () => {
    const missing: string[] = [];
    for (const command of COMMANDS) {
      output.clear();
      expect(await main([command, "--help"])).toBe(0);
      const flags = new Set(output.stdout.match(/(?<=^ {2}(?:-\w, )?)--[a-z][a-z0-9-]*/gm) ?? []);
      expect(flags.size, command).toBeGreaterThan(1);
      for (const flag of flags)
        if (flag !== "--help" && flag !== "--version" && !new RegExp(`${flag}(?![a-z0-9-])`).test(docs))
          missing.push(`${command} ${flag}`);
    }
    expect(missing).toEqual([]);
  });
});

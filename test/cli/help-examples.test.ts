/**
 * Each command's --help ends with the options it cannot do without and a line to run (a user learnt the
 * required ones from "required option '--policy <name>' not specified"); every flag of the line is one the command
 * takes, so the line does not rot as options are renamed.
 */
import { describe, expect, it } from "vitest";
import { HELP_EXAMPLES, main } from "../../src/cli/main.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();

describe("--help's example and required options", () => {
  it("each command's help names its required options and ends with example lines that use only its own flags", async () => {
    for (const [command, examples] of Object.entries(HELP_EXAMPLES)) {
      output.clear();
      expect(await main([command, "--help"])).toBe(0);
      const help = output.stdout;
      const flags = new Set(help.match(/(?<=^ {2}(?:-\w, )?)--[a-z][a-z0-9-]*/gm) ?? []);
      for (const line of examples) {
        expect(help, command).toContain(`  ${line}\n`);
        if (!line.startsWith("npx agent-r1 ")) continue;
        expect(line.split(" ")[2], line).toBe(command);
        for (const flag of line.match(/--[a-z][a-z0-9-]*/g) ?? []) expect(flags, `${line}: ${flag}`).toContain(flag);
      }
    }
    output.clear();
    await main(["record", "--help"]);
    expect(output.stdout).toMatch(/\nRequired: --env, --policy, --out\nExample:\n {2}npx agent-r1 record /);
    output.clear();
    await main(["eval", "--help"]);
    expect(output.stdout).toMatch(/\nRequired: --checkpoint\n/);
  });
});

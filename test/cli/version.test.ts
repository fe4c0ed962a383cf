/** `agent-r1 --version` prints the package's version on stdout and exits 0. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput } from "../support/index.ts";

const output = captureOutput();

describe("--version", () => {
  it("prints package.json's version and exits 0 (-V too)", async () => {
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(await main(["--version"])).toBe(0);
    expect(output.stdout).toBe(`${version}\n`);
    expect(output.stderr).toBe("");
    output.clear();
    expect(await main(["-V"])).toBe(0);
    expect(output.stdout).toBe(`${version}\n`);
  });
});

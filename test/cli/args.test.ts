/** The CLI's value parsers, at their edges: what they accept, and what their refusals say. */
import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { intArg, seedArg } from "../../src/cli/args.ts";

const refusal = (parse: () => unknown): string => {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return (error as Error).message;
  }
  throw new Error("not refused");
};

describe("seedArg", () => {
  it("takes up to 100 characters and refuses 101, showing at most 40 of them", () => {
    expect(seedArg("s".repeat(100))).toBe("s".repeat(100));
    expect(seedArg("a.b_c-d:9")).toBe("a.b_c-d:9");
    const said = refusal(() => seedArg("s".repeat(101)));
    expect(said).toMatch(/got "s{40}"\.\.\.$/);
    expect(refusal(() => seedArg("a b"))).toMatch(/got "a b"$/);
  });
});

describe("intArg", () => {
  it("takes its minimum and the largest safe integer, and refuses one below the minimum", () => {
    expect(intArg("--steps", 0)("0")).toBe(0);
    expect(intArg("--steps", 1)(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(refusal(() => intArg("--steps", 1)("0"))).toBe('--steps must be a positive integer, got "0"');
    expect(refusal(() => intArg("--soup", 2)("1"))).toBe('--soup must be an integer >= 2, got "1"');
  });

  it("says to write in decimal digits a number it would take written so, and below 2^53 one too large", () => {
    for (const value of ["1e3", "0x10", "+5"])
      expect(refusal(() => intArg("--episodes", 1)(value))).toBe(
        `--episodes must be a positive integer, got "${value}" (write it in decimal digits)`,
      );
    // Not a number it would take however written: no hint.
    for (const value of ["2.5", "-3", "+0"])
      expect(refusal(() => intArg("--episodes", 1)(value))).toBe(
        `--episodes must be a positive integer, got "${value}"`,
      );
    expect(refusal(() => intArg("--episodes", 1)(String(2 ** 53)))).toBe(
      `--episodes must be a positive integer below 2^53, got "${2 ** 53}"`,
    );
  });
});

/** `inspect` shows what a model, tool or environment wrote; it never lets that text drive the terminal. */
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { terminalSafe } from "../../src/cli/inspect.ts";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a terminal would obey
const OBEYED = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe("terminalSafe", () => {
  it("writes escapes and bidirectional overrides as \\uXXXX, so a line cannot be reordered or restyled", () => {
    expect(terminalSafe("\u202eevil\u202c<answer>done</answer>")).toBe("\\u202eevil\\u202c<answer>done</answer>");
    expect(terminalSafe("\u001b[2Jcleared")).toBe("\\u001b[2Jcleared");
    expect(terminalSafe("a\nb\tc")).toBe("a⏎b\tc");
  });

  test.prop([fc.string({ unit: "binary", maxLength: 200 })])("no line keeps a character a terminal obeys", (text) => {
    const shown = terminalSafe(text);
    expect(shown.replace(/\t/g, "")).not.toMatch(OBEYED);
  });

  test.prop([fc.string({ unit: "grapheme", maxLength: 200 })])("printable text passes unchanged", (text) => {
    fc.pre(!OBEYED.test(text.replace(/\t/g, "")));
    expect(terminalSafe(text)).toBe(text);
  });
});

/** The tool summaries of record, train and eval: a tagged failure (a Data.TaggedError) is shown with its tag. */
import { describe, expect, it } from "vitest";
import type { EpisodeEvent } from "../../src/index.ts";
import { describeFailure, describeToolTally, ToolTally } from "../../src/runtime/tool-tally.ts";

const failedCall = (call: string, error: { kind: string; message: string; tag?: string }) =>
  [
    { type: "tool.called", call, tool: "flights" },
    { type: "tool.returned", call, result: { ok: false, error } },
  ] as unknown as EpisodeEvent[];

describe("ToolTally", () => {
  it("names a failure's tag, and counts the same message under two tags apart", () => {
    const tally = new ToolTally();
    tally.add(failedCall("c0", { kind: "error", message: "the search service is busy", tag: "ServiceUnavailable" }));
    tally.add(failedCall("c0", { kind: "error", message: "the search service is busy", tag: "ServiceUnavailable" }));
    tally.add(failedCall("c0", { kind: "error", message: "the search service is busy" }));
    const summary = tally.summary();
    expect(summary.failures.map(describeFailure)).toEqual([
      "1x flights error: the search service is busy",
      "2x flights error (ServiceUnavailable): the search service is busy",
    ]);
    expect(summary.failures[1]?.tag).toBe("ServiceUnavailable");
    expect(describeToolTally(summary)[0]).toContain(
      "2x flights error (ServiceUnavailable): the search service is busy",
    );
  });

  it("lists an untagged throw (a bug in the tool) before more frequent tagged failures, timeouts and bad arguments", () => {
    const tally = new ToolTally();
    let call = 0;
    const fail = (n: number, error: { kind: string; message: string; tag?: string }) => {
      for (let i = 0; i < n; i++) tally.add(failedCall(`c${call++}`, error));
    };
    fail(9, { kind: "timeout", message: "flights timed out after 10000 ms" });
    fail(7, { kind: "error", message: "no such flight", tag: "UnknownFlight" });
    fail(5, { kind: "invalid-args", message: "Expected string, got 3" });
    fail(4, { kind: "error", message: "flights was cancelled: the episode ended" });
    fail(1, { kind: "error", message: "Cannot read properties of undefined (reading 'id')" });
    const summary = tally.summary();
    expect(summary.failures.map((f) => [f.kind, f.count])).toEqual([
      ["error", 1],
      ["timeout", 9],
      ["error", 7],
      ["invalid-args", 5],
      ["error", 4],
    ]);
    const [line] = describeToolTally(summary);
    expect(line).toMatch(/^note: 26 of 26 tool calls failed .*: 1x flights error: Cannot read properties/);
    expect(line).toContain("; 9x flights timeout: flights timed out after 10000 ms; 7x flights error (UnknownFlight)");
    expect(line).toMatch(/; and 9 other failed calls$/);
  });
});

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
      "2x flights error (ServiceUnavailable): the search service is busy",
      "1x flights error: the search service is busy",
    ]);
    expect(summary.failures[0]?.tag).toBe("ServiceUnavailable");
    expect(describeToolTally(summary)[0]).toContain(
      "2x flights error (ServiceUnavailable): the search service is busy",
    );
  });
});

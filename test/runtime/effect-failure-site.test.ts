/**
 * Where a tool's Effect program failed, as record's summary says it: an `Effect.fail` throws nothing, so "thrown at"
 * named where its error value was constructed (a helper that makes it), not the tool's program that failed.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import * as r1 from "../../src/index.ts";
import { describeFailure, ToolTally } from "../../src/runtime/tool-tally.ts";

class NotFound extends Data.TaggedError("NotFound")<{ readonly message: string }> {}
// A helper that makes the error, as a module of errors would: where it is constructed, not where it fails.
const notFound = (key: string) => new NotFound({ message: `no entry ${key}` });

const find = (key: string) =>
  Effect.flatMap(Effect.succeed(key), (k) => (k === "here" ? Effect.succeed(1) : Effect.fail(notFound(k)))); // fails

const findTool = r1.defineTool({
  name: "find",
  description: "finds an entry",
  parameters: r1.Schema.Struct({ key: r1.Schema.String }),
  execute: ({ key }, { signal }) => Effect.runPromise(find(key), { signal }),
});

const plainTool = r1.defineTool({
  name: "plain",
  description: "throws as plain code does",
  parameters: r1.Schema.Struct({ key: r1.Schema.String }),
  execute: ({ key }) => {
    throw new Error(`no plain entry ${key}`); // throws
  },
});

/** The line of this file (1-based) that holds `marker`, and the path record shows for it. */
const lineOf = (marker: string) =>
  readFileSync(fileURLToPath(import.meta.url), "utf8")
    .split("\n")
    .findIndex((line) => line.includes(marker)) + 1;
const FILE = "test/runtime/effect-failure-site.test.ts";

const tallied = async (tool: r1.Tool, call: string) => {
  const result = await tool.call({ key: "missing" });
  const events = [
    { type: "tool.called", call, tool: tool.name },
    { type: "tool.returned", call, result },
  ] as unknown as r1.EpisodeEvent[];
  const tally = new ToolTally();
  tally.add(events);
  return tally.summary().failures[0]!;
};

describe("a tool failure's place in record's summary", () => {
  it("for an Effect program's failure, names the tool's program line that failed, and where its error was made", async () => {
    const failure = await tallied(findTool, "c0");
    const failedAt = new RegExp(`^${FILE}:${lineOf("// fails")}:\\d+$`);
    const madeAt = new RegExp(`^${FILE}:${lineOf("const notFound = ")}:\\d+$`);
    expect(failure.thrownAt).toMatch(failedAt);
    expect(failure.failedInEffect).toBe(true);
    expect(failure.madeAt).toMatch(madeAt);
    expect(describeFailure(failure)).toMatch(
      new RegExp(
        `^1x find error \\(NotFound\\): no entry missing \\(find's Effect program failed at ${FILE}:${lineOf("// fails")}:\\d+, with an error made at ${FILE}:${lineOf("const notFound = ")}:\\d+\\)$`,
      ),
    );
  });

  it("for a plain throw, is where it was thrown, as before", async () => {
    const failure = await tallied(plainTool, "c1");
    expect(failure.failedInEffect).toBeUndefined();
    expect(describeFailure(failure)).toMatch(
      new RegExp(`^1x plain error: no plain entry missing \\(thrown at ${FILE}:${lineOf("// throws")}:\\d+\\)$`),
    );
  });
});

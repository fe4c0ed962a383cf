/**
 * The package's error surface: the tagged error classes, and `AgentR1Error`, their union, which an Effect
 * user hands to `catchTags` or a `switch` on `_tag`. Internal helpers of the errors module stay internal.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import * as r1 from "../../src/index.ts";

const exportedErrors = Object.entries(r1)
  .filter(([, value]) => typeof value === "function" && (value as { prototype?: unknown }).prototype instanceof Error)
  .map(([name]) => name)
  .sort();

describe("the exported errors", () => {
  it("are the tagged errors the README lists, each tagged with its class name", () => {
    expect(exportedErrors).toEqual([
      "EnvMismatchError",
      "EnvProtocolError",
      "EpisodesAbortedError",
      "JournalConflictError",
      "JournalError",
      "JournalExistsError",
      "NonDeterminismError",
      "UsageError",
    ]);
    expect(new r1.UsageError({ detail: "x" })._tag).toBe("UsageError");
    expect(new r1.EnvProtocolError({ env: "e", detail: "d" })._tag).toBe("EnvProtocolError");
  });

  it("make up AgentR1Error, which a switch on _tag covers exhaustively", () => {
    expectTypeOf<r1.JournalError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.JournalConflictError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.JournalExistsError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.NonDeterminismError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.EnvMismatchError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.EnvProtocolError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.EpisodesAbortedError>().toExtend<r1.AgentR1Error>();
    expectTypeOf<r1.UsageError>().toExtend<r1.AgentR1Error>();
    const kind = (error: r1.AgentR1Error): string => {
      switch (error._tag) {
        case "JournalError":
        case "JournalConflictError":
        case "JournalExistsError":
          return "journal";
        case "NonDeterminismError":
        case "EnvMismatchError":
          return "replay";
        case "EnvProtocolError":
        case "EpisodesAbortedError":
          return "environment";
        case "UsageError":
          return "usage";
        default: {
          const unhandled: never = error;
          return unhandled;
        }
      }
    };
    expect(kind(new r1.UsageError({ detail: "bad flag" }))).toBe("usage");
  });

  it("leave the errors module's helpers out of the public API", () => {
    for (const helper of ["messageOf", "thrownFrom", "closestName", "didYouMean", "checkKnownKeys", "shownPath"])
      expect(Object.keys(r1)).not.toContain(helper);
  });
});

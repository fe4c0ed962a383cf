/**
 * The package's error surface: the tagged error classes, and `AgentR1Error`, their union, which an Effect
 * user hands to `catchTags` or a `switch` on `_tag`. Internal helpers of the errors module stay internal.
 */
import * as Cause from "effect/Cause";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, expectTypeOf, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import * as r1 from "../../src/index.ts";
import { AgentR1TaggedError } from "../../src/kernel/errors.ts";

/** The error classes the public entry exports: found, not listed (a class added later is among them). */
const errorClasses = (Object.entries(r1) as [string, unknown][]).filter(
  (entry): entry is [string, new (args: never) => Error] =>
    typeof entry[1] === "function" && (entry[1] as { prototype?: unknown }).prototype instanceof Error,
);
type Api = typeof r1;
/** The same, by type: every export that constructs an Error. */
type ErrorClassName = {
  [K in keyof Api]: Api[K] extends abstract new (...args: never) => Error ? K : never;
}[keyof Api];

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

  it("are each one isAgentR1Error knows and AgentR1Error holds, with no class listed by hand", () => {
    expect(errorClasses.length).toBeGreaterThan(0);
    for (const [name, ErrorClass] of errorClasses)
      expect(r1.isAgentR1Error(new ErrorClass({ detail: "x" } as never)), name).toBe(true);
    expectTypeOf<InstanceType<Api[ErrorClassName]>>().toExtend<r1.AgentR1Error>();
    // A class the kernel defines later, through the same base, is known without being added to a list.
    class LaterError extends AgentR1TaggedError("LaterError")<{ readonly detail: string }> {}
    expect(r1.isAgentR1Error(new LaterError({ detail: "x" }))).toBe(true);
    // A subclass of one is one; another library's error of the same tag is not.
    class Refused extends r1.UsageError {}
    expect(r1.isAgentR1Error(new Refused({ detail: "x" }))).toBe(true);
    class Foreign extends Data.TaggedError("UsageError")<{ readonly detail: string }> {}
    expect(r1.isAgentR1Error(new Foreign({ detail: "x" }))).toBe(false);
    expect(r1.isAgentR1Error(null)).toBe(false);
    expect(r1.isAgentR1Error("UsageError")).toBe(false);
  });

  it("leave the errors module's helpers out of the public API", () => {
    for (const helper of ["messageOf", "thrownFrom", "closestName", "didYouMean", "checkKnownKeys", "shownPath"])
      expect(Object.keys(r1)).not.toContain(helper);
  });

  it("isAgentR1Error lifts a rejection into an Effect's typed error channel, where catchTag reaches it", async () => {
    // The README's Effect.catchTag("JournalExistsError", ...) needs the error in the channel: without a guard, a
    // user's `catch: (e) => e as AgentR1Error` also passed a TypeError off as one.
    const journal = new r1.MemoryJournal();
    const recordInto = (seed: string) =>
      Effect.tryPromise({
        try: () =>
          lastValueFrom(
            r1
              .rollout({
                env: weather,
                policy: new r1.PolicyActor(weather.policies!.expert()),
                journal,
                seed,
                episodes: 1,
              })
              .episodes.pipe(toArray()),
          ),
        catch: (e) => (r1.isAgentR1Error(e) ? e : new Cause.UnknownError(e)),
      });
    expect((await Effect.runPromise(recordInto("s"))).length).toBe(1);
    const again = recordInto("s").pipe(
      Effect.map(() => "recorded"),
      Effect.catchTag("JournalExistsError", (e) => Effect.succeed(`exists: ${e.episode}`)),
    );
    expect(await Effect.runPromise(again)).toBe("exists: ep-s-0");
    expect(r1.isAgentR1Error(new r1.UsageError({ detail: "x" }))).toBe(true);
    expect(r1.isAgentR1Error(new TypeError("x"))).toBe(false);
    expect(r1.isAgentR1Error({ _tag: "UsageError" })).toBe(false);
    const value: unknown = new r1.JournalExistsError({ episode: "e", file: "f" });
    if (r1.isAgentR1Error(value)) expectTypeOf(value).toEqualTypeOf<r1.AgentR1Error>();
  });
});

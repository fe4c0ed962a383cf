/**
 * An Effect tool that dies (a defect) fails its call like a thrown Error, with the defect's message and no tag,
 * while a typed failure keeps its tag: what the README tells a machine to branch on.
 */
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { expect, it } from "vitest";
import * as r1 from "../../src/index.ts";

class Expected extends Data.TaggedError("Expected")<{ readonly message: string }> {}
const tool = (program: (x: string) => Effect.Effect<number, Expected>) =>
  r1.defineTool({
    name: "probe",
    description: "an Effect program",
    parameters: r1.Schema.Struct({ x: r1.Schema.String }),
    execute: ({ x }, { signal }) => Effect.runPromise(program(x), { signal }),
  });

it("journals a defect without a tag and a typed failure with its tag", async () => {
  const dies = tool(() => Effect.die(new Error("a bug in the tool")));
  const throwsInSync = tool(() =>
    Effect.sync(() => {
      throw new TypeError("x.y is undefined");
    }),
  );
  const fails = tool((x) => Effect.fail(new Expected({ message: `no ${x}` })));
  expect(await dies.call({ x: "a" })).toEqual({ ok: false, error: { kind: "error", message: "a bug in the tool" } });
  expect(await throwsInSync.call({ x: "a" })).toEqual({
    ok: false,
    error: { kind: "error", message: "x.y is undefined" },
  });
  expect(await fails.call({ x: "a" })).toEqual({
    ok: false,
    error: { kind: "error", message: "no a", tag: "Expected" },
  });
});

/**
 * record's note on tools that returned nothing (a forgotten `return`) counts the calls whose undefined the
 * machine got as null. A call that timed out or was cancelled settles with that failure, and its execute may
 * still return undefined afterwards (a common `if (signal.aborted) return;`): the machine never saw that
 * value, so it is no call that "returned nothing".
 */
import { describe, expect, it } from "vitest";
import { defineTool, Schema } from "../../src/index.ts";
import { ToolTally } from "../../src/runtime/tool-tally.ts";

/** A tool that waits for its signal, then returns nothing (the call has settled with its failure by then). */
const quitter = (name: string) =>
  defineTool({
    name,
    description: "waits, and gives up quietly when told to stop",
    parameters: Schema.Struct({}),
    timeoutMs: 20,
    execute: async (_args, { signal }) => {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
      return undefined as never;
    },
  });

const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("calls counted as returning nothing", () => {
  it("a timed-out call whose execute then returns undefined is not counted: the machine got the timeout", async () => {
    const tally = new ToolTally();
    const result = await quitter("slow_quitter").call({});
    expect(result).toMatchObject({ ok: false, error: { kind: "timeout" } });
    await settled();
    expect(tally.summary().returnedNothing).toBeUndefined();
  });

  it("a cancelled call whose execute then returns undefined is not counted: the machine got the cancellation", async () => {
    const tally = new ToolTally();
    const stop = new AbortController();
    const calling = quitter("cancelled_quitter").call({}, stop.signal);
    stop.abort(new Error("episode over"));
    expect(await calling).toMatchObject({ ok: false, error: { kind: "error" } });
    await settled();
    expect(tally.summary().returnedNothing).toBeUndefined();
  });

  it("a call that returns undefined in time is counted, as before", async () => {
    const tally = new ToolTally();
    const silent = defineTool({
      name: "silent",
      description: "forgets to return",
      parameters: Schema.Struct({}),
      execute: async () => undefined as never,
    });
    expect(await silent.call({})).toEqual({ ok: true, content: null });
    expect(tally.summary().returnedNothing).toEqual([{ tool: "silent", count: 1 }]);
  });
});

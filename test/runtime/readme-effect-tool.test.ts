import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { expect, it } from "vitest";
import * as r1 from "../../src/index.ts";

// A resource each call opens and must close whatever happens (in life: a database client, a file handle).
const open = new Set<number>();
let nextId = 0;
const openStore = () => {
  const id = nextId++;
  open.add(id);
  return {
    stock: new Map([
      ["apple", 3],
      ["pear", 0],
    ]),
    close: () => open.delete(id),
  };
};
class UnknownItem extends Data.TaggedError("UnknownItem")<{ readonly item: string }> {}
class StoreLocked extends Data.TaggedError("StoreLocked")<{ readonly message: string }> {}

const lookUp = (stock: Map<string, number>, item: string): Effect.Effect<number, UnknownItem | StoreLocked> => {
  if (item === "slow") return Effect.as(Effect.sleep("1 second"), 0);
  if (item === "locked") return Effect.fail(new StoreLocked({ message: "the store is locked" }));
  const n = stock.get(item);
  return n === undefined ? Effect.fail(new UnknownItem({ item })) : Effect.succeed(n);
};
const countIn = (item: string) =>
  Effect.acquireUseRelease(
    Effect.sync(openStore),
    (store) => lookUp(store.stock, item),
    (store) => Effect.sync(() => store.close()),
  );

const count = r1.defineTool({
  name: "count",
  description: "How many of an item are in stock.",
  parameters: r1.Schema.Struct({ item: r1.Schema.String }),
  timeoutMs: 100,
  execute: ({ item }, { signal }) =>
    Effect.runPromise(
      // An expected error is an outcome for the machine to read: return it as a result.
      Effect.catchTag(countIn(item), "UnknownItem", (e) => Effect.succeed({ unknown: e.item })),
      { signal }, // a timeout, or the episode ending, interrupts the program: the release still runs
    ),
});

it("an Effect tool: results, expected errors as results, other typed errors journaled with their tag", async () => {
  expect(await count.call({ item: "apple" })).toEqual({ ok: true, content: 3 });
  expect(await count.call({ item: "kiwi" })).toEqual({ ok: true, content: { unknown: "kiwi" } });
  expect(await count.call({ item: "locked" })).toEqual({
    ok: false,
    error: { kind: "error", message: "the store is locked", tag: "StoreLocked" },
  });
  expect(await count.call({ item: "slow" })).toEqual({
    ok: false,
    error: { kind: "timeout", message: "count timed out after 100 ms" },
  });
  // The timed-out call's release runs once its interruption is processed: every store is closed soon after.
  for (let i = 0; i < 100 && open.size > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(open.size).toBe(0);
});

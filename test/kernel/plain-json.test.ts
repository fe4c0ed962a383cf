/** notPlainJson: what the state hash and the journal can stand for, and where a value stops being JSON. */
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asJournaled, notPlainJson } from "../../src/kernel/canonical.ts";

/** A JSON value with one leaf replaced, and the path to that leaf. */
const withLeaf = (leaf: unknown) =>
  fc
    .array(
      fc.oneof(
        fc.constantFrom("a", "b", "c").map((k) => `.${k}`),
        fc.nat(3).map((i) => `[${i}]`),
      ),
      {
        maxLength: 4,
      },
    )
    .map((steps) => {
      let value: unknown = leaf;
      for (const step of [...steps].reverse())
        value = step.startsWith(".")
          ? { [step.slice(1)]: value }
          : Array.from({ length: Number(step.slice(1, -1)) + 1 }, (_, i) =>
              i === Number(step.slice(1, -1)) ? value : 0,
            );
      return { value, path: `x${steps.join("")}` };
    });

describe("notPlainJson", () => {
  fcTest.prop([fc.jsonValue()])("accepts every JSON value", (value) => {
    expect(notPlainJson(value, "x")).toBeUndefined();
  });

  it.each([
    [{ a: [1, { b: new Set() }] }, "x.a[1].b is a Set"],
    [{ when: new Date(0) }, "x.when is a Date"],
    [[0, Number.NaN], "x[1] is NaN"],
    [{ f: () => 1 }, "x.f is a function"],
  ])("names where a value stops being JSON", (value, message) => {
    expect(notPlainJson(value, "x")).toBe(message);
  });

  fcTest.prop([withLeaf(new Set(["s"]))])("finds a Set at any depth, by its path", ({ value, path }) => {
    expect(notPlainJson(value, "x")).toBe(`${path} is a Set`);
  });

  it("names a circular reference as one, and allows the same object twice where it is no cycle", () => {
    const self: Record<string, unknown> = { a: 1 };
    self.self = self;
    expect(notPlainJson(self, "result")).toBe("result.self refers back to result (a circular reference)");
    const list: unknown[] = [1];
    const inner = { list };
    list.push(inner);
    expect(notPlainJson({ inner }, "x")).toBe("x.inner.list[1] refers back to x.inner (a circular reference)");
    const shared = { n: 1 };
    expect(notPlainJson({ a: shared, b: [shared, shared] }, "x")).toBeUndefined();
  });

  it("takes JSON nested 256 levels deep and refuses 257, naming the limit", () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 0;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    expect(notPlainJson(nested(256), "x")).toBeUndefined();
    expect(notPlainJson(nested(257), "x")).toMatch(/ nests deeper than 256 levels/);
  });

  it("allows undefined object properties (JSON drops them), not undefined array items (JSON writes null)", () => {
    expect(notPlainJson({ a: undefined, b: 1 }, "x")).toBeUndefined();
    expect(notPlainJson({ b: 1, a: { c: undefined } }, "x")).toBeUndefined();
    expect(notPlainJson([undefined], "x")).toBe("x[0] is undefined (JSON writes it as null: give null)");
    // A hole in a sparse array reads as undefined too, and JSON writes null there.
    const holed = [1, 2];
    holed.length = 3;
    expect(notPlainJson({ list: holed }, "x")).toBe("x.list[2] is undefined (JSON writes it as null: give null)");
  });
});

describe("asJournaled", () => {
  it("gives back the value itself when nothing would be dropped (no copy)", () => {
    const task = { city: "lima", meta: { tags: ["a", null], n: 1 } };
    const journaled = asJournaled(task, "task");
    expect(journaled.problem).toBeUndefined();
    expect("value" in journaled && journaled.value).toBe(task);
  });

  it("drops undefined object fields, as the journal's JSON does, copying only what held one", () => {
    const kept = { deep: [1, 2] };
    const task = { city: "lima", hint: undefined, meta: { note: undefined, n: 1 }, list: [{ b: undefined }], kept };
    const journaled = asJournaled(task, "task");
    if (!("value" in journaled)) throw new Error(journaled.problem);
    expect(journaled.value).toStrictEqual(JSON.parse(JSON.stringify(task)));
    expect("hint" in journaled.value).toBe(false);
    expect(Object.keys(journaled.value.meta)).toEqual(["n"]);
    expect(journaled.value.kept).toBe(kept);
    // The caller's task is not changed.
    expect("hint" in task).toBe(true);
    // A "__proto__" field stays a field, as JSON.parse keeps it.
    const odd = JSON.parse('{"__proto__": {"x": 1}, "y": null}') as Record<string, unknown>;
    odd.z = undefined;
    const oddJournaled = asJournaled(odd);
    if (!("value" in oddJournaled)) throw new Error(oddJournaled.problem);
    expect(Object.keys(oddJournaled.value)).toEqual(["__proto__", "y"]);
    expect(Object.getPrototypeOf(oddJournaled.value)).toBe(Object.prototype);
  });

  it("refuses what JSON would change rather than drop, naming where", () => {
    expect(asJournaled({ list: [1, undefined] }, "task").problem).toBe(
      "task.list[1] is undefined (JSON writes it as null: give null)",
    );
    expect(asJournaled({ hint: undefined, n: Number.NaN }, "task").problem).toBe("task.n is NaN");
    expect(asJournaled({ when: new Date(0) }, "task").problem).toBe("task.when is a Date");
    expect(asJournaled(undefined, "task").problem).toBe("task is undefined");
  });
});

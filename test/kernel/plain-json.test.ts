/** notPlainJson: what the state hash and the journal can stand for, and where a value stops being JSON. */
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { notPlainJson } from "../../src/kernel/canonical.ts";

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

  it("allows undefined object properties (JSON drops them) unless told to refuse them (a task), not undefined array items", () => {
    expect(notPlainJson({ a: undefined, b: 1 }, "x")).toBeUndefined();
    expect(notPlainJson({ b: 1, a: { c: undefined } }, "x", { undefinedFields: "refuse" })).toMatch(
      /^x\.a\.c is undefined/,
    );
    expect(notPlainJson([undefined], "x")).toBe("x[0] is undefined");
  });
});

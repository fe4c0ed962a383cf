/**
 * A tool whose `execute` answers with one of two object shapes from a ternary type-checks without an annotation
 * (npm test type-checks this file). TypeScript types `c ? { unknown: d } : { interacts: b }` as a union whose
 * members carry each other's fields as optional `undefined`, which `Json` refused (TS2322 "Type 'undefined' is not
 * assignable to type 'Json'"), though the runtime drops such fields as JSON does.
 */
import { of } from "rxjs";
import { expect, expectTypeOf, it } from "vitest";
import { defineTool, Schema, type ToolOutput } from "../../src/index.ts";

const KNOWN = ["warfarin", "aspirin"];
const interactions = defineTool({
  name: "interactions",
  description: "Whether two drugs interact, or which one is unknown.",
  parameters: Schema.Struct({ drugA: Schema.String, drugB: Schema.String }),
  execute: ({ drugA, drugB }) =>
    !KNOWN.includes(drugA)
      ? { unknown: drugA }
      : !KNOWN.includes(drugB)
        ? { unknown: drugB }
        : { interacts: drugA !== drugB },
});
const later = defineTool({
  name: "later",
  description: "The same, as a promise and as an Observable.",
  parameters: Schema.Struct({ drug: Schema.String }),
  execute: async ({ drug }) => (KNOWN.includes(drug) ? { known: true } : { unknown: drug }),
});
const observed = defineTool({
  name: "observed",
  description: "The same, as an Observable.",
  parameters: Schema.Struct({ drug: Schema.String }),
  execute: ({ drug }) => of(KNOWN.includes(drug) ? { known: true } : { unknown: drug }),
});

it("a result of one of several object shapes type-checks, and its undefined fields are dropped as JSON drops them", async () => {
  expectTypeOf<{ a?: undefined; b: number }>().toExtend<ToolOutput>();
  // @ts-expect-error: an array's undefined item is refused at run time (JSON writes it as null), so by the type too
  expectTypeOf<(number | undefined)[]>().toExtend<ToolOutput>();
  expect(await interactions.call({ drugA: "warfarin", drugB: "aspirin" })).toEqual({
    ok: true,
    content: { interacts: true },
  });
  expect(await interactions.call({ drugA: "xanax", drugB: "aspirin" })).toEqual({
    ok: true,
    content: { unknown: "xanax" },
  });
  expect(await later.call({ drug: "aspirin" })).toEqual({ ok: true, content: { known: true } });
  expect(await observed.call({ drug: "x" })).toEqual({ ok: true, content: { unknown: "x" } });
  const dropped = defineTool({ ...later, execute: () => ({ kept: 1, gone: undefined }) });
  expect(await dropped.call({ drug: "x" })).toEqual({ ok: true, content: { kept: 1 } });
});

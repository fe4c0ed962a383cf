import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { summaryJson } from "../../src/cli/args.ts";

describe("summaryJson: the CLI's --json summaries", () => {
  it("prints a float sum's noise away, and leaves integers, strings and nesting as they are", () => {
    expect(summaryJson({ meanReturn: 0.1 + 0.2, episodes: 200, env: "lookup", nested: [0.8999999999999997, -3] })).toBe(
      '{"meanReturn":0.3,"episodes":200,"env":"lookup","nested":[0.9,-3]}',
    );
  });

  it("keeps every number within 12 significant digits of itself", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true, noDefaultInfinity: true })), (values) => {
        const back = JSON.parse(summaryJson({ values })).values as number[];
        for (const [i, x] of values.entries())
          if (Number.isInteger(x)) expect(back[i]).toBe(x === 0 ? 0 : x);
          else expect(Math.abs(back[i] - x)).toBeLessThanOrEqual(Math.abs(x) * 1e-11);
      }),
    );
  });
});

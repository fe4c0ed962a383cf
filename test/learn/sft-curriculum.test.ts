/** The cloning curriculum cuts episodes after their first actions, every per-token array alike. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firstActions } from "../../src/learn/sft.ts";
import type { Sequence } from "../../src/learn/trajectory.ts";

const sequenceOf = (mask: number[]): Sequence =>
  ({
    episode: "e",
    group: "g",
    tokens: mask.map((_, i) => 300 + i),
    promptLength: 0,
    actionMask: mask,
    responseMask: mask.map(() => 1),
    logprobs: mask.map((m) => (m ? -1 : 0)),
  }) as unknown as Sequence;

describe("firstActions", () => {
  it("ends the sequence with the n-th action's last token", () => {
    const s = sequenceOf([0, 0, 1, 1, 0, 0, 1, 0, 1, 1]);
    expect(firstActions(s, 1).actionMask).toEqual([0, 0, 1, 1]);
    expect(firstActions(s, 2).tokens).toEqual([300, 301, 302, 303, 304, 305, 306]);
    expect(firstActions(s, 3)).toEqual(s);
    expect(firstActions(s, 9)).toEqual(s);
  });

  it("is a prefix with exactly min(n, actions) actions, every per-token array cut alike", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(0, 1), { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (mask, n) => {
        const s = sequenceOf(mask);
        const cut = firstActions(s, n);
        const runs = (m: readonly number[]) => m.filter((x, i) => x === 1 && m[i + 1] !== 1).length;
        expect(runs(cut.actionMask)).toBe(Math.min(n, runs(mask)));
        expect(cut.tokens).toEqual(s.tokens.slice(0, cut.tokens.length));
        for (const key of ["actionMask", "responseMask", "logprobs"] as const)
          expect(cut[key]).toHaveLength(cut.tokens.length);
      }),
    );
  });
});

/** The cloning curriculum cuts episodes after their first actions, every per-token array alike, stage by stage from short to long. */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { firstActions, sft } from "../../src/learn/sft.ts";
import type { Sequence } from "../../src/learn/trajectory.ts";
import { tempDir } from "../support/index.ts";

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

describe("sft's curriculum runs from short to long", () => {
  it("stages out of order or repeated are refused by name, before a stopped sft's progress is cleared", async () => {
    const out = tempDir();
    // A stopped sft's saved points: a start over (no resume) clears them, a refused one must not.
    mkdirSync(join(out, "sft-progress"));
    const attempt = (curriculum: unknown) =>
      sft({ env: lookup, data: tempDir(), out, epochs: 1, curriculum: curriculum as never, log: () => {} });
    for (const [curriculum, says] of [
      [
        [
          { actions: 2, steps: 10 },
          { actions: 1, steps: 10 },
        ],
        "sft: curriculum stage 2 (1:10) cuts after fewer actions than stage 1 (2:10): a curriculum runs from short to long, each stage on more first actions than the one before",
      ],
      [
        [
          { actions: 1, steps: 10 },
          { actions: 1, steps: 5 },
        ],
        "sft: curriculum stage 2 (1:5) cuts after as many actions as stage 1 (1:10): a curriculum runs from short to long, each stage on more first actions than the one before (one stage of 1: 1:15)",
      ],
      [
        [{ actions: 0, steps: 3 }],
        'sft: curriculum stage 1 must be { actions: an integer >= 1, steps: an integer >= 0 }, got {"actions":0,"steps":3}',
      ],
      [
        "1:300",
        'sft: curriculum must be a list of stages { actions, steps }, like [{ actions: 1, steps: 300 }], got "1:300"',
      ],
    ] as const) {
      await expect(attempt(curriculum)).rejects.toThrow(UsageError);
      await expect(attempt(curriculum)).rejects.toThrow(says);
    }
    expect(existsSync(join(out, "sft-progress"))).toBe(true);
  });
});

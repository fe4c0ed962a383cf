/**
 * A recording stopped from code (`record({ signal })`, as train stops its warm start's) ends its episodes in
 * flight as `aborted: stopped: ...`; the resume records them again. Its progress counted them as done, with
 * their partial returns in the mean: the last line said `111/400 ... mean return 0.973` where 79 had ended
 * (mean 1.29), just above the warm start's own "79 of 400 expert episodes ended".
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { policyFor, record } from "../../src/cli/record.ts";
import type { Policy } from "../../src/runtime/policy.ts";
import { tempDir } from "../support/index.ts";

describe("record stopped by its signal", () => {
  it("counts in its progress only the episodes that ended, and their mean return", async () => {
    const out = join(tempDir(), "demos");
    const controller = new AbortController();
    const expert = policyFor(lookup, "expert");
    let acts = 0;
    // One episode at a time: the stop comes during the third.
    const stopping: Policy = {
      ...expert,
      act: async (requests) => {
        if (++acts === 6) controller.abort(new Error("train was stopped"));
        return expert.act(requests);
      },
    };
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    let summary: Awaited<ReturnType<typeof record>>;
    try {
      summary = await record({
        env: lookup,
        policy: stopping,
        episodes: 8,
        seed: "s",
        out,
        concurrency: 1,
        durability: "episode",
        signal: controller.signal,
      });
    } finally {
      vi.restoreAllMocks();
    }
    const ended = summary.episodes - summary.aborted;
    expect(summary.aborted).toBe(1);
    expect(ended).toBeGreaterThan(0);
    const returns = Array.from({ length: ended }, (_, i) => {
      const last = readFileSync(join(out, `ep-s-${i}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .at(-1)!;
      return (JSON.parse(last) as { return: number }).return;
    });
    const mean = returns.reduce((a, b) => a + b, 0) / ended;
    const progress = lines.filter((line) => line.startsWith("record lookup: "));
    expect(progress.at(-1)).toMatch(
      new RegExp(`^record lookup: ${ended}/8 \\(.*\\) mean return ${mean.toFixed(3).replace(".", "\\.")}\\n$`),
    );
  });
});

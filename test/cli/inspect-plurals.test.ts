/** `inspect`'s timeline: counts in words people write (1 turn, 1 token; 3 turns, 3 tokens), a failure's tag. */
import { describe, expect, it } from "vitest";
import { timeline } from "../../src/cli/inspect.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";

const ended = (turns: number) =>
  ({ type: "episode.ended", seq: 9, reason: "answered", return: 1, turns, metrics: {} }) as unknown as EpisodeEvent;
const observed = (tokens: number) =>
  ({ type: "env.observed", seq: 1, turn: 0, tokens: Array(tokens).fill(0), text: "q" }) as unknown as EpisodeEvent;

describe("inspect's timeline", () => {
  it("says 1 turn and 1 token, not 1 turns, 1 tokens", () => {
    expect(timeline([observed(1), ended(1)])).toEqual([
      "   1 ── turn 0 ── observation (1 token): q",
      "   9 ended: answered; return 1, 1 turn",
    ]);
  });

  it("and plurals for any other count", () => {
    expect(timeline([observed(0), ended(3)])).toEqual([
      "   1 ── turn 0 ── observation (0 tokens): q",
      "   9 ended: answered; return 1, 3 turns",
    ]);
  });
});

describe("inspect's timeline of a failed tool call", () => {
  const called = { type: "tool.called", seq: 2, call: "c0", actor: "a", tool: "count", args: { item: "x" } };
  const failed = (error: Record<string, string>) =>
    [called, { type: "tool.returned", seq: 3, call: "c0", result: { ok: false, error } }] as unknown as EpisodeEvent[];
  it("names a typed error's tag beside its kind, and nothing where there is none", () => {
    expect(timeline(failed({ kind: "error", message: "the store is locked", tag: "StoreLocked" }))[1]).toBe(
      "   3   FAILED c0 count: error (StoreLocked): the store is locked",
    );
    expect(timeline(failed({ kind: "timeout", message: "count timed out after 100 ms" }))[1]).toBe(
      "   3   FAILED c0 count: timeout: count timed out after 100 ms",
    );
  });
});

/** `inspect`'s timeline counts in words people write: 1 turn, 1 token; 3 turns, 3 tokens. */
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

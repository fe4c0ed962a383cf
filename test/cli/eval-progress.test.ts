/**
 * Evaluations run their episodes in lockstep batches (one policy call a turn for every running episode), so episodes
 * end in bursts near the end. Their progress off a terminal (CI, nohup, a pipe) moves at every turn: how many
 * episodes run, at which turn, the actions taken, and a time left counted in actions, not in ended episodes (which
 * printed nothing until the first episode ended, then "14/100, ETA 86s" half a second before the end).
 */
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expertPolicy, lookup } from "../../actors/lookup/index.ts";
import { episodeProgress } from "../../src/cli/progress.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { trainConfigFor } from "../../src/learn/config.ts";
import { evaluate } from "../../src/learn/evaluate.ts";
import { train } from "../../src/learn/trainer.ts";
import type { Policy } from "../../src/runtime/policy.ts";
import { tempDir } from "../support/index.ts";

const pipe = () => {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text) !== 0 } as unknown as NodeJS.WriteStream;
  return { stream, lines };
};

describe("an evaluation's progress off a terminal", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it("prints a line at each turn of the running episodes, with an ETA in actions, before any episode ends", async () => {
    // Only the clock is faked: the episodes run as they do (the policy actor's batching, the journal, replay).
    vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000 });
    const expert = expertPolicy();
    // Each policy call (a turn of every running episode) takes 3 s.
    const slow: Policy = {
      ...expert,
      act: (requests) => {
        vi.setSystemTime(Date.now() + 3000);
        return expert.act(requests);
      },
    };
    const { stream, lines } = pipe();
    const bar = episodeProgress("eval", 8, lookup.maxTurns, stream);
    const turns: number[] = [];
    const summary = await evaluate(lookup, slow, {
      episodes: 8,
      seed: "progress",
      onEpisode: (record) => {
        turns.push(record.turns);
        bar.tick(1, { return: record.return.toFixed(1) });
      },
      onEvent: bar.onEvent,
    });
    bar.stop();
    expect(summary.successRate).toBe(1);
    // The expert looks up once or twice, then answers: 2 or 3 actions.
    expect(turns.sort()).toEqual([2, 2, 2, 2, 3, 3, 3, 3]);
    expect(lines).toEqual([
      // After the first turn: nothing ended yet, so only lookup's turn limit (8 actions) says how long the episodes
      // take: the most time left, 8 x 7 at 8 actions in 3 s, said as a bound (as an estimate, 3.5 times the 6 s left).
      "eval: 0/8, 8 running at turn 1 (8 actions, 2.7/s, ETA at most 21s)\n",
      // The second turn: printed once all 8 have acted (not at the first action of the batch).
      "eval: 0/8, 8 running at turn 2 (16 actions, 2.7/s, ETA at most 18s)\n",
      // Four ended after 2 actions (their own lines held back: 2 s had not passed). The four left have taken a
      // third, which none of the ended ones did: at least one more each is expected, 4 at 20 actions per 9 s.
      "eval: 4/8, 4 running at turn 3 (20 actions, 2.2/s, ETA 2s) return 1.2\n",
      "eval: 8/8 (20 actions, 2.2/s, ETA 0s) return 1.4\n",
    ]);
  });

  /** An event of episode `episode`, as far as progress reads it. */
  const event = (type: EpisodeEvent["type"], episode: string) => ({ type, episode }) as EpisodeEvent;

  it("episodes out of step (a slow tool's episode a turn behind) still get a line, at an action behind, 4 s on", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = episodeProgress("eval", 2, 6, stream);
    for (const e of ["a", "b"]) bar.onEvent(event("episode.started", e));
    vi.advanceTimersByTime(3000);
    bar.onEvent(event("agent.acted", "a")); // b is late: no line, the turn is not whole
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1000);
    bar.onEvent(event("agent.acted", "a")); // a leads again: still a burst's first action
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(100);
    bar.onEvent(event("agent.acted", "b")); // b, one behind, 4.1 s on
    // Up to 6 actions each (the turn limit, none ended): at most 4 + 5 left, at 3 actions in 4.1 s.
    expect(lines).toEqual(["eval: 0/2, 2 running at turn 2 (3 actions, 1.4 s each, ETA at most 12s)\n"]);
    bar.stop();
    // Stopped (the evaluation was interrupted): an action still journaled prints nothing more.
    vi.advanceTimersByTime(5000);
    bar.onEvent(event("agent.acted", "b"));
    expect(lines).toHaveLength(1);
  });

  it("on a terminal the bar shows the running episodes and the ETA in actions", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const written: string[] = [];
    const stream = {
      isTTY: true,
      columns: 200,
      write: (chunk: string) => written.push(chunk) !== 0,
    } as unknown as NodeJS.WriteStream;
    const bar = episodeProgress("eval", 2, 4, stream);
    for (const e of ["a", "b"]) bar.onEvent(event("episode.started", e));
    vi.advanceTimersByTime(2000);
    for (const e of ["a", "b"]) bar.onEvent(event("agent.acted", e));
    vi.advanceTimersByTime(300);
    // At most 2 x 3 actions left (none ended) at 2 actions in 2 s.
    expect(written.at(-2)).toMatch(/^eval \[.*\] 0\/2 0% \| 2 actions, 1\.0\/s \| ETA at most 6s 2 running at turn 1$/);
    bar.stop();
  });
});

describe("evaluate's onEvent", () => {
  it("is refused when it is not a function, by name", async () => {
    await expect(
      evaluate(lookup, expertPolicy(), { episodes: 1, seed: "s", onEvent: "log" as unknown as () => void }),
    ).rejects.toThrow('collect: onEvent must be a function of an event (or left out), got "log"');
  });
});

describe("train's evaluations before and after training", () => {
  it("hand their bar the turn limit and every event of their episodes, as they run", async () => {
    const config = trainConfigFor(lookup, {
      backend: "wasm",
      steps: 1,
      tasksPerStep: 1,
      groupSize: 2,
      evalEpisodes: 2,
      warmStart: null,
      model: { layers: 1, heads: 2, width: 16 },
    });
    const seen: string[] = [];
    await train({
      env: lookup,
      config,
      out: join(tempDir("agent-r1-eval-progress-"), "run"),
      log: () => {},
      onEvalStart: (phase, episodes, maxTurns) => seen.push(`${phase} start ${episodes} ${maxTurns}`),
      onEvalEvent: (phase, event) => {
        if (event.type === "agent.acted" && !seen.includes(`${phase} acted`)) seen.push(`${phase} acted`);
      },
      onEvalEpisode: (phase) => {
        if (!seen.includes(`${phase} ended`)) seen.push(`${phase} ended`);
      },
    });
    expect(seen).toEqual([
      `before start 2 ${lookup.maxTurns}`,
      "before acted",
      "before ended",
      `after start 2 ${lookup.maxTurns}`,
      "after acted",
      "after ended",
    ]);
  }, 60_000);
});

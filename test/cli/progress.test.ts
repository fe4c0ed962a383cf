import { afterEach, describe, expect, it, vi } from "vitest";
import { progress } from "../../src/cli/progress.ts";

/** A stream that is not a terminal (CI, a pipe): progress writes plain lines to it. */
const pipe = () => {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text) !== 0 } as unknown as NodeJS.WriteStream;
  return { stream, lines };
};

describe("progress off a terminal", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("prints plain lines with count, rate, ETA and the latest info, at most every 2 s, and always the last", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("train grpo", 10, stream);
    bar.tick(1, { return: "0.100", "tok/s": 900 }); // the first tick prints
    vi.advanceTimersByTime(1000);
    bar.tick(1, { return: "0.200" }); // 1 s later: quiet
    vi.advanceTimersByTime(1000);
    bar.tick(2, { return: "0.300" }); // 2 s after the last line: prints
    vi.advanceTimersByTime(500);
    bar.tick(6, { return: "0.400" }); // done: prints
    expect(lines).toEqual([
      "train grpo: 1/10 (1000.0/s, ETA 0s) return 0.100 tok/s 900\n",
      "train grpo: 4/10 (2.0/s, ETA 3s) return 0.300\n",
      "train grpo: 10/10 (4.0/s, ETA 0s) return 0.400\n",
    ]);
    bar.stop();
    expect(lines).toHaveLength(3);
  });

  it("with everyTick (training updates, cloning epochs), prints every tick however close together", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("train grpo", 3, stream, 0, true);
    for (const r of ["0.1", "0.2", "0.3"]) {
      vi.advanceTimersByTime(500);
      bar.tick(1, { return: r });
    }
    expect(lines.map((l) => l.replace(/ \(.*\)/, ""))).toEqual([
      "train grpo: 1/3 return 0.1\n",
      "train grpo: 2/3 return 0.2\n",
      "train grpo: 3/3 return 0.3\n",
    ]);
  });

  it("a run stopped early (Ctrl-C) ends on a line with its last count", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("train grpo", 30, stream);
    vi.advanceTimersByTime(2000);
    bar.tick(1, { return: "0.1" });
    vi.advanceTimersByTime(1000);
    bar.tick(1, { return: "0.2" });
    bar.stop();
    expect(lines).toEqual([
      "train grpo: 1/30 (2.0 s each, ETA 58s) return 0.1\n",
      "train grpo: 2/30 (1.5 s each, ETA 42s) return 0.2\n",
    ]);
  });

  it("projects no ETA from the first of many items: episodes run in batches and end in bursts", () => {
    const { stream, lines } = pipe();
    const bar = progress("eval", 1500, stream);
    bar.tick();
    expect(lines.at(-1)).toMatch(/^eval: 1\/1500 \(.*\/s, ETA unknown\)/);
  });

  it("a tick of 0 (a heartbeat) shows the latest info, with no ETA before anything is done", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("runs", 14, stream);
    vi.advanceTimersByTime(60_000);
    bar.tick(0, { "grpo-s1": "7/20 updates" });
    expect(lines).toEqual(["runs: 0/14 (0.0/s, ETA unknown) grpo-s1 7/20 updates\n"]);
  });

  it("a resumed run's bar starts at its count, and its rate and ETA measure only the work done since", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("train grpo", 30, stream, 20);
    vi.advanceTimersByTime(4000);
    bar.tick(2, { return: "0.5" });
    bar.stop();
    expect(lines).toEqual(["train grpo: 22/30 (2.0 s each, ETA 16s) return 0.5\n"]);
  });
});

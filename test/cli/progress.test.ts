import { afterEach, describe, expect, it, vi } from "vitest";
import { progress, stopAllBars } from "../../src/cli/progress.ts";

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
      "train grpo: 1/10 (1000.0/s, ETA unknown) return 0.100 tok/s 900\n",
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
      "train grpo: 1/30 (2.0 s each, ETA unknown) return 0.1\n",
      "train grpo: 2/30 (1.5 s each, ETA 42s) return 0.2\n",
    ]);
  });

  it("projects no ETA from the first of many items: episodes run in batches and end in bursts", () => {
    const { stream, lines } = pipe();
    const bar = progress("eval", 1500, stream);
    bar.tick();
    expect(lines.at(-1)).toMatch(/^eval: 1\/1500 \(.*\/s, ETA unknown\)/);
  });

  it("projects no ETA before 2 items are done and 2 s have passed (an 8 s evaluation once said ETA 69s at 1 of 24)", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, lines } = pipe();
    const bar = progress("eval", 24, stream, 0, true);
    vi.advanceTimersByTime(3000);
    bar.tick(); // 1 of 24 after 3 s: one item says little
    vi.advanceTimersByTime(100);
    bar.tick(3); // 4 of 24 after 3.1 s: 20 left at 0.78 s each
    const fast = pipe();
    const quick = progress("eval", 24, fast.stream, 0, true);
    vi.advanceTimersByTime(500);
    quick.tick(12); // half done in 0.5 s: too soon to say
    expect(lines.map((l) => l.replace(/\(.*, /, "("))).toEqual([
      "eval: 1/24 (ETA unknown)\n",
      "eval: 4/24 (ETA 16s)\n",
    ]);
    expect(fast.lines).toEqual(["eval: 12/24 (24.0/s, ETA unknown)\n"]);
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

/**
 * A terminal that records what it is sent and what it shows: each line's text after carriage returns, cursor
 * moves (ESC[nG), line clears (ESC[K, ESC[2K) and cursor save/restore (ESC 7, ESC 8); other escapes are kept
 * out of the text. `raw` is everything written, in order.
 */
const terminal = (columns = 200) => {
  const screen: string[] = [""];
  let row = 0;
  let col = 0;
  let saved = [0, 0];
  const raw: string[] = [];
  const put = (text: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a terminal's escape sequences, one token each
    const tokens = text.match(/\x1b\[[?0-9;]*[A-Za-z]|\x1b[78]|[\s\S]/g) ?? [];
    for (const t of tokens) {
      if (t === "\n") {
        row += 1;
        col = 0;
        screen[row] ??= "";
      } else if (t === "\r") col = 0;
      else if (t === "\x1b7") saved = [row, col];
      else if (t === "\x1b8") [row, col] = saved as [number, number];
      else if (t.startsWith("\x1b[") && t.endsWith("G")) col = Number(t.slice(2, -1) || 1) - 1;
      else if (t === "\x1b[K" || t === "\x1b[0K") screen[row] = (screen[row] ?? "").slice(0, col);
      else if (t === "\x1b[2K") screen[row] = "";
      else if (t.startsWith("\x1b")) continue;
      else {
        const line = (screen[row] ?? "").padEnd(col);
        screen[row] = line.slice(0, col) + t + line.slice(col + 1);
        col += 1;
      }
    }
  };
  const write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
    raw.push(text);
    put(text);
    const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    done?.();
    return true;
  };
  const stream = { isTTY: true, columns, write } as unknown as NodeJS.WriteStream;
  return { stream, screen, raw, write };
};

describe("progress on a terminal", () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
  });

  it("draws a bar, with its rate, ETA and info", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, screen } = terminal();
    const bar = progress("train grpo", 10, stream, 0, true);
    vi.advanceTimersByTime(4000);
    bar.tick(4, { return: "0.300" });
    vi.advanceTimersByTime(200);
    expect(screen).toEqual([expect.stringMatching(/^train grpo \[.*\] 4\/10 40% \| 1\.0\/s \| ETA 6s return 0\.300$/)]);
    bar.stop();
    expect(screen).toHaveLength(2);
    expect(screen[1]).toBe("");
  });

  it("on an 80-column terminal the bar shrinks so that the count, rate, ETA and info stay on the line", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, screen } = terminal(80);
    const bar = progress("eval before training", 100, stream);
    vi.advanceTimersByTime(4000);
    bar.tick(40, { return: "-0.600" });
    vi.advanceTimersByTime(200);
    // A 40-character bar cut this line at "| 10.": no rate, no ETA, no return.
    expect(screen).toEqual([
      expect.stringMatching(/^eval before training \[.+\] 40\/100 40% \| 10\.0\/s \| ETA 6s return -0\.600$/),
    ]);
    expect(screen[0].length).toBeLessThan(80);
    bar.stop();
    // On a wide terminal the bar keeps its full 40 characters.
    const wide = terminal(200);
    const full = progress("eval", 2, wide.stream);
    full.tick();
    vi.advanceTimersByTime(200);
    expect(wide.screen[0]).toMatch(/^eval \[.{40}\] 1\/2 /);
    full.stop();
  });

  it("with TERM=dumb (an editor's shell) prints plain lines, no escape codes, as off a terminal", () => {
    vi.stubEnv("TERM", "dumb");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, raw } = terminal();
    const bar = progress("eval", 2, stream);
    vi.advanceTimersByTime(1000);
    bar.tick();
    vi.advanceTimersByTime(1000);
    bar.tick();
    bar.stop();
    expect(raw).toEqual(["eval: 1/2 (1.0/s, ETA unknown)\n", "eval: 2/2 (1.0/s, ETA 0s)\n"]);
  });

  it("text written to its stream while the bar is drawn goes on a line of its own above the bar", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, screen, write } = terminal();
    const bar = progress("eval before training", 4, stream);
    vi.advanceTimersByTime(1000);
    bar.tick(1, { return: "-0.600" });
    vi.advanceTimersByTime(200);
    stream.write("before training: success 0.000\n");
    stream.write("warning: 3 of 4 episodes "); // a line written in pieces is kept whole
    vi.advanceTimersByTime(500); // the bar's own redraws wait for the line's end
    stream.write(Buffer.from("were cut\n"));
    vi.advanceTimersByTime(200);
    const drawn = /^eval before training \[.*\] 1\/4 25% \| 1\.0\/s \| ETA unknown return -0\.600$/;
    expect(screen).toEqual([
      "before training: success 0.000",
      "warning: 3 of 4 episodes were cut",
      expect.stringMatching(drawn),
    ]);
    bar.stop();
    // The bar ends on its own line, below the text (not back where it began), and the stream is as it was.
    expect(screen).toEqual([
      "before training: success 0.000",
      "warning: 3 of 4 episodes were cut",
      expect.stringMatching(/^eval before training \[.*\] 1\/4/),
      "",
    ]);
    expect(stream.write).toBe(write);
    stream.write("after\n");
    expect(screen.slice(3)).toEqual(["after", ""]);
  });

  it("stopAllBars (a command failed or quit mid-bar) stops every bar: the stream is given back, nothing redraws", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, raw, write } = terminal();
    const outer = progress("train", 4, stream, 0, true);
    const inner = progress("eval", 2, stream);
    inner.tick();
    stopAllBars();
    expect(stream.write).toBe(write);
    stream.write("error: boom\n");
    const after = raw.length;
    vi.advanceTimersByTime(5000);
    outer.tick();
    inner.tick();
    expect(raw.length).toBe(after); // no redraw under the error, no timer left running
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a bar stopped while a line is unfinished ends that line first", () => {
    vi.stubEnv("TERM", "xterm-256color");
    vi.useFakeTimers({ now: 1_000_000 });
    const { stream, screen } = terminal();
    const bar = progress("sft", 2, stream, 0, true);
    bar.tick(1, { loss: "1.000" });
    stream.write("interrupted");
    bar.stop();
    expect(screen).toEqual(["interrupted", expect.stringMatching(/^sft \[.*\] 1\/2/), ""]);
  });
});

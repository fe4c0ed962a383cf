/**
 * Progress for long commands: a bar with rate and ETA on a terminal, plain periodic lines otherwise
 * (CI, pipes, a dumb terminal such as an editor's shell), always on stderr so stdout stays machine-readable.
 * While a bar is drawn, anything else written to its stream (warnings, a summary) goes on a line of its own
 * above it, and the bar is drawn again below.
 */
import cliProgress from "cli-progress";

export interface Progress {
  tick(by?: number, info?: Record<string, string | number>): void;
  stop(): void;
}

/** A rate as people read it: "3.2/s" when fast, "12.5 s each" when slower than one a second (not "0.0/s"). */
export const speed = (perSecond: number): string =>
  perSecond >= 1 || perSecond <= 0 ? `${perSecond.toFixed(1)}/s` : `${(1 / perSecond).toFixed(1)} s each`;

/**
 * Files to read before a reading command (`replay`, `inspect --html`) shows progress: fewer are read in well
 * under a second (a journal takes about 3 ms to verify), and a bar would only flash.
 */
export const FILES_WORTH_A_BAR = 100;

/** Whether a bar can be drawn on `stream`: a terminal that understands cursor movement (not TERM=dumb). */
const drawsBar = (stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && env.TERM !== "dumb";

/**
 * The time left, once it can be told: "unknown" until at least 2 items and 2% of them are done and 2 s have
 * passed. Episodes run in batches and end in bursts, so the first one's time says little about the rest (a
 * 40 s evaluation was once projected at 49,537 s, an 8 s one at 69 s).
 */
const eta = (done: number, total: number, already: number, seconds: number): string => {
  if (done >= total) return "0s";
  const since = done - already;
  const projectable = seconds >= 2 && since >= Math.max(2, Math.ceil(0.02 * (total - already)));
  return projectable ? `${Math.round(((total - done) * seconds) / since)}s` : "unknown";
};

/** The bars drawn now, newest last: a command that fails or quits mid-bar stops them (stopAllBars). */
const active: Progress[] = [];

/**
 * Stops every bar still drawn, newest first (each gives the stream back to the one before): before an error
 * or an interrupt message and an exit. A bar left drawn took over stderr for good, was drawn again under
 * the error, and its redraw timer kept the process alive after the command had failed.
 */
export const stopAllBars = (): void => {
  for (const bar of active.slice().reverse()) bar.stop();
};

const infoText = (info: Record<string, string | number>) =>
  Object.entries(info)
    .map(([k, v]) => `${k} ${v}`)
    .join(" ");

/**
 * Draws a cli-progress bar on a terminal, and, while it is drawn, takes over the stream's `write`: other text
 * first clears the bar's line, then the bar is drawn again under it once that text has ended its line.
 * (Without this, a warning written mid-bar was glued to the bar: `ETA 4s return -0.600before training: ...`.)
 */
const terminalBar = (label: string, total: number, stream: NodeJS.WriteStream, already: number): Progress => {
  const write = stream.write;
  const own = Object.getOwnPropertyDescriptor(stream, "write");
  const raw = (...args: unknown[]): boolean => (write as (...a: unknown[]) => boolean).apply(stream, args);
  // Other text on the bar's line that has not ended it yet: the bar waits (its redraws would overwrite it).
  let held = false;
  // What cli-progress writes to: the real stream, less the cursor save/restore (ESC 7, ESC 8): a restore at
  // the end would jump back over the lines written above the bar since it began.
  const barStream = {
    isTTY: true,
    get columns() {
      return stream.columns;
    },
    write: (chunk: unknown, ...rest: unknown[]) =>
      held || chunk === "\x1b7" || chunk === "\x1b8" ? true : raw(chunk, ...rest),
  } as unknown as NodeJS.WriteStream;
  const line = `${label} [{bar}] {value}/{total} {percentage}% | {rate} | ETA {time_left} {info}`;
  // The bar takes the room the rest of the line leaves (at most cli-progress's 40 characters, at least 10): a
  // fixed 40 pushed the rate, the ETA and the info past the end of an 80-column terminal, which cuts them off.
  const format: cliProgress.GenericFormatter = (options, params, values) => {
    const rest = cliProgress.Format.Formatter({ ...options, format: line, barsize: 0 }, params, values).length;
    const barsize = Math.max(10, Math.min(40, params.maxWidth - 1 - rest));
    return cliProgress.Format.Formatter({ ...options, format: line, barsize }, params, values);
  };
  const bar = new cliProgress.SingleBar(
    {
      stream: barStream,
      format,
      hideCursor: true,
      // Drawn again on every frame, not only when it changed: other text may have cleared its line.
      forceRedraw: true,
      // Lines longer than the terminal are cut, not wrapped: only the bar's own (other text wraps as usual).
      linewrap: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const intercept = (chunk: unknown, ...rest: unknown[]): boolean => {
    // A later bar that took the stream over may hand it back to this one after this one stopped.
    if (stopped) return raw(chunk, ...rest);
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString();
    if (text === "") return raw(chunk, ...rest);
    if (!held) raw("\r\x1b[2K");
    const result = raw(chunk, ...rest);
    held = !text.endsWith("\n");
    if (!held) bar.render();
    return result;
  };
  const started = Date.now();
  let done = already;
  const payload = (info: Record<string, string | number>) => {
    const seconds = (Date.now() - started) / 1000;
    return {
      rate: speed((done - already) / Math.max(1e-3, seconds)),
      time_left: eta(done, total, already, seconds),
      info: infoText(info),
    };
  };
  bar.start(total, already, payload({}));
  stream.write = intercept as NodeJS.WriteStream["write"];
  let stopped = false;
  const handle: Progress = {
    tick: (by = 1, info = {}) => {
      if (stopped) return;
      done += by;
      bar.update(done, payload(info));
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      active.splice(active.indexOf(handle), 1);
      // The stream as it was, unless something took it over after this bar did (that one restores its own).
      if (stream.write === intercept) {
        if (own) Object.defineProperty(stream, "write", own);
        else delete (stream as { write?: unknown }).write;
      }
      if (held) raw("\n");
      held = false;
      bar.stop();
    },
  };
  active.push(handle);
  return handle;
};

/**
 * `already`: work done before this bar started (a resumed run's updates): counted in the total shown, not
 * in the rate or the ETA. `everyTick`: off a terminal, print every tick (training updates, each with its own
 * metrics) instead of at most one line per 2 seconds (episodes, which end in bursts).
 */
export const progress = (
  label: string,
  total: number,
  stream: NodeJS.WriteStream = process.stderr,
  already = 0,
  everyTick = false,
): Progress => {
  if (drawsBar(stream)) return terminalBar(label, total, stream, already);
  const started = Date.now();
  let done = already;
  let lastPrint = 0;
  let printed = already;
  let lastInfo: Record<string, string | number> = {};
  const print = (info: Record<string, string | number>) => {
    printed = done;
    const seconds = (Date.now() - started) / 1000;
    const rate = (done - already) / Math.max(1e-3, seconds);
    const text = Object.entries(info)
      .map(([k, v]) => ` ${k} ${v}`)
      .join("");
    stream.write(`${label}: ${done}/${total} (${speed(rate)}, ETA ${eta(done, total, already, seconds)})${text}\n`);
  };
  return {
    tick: (by = 1, info = {}) => {
      done += by;
      lastInfo = info;
      const now = Date.now();
      if (everyTick || now - lastPrint >= 2000 || done === total) {
        lastPrint = now;
        print(info);
      }
    },
    // A run that stops early (Ctrl-C, a resumed run) still ends on a line with its last count.
    stop: () => {
      if (done !== printed) print(lastInfo);
    },
  };
};

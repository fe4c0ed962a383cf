/**
 * Progress for long commands: a bar with rate and ETA on a terminal, plain periodic lines otherwise
 * (CI, pipes), always on stderr so stdout stays machine-readable.
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
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${label} [{bar}] {value}/{total} {percentage}% | {rate} | ETA {eta_formatted} {info}`,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    const started = Date.now();
    bar.start(total, already, { rate: "0/s", info: "" });
    let done = already;
    return {
      tick: (by = 1, info = {}) => {
        done += by;
        const rate = speed((done - already) / Math.max(1e-3, (Date.now() - started) / 1000));
        const text = Object.entries(info)
          .map(([k, v]) => `${k} ${v}`)
          .join(" ");
        bar.update(done, { rate, info: text });
      },
      stop: () => bar.stop(),
    };
  }
  const started = Date.now();
  let done = already;
  let lastPrint = 0;
  let printed = already;
  let lastInfo: Record<string, string | number> = {};
  const print = (info: Record<string, string | number>) => {
    printed = done;
    const seconds = (Date.now() - started) / 1000;
    const rate = (done - already) / Math.max(1e-3, seconds);
    // Nothing done yet (a heartbeat tick of 0), or too little: episodes run in batches and end in bursts, so
    // the first one's time says little about the rest (it once projected 49,537 s for a 40 s evaluation).
    const projectable = rate > 0 && done - already >= Math.ceil(0.02 * (total - already));
    const eta = done >= total ? "0s" : projectable ? `${Math.round((total - done) / rate)}s` : "unknown";
    const text = Object.entries(info)
      .map(([k, v]) => ` ${k} ${v}`)
      .join("");
    stream.write(`${label}: ${done}/${total} (${speed(rate)}, ETA ${eta})${text}\n`);
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

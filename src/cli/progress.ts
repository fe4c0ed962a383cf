/**
 * Progress for long commands: a bar with rate and ETA on a terminal, plain periodic lines otherwise
 * (CI, pipes, a dumb terminal such as an editor's shell), always on stderr so stdout stays machine-readable.
 * While a bar is drawn, anything else written to its stream (warnings, a summary) goes on a line of its own
 * above it, and the bar is drawn again below.
 */
import cliProgress from "cli-progress";
import type { EpisodeEvent } from "../kernel/events.ts";

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
const terminalBar = (
  label: string,
  total: number,
  stream: NodeJS.WriteStream,
  already: number,
  work?: EpisodeWork,
): Progress => {
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
    const running = work?.running(done, total, seconds);
    return {
      rate: running?.rate ?? speed((done - already) / Math.max(1e-3, seconds)),
      time_left: running?.eta ?? eta(done, total, already, seconds),
      info: [running?.status, infoText(info)].filter(Boolean).join(" "),
    };
  };
  bar.start(total, already, payload({}));
  stream.write = intercept as NodeJS.WriteStream["write"];
  let stopped = false;
  let lastInfo: Record<string, string | number> = {};
  let lastWorkUpdate = 0;
  work?.onChange((turnDone) => {
    // An action at a time comes in bursts of a whole batch: the bar's text is worked out at most 5 times a second,
    // and once the burst is whole (its last action, the counts the bar keeps until the next).
    const now = Date.now();
    if (stopped || (!turnDone && now - lastWorkUpdate < 200)) return;
    lastWorkUpdate = now;
    bar.update(done, payload(lastInfo));
  });
  const handle: Progress = {
    tick: (by = 1, info = {}) => {
      if (stopped) return;
      done += by;
      lastInfo = info;
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
 * What a bar over episodes knows of the episodes still running, from their events: the actions they have taken,
 * and how long the ended ones took. Evaluations run their episodes in lockstep batches (one policy call a turn for
 * every running episode), so episodes end in bursts near the end; counted in actions, their progress moves at
 * every turn, and the time left is the actions still to come at the rate actions have been taken.
 */
interface EpisodeWork {
  /** The running episodes, the actions rate and the time left, once told; undefined before any action. */
  running(done: number, total: number, seconds: number): { status: string; rate: string; eta: string } | undefined;
  /**
   * Called after each action, with whether every running episode has now taken as many actions as the furthest
   * (a batch's turn is complete), or this action was one behind the furthest (episodes out of step): the bar
   * redraws, or prints a line.
   */
  onChange(listener: (turnDone: boolean, behind: boolean) => void): void;
}

const episodeWork = (maxTurns: number | undefined): EpisodeWork & { onEvent: (event: EpisodeEvent) => void } => {
  /** Actions taken by each running episode. */
  const taken = new Map<string, number>();
  /** Ended episodes by length (actions taken). */
  const lengths = new Map<number, number>();
  let ended = 0;
  let endedActions = 0;
  let actions = 0;
  let listener = (_turnDone: boolean, _behind: boolean) => {};
  /** The most actions a running episode has taken, and how many running episodes have taken that many. */
  let furthest = 0;
  let atFurthest = 0;
  const onEvent = (event: EpisodeEvent) => {
    if (event.type === "episode.started") {
      taken.set(event.episode, 0);
      if (furthest === 0) atFurthest += 1;
    } else if (event.type === "agent.acted") {
      const a = (taken.get(event.episode) ?? 0) + 1;
      taken.set(event.episode, a);
      actions += 1;
      if (a > furthest) {
        furthest = a;
        atFurthest = 0;
      }
      if (a === furthest) atFurthest += 1;
      listener(atFurthest === taken.size, a < furthest);
    } else if (event.type === "episode.ended") {
      const length = taken.get(event.episode) ?? 0;
      taken.delete(event.episode);
      if (length === furthest) atFurthest -= 1;
      if (taken.size === 0) furthest = atFurthest = 0;
      lengths.set(length, (lengths.get(length) ?? 0) + 1);
      ended += 1;
      endedActions += length;
    }
  };
  /**
   * The actions an episode that has taken `a` is expected to take in all: as many as the ended episodes that took
   * more than `a` took on average; at least one more when none did; the turn limit before any has ended.
   */
  const expected = (a: number): number | undefined => {
    let n = 0;
    let sum = 0;
    for (const [length, count] of lengths)
      if (length > a) {
        n += count;
        sum += length * count;
      }
    if (n > 0) return sum / n;
    if (ended > 0) return a + 1;
    return maxTurns === undefined ? undefined : Math.max(maxTurns, a + 1);
  };
  return {
    onEvent,
    running: (done, total, seconds) => {
      if (actions === 0) return undefined;
      let turn = 0;
      const byTaken = new Map<number, number>();
      for (const a of taken.values()) {
        turn = Math.max(turn, a);
        byTaken.set(a, (byTaken.get(a) ?? 0) + 1);
      }
      // Episodes not started yet (a suite's later columns) take as many actions as the ended ones took on average.
      const waiting = Math.max(0, total - ended - taken.size);
      const perEpisode = ended > 0 ? endedActions / ended : expected(0);
      let left = waiting === 0 ? 0 : perEpisode === undefined ? undefined : waiting * perEpisode;
      for (const [a, count] of byTaken) {
        const all = expected(a);
        left = left === undefined || all === undefined ? undefined : left + (all - a) * count;
      }
      // As for items: told once 2 s have passed and 2% of the actions expected in all have been taken.
      const projectable = seconds >= 2 && left !== undefined && actions >= Math.max(2, 0.02 * (actions + left));
      // Before any episode has ended, only the turn limit says how long they take: the time left is then the most it
      // can be (every episode running to the limit, in step, at the rate so far), and said so. Told as an estimate, it
      // was 2 to 3.5 times the time left (hopqa's questions take 3 to 5 actions of its 8, lookup's 2 or 3 of 8). No
      // smaller number can be told then: an episode that has not ended may end without another action.
      const bound = ended === 0 ? "at most " : "";
      const told =
        done >= total ? "0s" : projectable ? `${bound}${Math.round(((left ?? 0) * seconds) / actions)}s` : "unknown";
      return {
        // The turn is the furthest running episode's count of actions taken.
        status: taken.size === 0 ? "" : `${taken.size} running${turn > 0 ? ` at turn ${turn}` : ""}`,
        rate: `${actions} actions, ${speed(actions / Math.max(1e-3, seconds))}`,
        eta: told,
      };
    },
    onChange: (f) => {
      listener = f;
    },
  };
};

/** A bar over episodes: `onEvent` takes their events (evaluate's onEvent), so that it moves while they run. */
export interface EpisodeProgress extends Progress {
  readonly onEvent: (event: EpisodeEvent) => void;
}

/**
 * Progress of `episodes` episodes (an evaluation: `eval`, train's before and after, a suite): ticked once per ended
 * episode, as `progress`, and fed every event of the episodes through `onEvent`. Between episode ends it says how
 * many are running and at which turn, counts their actions, and tells the time left from the actions still to come
 * (episodes that have not ended yet are expected to take as many as ended ones that got as far took), at the rate
 * actions have been taken so far. Before any episode has ended it tells the most time left: "ETA at most 21s", every
 * episode taking `maxTurns` actions, the environment's turn limit.
 */
export const episodeProgress = (
  label: string,
  episodes: number,
  maxTurns: number | undefined,
  stream: NodeJS.WriteStream = process.stderr,
): EpisodeProgress => {
  const work = episodeWork(maxTurns);
  const bar = drawsBar(stream)
    ? terminalBar(label, episodes, stream, 0, work)
    : plainProgress(label, episodes, stream, 0, false, work);
  return { tick: bar.tick, stop: bar.stop, onEvent: work.onEvent };
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
): Progress =>
  drawsBar(stream)
    ? terminalBar(label, total, stream, already)
    : plainProgress(label, total, stream, already, everyTick);

/** Plain lines, at most one per 2 s unless `everyTick` (off a terminal). */
const plainProgress = (
  label: string,
  total: number,
  stream: NodeJS.WriteStream,
  already: number,
  everyTick: boolean,
  work?: EpisodeWork,
): Progress => {
  const started = Date.now();
  let done = already;
  let lastPrint = 0;
  let printed = already;
  let lastInfo: Record<string, string | number> = {};
  const print = (info: Record<string, string | number>) => {
    printed = done;
    const seconds = (Date.now() - started) / 1000;
    const running = work?.running(done, total, seconds);
    const rate = running?.rate ?? speed((done - already) / Math.max(1e-3, seconds));
    const text = Object.entries(info)
      .map(([k, v]) => ` ${k} ${v}`)
      .join("");
    const status = running?.status ? `, ${running.status}` : "";
    stream.write(
      `${label}: ${done}/${total}${status} (${rate}, ETA ${running?.eta ?? eta(done, total, already, seconds)})${text}\n`,
    );
  };
  // A batch's actions come in a burst: a line is printed once the burst is whole (every running episode has taken its
  // action of the turn), not at its first action; episodes out of step, at an action behind the furthest, 4 s on.
  let stopped = false;
  work?.onChange((turnDone, behind) => {
    const since = Date.now() - Math.max(lastPrint, started);
    if (stopped || since < 2000 || !(turnDone || (behind && since >= 4000))) return;
    lastPrint = Date.now();
    print(lastInfo);
  });
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
      stopped = true;
      if (done !== printed) print(lastInfo);
    },
  };
};

/**
 * The progress of cloning's epochs, counted in their steps (an epoch of hopqa's 800 demonstrations is 50 steps,
 * minutes: a bar of epochs stood still that long, its ETA unknown until the second), for sft's `onEpochsStart` and
 * `onEpochStep`. The bar is made when the epochs start, their number of steps known; a resumed clone's starts at
 * the step it goes on from.
 */
export const epochStepsProgress = (label: string, epochs: number, stream: NodeJS.WriteStream = process.stderr) => {
  let bar: Progress | undefined;
  const start = (epoch: number, step: number, steps: number) => {
    bar ??= progress(label, epochs * steps, stream, epoch * steps + step);
  };
  return {
    start,
    step: (epoch: number, step: number, steps: number, loss: number) => {
      start(epoch, step - 1, steps);
      bar?.tick(1, { epoch: `${epoch + 1}/${epochs}`, loss: loss.toFixed(3) });
    },
    stop: () => bar?.stop(),
  };
};

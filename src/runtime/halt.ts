/**
 * Halting: what a stopped CLI command (record's or eval's Ctrl-C, SIGTERM, SIGHUP) does just before it exits.
 * The episodes running stop where they are, journaled no further: no end is written, so a recording's
 * journal stays cut short, as the exit alone would leave it, and `record --resume` records the episode again.
 * Their tool calls' signals abort (with the reason), and the calls are waited for, bounded, so that their
 * finalizers run (an `Effect.acquireUseRelease` release, a `finally` reacting to the signal) before the exit.
 *
 * A halt is the process's last act: it holds for every episode this process runs, and none starts after it.
 * Not exported from the package: a program of its own stops a run with rollout's `signal`.
 */

/** Each running episode's halt, while it runs. */
const running = new Set<(reason: string) => void>();

/**
 * The tool calls running in this process's episodes, each with what to call it ("search (call c3 of
 * ep-7-0)"): the promise of the tool's own work, which outlives a call that settled early on its signal.
 */
const executing = new Map<Promise<unknown>, string>();
/**
 * Calls kept at most: one whose work never settles (a tool that ignores its signal, past its time limit)
 * stays here until its episode ends (trackToolCall's removal), so a long episode's oldest such entries are
 * dropped rather than held for ever.
 */
const MAX_TRACKED = 4096;

let haltedBy: string | undefined;

/** Whether the process has halted its episodes (then no episode starts). */
export const isHalted = (): boolean => haltedBy !== undefined;

/** Registers a running episode's halt; returns its removal, to call when the episode ends. */
export const onHalt = (halt: (reason: string) => void): (() => void) => {
  running.add(halt);
  return () => {
    running.delete(halt);
  };
};

/**
 * Notes a tool call's work, running until `settling` settles; returns the end of its tracking, for its episode
 * to call when it ends: a halt waits for the calls of the episodes in flight, not for one that timed out in an
 * episode that ended long before and ignores its signal (it would be waited for in vain, and named).
 */
export const trackToolCall = (settling: Promise<unknown>, name: string): (() => void) => {
  if (executing.size >= MAX_TRACKED) executing.delete(executing.keys().next().value as Promise<unknown>);
  executing.set(settling, name);
  let settled = false;
  const done = () => {
    settled = true;
    executing.delete(settling);
    outliving.delete(settling);
  };
  settling.then(done, done);
  // The episode ended while the work still runs (a call that timed out and ignores its signal): kept, apart,
  // until it settles, so that a command that has finished can say what keeps the process from exiting.
  return () => {
    executing.delete(settling);
    if (settled) return;
    if (outliving.size >= MAX_TRACKED) outliving.delete(outliving.keys().next().value as Promise<unknown>);
    outliving.set(settling, name);
  };
};

/** Tool calls whose work still runs after their episode ended (they ignore their signal), by what to call them. */
const outliving = new Map<Promise<unknown>, string>();

/** The tool calls whose work has not settled, running episodes' and ended ones', in the order they were called. */
export const unsettledToolCalls = (): string[] => [...executing.values(), ...outliving.values()];

/**
 * Halts every running episode (see above) and any that would start; returns how many tool calls are still
 * running, to wait for with `toolCallsSettled`.
 */
export const haltEpisodes = (reason: string): number => {
  haltedBy ??= reason;
  for (const halt of [...running]) halt(haltedBy);
  return executing.size;
};

/**
 * Resolves once every tool call running now has settled (with none: at once), or after `withinMs`, with
 * the names of those that had not, in the order they were called.
 */
export const toolCallsSettled = (withinMs: number): Promise<string[]> => {
  const calls = [...executing];
  if (calls.length === 0) return Promise.resolve([]);
  return new Promise<string[]>((resolve) => {
    // A timer the process waits for: the calls' own work may hold nothing that keeps it running.
    const timer = setTimeout(
      () => resolve(calls.filter(([call]) => executing.has(call)).map(([, name]) => name)),
      withinMs,
    );
    void Promise.allSettled(calls.map(([call]) => call)).then(() => {
      clearTimeout(timer);
      resolve([]);
    });
  });
};

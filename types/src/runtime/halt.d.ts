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
/** Whether the process has halted its episodes (then no episode starts). */
export declare const isHalted: () => boolean;
/** Registers a running episode's halt; returns its removal, to call when the episode ends. */
export declare const onHalt: (halt: (reason: string) => void) => (() => void);
/**
 * Notes a tool call's work, running until `settling` settles; returns the end of its tracking, for its episode
 * to call when it ends: a halt waits for the calls of the episodes in flight, not for one that timed out in an
 * episode that ended long before and ignores its signal (it would be waited for in vain, and named).
 */
export declare const trackToolCall: (settling: Promise<unknown>, name: string) => (() => void);
/** The tool calls whose work has not settled, running episodes' and ended ones', in the order they were called. */
export declare const unsettledToolCalls: () => string[];
/**
 * Halts every running episode (see above) and any that would start; returns how many tool calls are still
 * running, to wait for with `toolCallsSettled`.
 */
export declare const haltEpisodes: (reason: string) => number;
/**
 * Resolves once every tool call running now has settled (with none: at once), or after `withinMs`, with
 * the names of those that had not, in the order they were called.
 */
export declare const toolCallsSettled: (withinMs: number) => Promise<string[]>;

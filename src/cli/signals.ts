/**
 * The signals that stop a command: Ctrl-C (SIGINT), and SIGTERM, which kill, timeout, docker stop, systemd
 * and Slurm or Kubernetes preemption send, and SIGHUP (the terminal closed). All three get what Ctrl-C gets:
 * train finishes its update and writes a checkpoint, record says what is journaled; without a handler,
 * SIGTERM and SIGHUP ended the process silently, losing the updates since the last checkpoint and leaving
 * its lock. The exit code is the shell's for that signal: 128 + its number (130 INT, 143 TERM, 129 HUP).
 */
import { constants } from "node:os";
import { haltEpisodes, toolCallsSettled } from "../runtime/halt.ts";

export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const exitCodeOf = (signal: StopSignal): number => 128 + constants.signals[signal];

/** `interrupted` for Ctrl-C, `interrupted by SIGTERM` for the others: the start of the line said. */
export const interruptedBy = (signal: StopSignal): string =>
  signal === "SIGINT" ? "interrupted" : `interrupted by ${signal}`;

/** How to quit at once after `signal` began a graceful stop: the same signal again (a SIGTERM's sender is no key). */
export const againToQuit = (signal: StopSignal): string =>
  signal === "SIGINT" ? "Ctrl-C again to quit now" : `${signal} again, or Ctrl-C, to quit now`;

/** Calls `handler` on each stop signal (every time one comes) until the returned removal is called. */
export const onStopSignals = (handler: (signal: StopSignal) => void): (() => void) => {
  const listeners = STOP_SIGNALS.map(
    (signal) =>
      [
        signal,
        () => {
          // A closed terminal (SIGHUP) fails every later write to it with EIO, an 'error' event that would
          // crash the process before its checkpoint: such writes are dropped from now on.
          if (signal === "SIGHUP") ignoreClosedTerminal();
          handler(signal);
        },
      ] as const,
  );
  for (const [signal, listener] of listeners) process.on(signal, listener);
  return () => {
    for (const [signal, listener] of listeners) process.off(signal, listener);
  };
};

let ignoring = false;
const ignoreClosedTerminal = () => {
  if (ignoring) return;
  ignoring = true;
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
};

/** How long a stopped command waits for the tool calls it ended to settle (their finalizers to run) before it exits. */
export const TOOL_SETTLE_MS = 3000;
/** After this long still waiting, the wait is said (most calls settle at once when their signal aborts). */
const WAIT_SAID_AFTER_MS = 500;

let exiting = false;

/**
 * A stop's exit (record's once its episodes run, eval's): says `message`, halts the episodes running (nothing
 * more is journaled: src/runtime/halt.ts), aborts their tool calls' signals and waits up to TOOL_SETTLE_MS for
 * those calls to settle, so that their finalizers run (a temporary file removed, a lock released), saying
 * which did not; then exits 128 + the signal's number. With no call in flight it exits at once; another stop
 * signal during the wait exits at once too.
 */
export const exitStopped = (signal: StopSignal, message: string): void => {
  if (exiting) {
    process.stderr.write(
      `\n${interruptedBy(signal)} again: quitting now, without waiting for the tool calls in flight\n`,
    );
    process.exit(exitCodeOf(signal));
  }
  exiting = true;
  process.stderr.write(message);
  const inFlight = haltEpisodes(interruptedBy(signal));
  if (inFlight === 0) process.exit(exitCodeOf(signal));
  const seconds = `${TOOL_SETTLE_MS / 1000} s`;
  const said = setTimeout(() => {
    process.stderr.write(
      `waiting up to ${seconds} for the tool calls in flight to end (their signals are aborted; their finalizers run); ${againToQuit(signal)}\n`,
    );
  }, WAIT_SAID_AFTER_MS);
  void toolCallsSettled(TOOL_SETTLE_MS).then((unsettled) => {
    clearTimeout(said);
    if (unsettled.length > 0)
      process.stderr.write(
        `${unsettled.length} tool call${unsettled.length === 1 ? "" : "s"} did not settle within ${seconds} of ${unsettled.length === 1 ? "its" : "their"} signal's abort, so ${unsettled.length === 1 ? "its" : "their"} finalizers may not have run (what ${unsettled.length === 1 ? "it" : "they"} held outside this process stays as it was): ${unsettled.slice(0, 5).join(", ")}${unsettled.length > 5 ? `, and ${unsettled.length - 5} more` : ""}\n`,
      );
    process.exit(exitCodeOf(signal));
  });
};

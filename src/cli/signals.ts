/**
 * The signals that stop a command: Ctrl-C (SIGINT), and SIGTERM, which kill, timeout, docker stop, systemd
 * and Slurm or Kubernetes preemption send, and SIGHUP (the terminal closed). All three get what Ctrl-C gets:
 * train finishes its update and writes a checkpoint, record says what is journaled; without a handler,
 * SIGTERM and SIGHUP ended the process silently, losing the updates since the last checkpoint and leaving
 * its lock. The exit code is the shell's for that signal: 128 + its number (130 INT, 143 TERM, 129 HUP).
 */
import { constants } from "node:os";

export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** 128 + the signal's number, as a shell reports a process the signal ended. */
export const exitCodeOf = (signal: StopSignal): number => 128 + constants.signals[signal];

/** `interrupted` for Ctrl-C, `interrupted by SIGTERM` for the others: the start of the line said. */
export const interruptedBy = (signal: StopSignal): string =>
  signal === "SIGINT" ? "interrupted" : `interrupted by ${signal}`;

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

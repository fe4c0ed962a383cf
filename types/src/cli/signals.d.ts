/*
 * The signals that stop a command: Ctrl-C (SIGINT), and SIGTERM, which kill, timeout, docker stop, systemd
 * and Slurm or Kubernetes preemption send, and SIGHUP (the terminal closed). All three get what Ctrl-C gets:
 * train finishes its update and writes a checkpoint, record says what is journaled; without a handler,
 * SIGTERM and SIGHUP ended the process silently, losing the updates since the last checkpoint and leaving
 * its lock. The exit code is the shell's for that signal: 128 + its number (130 INT, 143 TERM, 129 HUP).
 */
export declare const STOP_SIGNALS: readonly ["SIGINT", "SIGTERM", "SIGHUP"];
export type StopSignal = (typeof STOP_SIGNALS)[number];
/** 128 + the signal's number, as a shell reports a process the signal ended. */
export declare const exitCodeOf: (signal: StopSignal) => number;
/** `interrupted` for Ctrl-C, `interrupted by SIGTERM` for the others: the start of the line said. */
export declare const interruptedBy: (signal: StopSignal) => string;
/** How to quit at once after `signal` began a graceful stop: the same signal again (a SIGTERM's sender is no key). */
export declare const againToQuit: (signal: StopSignal) => string;
/** Calls `handler` on each stop signal (every time one comes) until the returned removal is called. */
export declare const onStopSignals: (handler: (signal: StopSignal) => void) => (() => void);
/** How long a stopped command waits for the tool calls it ended to settle (their finalizers to run) before it exits. */
export declare const TOOL_SETTLE_MS = 3000;
/**
 * A stop's exit (record's once its episodes run, eval's): says `message`, halts the episodes running (nothing
 * more is journaled: src/runtime/halt.ts), aborts their tool calls' signals and waits up to TOOL_SETTLE_MS for
 * those calls to settle, so that their finalizers run (a temporary file removed, a lock released), saying
 * which did not; then exits 128 + the signal's number. With no call in flight it exits at once; another stop
 * signal during the wait exits at once too.
 */
export declare const exitStopped: (signal: StopSignal, message: string) => void;

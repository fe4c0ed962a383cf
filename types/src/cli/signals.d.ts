export declare const STOP_SIGNALS: readonly ["SIGINT", "SIGTERM", "SIGHUP"];
export type StopSignal = (typeof STOP_SIGNALS)[number];
/** 128 + the signal's number, as a shell reports a process the signal ended. */
export declare const exitCodeOf: (signal: StopSignal) => number;
/** `interrupted` for Ctrl-C, `interrupted by SIGTERM` for the others: the start of the line said. */
export declare const interruptedBy: (signal: StopSignal) => string;
/** Calls `handler` on each stop signal (every time one comes) until the returned removal is called. */
export declare const onStopSignals: (handler: (signal: StopSignal) => void) => (() => void);

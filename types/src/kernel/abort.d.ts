/** Whether `signal` has an AbortSignal's shape: what the episodes use of it (Node's own has it, and so do others). */
export declare const isAbortSignalShaped: (signal: unknown) => signal is AbortSignal;
/**
 * Following a caller's AbortSignal with a controller of one's own: the caller's reason passes on, with one listener
 * (added only while it has not aborted), which the returned function removes. Any object shaped as an AbortSignal
 * (a polyfill's, another realm's) is followed; AbortSignal.any hears only Node's own.
 */
export declare const followAbort: (caller: Pick<AbortSignal, "aborted" | "reason" | "addEventListener" | "removeEventListener"> | undefined, owned: AbortController) => (() => void);

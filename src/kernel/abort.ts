/** Whether `signal` has an AbortSignal's shape: what the episodes use of it (Node's own has it, and so do others). */
export const isAbortSignalShaped = (signal: unknown): signal is AbortSignal =>
  typeof signal === "object" &&
  signal !== null &&
  typeof (signal as { aborted?: unknown }).aborted === "boolean" &&
  typeof (signal as { addEventListener?: unknown }).addEventListener === "function" &&
  typeof (signal as { removeEventListener?: unknown }).removeEventListener === "function";

/**
 * Following a caller's AbortSignal with a controller of one's own: the caller's reason passes on, with one listener
 * (added only while it has not aborted), which the returned function removes. Any object shaped as an AbortSignal
 * (a polyfill's, another realm's) is followed; AbortSignal.any hears only Node's own.
 */
export const followAbort = (
  caller: Pick<AbortSignal, "aborted" | "reason" | "addEventListener" | "removeEventListener"> | undefined,
  owned: AbortController,
): (() => void) => {
  if (caller === undefined) return () => {};
  const follow = () => owned.abort(caller.reason);
  if (caller.aborted) {
    follow();
    return () => {};
  }
  caller.addEventListener("abort", follow, { once: true });
  return () => caller.removeEventListener("abort", follow);
};

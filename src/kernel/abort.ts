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

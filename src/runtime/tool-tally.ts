/**
 * What a recording's tool calls did, for its summary: a failure is a normal outcome for the machine (it
 * gets `{ ok: false, error }`), so a bug in a tool's own code (`args.itme.toUpperCase()`) or a result cut
 * to size would otherwise pass unseen while every episode "succeeds".
 */
import type { EpisodeEvent, ToolResult } from "../kernel/events.ts";
import { escapeControls } from "../kernel/terminal.ts";
import { returnedNothingCounts, TRUNCATION_MARKER, toolThrownFrom } from "./tool.ts";

export interface ToolFailureCount {
  readonly tool: string;
  readonly kind: string;
  readonly message: string;
  /**
   * The error's `_tag` (a `Data.TaggedError`'s name), when it had one: a failure the tool reports on purpose,
   * for the machine to branch on, rather than a bug in its code.
   */
  readonly tag?: string;
  readonly count: number;
  /**
   * Where the tool's code threw it (file:line:column), when this process saw it thrown; for an Effect program's
   * failure (failedInEffect), the program's line that failed.
   */
  readonly thrownAt?: string;
  /** Its error is one the tool's Effect program failed with (an `Effect.fail`: nothing was thrown). */
  readonly failedInEffect?: true;
  /** With failedInEffect: where its error was constructed, when not at thrownAt (a helper, `notFound(key)`). */
  readonly madeAt?: string;
  /**
   * Thrown by the tool's code in an episode that `record --resume` kept, and not seen thrown by this process:
   * the journal keeps the message, not where it was thrown (so no thrownAt).
   */
  readonly thrownBeforeResume?: true;
}

/** Said of a failure whose episode `record --resume` kept, in place of "thrown at file:line:col". */
export const THROWN_BEFORE_RESUME =
  "thrown before --resume, in a kept episode: the journal keeps the message, not where it was thrown";

export interface ToolTallySummary {
  readonly calls: number;
  readonly failed: number;
  /** Results cut to the tool's maxResultChars (a string ending in the marker, or { truncated, preview }). */
  readonly cut: number;
  /** The failures (at most the summary's limit, 5 by default): likely bugs (untagged errors) first, then most frequent first. */
  readonly failures: readonly ToolFailureCount[];
  /** Calls whose tool returned nothing (undefined; the machine got null), by tool: absent when none did. */
  readonly returnedNothing?: readonly { readonly tool: string; readonly count: number }[];
}

export const wasCut = (result: ToolResult): boolean => {
  if (!result.ok) return false;
  const content = result.content;
  if (typeof content === "string") return content.endsWith(TRUNCATION_MARKER);
  return (
    typeof content === "object" &&
    content !== null &&
    !Array.isArray(content) &&
    (content as { truncated?: unknown }).truncated === true &&
    typeof (content as { preview?: unknown }).preview === "string"
  );
};

export class ToolTally {
  private calls = 0;
  private failed = 0;
  private cut = 0;
  /** This process's counts of tools that returned nothing, when the tally began (its own are the difference). */
  private readonly nothingBefore = returnedNothingCounts();
  private readonly failures = new Map<
    string,
    { tool: string; kind: string; message: string; tag?: string; count: number; kept: boolean }
  >();

  /**
   * Counts the tool calls of one episode's events; `kept`: an episode journaled before (`record --resume`),
   * whose tools' throws this process did not see.
   */
  add(events: readonly EpisodeEvent[], kept = false): void {
    const toolOf = new Map<string, string>();
    for (const event of events) {
      if (event.type === "tool.called") {
        this.calls += 1;
        toolOf.set(event.call, event.tool);
      } else if (event.type === "tool.returned") {
        const result = event.result;
        if (wasCut(result)) this.cut += 1;
        if (result.ok) continue;
        this.failed += 1;
        const tool = toolOf.get(event.call) ?? "?";
        const { kind, message, tag } = result.error;
        const key = `${tool}\u0000${kind}\u0000${tag ?? ""}\u0000${message}`;
        const seen = this.failures.get(key);
        if (seen) {
          seen.count += 1;
          seen.kept ||= kept;
        } else this.failures.set(key, { tool, kind, message, ...(tag === undefined ? {} : { tag }), count: 1, kept });
      }
    }
  }

  /**
   * The counts, with `limit` failures (all of them with Infinity): the likely bugs first (an Error the tool's code
   * threw without a tag), then the rest, each most frequent first.
   */
  summary(limit = 5): ToolTallySummary {
    const failures = [...this.failures.values()]
      .sort((a, b) => Number(likelyBug(b)) - Number(likelyBug(a)) || b.count - a.count)
      .slice(0, limit)
      .map(({ kept, ...f }): ToolFailureCount => {
        const at = toolThrownFrom(f.tool, f.message);
        if (at) return { ...f, ...at };
        // Thrown by the tool's code (not a timeout, bad arguments or a cancellation) in a kept episode.
        return kept && thrownByToolCode(f) ? { ...f, thrownBeforeResume: true } : f;
      });
    const returnedNothing = [...returnedNothingCounts()]
      .map(([tool, count]) => ({ tool, count: count - (this.nothingBefore.get(tool) ?? 0) }))
      .filter(({ count }) => count > 0)
      .sort((a, b) => b.count - a.count);
    return {
      calls: this.calls,
      failed: this.failed,
      cut: this.cut,
      failures,
      ...(returnedNothing.length > 0 ? { returnedNothing } : {}),
    };
  }
}

/**
 * A failure that looks like a bug in the tool's code: an error without a tag, not a cancellation (a timeout and
 * bad arguments have kinds of their own; a tagged error is one the tool reports on purpose). A summary lists these
 * first, so any there is among its failures.
 */
export const likelyBug = (f: { tool: string; kind: string; message: string; tag?: string }): boolean =>
  thrownByToolCode(f) && f.tag === undefined;

/** An error the tool's own code raised: not a timeout, bad arguments or a cancellation by the episode's end. */
const thrownByToolCode = (f: { tool: string; kind: string; message: string }): boolean =>
  f.kind === "error" && !f.message.startsWith(`${f.tool} was cancelled: `);

/**
 * One failure as the summaries show it: `3x search error: <message> (thrown at file:line:col)`, with the
 * error's tag when it had one (`3x search error (NotFound): <message>`) (or, when
 * `record --resume` kept its episodes and this process did not see it thrown, that where is not journaled).
 */
export const describeFailure = (f: ToolFailureCount): string =>
  `${f.count}x ${f.tool} ${f.kind}${f.tag === undefined ? "" : ` (${escapeControls(f.tag)})`}: ${escapeControls(f.message.length > 200 ? `${f.message.slice(0, 200)}…` : f.message)}${whereFailed(f)}`;

/** Where a failure came from, as describeFailure says it (nothing when this process did not see it). */
const whereFailed = (f: ToolFailureCount): string => {
  if (f.thrownAt && f.failedInEffect)
    return ` (${f.tool}'s Effect program failed at ${f.thrownAt}${f.madeAt ? `, with an error made at ${f.madeAt}` : ""})`;
  if (f.thrownAt) return ` (thrown at ${f.thrownAt})`;
  return f.thrownBeforeResume ? ` (${THROWN_BEFORE_RESUME})` : "";
};

/** The summary's lines for a person (none when every call succeeded and none was cut). */
export const describeToolTally = (tally: ToolTallySummary): string[] => {
  const lines: string[] = [];
  if (tally.failed > 0) {
    const shown = tally.failures.slice(0, 3);
    const others = tally.failed - shown.reduce((n, f) => n + f.count, 0);
    lines.push(
      `note: ${tally.failed} of ${tally.calls} tool call${tally.calls === 1 ? "" : "s"} failed (the machine got { ok: false, error }): ${shown.map(describeFailure).join("; ")}` +
        (others > 0 ? `; and ${others} other failed call${others === 1 ? "" : "s"}` : ""),
    );
  }
  if (tally.returnedNothing)
    lines.push(
      `note: ${tally.returnedNothing.map(({ tool, count }) => `${tool} returned nothing (undefined) on ${count} call${count === 1 ? "" : "s"}`).join(", ")}: the machine got null as the result; an execute that forgets to \`return\` looks like this (return null where nothing is meant)`,
    );
  if (tally.cut > 0)
    lines.push(
      `note: ${tally.cut} of ${tally.calls} tool result${tally.cut === 1 ? " was" : "s were"} cut to the tool's maxResultChars: the machine saw a string ending in ${TRUNCATION_MARKER} or { truncated: true, preview }, not the value; return less, or raise maxResultChars in defineTool`,
    );
  return lines;
};

/**
 * What a recording's tool calls did, for its summary: a failure is a normal outcome for the machine (it
 * gets `{ ok: false, error }`), so a bug in a tool's own code (`args.itme.toUpperCase()`) or a result cut
 * to size would otherwise pass unseen while every episode "succeeds".
 */
import type { EpisodeEvent, ToolResult } from "../kernel/events.ts";
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
export declare const THROWN_BEFORE_RESUME = "thrown before --resume, in a kept episode: the journal keeps the message, not where it was thrown";
export interface ToolTallySummary {
    readonly calls: number;
    readonly failed: number;
    /** Results cut to the tool's maxResultChars (a string ending in the marker, or { truncated, preview }). */
    readonly cut: number;
    /** The failures (at most the summary's limit, 5 by default): likely bugs (untagged errors) first, then most frequent first. */
    readonly failures: readonly ToolFailureCount[];
    /** Calls whose tool returned nothing (undefined; the machine got null), by tool: absent when none did. */
    readonly returnedNothing?: readonly {
        readonly tool: string;
        readonly count: number;
    }[];
}
export declare const wasCut: (result: ToolResult) => boolean;
export declare class ToolTally {
    private calls;
    private failed;
    private cut;
    /** This process's counts of tools that returned nothing, when the tally began (its own are the difference). */
    private readonly nothingBefore;
    private readonly failures;
    /**
     * Counts the tool calls of one episode's events; `kept`: an episode journaled before (`record --resume`),
     * whose tools' throws this process did not see.
     */
    add(events: readonly EpisodeEvent[], kept?: boolean): void;
    /**
     * The counts, with `limit` failures (all of them with Infinity): the likely bugs first (an Error the tool's code
     * threw without a tag), then the rest, each most frequent first.
     */
    summary(limit?: number): ToolTallySummary;
}
/**
 * A failure that looks like a bug in the tool's code: an error without a tag, not a cancellation (a timeout and
 * bad arguments have kinds of their own; a tagged error is one the tool reports on purpose). A summary lists these
 * first, so any there is among its failures.
 */
export declare const likelyBug: (f: {
    tool: string;
    kind: string;
    message: string;
    tag?: string;
}) => boolean;
/**
 * One failure as the summaries show it: `3x search error: <message> (thrown at file:line:col)`, with the
 * error's tag when it had one (`3x search error (NotFound): <message>`) (or, when
 * `record --resume` kept its episodes and this process did not see it thrown, that where is not journaled).
 */
export declare const describeFailure: (f: ToolFailureCount) => string;
/** The summary's lines for a person (none when every call succeeded and none was cut). */
export declare const describeToolTally: (tally: ToolTallySummary) => string[];

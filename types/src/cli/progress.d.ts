export interface Progress {
    tick(by?: number, info?: Record<string, string | number>): void;
    stop(): void;
}
/** A rate as people read it: "3.2/s" when fast, "12.5 s each" when slower than one a second (not "0.0/s"). */
export declare const speed: (perSecond: number) => string;
/** Whether a bar can be drawn on `stream`: a terminal that understands cursor movement (not TERM=dumb). */
export declare const drawsBar: (stream: NodeJS.WriteStream, env?: NodeJS.ProcessEnv) => boolean;
/**
 * The time left, once it can be told: "unknown" until at least 2 items and 2% of them are done and 2 s have
 * passed. Episodes run in batches and end in bursts, so the first one's time says little about the rest (a
 * 40 s evaluation was once projected at 49,537 s, an 8 s one at 69 s).
 */
export declare const eta: (done: number, total: number, already: number, seconds: number) => string;
/**
 * Stops every bar still drawn, newest first (each gives the stream back to the one before): before an error
 * or an interrupt message and an exit. A bar left drawn took over stderr for good, was drawn again under
 * the error, and its redraw timer kept the process alive after the command had failed.
 */
export declare const stopAllBars: () => void;
/**
 * `already`: work done before this bar started (a resumed run's updates): counted in the total shown, not
 * in the rate or the ETA. `everyTick`: off a terminal, print every tick (training updates, each with its own
 * metrics) instead of at most one line per 2 seconds (episodes, which end in bursts).
 */
export declare const progress: (label: string, total: number, stream?: NodeJS.WriteStream, already?: number, everyTick?: boolean) => Progress;

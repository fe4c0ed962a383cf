/*
 * Progress for long commands: a bar with rate and ETA on a terminal, plain periodic lines otherwise
 * (CI, pipes, a dumb terminal such as an editor's shell), always on stderr so stdout stays machine-readable.
 * While a bar is drawn, anything else written to its stream (warnings, a summary) goes on a line of its own
 * above it, and the bar is drawn again below.
 */
import type { EpisodeEvent } from "../kernel/events.ts";
export interface Progress {
    tick(by?: number, info?: Record<string, string | number>): void;
    stop(): void;
}
/** A rate as people read it: "3.2/s" when fast, "12.5 s each" when slower than one a second (not "0.0/s"). */
export declare const speed: (perSecond: number) => string;
/**
 * Files to read before a reading command (`replay`, `inspect --html`) shows progress: fewer are read in well
 * under a second (a journal takes about 3 ms to verify), and a bar would only flash.
 */
export declare const FILES_WORTH_A_BAR = 100;
/**
 * Stops every bar still drawn, newest first (each gives the stream back to the one before): before an error
 * or an interrupt message and an exit. A bar left drawn took over stderr for good, was drawn again under
 * the error, and its redraw timer kept the process alive after the command had failed.
 */
export declare const stopAllBars: () => void;
/** A bar over episodes: `onEvent` takes their events (evaluate's onEvent), so that it moves while they run. */
export interface EpisodeProgress extends Progress {
    readonly onEvent: (event: EpisodeEvent) => void;
}
/**
 * Progress of `episodes` episodes (an evaluation: `eval`, train's before and after, a suite): ticked once per ended
 * episode, as `progress`, and fed every event of the episodes through `onEvent`. Between episode ends it says how
 * many are running and at which turn, counts their actions, and tells the time left from the actions still to come
 * (episodes that have not ended yet are expected to take as many as ended ones that got as far took), at the rate
 * actions have been taken so far. Before any episode has ended it tells the most time left: "ETA at most 21s", every
 * episode taking `maxTurns` actions, the environment's turn limit.
 */
export declare const episodeProgress: (label: string, episodes: number, maxTurns: number | undefined, stream?: NodeJS.WriteStream) => EpisodeProgress;
/**
 * `already`: work done before this bar started (a resumed run's updates): counted in the total shown, not
 * in the rate or the ETA. `everyTick`: off a terminal, print every tick (training updates, each with its own
 * metrics) instead of at most one line per 2 seconds (episodes, which end in bursts).
 */
export declare const progress: (label: string, total: number, stream?: NodeJS.WriteStream, already?: number, everyTick?: boolean) => Progress;
/**
 * The progress of cloning's epochs, counted in their steps (an epoch of hopqa's 800 demonstrations is 50 steps,
 * minutes: a bar of epochs stood still that long, its ETA unknown until the second), for sft's `onEpochsStart` and
 * `onEpochStep`. The bar is made when the epochs start, their number of steps known; a resumed clone's starts at
 * the step it goes on from.
 */
export declare const epochStepsProgress: (label: string, epochs: number, stream?: NodeJS.WriteStream) => {
    start: (epoch: number, step: number, steps: number) => void;
    step: (epoch: number, step: number, steps: number, loss: number) => void;
    stop: () => void | undefined;
};

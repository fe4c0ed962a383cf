/**
 * Figure 1: environment steps per second, the full journaled runtime against the bare XState machine.
 *
 * One step is one agent action processed by the lookup machine, counted identically on both sides.
 * - runtime: `rollout` (runEpisode per episode, the shared batching PolicyActor, the expert policy), a
 *   JsonlJournal with durability "none" in a fresh temp folder per repeat.
 * - bare: `createActor(lookupEnv.machine, { input: { task, seed } })`, started, fed the same expert action
 *   texts with `actor.send`; after each send it waits until the machine is back in "awaiting" (or done),
 *   i.e. until the invoked `lookup` tool promise has resolved. Same episodes, same concurrency.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { createActor } from "xstate";
import { lookupEnv } from "../actors/lookup/env.ts";
import { type Journal, JsonlJournal } from "../src/index.ts";
import type { ActionScript } from "./record.ts";
import { countLookupSteps } from "./record.ts";
import type { Sample } from "./stats.ts";
import { timed } from "./stats.ts";

/** Episodes `start`..`start + count - 1` through the full runtime. */
export const runtimeSteps = (journal: Journal, start: number, count: number, concurrency: number): Promise<Sample> =>
  timed(() => countLookupSteps(journal, count, concurrency, start));

/** One episode on the bare machine; resolves with the number of actions processed. */
const bareEpisode = (script: ActionScript): Promise<number> => {
  const actor = createActor(lookupEnv.machine, { input: { task: script.task, seed: script.seed } });
  let wake: (() => void) | undefined;
  const ready = () => {
    const s = actor.getSnapshot();
    return s.status !== "active" || s.value === "awaiting";
  };
  actor.subscribe({
    next: () => {
      if (wake && ready()) {
        const w = wake;
        wake = undefined;
        w();
      }
    },
    error: () => {
      wake?.();
    },
  });
  actor.start();
  return (async () => {
    let steps = 0;
    for (const action of script.actions) {
      if (actor.getSnapshot().status !== "active") break;
      actor.send({ type: "agent.act", turn: action.turn, text: action.text, tokens: action.tokens });
      steps += 1;
      if (!ready())
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    }
    actor.stop();
    return steps;
  })();
};

/** The scripts' episodes on bare actors, at most `concurrency` at a time. */
export const bareSteps = (scripts: readonly ActionScript[], concurrency: number): Promise<Sample> =>
  timed(async () => {
    let next = 0;
    let steps = 0;
    const worker = async () => {
      while (next < scripts.length) {
        const script = scripts[next++];
        const taken = await bareEpisode(script); // not `steps += await ...`: that reads steps before the await
        steps += taken;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, scripts.length) }, worker));
    return steps;
  });

/** Checks a side's step count against the recording (the same episodes must take the same steps). */
export const expectSteps = (scripts: readonly ActionScript[], sample: Sample, side: string): Sample => {
  const expected = scripts.reduce((n, s) => n + s.actions.length, 0);
  if (sample.units !== expected) throw new Error(`${side} took ${sample.units} steps, the recording took ${expected}`);
  return sample;
};

/** A fresh JsonlJournal with durability "none" in a new temp folder under root. */
export const freshJournal = (root: string): Journal => new JsonlJournal(mkdtempSync(join(root, "steps-")), "none");

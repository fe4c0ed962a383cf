/**
 * Figure 3: replay-verify throughput, in events of the recorded streams per second.
 *
 * - replay: `replayEpisode(events, lookupEnv)` (verify on: every derived event re-derived and compared).
 * - bare fold (reference): the same recorded inputs folded through XState's pure `initialTransition` /
 *   `transition` with nothing else: no derivation, no hashing, no comparison. The floor replay builds on.
 * - from disk: `readJournalFile` (parse + schema + hash-chain validation) then `replayEpisode`, per file.
 */
import { type AnyMachineSnapshot, initialTransition, transition } from "xstate";
import { lookupEnv } from "../actors/lookup/env.ts";
import { type EpisodeEvent, readJournalFile } from "../src/index.ts";
import { replayEpisode } from "../src/replay/replay.ts";
import type { Sample } from "./stats.ts";
import { timed } from "./stats.ts";

const count = (episodes: readonly EpisodeEvent[][]) => episodes.reduce((n, e) => n + e.length, 0);

export const replayVerify = (episodes: readonly EpisodeEvent[][]): Promise<Sample> =>
  timed(() => {
    for (const events of episodes) {
      const result = replayEpisode(events, lookupEnv);
      if (result.events.length !== events.length) throw new Error(`replay of ${result.episode} diverged`);
    }
    return count(episodes);
  });

export const bareFold = (episodes: readonly EpisodeEvent[][]): Promise<Sample> =>
  timed(() => {
    const machine = lookupEnv.machine;
    for (const events of episodes) {
      const started = events[0] as Extract<EpisodeEvent, { type: "episode.started" }>;
      const actors = new Map<string, string>();
      let [snapshot] = initialTransition(machine, { task: started.task, seed: started.seed }) as [
        AnyMachineSnapshot,
        unknown,
      ];
      for (const event of events) {
        if (event.type === "tool.called") actors.set(event.call, event.actor);
        else if (event.type === "agent.acted")
          [snapshot] = transition(machine, snapshot, {
            type: "agent.act",
            turn: event.turn,
            text: event.text,
            tokens: event.tokens,
          });
        else if (event.type === "tool.returned") {
          const actorId = actors.get(event.call)!;
          [snapshot] = transition(machine, snapshot, {
            type: `xstate.done.actor.${actorId}`,
            output: event.result,
            actorId,
          } as never);
        }
      }
      if (snapshot.status !== "done") throw new Error(`bare fold of ${started.episode} did not finish`);
    }
    return count(episodes);
  });

export const readAndReplay = (files: readonly string[], replay: boolean): Promise<Sample> =>
  timed(async () => {
    let n = 0;
    for (const file of files) {
      const events = await readJournalFile(file);
      if (replay) replayEpisode(events, lookupEnv, { file });
      n += events.length;
    }
    return n;
  });

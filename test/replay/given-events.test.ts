/**
 * Events a user hands to replayEpisode or episodeToSequence themselves (a journal parsed with JSON.parse, events
 * built in code) are checked as a journal's reader checks them: a field of the wrong type, or a missing line, is
 * named by its event, not replayed as a divergence blamed on impure code, nor summed into a return as text.
 */
import { expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import * as r1 from "../../src/index.ts";
import { episodeToSequence } from "../../src/learn/index.ts";

const recorded = async () => {
  const journal = new r1.MemoryJournal();
  const episode = await r1.runEpisode({
    env: weather,
    policy: new r1.PolicyActor(weather.policies!.expert()),
    journal,
    seed: "given",
  });
  // What a user's own reader gets: plain JSON, read from the file line by line.
  return JSON.parse(JSON.stringify(await journal.read(episode.episode))) as r1.EpisodeEvent[];
};

it("replays and trains on plain JSON events that are a whole, well-formed journal", async () => {
  const events = await recorded();
  expect(r1.replayEpisode(events, weather).reason).toBe("answered");
  expect(episodeToSequence(events).totalReturn).toBeCloseTo(1.2);
});

it("names the event and field of a value of the wrong type (JSON from a file compiles as any type)", async () => {
  const events = await recorded();
  const at = events.findIndex((e) => e.type === "reward.assigned");
  const edited = events.map((e, i) => (i === at ? ({ ...e, value: "0.1" } as never) : e));
  const problem = new RegExp(`event ${at} \\(seq ${at}\\): schema: Expected number at \\["value"\\]`);
  expect(() => r1.replayEpisode(edited, weather)).toThrow(problem);
  expect(() => r1.replayEpisode(edited, weather)).toThrow(r1.JournalError);
  // It was summed as text: a return of "0.1" + ... ("NaN01"), trained on as if it were a number.
  expect(() => episodeToSequence(edited)).toThrow(problem);
});

it("says that an event is missing, rather than that the machine diverged", async () => {
  const events = await recorded();
  const dropped = events.filter((_, i) => i !== 4);
  expect(() => r1.replayEpisode(dropped, weather)).toThrow(
    "replayEpisode's event 4 (seq 5): sequence: seq 5 where seq 4 belongs: an event is missing, repeated or out of order",
  );
  expect(() => episodeToSequence(dropped)).toThrow(/episodeToSequence's event 4 \(seq 5\): sequence: /);
});

it("refuses an event nested deeper than a journal may be, as a reader does, rather than replaying it into a stack overflow blamed on impure code", async () => {
  const events = await recorded();
  const at = events.findIndex((e) => e.type === "tool.called");
  // JSON.parse takes a 20,000-deep array; every recursive walker after it (hashing, comparing) overflows.
  const edited = events.map((e, i) =>
    i === at ? ({ ...e, args: JSON.parse(`${"[".repeat(20_000)}${"]".repeat(20_000)}`) } as never) : e,
  );
  const problem = new RegExp(`event ${at} \\(seq ${at}\\): schema: the event nests deeper than 256 levels`);
  expect(() => r1.replayEpisode(edited, weather)).toThrow(problem);
  expect(() => episodeToSequence(edited)).toThrow(problem);
});

it("refuses an action's logprob above 0, as a reader does, rather than training on it", async () => {
  const events = await recorded();
  const at = events.findIndex((e) => e.type === "agent.acted");
  const edited = events.map((e, i) =>
    i === at && e.type === "agent.acted" ? ({ ...e, logprobs: e.logprobs.map(() => 5) } as never) : e,
  );
  const problem = new RegExp(`event ${at} \\(seq ${at}\\): schema: a logprob is above 0`);
  expect(() => episodeToSequence(edited)).toThrow(problem);
  expect(() => r1.replayEpisode(edited, weather)).toThrow(problem);
});

it("refuses events after the episode's end, a second start, or another episode's event, as a reader does", async () => {
  const events = await recorded();
  const reward = events.find((e) => e.type === "reward.assigned")!;
  const n = events.length;
  // An event after the end was summed into the return (1.2 + 100), and replay blamed impure code for it.
  const after = [...events, { ...reward, seq: n, value: 100 } as r1.EpisodeEvent];
  const ended = new RegExp(`event ${n} \\(seq ${n}\\): order: event reward.assigned after episode.ended`);
  expect(() => episodeToSequence(after)).toThrow(ended);
  expect(() => r1.replayEpisode(after, weather)).toThrow(ended);
  const restarted = events.map((e, i) => (i === 2 ? ({ ...events[0], seq: 2 } as r1.EpisodeEvent) : e));
  expect(() => episodeToSequence(restarted)).toThrow(
    /event 2 \(seq 2\): order: a second episode.started in one stream/,
  );
  const foreign = events.map((e, i) => (i === 3 ? ({ ...e, episode: "ep-other" } as r1.EpisodeEvent) : e));
  expect(() => r1.replayEpisode(foreign, weather)).toThrow(
    /event 3 \(seq 3\): episode: event of episode ep-other in the stream of episode ep-given/,
  );
});

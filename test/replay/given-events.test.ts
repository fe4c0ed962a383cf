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

it("checks again an array a reader validated that was changed since (an event replaced, added or dropped)", async () => {
  // A reader's array was marked validated once and taken as it was ever after: an event replaced in it was
  // replayed as a divergence blamed on impure code, or summed into a return as text.
  const validated = async (source: string) => {
    const journal = new r1.MemoryJournal();
    const record = await r1.runEpisode({
      env: weather,
      policy: new r1.PolicyActor(weather.policies!.expert()),
      journal,
      seed: "edited",
    });
    // The record's array is typed readonly (changing it takes a cast, or plain JavaScript); a read's is not.
    return source === "a journal's read" ? journal.read(record.episode) : (record.events as r1.EpisodeEvent[]);
  };
  for (const source of ["a journal's read", "the episode's record"])
    for (const edit of ["replaced", "added", "dropped"] as const) {
      const events = await validated(source);
      // Taken as it is, unchanged.
      expect(r1.replayEpisode(events, weather).reason).toBe("answered");
      const at = events.findIndex((e) => e.type === "reward.assigned");
      const n = events.length;
      if (edit === "replaced") events[at] = { ...events[at], value: "0.1" } as never;
      if (edit === "added") events.push({ ...events[at], seq: n, value: 100 } as r1.EpisodeEvent);
      if (edit === "dropped") events.splice(4, 1);
      const problem = {
        replaced: new RegExp(`event ${at} \\(seq ${at}\\): schema: Expected number at \\["value"\\]`),
        added: new RegExp(`event ${n} \\(seq ${n}\\): order: event reward.assigned after episode.ended`),
        dropped: /event 4 \(seq 5\): sequence: seq 5 where seq 4 belongs/,
      }[edit];
      expect(() => r1.replayEpisode(events, weather), `${source}, ${edit}`).toThrow(problem);
      expect(() => episodeToSequence(events), `${source}, ${edit}`).toThrow(problem);
    }
});

it("an event of a validated array cannot be changed in place without a cast: its fields are readonly, nested ones too (npm test's typecheck fails here if one becomes writable)", async () => {
  const journal = new r1.MemoryJournal();
  const { episode } = await r1.runEpisode({
    env: weather,
    policy: new r1.PolicyActor(weather.policies!.expert()),
    journal,
    seed: "readonly",
  });
  const events = await journal.read(episode);
  const acted = events.find((e) => e.type === "agent.acted")!;
  const started = events[0].type === "episode.started" ? events[0] : undefined;
  const rewarded = events.find((e) => e.type === "reward.assigned")!;
  const refusedByTheTypes = () => {
    // @ts-expect-error a field of an event is readonly
    rewarded.value = 5;
    // @ts-expect-error so are its nested arrays
    acted.tokens.push(1);
    // @ts-expect-error and its JSON (the task, a tool's arguments and result)
    started!.task.word = "x";
  };
  expect(typeof refusedByTheTypes).toBe("function");
});

it("says that a journal cut short has no end, as replay --verify does, rather than blaming impure code", async () => {
  const events = await recorded();
  // A killed run's journal, or one still recording: its first events only.
  const cut = events.slice(0, 5);
  const error = (() => {
    try {
      r1.replayEpisode(cut, weather);
    } catch (e) {
      return e as r1.NonDeterminismError;
    }
  })();
  expect(error).toBeInstanceOf(r1.NonDeterminismError);
  expect(error?.actual).toMatch(
    /^env\.\w+: the episode has no episode\.ended \(the journal stops after 5 events: cut short, or still recording\); only an ended episode verifies/,
  );
  expect(error?.hint).toBeUndefined(); // the hint named Math.random, Date.now, timers: no bug of the machine here
  // Without verifying, it re-derives what the journal holds.
  expect(r1.replayEpisode(cut, weather, { verify: false }).reason).toMatch(/^aborted: /);
});

it("an environment that is none (a failed import) is named as the second argument, not read as undefined's id", async () => {
  const events = await recorded();
  expect(() => r1.replayEpisode(events, undefined as never)).toThrow(
    "replayEpisode: the second argument must be an environment (defineEnv(...)), got undefined; check its import (a module's default export, or its export named env)",
  );
  expect(() => r1.replayEpisode(events, "weather" as never)).toThrow(
    'replayEpisode: the second argument must be an environment object, got the string "weather"; load it first: await loadEnv("weather")',
  );
});

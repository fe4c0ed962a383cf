import { getEventListeners } from "node:events";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstValueFrom, lastValueFrom, take, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { expertPolicy, randomPolicy } from "../../actors/lookup/policies.ts";
import {
  canonicalJson,
  type EpisodeEvent,
  type Journal,
  JournalExistsError,
  JsonlJournal,
  MemoryJournal,
  type Policy,
  PolicyActor,
  runEpisode,
  UsageError,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { shapedAbortSignal } from "../support/index.ts";

/** A promise's outcome, as a value. */
const settled = <T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> =>
  promise.then(
    (value) => ({ value }),
    (error) => ({ error }),
  );

/** Fails instead of hanging when a stream never settles. */
const within = <T>(promise: Promise<T>, ms = 4_000): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)),
  ]);

/** Wraps a policy to watch how requests arrive. */
const watched = (policy: Policy) => {
  const stats = { calls: 0, maxRows: 0 };
  return {
    stats,
    policy: {
      ...policy,
      act: (requests: Parameters<Policy["act"]>[0]) => {
        stats.calls += 1;
        stats.maxRows = Math.max(stats.maxRows, requests.length);
        return policy.act(requests);
      },
    } satisfies Policy,
  };
};

const run = async (
  policy: Policy,
  options: { concurrency: number; episodes: number; seed: string; groupSize?: number },
) => {
  const journal = new MemoryJournal();
  const r = rollout({ env: lookupEnv, policy: new PolicyActor(policy, 8), journal, ...options });
  const events: EpisodeEvent[] = [];
  r.events.subscribe((e) => events.push(e));
  const episodes = await lastValueFrom(r.episodes.pipe(toArray()));
  return { episodes, events, journal };
};

describe("rollout runner", () => {
  it("runs N episodes with bounded concurrency, batching policy requests across episodes", async () => {
    const { policy, stats } = watched(expertPolicy());
    const { episodes, events, journal } = await run(policy, { concurrency: 12, episodes: 40, seed: "r" });
    expect(episodes).toHaveLength(40);
    expect(episodes.every((e) => e.metrics.success === 1)).toBe(true);
    expect(stats.maxRows).toBeLessThanOrEqual(8); // the policy actor's batch bound
    expect(stats.maxRows).toBeGreaterThan(1); // requests from several episodes shared a call
    expect(await journal.episodes()).toHaveLength(40);
    // Every event reached the bus, and only after the journal had it.
    expect(events).toHaveLength(episodes.reduce((s, e) => s + e.events.length, 0));
  });

  it("write-ahead: every event is in the journal before the bus delivers it", async () => {
    const inner = new MemoryJournal();
    const appended = new Set<string>();
    const journal: Journal = {
      location: "watched",
      episodes: () => inner.episodes(),
      read: (e) => inner.read(e),
      create: async (episode) => {
        const writer = await inner.create(episode);
        return {
          ...writer,
          append: async (event) => {
            await writer.append(event);
            appended.add(`${event.episode}:${event.seq}`);
          },
        };
      },
    };
    const r = rollout({
      env: lookupEnv,
      policy: new PolicyActor(randomPolicy()),
      journal,
      seed: "wal",
      episodes: 10,
    });
    let seen = 0;
    r.events.subscribe((e) => {
      expect(appended.has(`${e.episode}:${e.seq}`), `${e.episode}:${e.seq} delivered before it was appended`).toBe(
        true,
      );
      seen += 1;
    });
    await lastValueFrom(r.episodes.pipe(toArray()));
    expect(seen).toBe(appended.size);
  });

  it("results depend on the seed only, not on concurrency or batching", async () => {
    const key = (eps: Awaited<ReturnType<typeof run>>["episodes"]) => eps.map((e) => canonicalJson(e.events)).sort();
    const a = await run(randomPolicy(), { concurrency: 1, episodes: 12, seed: "same" });
    const b = await run(randomPolicy(), { concurrency: 12, episodes: 12, seed: "same" });
    expect(key(b.episodes)).toEqual(key(a.episodes));
    const c = await run(randomPolicy(), { concurrency: 12, episodes: 12, seed: "other" });
    expect(key(c.episodes)).not.toEqual(key(a.episodes));
  });

  it("a policy that throws on one episode's row aborts that episode only, whatever the batching", async () => {
    const expert = expertPolicy();
    const failing: Policy = {
      ...expert,
      act: (requests) => {
        const broken = requests.find((r) => r.episode.endsWith("-3") && r.turn === 1);
        if (broken) throw new Error(`no answer for ${broken.episode}`);
        return expert.act(requests);
      },
    };
    const reasons = async (concurrency: number) => {
      const { episodes } = await run(failing, { concurrency, episodes: 10, seed: "fails" });
      return Object.fromEntries(episodes.map((e) => [e.episode, e.reason]));
    };
    const together = await reasons(10);
    expect(Object.values(together).filter((r) => r !== "answered")).toEqual([
      `aborted: policy ${expert.id} failed: no answer for ep-fails-3`,
    ]);
    expect(together).toEqual(await reasons(1));
  });

  it("groups share a task (GRPO)", async () => {
    const { episodes } = await run(randomPolicy(), { concurrency: 4, episodes: 8, seed: "g", groupSize: 4 });
    const tasks = new Map<string, Set<string>>();
    for (const e of episodes) {
      const index = Number(e.seed.split(":").at(-1));
      const group = String(Math.floor(index / 4));
      tasks.set(group, (tasks.get(group) ?? new Set()).add(canonicalJson(e.task)));
    }
    expect([...tasks.values()].map((s) => s.size)).toEqual([1, 1]);
  });

  it("events completes once every episode has ended, holding every event of every episode", async () => {
    const journal = new MemoryJournal();
    const r = rollout({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "done", episodes: 6 });
    const events = settled(lastValueFrom(r.events.pipe(toArray())));
    const episodes = await lastValueFrom(r.episodes.pipe(toArray()));
    // `events` settles before `episodes`: nothing is left to wait for.
    expect(await Promise.race([events, new Promise((resolve) => setImmediate(() => resolve("pending")))])).toEqual({
      value: expect.any(Array),
    });
    const all = ((await events) as { value: EpisodeEvent[] }).value;
    expect(all.map((e) => `${e.episode}:${e.seq}`).sort()).toEqual(
      episodes.flatMap((e) => e.events.map((x) => `${x.episode}:${x.seq}`)).sort(),
    );
    // Each episode's events all come before its record, and in journal order.
    for (const episode of episodes) {
      const own = all.filter((e) => e.episode === episode.episode);
      expect(own.map((e) => e.seq)).toEqual(episode.events.map((_, i) => i));
    }
  });

  it("events alone starts the run and completes", async () => {
    const journal = new MemoryJournal();
    const r = rollout({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "alone", episodes: 3 });
    const events = await within(lastValueFrom(r.events.pipe(toArray())));
    expect(events.filter((e) => e.type === "episode.ended")).toHaveLength(3);
    expect(await journal.episodes()).toHaveLength(3);
  });

  it("one run, shared: subscriptions in either order, or again later, never run the episodes twice", async () => {
    const journal = new MemoryJournal();
    const r = rollout({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "one", episodes: 5 });
    // `episodes` first, then `events`, then `episodes` again: all three see the same run.
    const first = lastValueFrom(r.episodes.pipe(toArray()));
    const events = lastValueFrom(r.events.pipe(toArray()));
    const second = lastValueFrom(r.episodes.pipe(toArray()));
    const [a, e, b] = await within(Promise.all([first, events, second]));
    expect(a).toHaveLength(5);
    expect(b).toEqual(a);
    expect(e).toHaveLength(a.reduce((n, x) => n + x.events.length, 0));
    // After the run: no second run into the same journal (that was a JournalExistsError), and a subscriber is told
    // the run has ended (it completed at once with nothing: `events` collected after awaiting `episodes` read as a
    // run without events).
    const late = await settled(lastValueFrom(r.events.pipe(toArray())));
    expect(late).toEqual({ error: expect.any(UsageError) });
    expect((late as { error: UsageError }).error.message).toBe(
      "rollout: events was subscribed after the run had ended, so it would carry nothing: the run is shared by episodes and events and runs once; subscribe to both in the same step, before any await (merge them, or subscribe to events before collecting episodes)",
    );
    expect(await settled(lastValueFrom(r.episodes.pipe(toArray())))).toEqual({ error: expect.any(UsageError) });
    expect(await journal.episodes()).toHaveLength(5);
  });

  it("an error of the run reaches both streams, and later subscribers too", async () => {
    const journal = new MemoryJournal();
    await (await journal.create("ep-taken-2")).close(); // episode 2's journal exists already
    const r = rollout({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "taken", episodes: 4 });
    const events = settled(lastValueFrom(r.events.pipe(toArray())));
    const episodes = settled(lastValueFrom(r.episodes.pipe(toArray())));
    expect(await within(events)).toEqual({ error: expect.any(JournalExistsError) });
    expect(await within(episodes)).toEqual({ error: expect.any(JournalExistsError) });
    expect(await settled(lastValueFrom(r.events))).toEqual({ error: expect.any(JournalExistsError) });
  });

  it("another seed that names the same episodes is refused with why: seeds map to episode ids lossily", async () => {
    const journal = new MemoryJournal();
    const run = (seed: string) =>
      lastValueFrom(
        rollout({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed, episodes: 1 }).episodes,
      );
    await run("a b");
    const again = await settled(run("a-b"));
    expect(again).toEqual({ error: expect.any(JournalExistsError) });
    expect((again as { error: Error }).error.message).toBe(
      `episode ep-a-b-0 already has a journal at memory:ep-a-b-0; record into a new folder or use another seed (episode ids are seeds with every character but letters, digits, '.', '_' and '-' made '-': seeds "a:1", "a 1" and "a-1" name one episode)`,
    );
  });

  it("when every subscriber leaves, no further episode starts", async () => {
    const journal = new MemoryJournal();
    const r = rollout({
      env: lookupEnv,
      policy: new PolicyActor(expertPolicy()),
      journal,
      seed: "leave",
      episodes: 40,
      concurrency: 2,
    });
    const events = settled(lastValueFrom(r.events.pipe(take(3), toArray())));
    await within(firstValueFrom(r.episodes));
    expect(await within(events)).toEqual({ value: expect.any(Array) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await journal.episodes()).length).toBeLessThan(40);
    // The run ended when its subscribers left: a later one is told so, and starts nothing.
    expect(await settled(lastValueFrom(r.episodes.pipe(toArray())))).toEqual({ error: expect.any(UsageError) });
  });

  it("refuses nonsense options with a clear message", async () => {
    const options = {
      env: lookupEnv,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed: "x",
    };
    expect(() => rollout({ ...options, episodes: 3, concurrency: 0 })).toThrow(
      /concurrency must be a positive integer/,
    );
    expect(() => rollout({ ...options, episodes: -1 })).toThrow(/^rollout: episodes must be a natural number/);
    // A number given as text is said to be text ("got 3" hid it), and `start` is checked: "2" ran twenty
    // episodes from index 2 ("2" + 2 is "22"), -1 and 1.5 made episodes ep-x--1 and ep-x-1.5.
    expect(() => rollout({ ...options, episodes: "3" as never })).toThrow(
      'rollout: episodes must be a natural number, got "3" (a string)',
    );
    expect(() => rollout({ ...options, episodes: 2, groupSize: "2" as never })).toThrow(
      'rollout: groupSize must be a positive integer, got "2" (a string)',
    );
    for (const [start, shown] of [
      ["2", '"2" (a string)'],
      [-1, "-1"],
      [1.5, "1.5"],
    ] as const)
      expect(() => rollout({ ...options, episodes: 2, start: start as never })).toThrow(
        `rollout: start must be a natural number (the first episode's index), got ${shown}`,
      );
    // task and skip that are no functions are named at once (they failed mid-run, "options.skip is not a function").
    expect(() => rollout({ ...options, episodes: 2, skip: 1 as never })).toThrow(
      "rollout: skip must be a function ((index) => boolean), got 1",
    );
    expect(() => rollout({ ...options, episodes: 2, task: { key: "k0" } as never })).toThrow(
      "rollout: task must be a function ((group, seed) => task), got an object",
    );
    // An environment where the options were due is said to be one (not "unknown option `id`").
    expect(() => rollout(lookupEnv as never)).toThrow(
      "rollout: that is an environment; rollout takes one object of options, the environment among them: rollout({ env, policy, journal, seed, ... })",
    );
    await expect(runEpisode(lookupEnv as never)).rejects.toThrow(
      /^runEpisode: that is an environment; runEpisode takes one object/,
    );
    // A misspelt option is named, with the one meant (not met later as "episodes ... got undefined").
    expect(() => rollout({ ...options, episods: 1 } as never)).toThrow(
      /^rollout: unknown option `episods` \(did you mean `episodes`\?\)/,
    );
    // So is one of replayEpisode's, and a journal's durability that is none of the three.
    expect(() => replayEpisode([], lookupEnv, { verfy: false } as never)).toThrow(
      /^replayEpisode: unknown option `verfy` \(did you mean `verify`\?\)/,
    );
    // The environment's module, or its name, where the environment was due: said as such.
    expect(() => rollout({ ...options, env: { default: lookupEnv }, episodes: 1 } as never)).toThrow(
      `rollout: missing or wrong option: env: that is the environment's module; give its default export (import env from "./my-env.ts", or (await import(path)).default)`,
    );
    expect(() => rollout({ ...options, env: "lookup", episodes: 1 } as never)).toThrow(
      'rollout: missing or wrong option: env: "lookup" is a name; give the environment itself (imported from its module, or await loadEnv("lookup") of agent-r1-ts/learn)',
    );
    // From plain JavaScript, verify: "false" is truthy: it verified (a re-rewarding variant then diverged).
    expect(() => replayEpisode([], lookupEnv, { verify: "false" } as never)).toThrow(
      'replayEpisode: verify must be true or false, got "false" (a string)',
    );
    // An episode's record given for its events: said as such, with the two ways to its events.
    expect(() => replayEpisode({ episode: "ep-0", events: [] } as never, lookupEnv)).toThrow(
      "replayEpisode: the events must be an array, got an episode's record: give its events (record.events), or read its journal (await journal.read(record.episode))",
    );
    // No events: said as such (it read as a divergence, "recorded: episode.started / replayed: no episode.started first").
    expect(() => replayEpisode([], lookupEnv)).toThrow(
      "replayEpisode's events: order: none given: an episode's events begin with episode.started (an empty journal, or a filter that kept none?)",
    );
    expect(() => new JsonlJournal(join(tmpdir(), "never-made"), "fsync" as never)).toThrow(
      'JsonlJournal: durability "fsync" is not one of "event", "episode", "none"',
    );
    expect(existsSync(join(tmpdir(), "never-made"))).toBe(false);
    expect(() => new JsonlJournal(5 as never)).toThrow(
      "JsonlJournal: the first argument must be the folder its journals go to (a path), got 5",
    );
    // A file where the folder goes: said in the journal's words (Node's were "EEXIST: file already exists, mkdir").
    const file = join(mkdtempSync(join(tmpdir(), "agent-r1-journal-file-")), "notes.txt");
    writeFileSync(file, "mine\n");
    expect(() => new JsonlJournal(file)).toThrow(`the journal folder ${file} is a file, not a folder; give a folder`);
    expect(() => new JsonlJournal(join(file, "runs"))).toThrow(
      `the journal folder ${join(file, "runs")} goes through a file (a part of the path is a file, not a folder)`,
    );
    expect(readFileSync(file, "utf8")).toBe("mine\n");
    // From plain JavaScript, a part left out is named, not met later as "reading 'create' of undefined".
    const { journal: _journal, ...withoutJournal } = options;
    expect(() => rollout({ ...withoutJournal, episodes: 1 } as never)).toThrow(
      "rollout: missing or wrong option: journal (e.g. new MemoryJournal() or new JsonlJournal(dir))",
    );
    expect(() => rollout({ ...options, seed: 7, policy: expertPolicy(), episodes: 1 } as never)).toThrow(
      "rollout: missing or wrong option: policy: that is a Policy; an episode takes it wrapped: new PolicyActor(policy); seed (a string: it names the episode's journal and draws its task; got number)",
    );
    // runEpisode and the testing kit's EpisodeDriver say the same (they failed in episodeIdOf and on `.tokenizer`).
    const { seed: _seed, ...withoutSeed } = options;
    await expect(runEpisode({ ...withoutSeed, policy: expertPolicy() } as never)).rejects.toThrow(
      "runEpisode: missing or wrong option: policy: that is a Policy; an episode takes it wrapped: new PolicyActor(policy); seed (a string: it names the episode's journal and draws its task; got none)",
    );
    await expect(runEpisode({ ...options, episodes: 1 } as never)).rejects.toThrow(
      /^runEpisode: unknown option `episodes`/,
    );
    const { EpisodeDriver } = await import("../../src/testing/index.ts");
    await expect(EpisodeDriver.start(lookupEnv, {} as never)).rejects.toThrow(
      "EpisodeDriver.start: options.seed must be a string (it names the episode's journal, and draws the task when none is given); got none",
    );
  });

  it("a task generator that throws fails the rollout with whose task, which seed and where; ended episodes stay", async () => {
    const env = {
      ...lookupEnv,
      task: (seed: string) => {
        if (seed.endsWith(":task2")) throw new Error("no such store");
        return lookupEnv.task(seed);
      },
    };
    const journal = new MemoryJournal();
    const r = rollout({
      env,
      policy: new PolicyActor(expertPolicy()),
      journal,
      seed: "t",
      episodes: 4,
      concurrency: 1,
    });
    const outcome = await within(settled(lastValueFrom(r.episodes.pipe(toArray()))));
    expect("error" in outcome && String(outcome.error)).toMatch(
      /environment lookup: task\("t:task2"\) threw for episode 2: no such store \(thrown at \S+rollout\.test\.ts:\d+:\d+\); episodes already ended are kept/,
    );
    expect((await journal.episodes()).length).toBe(2);
  });

  it("a billion episodes start at once and take no memory before they run (no queue of indices)", async () => {
    const before = process.memoryUsage().heapUsed;
    const r = rollout({
      env: lookupEnv,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed: "big",
      episodes: 1_000_000_000,
      concurrency: 4,
    });
    const first = await within(lastValueFrom(r.episodes.pipe(take(6), toArray())));
    expect(first.map((e) => e.seed).sort()).toEqual(["big:0", "big:1", "big:2", "big:3", "big:4", "big:5"]);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(200_000_000);
  });

  it("skips the indices it is told to (a resumed recording), each other episode keeping its seed", async () => {
    const r = rollout({
      env: lookupEnv,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed: "skip",
      episodes: 8,
      concurrency: 3,
      skip: (index) => index % 3 !== 0,
    });
    const seeds = (await within(lastValueFrom(r.episodes.pipe(toArray())))).map((e) => e.seed).sort();
    expect(seeds).toEqual(["skip:0", "skip:3", "skip:6"]);
  });

  it("a task that is not a function of its seed fails the rollout before its episode runs, saying why", async () => {
    let draws = 0;
    const env = { ...lookupEnv, task: (seed: string) => ({ ...(lookupEnv.task(seed) as object), draw: draws++ }) };
    const journal = new MemoryJournal();
    const r = rollout({
      env,
      policy: new PolicyActor(expertPolicy()),
      journal,
      seed: "p",
      episodes: 4,
      concurrency: 1,
    });
    const outcome = await within(settled(lastValueFrom(r.episodes.pipe(toArray()))));
    expect("error" in outcome && String(outcome.error)).toMatch(
      /environment lookup: task\("p:task0"\) gave two different tasks for one seed \(.*"draw":0.*, then .*"draw":1.*\): a task must be a pure function of its seed/,
    );
    expect(await journal.episodes()).toEqual([]);
    // A pure task draws each seed's task alike: the check costs one more draw per group for the first groups (three for the first).
    let pure = 0;
    const counted = {
      ...lookupEnv,
      task: (seed: string) => {
        pure++;
        return lookupEnv.task(seed);
      },
    };
    const fine = rollout({
      env: counted,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed: "p",
      episodes: 12,
      groupSize: 1,
    });
    expect(await within(lastValueFrom(fine.episodes.pipe(toArray())))).toHaveLength(12);
    expect(pure).toBe(12 + 8 + 2);
  });

  /** One expert episode of lookup whose task also holds `extra` (past the Json types, as a user's cast gets). */
  const lookupWithTask = (extra: object, seed: string) => {
    const env = { ...lookupEnv, task: (s: string) => ({ ...(lookupEnv.task(s) as object), ...extra }) as never };
    const r = rollout({
      env,
      policy: new PolicyActor(expertPolicy()),
      journal: new MemoryJournal(),
      seed,
      episodes: 1,
    });
    return { env, r };
  };

  it("a task that is not plain JSON (it is journaled as JSON) fails the rollout, naming where", async () => {
    // The types say Json; a cast (as a user's `as unknown as Task`) gets past them.
    const { r } = lookupWithTask({ when: new Date(0) }, "d");
    const outcome = await within(settled(lastValueFrom(r.episodes.pipe(toArray()))));
    expect("error" in outcome && String(outcome.error)).toContain(
      'environment lookup: task("d:task0") returned a value that is not plain JSON: task.when is a Date',
    );
  });

  it("a task with an undefined field is recorded without it (as JSON keeps it, so replay starts from the same task)", async () => {
    for (const [extra, kept] of [
      [{ hint: undefined }, {}],
      [{ meta: { source: "x", note: undefined } }, { meta: { source: "x" } }],
      [{ list: [{ a: 1 }, { b: undefined }] }, { list: [{ a: 1 }, {}] }],
    ] as const) {
      const { env, r } = lookupWithTask(extra, "u");
      const [record] = await within(lastValueFrom(r.episodes.pipe(toArray())));
      expect(record.task).toStrictEqual({ ...(lookupEnv.task("u:task0") as object), ...kept });
      expect(record.events[0]).toMatchObject({ type: "episode.started", task: record.task });
      expect(replayEpisode(JSON.parse(JSON.stringify(record.events)), env).reason).toBe(record.reason);
    }
  });

  it("a task with an undefined array item (JSON writes null there) fails the rollout, naming it", async () => {
    const { r } = lookupWithTask({ hint: undefined, list: [undefined] }, "u");
    const outcome = await within(settled(lastValueFrom(r.episodes.pipe(toArray()))));
    expect("error" in outcome && String(outcome.error)).toContain(
      `environment lookup: task("u:task0") returned a value that is not plain JSON: task.list[0] is undefined (JSON writes it as null: give null)`,
    );
  });
});

describe("runEpisode: a task given to it", () => {
  it("that is not plain JSON is refused as rollout refuses it, naming the field, before anything is journaled", async () => {
    const journal = new MemoryJournal();
    const task = { ...(lookupEnv.task("g") as object), hint: undefined, when: new Date(0) } as never;
    await expect(
      runEpisode({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "g", task }),
    ).rejects.toThrow(`environment lookup: episode "g"'s task is not plain JSON: task.when is a Date`);
    expect(await journal.episodes()).toEqual([]);
  });
});

describe("runEpisode: the ending signal", () => {
  it("reaches a tool made without defineTool that keeps its signal after its call returned", async () => {
    const { createRaceEnv, playing } = await import("../support/index.ts");
    const env = createRaceEnv({ a: () => "A", b: () => "B" });
    const kept: AbortSignal[] = [];
    // Not from defineTool: its call may hold on to the signal, so the episode's end must still abort it.
    const a = {
      ...env.tools.a,
      call: async (args: unknown, signal?: AbortSignal) => {
        if (signal) kept.push(signal);
        return env.tools.a.call(args);
      },
    };
    const handMade = { ...env, tools: { ...env.tools, a } };
    const record = await runEpisode({
      env: handMade,
      policy: new PolicyActor(playing(["<a>x</a>", "<answer>x</answer>"], env.tokenizer)),
      journal: new MemoryJournal(),
      seed: "kept",
    });
    expect(record.reason).toBe("answered");
    expect(kept).toHaveLength(1);
    expect(kept[0].aborted).toBe(true);
    expect(`${(kept[0].reason as DOMException).name}: ${(kept[0].reason as DOMException).message}`).toBe(
      "AbortError: the episode ended: answered",
    );
  });
});

describe("rollout: cancelling with a signal", () => {
  it("stops running episodes at once (journaled as aborted, tool signals aborted) and starts no more", async () => {
    const { createRaceEnv, playing } = await import("../support/index.ts");
    const aborted: string[] = [];
    const controller = new AbortController();
    let calls = 0;
    // Tool a takes 30 s unless its call is cancelled; tool b answers at once. The caller gives up once the three
    // episodes run (each in its call of a), not after a fixed 200 ms: on a busy machine some might not have begun.
    const slow = (_args: unknown, { signal }: { signal: AbortSignal }) =>
      new Promise<string>((resolve) => {
        if (++calls === 3) setTimeout(() => controller.abort(new Error("the caller gave up")), 0);
        const timer = setTimeout(() => resolve("A"), 30_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          aborted.push(`${(signal.reason as DOMException).name}: ${(signal.reason as DOMException).message}`);
          resolve("cancelled");
        });
      });
    const env = createRaceEnv({ a: slow as unknown as () => Promise<string>, b: () => "B" });
    const journal = new MemoryJournal();
    const run = rollout({
      env,
      policy: new PolicyActor(playing(["<a>x</a>", "<a>x</a>", "<answer>x</answer>"], env.tokenizer)),
      journal,
      seed: "cancel",
      episodes: 10,
      concurrency: 3,
      signal: controller.signal,
    });
    const records = lastValueFrom(run.episodes.pipe(toArray()));
    let started = 0;
    controller.signal.addEventListener("abort", () => {
      started = performance.now();
    });
    const ended = await within(records, 40_000);
    // At once: well before a call of a would have answered by itself.
    expect(performance.now() - started).toBeLessThan(10_000);
    // The three running episodes, stopped; none of the other seven started.
    expect(ended).toHaveLength(3);
    for (const record of ended) expect(record.reason).toBe("aborted: stopped: the caller gave up");
    // Each tool cut off is told why (it was XState's generic "This operation was aborted").
    expect(aborted).toEqual(Array(3).fill("AbortError: the episode ended: aborted: stopped: the caller gave up"));
    // Each journal ends with the stop and replays: the abort is an input, as any abort is.
    for (const record of ended) {
      const events = await journal.read(record.episode);
      expect(events.at(-1)).toMatchObject({ type: "episode.ended", reason: "aborted: stopped: the caller gave up" });
      expect(() => replayEpisode(events, env)).not.toThrow();
    }
    // Already aborted: nothing starts.
    const none = rollout({
      env,
      policy: new PolicyActor(playing(["<b>x</b>"], env.tokenizer)),
      journal: new MemoryJournal(),
      seed: "cancelled-before",
      episodes: 4,
      signal: controller.signal,
    });
    expect(await within(lastValueFrom(none.episodes.pipe(toArray())))).toEqual([]);
  });

  it("runs 32 episodes at once on one signal without Node's leak warning (train's warm start printed one)", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      const run = rollout({
        env: lookupEnv,
        policy: new PolicyActor(expertPolicy()),
        journal: new MemoryJournal(),
        seed: "many",
        episodes: 64,
        concurrency: 32,
        signal: controller.signal,
      });
      expect(await within(lastValueFrom(run.episodes.pipe(toArray())))).toHaveLength(64);
      // Node says it on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      // Still stops on it: aborted, no more start.
      controller.abort(new Error("enough"));
      const after = rollout({
        env: lookupEnv,
        policy: new PolicyActor(expertPolicy()),
        journal: new MemoryJournal(),
        seed: "after",
        episodes: 4,
        signal: controller.signal,
      });
      expect(await within(lastValueFrom(after.episodes.pipe(toArray())))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

/** A signal of each kind, with a count of the listeners the rollout left on it. */
const signalsOfEachShape = () => {
  const node = new AbortController();
  const shaped = shapedAbortSignal();
  // Counted through its own methods: it has no getEventListeners (it is not Node's).
  const add = shaped.shaped.addEventListener;
  const remove = shaped.shaped.removeEventListener;
  const listeners = new Set<unknown>();
  shaped.shaped.addEventListener = (...args: Parameters<typeof add>) => {
    if (args[0] === "abort") listeners.add(args[1]);
    add(...args);
  };
  shaped.shaped.removeEventListener = (...args: Parameters<typeof remove>) => {
    if (args[0] === "abort") listeners.delete(args[1]);
    remove(...args);
  };
  return [
    {
      kind: "Node's own AbortSignal",
      signal: node.signal,
      abort: (reason: unknown) => node.abort(reason),
      listeners: () => getEventListeners(node.signal, "abort").length,
    },
    {
      kind: "an object shaped as an AbortSignal (a polyfill's)",
      signal: shaped.signal,
      abort: (reason: unknown) => shaped.abort(reason),
      listeners: () => listeners.size,
    },
  ];
};

describe("rollout: the caller's signal, of any shape, is followed with one listener", () => {
  const slowEnv = async () => {
    const { createRaceEnv, playing } = await import("../support/index.ts");
    // Tool a takes 5 s unless its call is cancelled.
    const slow = (_args: unknown, { signal }: { signal: AbortSignal }) =>
      new Promise<string>((resolve) => {
        const timer = setTimeout(() => resolve("A"), 5_000);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve("cancelled");
        });
      });
    const env = createRaceEnv({ a: slow as unknown as () => Promise<string>, b: () => "B" });
    return { env, policy: () => new PolicyActor(playing(["<a>x</a>", "<answer>x</answer>"], env.tokenizer)) };
  };

  for (const index of [0, 1])
    it(`${signalsOfEachShape()[index].kind}: 12 episodes at once, no leak warning, stopped mid-way, no listener left`, async () => {
      const { env, policy } = await slowEnv();
      const given = signalsOfEachShape()[index];
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
      process.on("warning", onWarning);
      try {
        const run = rollout({
          env,
          policy: policy(),
          journal: new MemoryJournal(),
          seed: "shaped-many",
          episodes: 30,
          concurrency: 12,
          signal: given.signal,
        });
        expect(given.listeners()).toBe(0);
        const records = lastValueFrom(run.episodes.pipe(toArray()));
        // One listener while it runs, whatever the number of episodes running.
        expect(given.listeners()).toBe(1);
        setTimeout(() => given.abort(new Error("the caller gave up")), 150);
        const ended = await within(records, 3_000);
        // The twelve running ones stopped at once; none of the other 18 started.
        expect(ended).toHaveLength(12);
        for (const record of ended) expect(record.reason).toBe("aborted: stopped: the caller gave up");
        // Node says it on the next tick.
        await new Promise((resolve) => setImmediate(resolve));
        expect(warnings).toEqual([]);
        expect(given.listeners()).toBe(0);
      } finally {
        process.off("warning", onWarning);
      }
    });

  for (const index of [0, 1])
    it(`${signalsOfEachShape()[index].kind}: the listener goes once the run is over, also when it ran to its end, failed or was abandoned`, async () => {
      const given = signalsOfEachShape()[index];
      // Ran to its end.
      const whole = rollout({
        env: lookupEnv,
        policy: new PolicyActor(expertPolicy()),
        journal: new MemoryJournal(),
        seed: "whole",
        episodes: 24,
        concurrency: 12,
        signal: given.signal,
      });
      expect(await within(lastValueFrom(whole.episodes.pipe(toArray())))).toHaveLength(24);
      expect(given.listeners()).toBe(0);
      // Failed (its task generator threw for episode 13).
      const failing = rollout({
        env: lookupEnv,
        policy: new PolicyActor(expertPolicy()),
        journal: new MemoryJournal(),
        seed: "failing",
        episodes: 24,
        concurrency: 12,
        task: (group, seed) => {
          if (group === 13) throw new Error("no task 13");
          return lookupEnv.task(seed);
        },
        signal: given.signal,
      });
      await expect(within(lastValueFrom(failing.episodes))).rejects.toThrow("no task 13");
      // Once the episodes running beside the failure have ended (a while, on a loaded machine).
      await vi.waitFor(() => expect(given.listeners()).toBe(0), { timeout: 5000 });
      // Abandoned by its subscriber: the running episodes go on, and still stop on the caller's signal; the
      // listener goes once they have ended.
      const { env, policy } = await slowEnv();
      const journal = new MemoryJournal();
      const abandoned = rollout({
        env,
        policy: policy(),
        journal,
        seed: "abandoned",
        episodes: 30,
        concurrency: 12,
        signal: given.signal,
      });
      const subscription = abandoned.episodes.subscribe();
      await new Promise((resolve) => setTimeout(resolve, 100));
      subscription.unsubscribe();
      expect(given.listeners()).toBe(1);
      given.abort(new Error("stop them"));
      await vi.waitFor(() => expect(given.listeners()).toBe(0), { timeout: 5000 });
      const started = await journal.episodes();
      expect(started).toHaveLength(12);
      for (const episode of started)
        expect((await journal.read(episode)).at(-1)).toMatchObject({
          type: "episode.ended",
          reason: "aborted: stopped: stop them",
        });
    });
});

describe("rollout and runEpisode: a signal that is no AbortSignal", () => {
  it("is refused at once, naming the option and what it was (it failed inside as caller.addEventListener is not a function)", async () => {
    const parts = { env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal: new MemoryJournal(), seed: "s" };
    const said =
      "missing or wrong option: signal (an AbortSignal, or an object shaped as one: aborted, addEventListener, removeEventListener; got";
    for (const signal of [
      { aborted: false },
      "stop",
      { aborted: "no", addEventListener() {}, removeEventListener() {} },
    ]) {
      expect(() => rollout({ ...parts, episodes: 2, signal: signal as never })).toThrow(`rollout: ${said}`);
      await expect(runEpisode({ ...parts, signal: signal as never })).rejects.toThrow(`runEpisode: ${said}`);
    }
    expect(() => rollout({ ...parts, episodes: 2, signal: "stop" as never })).toThrow('got "stop" (a string))');
  });
});

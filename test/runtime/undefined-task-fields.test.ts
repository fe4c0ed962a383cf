/**
 * A task with an object field set to `undefined` (`{ hint: c ? h : undefined }`, ordinary TypeScript): JSON drops
 * the field, and replay starts from the journal's task, so the live machine starts from that task too (the field
 * absent: `"hint" in task` false live and on replay) and the journal verifies. What JSON would change rather than
 * drop (an undefined array item, NaN, a Date) is still refused, naming where.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { lastValueFrom, toArray } from "rxjs";
import { afterAll, describe, expect, it } from "vitest";
import { setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  type EpisodeEvent,
  end,
  JsonlJournal,
  journalFilesAt,
  MemoryJournal,
  observe,
  PolicyActor,
  readJournalFile,
  runEpisode,
  WordTokenizer,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { EpisodeDriver, exploreEnv, playEpisode } from "../../src/testing/index.ts";
import { playing } from "../support/index.ts";

type Task = { city: string; hint?: string; meta?: { source?: string } };

/** What the machine sees of its task: its keys, and whether it has a hint (`"hint" in task`). */
const seen = (task: object): string => `keys ${Object.keys(task).join(" ")} hint ${"hint" in task}`;

const hintEnv = defineEnv({
  id: "hinted",
  version: "1",
  description: "shows which fields its task has; any action ends the episode",
  machine: setup({
    types: { context: {} as { task: object }, events: {} as AgentActEvent, input: {} as EnvInput<Task> },
  }).createMachine({
    context: ({ input }) => ({ task: input.task }),
    initial: "asking",
    entry: observe(({ context }) => seen(context.task)),
    states: {
      asking: {
        on: {
          "agent.act": { target: "done", actions: end(({ context }) => seen(context.task)) },
        },
      },
      done: { type: "final" },
    },
  }),
  tools: {},
  tokenizer: new WordTokenizer(["keys", "hint", "true", "false", "city", "meta", "go"]),
  // Ordinary TypeScript: the field is there, undefined, on every other seed.
  task: (seed: string): Task => ({
    city: "lima",
    hint: seed.endsWith("1") ? "north" : undefined,
    meta: { source: undefined },
  }),
});

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The events of a journal, without what differs from run to run (meta: times). */
const comparable = (events: readonly EpisodeEvent[]) => events.map(({ meta: _meta, ...event }) => event);

describe("a task with an undefined field", () => {
  it("is recorded as its journal keeps it (the field absent, live as on replay), and the journal verifies", async () => {
    const dir = mkdtempSync(join(tmpdir(), "undefined-task-"));
    dirs.push(dir);
    const r = rollout({
      env: hintEnv,
      policy: new PolicyActor(playing(["go"], hintEnv.tokenizer)),
      journal: new JsonlJournal(dir),
      seed: "u",
      episodes: 2,
    });
    const records = await lastValueFrom(r.episodes.pipe(toArray()));
    expect(records.map((record) => record.reason).sort()).toEqual([
      "keys city hint meta hint true",
      "keys city meta hint false",
    ]);
    const withoutHint = records.find((record) => record.reason.endsWith("false"))!;
    expect(withoutHint.task).toStrictEqual({ city: "lima", meta: {} });
    const files = await journalFilesAt(dir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const events = await readJournalFile(file);
      const replayed = replayEpisode(events, hintEnv, { verify: true, file });
      expect(replayed.reason).toMatch(/^keys city (hint meta hint true|meta hint false)$/);
    }
  });

  it("given to runEpisode, playEpisode, an EpisodeDriver or exploreEnv starts the machine without the field", async () => {
    const task: Task = { city: "lima", hint: undefined };
    const given = { ...task };
    const record = await runEpisode({
      env: hintEnv,
      policy: new PolicyActor(playing(["go"], hintEnv.tokenizer)),
      journal: new MemoryJournal(),
      seed: "g",
      task,
    });
    expect(record.reason).toBe("keys city hint false");
    expect(record.task).toStrictEqual({ city: "lima" });
    // The caller's task is left as it was.
    expect(task).toStrictEqual(given);
    expect(replayEpisode(JSON.parse(JSON.stringify(record.events)), hintEnv, { verify: true }).reason).toBe(
      record.reason,
    );

    const played = await playEpisode(hintEnv, { seed: "p", task, actions: ["go"] });
    expect(played.record.reason).toBe("keys city hint false");
    expect(played.script.task).toStrictEqual({ city: "lima" });

    const driver = await EpisodeDriver.start(hintEnv, { seed: "d", task });
    expect(driver.task).toStrictEqual({ city: "lima" });
    const step = await driver.act("go");
    expect(step.done).toBe(true);

    const report = exploreEnv(hintEnv, { task, actions: ["go"] });
    expect(report.paths.map((path) => path.script.task)).toContainEqual({ city: "lima" });
    expect(JSON.stringify(report.paths)).toContain("keys city hint false");
  });

  it("is still refused where JSON would change the task rather than drop a field, naming where", async () => {
    const refused = async (task: unknown) =>
      runEpisode({
        env: hintEnv,
        policy: new PolicyActor(playing(["go"], hintEnv.tokenizer)),
        journal: new MemoryJournal(),
        seed: "r",
        task: task as Task,
      }).then(
        () => "recorded",
        (error: unknown) => String(error),
      );
    expect(await refused({ city: "lima", hint: undefined, list: [1, undefined] })).toContain(
      `environment hinted: episode "r"'s task is not plain JSON: task.list[1] is undefined (JSON writes it as null: give null); a task is journaled as JSON and replayed from it`,
    );
    expect(await refused({ city: "lima", n: Number.NaN })).toContain("task.n is NaN");
    expect(() => exploreEnv(hintEnv, { task: { city: "x", at: new Date(0) } as never, actions: ["go"] })).toThrow(
      "exploreEnv: the task is not plain JSON: task.at is a Date",
    );
  });

  it("gives the live episode the journal of the same task without those fields (property)", async () => {
    // JSON-ish tasks (objects of strings, numbers, booleans, null, arrays and objects), some of whose fields are undefined.
    const leaf = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null));
    const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
      value: fc.oneof({ depthSize: "small" }, leaf, tie("object"), fc.array(tie("value"), { maxLength: 3 })),
      object: fc.dictionary(
        fc.constantFrom("a", "b", "hint", "c"),
        fc.option(tie("value"), { nil: undefined, freq: 3 }),
        { maxKeys: 4 },
      ),
    }));
    const tasks = fc.record({ city: fc.string({ maxLength: 3 }), hint: fc.constant(undefined), more: value });
    const journalOf = async (task: Task, seed: string) => {
      const journal = new MemoryJournal();
      const record = await runEpisode({
        env: hintEnv,
        policy: new PolicyActor(playing(["go"], hintEnv.tokenizer)),
        journal,
        seed,
        task,
      });
      return comparable(await journal.read(record.episode));
    };
    await fc.assert(
      fc.asyncProperty(tasks, fc.string({ minLength: 1, maxLength: 4 }), async (task, seed) => {
        const live = await journalOf(task as Task, seed);
        const dropped = await journalOf(JSON.parse(JSON.stringify(task)) as Task, seed);
        expect(live).toStrictEqual(dropped);
        expect((live[0] as { task: unknown }).task).toStrictEqual(JSON.parse(JSON.stringify(task)));
      }),
      { numRuns: 60 },
    );
  });
});

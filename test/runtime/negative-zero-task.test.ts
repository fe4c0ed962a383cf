/**
 * A task holding -0 (`Math.round(-0.4)` is -0): JSON writes it as 0, and replay starts from the journal's task,
 * so the live machine must start from 0 too. Else what tells -0 from 0 (toLocaleString, Intl.NumberFormat,
 * Object.is, 1 / x, Math.atan2) showed "-0" live and "0" in replay, and --verify blamed impure code.
 */
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  end,
  MemoryJournal,
  observe,
  WordTokenizer,
} from "../../src/index.ts";
import { asJournaled } from "../../src/kernel/canonical.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { playEpisode } from "../../src/testing/index.ts";

type Task = { temps: { low: number }[] };

const shown = (task: Task) => `low ${task.temps[0]!.low.toLocaleString("en")}`;

const thermometer = defineEnv({
  id: "thermometer",
  version: "1",
  description: "shows a temperature as a locale would; any action ends the episode",
  machine: setup({
    types: { context: {} as { task: Task }, events: {} as AgentActEvent, input: {} as EnvInput<Task> },
  }).createMachine({
    context: ({ input }) => ({ task: input.task }),
    initial: "asking",
    entry: observe(({ context }) => shown(context.task)),
    states: {
      asking: { on: { "agent.act": { target: "done", actions: end(({ context }) => shown(context.task)) } } },
      done: { type: "final" },
    },
  }),
  tools: {},
  tokenizer: new WordTokenizer(["low", "0", "-0", "go"]),
  // A rounded reading just below zero.
  task: (): Task => ({ temps: [{ low: Math.round(-0.4) }] }),
});

describe("a task holding -0", () => {
  it("starts the live machine from 0, as the journal keeps it, so replay verifies", async () => {
    const journal = new MemoryJournal();
    const { record } = await playEpisode(thermometer, { seed: "s", actions: ["go"] }, { journal });
    expect(record.reason).toBe("low 0");
    expect(Object.is(record.task.temps[0]!.low, 0)).toBe(true);
    const events = JSON.parse(JSON.stringify(await journal.read(record.episode)));
    expect(replayEpisode(events, thermometer, { verify: true }).reason).toBe("low 0");
  });

  it("asJournaled copies only what holds a -0, leaving the caller's task as it was", () => {
    const kept = { high: 3 };
    const task = { low: -0, kept, list: [1, -0] };
    const journaled = asJournaled(task, "task");
    if (!("value" in journaled)) throw new Error(journaled.problem);
    expect(journaled.value).toStrictEqual({ low: 0, kept, list: [1, 0] });
    expect(Object.is(journaled.value.low, 0) && Object.is(journaled.value.list[1], 0)).toBe(true);
    expect(journaled.value.kept).toBe(kept);
    expect(Object.is(task.low, -0)).toBe(true);
  });
});

/**
 * Resource bounds of the runtime (the 1,000,000-event replay is bench/replay-memory.ts): a rollout never
 * has more episodes open than its concurrency, nor more rows in a policy call than the batch bound; the
 * journal's line limit holds on the writing side too, and an event over it fails its episode cleanly,
 * leaving a readable journal.
 */
import { existsSync, statSync } from "node:fs";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { setup } from "xstate";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { randomPolicy } from "../../actors/lookup/policies.ts";
import {
  type AgentActEvent,
  defineEnv,
  type EnvInput,
  type EpisodeEvent,
  end,
  type Journal,
  JsonlJournal,
  MemoryJournal,
  observe,
  type Policy,
  PolicyActor,
  replayEpisode,
  reward,
  scriptedPolicy,
  WordTokenizer,
} from "../../src/index.ts";
import { MAX_LINE_BYTES } from "../../src/journal/jsonl.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { tempDir } from "../support/index.ts";

/** A journal that counts open episode streams. */
const gauged = () => {
  const inner = new MemoryJournal();
  const gauge = { open: 0, maxOpen: 0, created: 0 };
  const journal: Journal = {
    location: "gauged",
    episodes: () => inner.episodes(),
    read: (e) => inner.read(e),
    create: async (episode) => {
      const writer = await inner.create(episode);
      gauge.open += 1;
      gauge.created += 1;
      gauge.maxOpen = Math.max(gauge.maxOpen, gauge.open);
      return {
        ...writer,
        close: async () => {
          gauge.open -= 1;
          await writer.close();
        },
      };
    },
  };
  return { journal, gauge };
};

describe("rollouts bound their concurrency and buffers", () => {
  it.each([1, 5, 32])("concurrency %i: never more episodes open, never more rows per policy call", async (c) => {
    const { journal, gauge } = gauged();
    let maxRows = 0;
    const inner = randomPolicy();
    const policy: Policy = {
      ...inner,
      act: (requests) => {
        maxRows = Math.max(maxRows, requests.length);
        return inner.act(requests);
      },
    };
    const episodes = 120;
    const run = rollout({
      env: lookupEnv,
      policy: new PolicyActor(policy, 8),
      journal,
      seed: `b${c}`,
      episodes,
      concurrency: c,
    });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    expect(records).toHaveLength(episodes);
    expect(gauge.created).toBe(episodes);
    expect(gauge.open).toBe(0);
    expect(gauge.maxOpen).toBeLessThanOrEqual(c);
    if (c > 1) expect(gauge.maxOpen).toBeGreaterThan(1);
    // Each open episode waits for at most one action: a call holds at most min(concurrency, batch bound) rows.
    expect(maxRows).toBeLessThanOrEqual(Math.min(c, 8));
  });
});

describe("the journal's line limit", () => {
  it("the writer refuses an event longer than a reader accepts, without writing any of it", async () => {
    const dir = tempDir("agent-r1-bounds-");
    const journal = new JsonlJournal(dir, "none");
    const writer = journal.createSync("ep-big");
    // The writer does not hash: an event with the right seq and a big field is enough.
    const event = { v: 1, episode: "ep-big", seq: 0, task: "x".repeat(MAX_LINE_BYTES) } as unknown as EpisodeEvent;
    expect(() => writer.appendSync(event)).toThrow(RangeError);
    // The hint to cut results with maxResultChars is for a tool's result only, not for any event.
    expect(() => writer.appendSync(event)).not.toThrow(/maxResultChars/);
    expect(() => writer.appendSync({ ...event, type: "tool.returned" } as EpisodeEvent)).toThrow(
      /bytes \(cut large tool results with maxResultChars\)$/,
    );
    writer.closeSync();
    // Nothing was written: the file was never created (or is empty).
    const file = journal.fileOf("ep-big");
    expect(existsSync(file) ? statSync(file).size : 0).toBe(0);
  });
});

describe("an action too long for a journal line", () => {
  it("aborts only its episode, naming its size, and the run and the journals go on", async () => {
    const dir = tempDir("agent-r1-bounds-");
    const journal = new JsonlJournal(dir, "episode");
    const inner = randomPolicy();
    const { tokenizer } = lookupEnv;
    // A runaway generation: over 16 MiB of JSON (an LLM API that never stopped), for one episode only.
    const word = tokenizer.encode("value")[0]!;
    const tokens = new Array<number>(1_600_000).fill(word);
    const runaway = { tokens, text: tokenizer.decode(tokens), logprobs: tokens.map(() => 0), version: 0 };
    const policy: Policy = {
      ...inner,
      act: async (requests) => {
        const actions = await inner.act(requests);
        return actions.map((a, i) => (requests[i]!.episode === "ep-big-1" ? runaway : a));
      },
    };
    const run = rollout({ env: lookupEnv, policy: new PolicyActor(policy), journal, seed: "big", episodes: 3 });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    const reasons = Object.fromEntries(records.map((r) => [r.episode, r.reason]));
    expect(reasons["ep-big-1"]).toBe(
      `aborted: policy ${inner.id} returned an action too long to journal: ${runaway.text.length} characters, 1600000 tokens, ${Buffer.byteLength(JSON.stringify({ type: "agent.acted", turn: 0, tokens, text: runaway.text, logprobs: runaway.logprobs, policy: { id: inner.id, version: 0 } }))} bytes as JSON; an event's body holds at most ${MAX_LINE_BYTES - 4096} (a journal line ${MAX_LINE_BYTES}, its envelope and digest included) (cap the policy's output: a learned policy samples at most maxActionTokens)`,
    );
    expect(records.filter((r) => !r.reason.startsWith("aborted"))).toHaveLength(2);
    // Its journal holds what came before, then the end: it reads back and replays.
    const events = await journal.read("ep-big-1");
    expect(events.at(-1)?.type).toBe("episode.ended");
    expect(events.some((e) => e.type === "agent.acted")).toBe(false);
    expect(replayEpisode(events, lookupEnv).reason).toBe(reasons["ep-big-1"]);
  });
});

describe("an action far too long for a journal line (a runaway generation of 20 MB)", () => {
  it("is refused from its length, before its tokens are decoded, and its episode's journal keeps what came before", async () => {
    const dir = tempDir("agent-r1-bounds-");
    const journal = new JsonlJournal(dir, "episode");
    const inner = randomPolicy();
    const { tokenizer } = lookupEnv;
    const word = tokenizer.encode("value")[0]!;
    const tokens = new Array<number>(2_000_000).fill(word);
    // What its tokens spell (as tokenizer.decode(tokens) gives it, without the seconds that takes).
    const text = "value".repeat(tokens.length);
    const runaway = { tokens, text, logprobs: tokens.map(() => 0), version: 0 };
    const policy: Policy = {
      ...inner,
      act: async (requests) => {
        const actions = await inner.act(requests);
        return actions.map((a, i) => (requests[i]!.episode === "ep-huge-1" ? runaway : a));
      },
    };
    // Decoding its 2,000,000 tokens (and writing 20 MB of JSON) took seconds before the refusal.
    const decode = vi.spyOn(tokenizer, "decode");
    try {
      const run = rollout({ env: lookupEnv, policy: new PolicyActor(policy), journal, seed: "huge", episodes: 3 });
      const records = await lastValueFrom(run.episodes.pipe(toArray()));
      expect(decode.mock.calls.some(([ids]) => ids.length === tokens.length)).toBe(false);
      const reasons = Object.fromEntries(records.map((r) => [r.episode, r.reason]));
      expect(reasons["ep-huge-1"]).toBe(
        `aborted: policy ${inner.id} returned an action too long to journal: ${text.length} characters, 2000000 tokens, at least ${text.length + 2 + 4 * tokens.length} bytes as JSON; an event's body holds at most ${MAX_LINE_BYTES - 4096} (a journal line ${MAX_LINE_BYTES}, its envelope and digest included) (cap the policy's output: a learned policy samples at most maxActionTokens)`,
      );
      expect(records.filter((r) => !r.reason.startsWith("aborted"))).toHaveLength(2);
      const events = await journal.read("ep-huge-1");
      expect(events.map((e) => e.type)).toEqual([
        "episode.started",
        "env.observed",
        "env.transitioned",
        "episode.ended",
      ]);
      expect(replayEpisode(events, lookupEnv).reason).toBe(reasons["ep-huge-1"]);
    } finally {
      decode.mockRestore();
    }
  });

  it("from a scripted policy, is refused before its text is tokenized, ending only its episode as above", async () => {
    const { tokenizer } = lookupEnv;
    const policy = scriptedPolicy("runaway", tokenizer, ({ episode }) =>
      episode.endsWith("-1") ? "value ".repeat(3_500_000) : "value",
    );
    // Encoding 21 MB of text took seconds, for an action the episode then refused (here: fails at once).
    const encodeText = tokenizer.encode.bind(tokenizer);
    const encode = vi.spyOn(tokenizer, "encode").mockImplementation((text) => {
      if (text.length > 1_000_000) throw new Error("tokenized the runaway text");
      return encodeText(text);
    });
    try {
      const detail = `21000000 characters, at least 21000002 bytes as JSON; an event's body holds at most ${MAX_LINE_BYTES - 4096} (a journal line ${MAX_LINE_BYTES}, its envelope and digest included) (cap the script's output)`;
      const request = { episode: "ep-r-1", turn: 0, seed: "s", task: null, history: [], context: [] };
      await expect(policy.act([request])).rejects.toThrow(
        `scripted policy runaway returned an action too long to journal at turn 0: ${detail}`,
      );
      const journal = new MemoryJournal();
      const run = rollout({ env: lookupEnv, policy: new PolicyActor(policy), journal, seed: "r", episodes: 3 });
      const records = await lastValueFrom(run.episodes.pipe(toArray()));
      const reasons = Object.fromEntries(records.map((r) => [r.episode, r.reason]));
      expect(reasons["ep-r-1"]).toBe(`aborted: policy runaway returned an action too long to journal: ${detail}`);
      expect(records.filter((r) => !r.reason.startsWith("aborted"))).toHaveLength(2);
      expect((await journal.read("ep-r-1")).at(-1)?.type).toBe("episode.ended");
    } finally {
      encode.mockRestore();
    }
  });
});

describe("an event of the environment's own too long for a journal line", () => {
  it("ends only its episode as 'could not record', live and in replay, and the run goes on", async () => {
    // A reward whose reason is just past what a line leaves the body, though under the line's own limit (an
    // observation or a tool call's input would do the same): told the body's limit, which it passes.
    const machine = setup({
      types: { context: {} as { n: number }, events: {} as AgentActEvent, input: {} as EnvInput<{ q: string }> },
    }).createMachine({
      context: { n: 0 },
      initial: "awaiting",
      entry: observe("say a word"),
      states: {
        awaiting: {
          on: {
            "agent.act": [
              {
                guard: ({ event }) => event.text === "long",
                actions: [reward("process", 0.1, () => "x".repeat(MAX_LINE_BYTES - 4096)), end("done", { success: 1 })],
              },
              { actions: [reward("process", 0.1, "short"), end("done", { success: 1 })] },
            ],
          },
        },
      },
    });
    const env = defineEnv({
      id: "long-reason",
      version: "1",
      description: "a reward reason too long to journal",
      machine,
      tools: {},
      tokenizer: new WordTokenizer(["say", "a", "word", "long", "short"]),
      task: () => ({ q: "x" }),
    });
    const journal = new JsonlJournal(tempDir("agent-r1-bounds-"), "episode");
    const policy = scriptedPolicy("words", env.tokenizer, ({ episode }) => (episode.endsWith("-1") ? "long" : "short"));
    const run = rollout({ env, policy: new PolicyActor(policy), journal, seed: "l", episodes: 2 });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    const reasons = Object.fromEntries(records.map((r) => [r.episode, r.reason]));
    expect(reasons["ep-l-0"]).toBe("done");
    const said =
      /^aborted: could not record reward\.assigned: it is (\d+) bytes as JSON; an event's body holds at most (\d+) \(a journal line (\d+), its envelope and digest included\)$/.exec(
        reasons["ep-l-1"] ?? "",
      );
    expect(Number(said?.[1])).toBeGreaterThan(Number(said?.[2]));
    expect(Number(said?.[1])).toBeLessThan(MAX_LINE_BYTES);
    expect(Number(said?.[2])).toBe(MAX_LINE_BYTES - 4096);
    expect(Number(said?.[3])).toBe(MAX_LINE_BYTES);
    const events = await journal.read("ep-l-1");
    expect(events.at(-1)?.type).toBe("episode.ended");
    expect(replayEpisode(events, env).reason).toBe(reasons["ep-l-1"]);
  });
});

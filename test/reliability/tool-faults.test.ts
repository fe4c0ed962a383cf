/**
 * Tool faults at scale (test/runtime/tools.test.ts covers each fault once): a rollout where 10% of the
 * tool calls fail in every way a tool can fail completes, records every fault, and replay-verifies from
 * disk; thousands of concurrent calls time out and cancel independently; and whatever a tool returns or
 * throws becomes a ToolResult the journal can hold, hash and read back.
 */
import { readFileSync } from "node:fs";
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { KEYS, lookupEnv, lookupTool, STORE, tokenizer } from "../../actors/lookup/index.ts";
import {
  canonicalJson,
  defineEnv,
  defineTool,
  type EpisodeEvent,
  formatAnswer,
  formatCall,
  JsonlJournal,
  PolicyActor,
  readJournalFile,
  replayEpisode,
  Schema,
  ToolResult,
} from "../../src/index.ts";
import { EpisodeChain } from "../../src/journal/stamp.ts";
import { StreamValidator } from "../../src/journal/validate.ts";
import { rollout } from "../../src/runtime/rollout.ts";
import { scriptedPolicy } from "../../src/runtime/scripted-policy.ts";
import { TRUNCATION_MARKER } from "../../src/runtime/tool.ts";
import { tempDir } from "../support/index.ts";

const cyclic = (): object => {
  const o: Record<string, unknown> = { name: "loop" };
  o.self = o;
  return o;
};

/** What an injected fault throws or does; each is one in ten calls, in turn. */
const FAULTS = [
  "throw-error",
  "throw-undefined",
  "throw-cyclic",
  "throw-bigint",
  "throw-huge-message",
  "hang-honouring-abort",
  "hang-ignoring-abort",
  "reject-null",
] as const;
type Fault = (typeof FAULTS)[number];
const isTimeout = (f: Fault) => f.startsWith("hang");

describe("a run where 10% of tool calls fail", () => {
  it("completes, records every fault, and replay-verifies from disk", async () => {
    const injected = new Map<Fault, number>();
    const hangSignals: AbortSignal[] = [];
    let calls = 0;
    let huge = 0;
    const lookup = defineTool({
      name: "lookup",
      description: "the lookup store, failing one call in ten",
      parameters: Schema.Struct({ key: Schema.String }),
      timeoutMs: 25,
      maxResultChars: 2_000,
      execute: ({ key }: { key: string }, { signal }) => {
        const n = calls++;
        if (n % 10 === 7) {
          const fault = FAULTS[Math.floor(n / 10) % FAULTS.length];
          injected.set(fault, (injected.get(fault) ?? 0) + 1);
          switch (fault) {
            case "throw-error":
              throw new Error(`store offline (${key})`);
            case "throw-undefined":
              throw undefined;
            case "throw-cyclic":
              throw cyclic();
            case "throw-bigint":
              throw 12n;
            case "throw-huge-message":
              throw new Error("e".repeat(1_000_000));
            case "hang-honouring-abort":
              hangSignals.push(signal);
              return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
            case "hang-ignoring-abort":
              hangSignals.push(signal);
              return new Promise(() => {});
            case "reject-null":
              return Promise.reject(null);
          }
        }
        // One call in ten (another one) returns a huge result: not a failure, but cut with a marker.
        if (n % 10 === 3) {
          huge += 1;
          return `${STORE[key] ?? "none"} ${"z".repeat(500_000)}`;
        }
        return STORE[key] ?? null;
      },
    });
    const env = defineEnv({ ...lookupEnv, tools: { lookup }, machine: lookupEnv.machine.provide({}) });
    const dir = tempDir("agent-r1-faults-");
    const journal = new JsonlJournal(dir, "none");
    const episodes = 200;
    // Four lookups of random keys (some of them not in the store), then an answer.
    const policy = scriptedPolicy("four-lookups", tokenizer, (request, rng) =>
      request.turn < 4 ? formatCall(lookupTool, { key: rng.pick(KEYS) }) : formatAnswer("red"),
    );
    const run = rollout({
      env,
      policy: new PolicyActor(policy),
      journal,
      seed: "faults",
      episodes,
      concurrency: 48,
    });
    const records = await lastValueFrom(run.episodes.pipe(toArray()));
    expect(records).toHaveLength(episodes);
    expect(records.filter((r) => r.reason.startsWith("aborted"))).toEqual([]);

    // Every fault is in a journal, as the failure it was; every huge result is cut with its marker.
    const recorded = { error: 0, timeout: 0, truncated: 0, ok: 0 };
    let longestLine = 0;
    for (const episode of await journal.episodes()) {
      const file = journal.fileOf(episode);
      longestLine = Math.max(
        longestLine,
        ...readFileSync(file, "utf8")
          .split("\n")
          .map((l) => l.length),
      );
      const events: EpisodeEvent[] = await readJournalFile(file);
      for (const event of events)
        if (event.type === "tool.returned") {
          if (event.result.ok) {
            recorded.ok += 1;
            if (String(event.result.content).endsWith(TRUNCATION_MARKER)) recorded.truncated += 1;
          } else {
            recorded[event.result.error.kind as "error" | "timeout"] += 1;
            expect(event.result.error.message.length).toBeLessThanOrEqual(2_000 + TRUNCATION_MARKER.length);
          }
        }
      // Replay calls no tool: the recorded faults are the truth, and every derived event re-derives.
      expect(() => replayEpisode(events, lookupEnv, { file })).not.toThrow();
    }
    const total = [...injected.values()].reduce((a, b) => a + b, 0);
    const timeouts = [...injected].filter(([f]) => isTimeout(f)).reduce((a, [, n]) => a + n, 0);
    expect(calls).toBe(episodes * 4);
    expect(total).toBe(Math.floor((calls + 2) / 10));
    expect(recorded.timeout).toBe(timeouts);
    expect(recorded.error).toBe(total - timeouts);
    expect(recorded.truncated).toBe(huge);
    expect(recorded.ok + recorded.error + recorded.timeout).toBe(calls);
    expect(new Set(injected.keys()).size).toBe(FAULTS.length);
    // Hung calls were cancelled through their AbortSignal.
    expect(hangSignals.length).toBe(timeouts);
    expect(hangSignals.every((s) => s.aborted)).toBe(true);
    expect(longestLine).toBeLessThan(20_000); // a 500 KB result never makes a 500 KB line
    console.log(
      `tool faults: ${calls} calls, ${total} faults injected (${JSON.stringify(Object.fromEntries(injected))}), ${huge} huge results cut, recorded ${JSON.stringify(recorded)}, ${episodes} episodes replay-verified`,
    );
  });
});

describe("many concurrent calls", () => {
  it("time out, cancel and succeed independently, in parallel", async () => {
    const signals: AbortSignal[] = [];
    const tool = defineTool({
      name: "slow",
      description: "",
      parameters: Schema.Struct({ i: Schema.Number }),
      // 1 s, not less: starting 2000 calls took 250 ms on loaded cores, and a limit shorter than that timed out
      // calls before the caller's cancel (next event-loop turn) reached them.
      timeoutMs: 1_000,
      execute: ({ i }: { i: number }, { signal }) => {
        signals[i] = signal;
        if (i % 4 === 0) return new Promise(() => {}); // hangs: times out
        if (i % 4 === 1) return new Promise((resolve) => setTimeout(() => resolve(i), 5)); // fine
        if (i % 4 === 2) return new Promise(() => {}); // cancelled by the caller
        throw new Error(`bad ${i}`);
      },
    });
    const n = 2000;
    const controllers = Array.from({ length: n }, () => new AbortController());
    const started = performance.now();
    const pending = controllers.map((c, i) => tool.call({ i }, c.signal));
    setImmediate(() => {
      for (let i = 2; i < n; i += 4) controllers[i].abort(new Error("the environment moved on"));
    });
    const results = await Promise.all(pending);
    const elapsed = performance.now() - started;
    results.forEach((r, i) => {
      if (i % 4 === 0) expect(r).toMatchObject({ ok: false, error: { kind: "timeout" } });
      else if (i % 4 === 1) expect(r).toEqual({ ok: true, content: i });
      else if (i % 4 === 2) expect(r).toMatchObject({ ok: false, error: { kind: "error", message: /cancelled/ } });
      else expect(r).toEqual({ ok: false, error: { kind: "error", message: `bad ${i}` } });
    });
    expect(signals.filter((s, i) => i % 2 === 0 && s.aborted)).toHaveLength(n / 2);
    expect(signals.filter((s, i) => i % 2 === 1 && s.aborted)).toHaveLength(0);
    // 2000 calls with a 1 s limit end in about one limit, not 500 of them.
    expect(elapsed).toBeLessThan(5_000);
  });

  it("a call whose caller has already given up does not run", async () => {
    let ran = false;
    const tool = defineTool({
      name: "t",
      description: "",
      parameters: Schema.Struct({}),
      execute: () => {
        ran = true;
        return 1;
      },
    });
    const controller = new AbortController();
    controller.abort();
    expect(await tool.call({}, controller.signal)).toMatchObject({ ok: false, error: { kind: "error" } });
    expect(ran).toBe(false);
  });

  it("refuses a nonsense time limit or size limit when the tool is defined", () => {
    const spec = { name: "t", description: "", parameters: Schema.Struct({}), execute: () => 1 };
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => defineTool({ ...spec, timeoutMs })).toThrow(/timeoutMs must be a positive number/);
    // Past setTimeout's 2^31 - 1 ms, Node fires after 1 ms: a tool meant to have no limit timed out at once.
    for (const timeoutMs of [2 ** 31, 1e12])
      expect(() => defineTool({ ...spec, timeoutMs })).toThrow(
        `tool t: timeoutMs must be at most 2147483647 (about 24.8 days, the longest delay Node's timers take; a longer one fires after 1 ms), got ${timeoutMs}`,
      );
    expect(defineTool({ ...spec, timeoutMs: 2 ** 31 - 1 }).timeoutMs).toBe(2 ** 31 - 1);
    for (const maxResultChars of [0, 1.5, -3])
      expect(() => defineTool({ ...spec, maxResultChars })).toThrow(/maxResultChars must be a positive integer/);
    // From JavaScript, a limit given as text is said to be text ("500" read like 500 hid the mistake).
    expect(() => defineTool({ ...spec, timeoutMs: "500" as never })).toThrow(
      'timeoutMs must be a positive number, got "500" (a string)',
    );
  });
});

/** Anything a tool might return or throw, including what JSON cannot hold. */
const hostile = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    }),
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.string({ unit: "binary", minLength: 290, maxLength: 400 }),
    fc.constantFrom(undefined, Symbol("s"), () => 1, Number.NaN, -0, cyclic()),
    fc.integer({ min: 100, max: 5000 }).map((depth) => {
      let v: unknown = "bottom";
      for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { v };
      return v;
    }),
    fc.string({ unit: "binary", maxLength: 5 }).map((k) => ({ [k]: "\ud800", ok: "\udfff\ud83d" })),
  );

describe("whatever a tool returns or throws", () => {
  const resultOf = async (mode: "return" | "throw" | "reject", value: unknown) => {
    const tool = defineTool({
      name: "t",
      description: "",
      parameters: Schema.Struct({}),
      maxResultChars: 300,
      execute: () => {
        if (mode === "throw") throw value;
        if (mode === "reject") return Promise.reject(value);
        return value as never;
      },
    });
    return tool.call({});
  };

  fcTest.prop([fc.constantFrom("return", "throw", "reject" as const), hostile()], { numRuns: 400 })(
    "becomes a ToolResult that decodes, hashes, fits its size limit and reads back from a journal line",
    async (mode, value) => {
      const result = await resultOf(mode as "return" | "throw" | "reject", value);
      expect(Schema.decodeUnknownSync(ToolResult)(result)).toEqual(result);
      if (mode !== "return") expect(result.ok).toBe(false);
      const size = JSON.stringify(result.ok ? result.content : result.error.message).length;
      expect(size).toBeLessThanOrEqual(300 * 12 + 200);
      // The journal can hold it: stamp it into an event, write the line, validate it back.
      const fresh = new EpisodeChain("ep-tool-prop");
      const started = fresh.stamp({
        type: "episode.started",
        env: { id: "x", version: "1" },
        task: null,
        seed: "s",
        policy: { id: "p", version: 0 },
        tokenizer: "t",
      });
      const returned = fresh.stamp({ type: "tool.returned", call: "c0", result });
      const validator = new StreamValidator("prop.jsonl");
      validator.acceptLine(JSON.stringify(started));
      const back = validator.acceptLine(JSON.stringify(returned));
      expect(canonicalJson(back)).toBe(canonicalJson(returned));
    },
  );
});

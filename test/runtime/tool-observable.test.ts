import * as Data from "effect/Data";
import { EMPTY, map, NEVER, Observable, of, throwError, timer } from "rxjs";
import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import * as r1 from "../../src/index.ts";
import * as kit from "../../src/testing/index.ts";

// A tool's execute may return an RxJS Observable: the call's result is its last value once it completes. It
// used to be refused as "not plain JSON: result is a Observable", and the type refused it too.
class NoSuchParcel extends Data.TaggedError("NoSuchParcel")<{ readonly tracking: string }> {}
const carrier = (source: (tracking: string) => Observable<r1.Json>, timeoutMs = 1_000) =>
  r1.defineTool({
    name: "carrier",
    description: "Where a parcel is.",
    parameters: r1.Schema.Struct({ tracking: r1.Schema.String }),
    timeoutMs,
    execute: ({ tracking }) => source(tracking),
  });

describe("a tool whose execute returns an Observable", () => {
  it("gives its last value when it completes, with latency", async () => {
    const tool = carrier((t) => timer(5).pipe(map(() => `${t} delivered`)));
    expect(await tool.call({ tracking: "t1" })).toEqual({ ok: true, content: "t1 delivered" });
    expect(await carrier(() => of("picked up", "in transit", "delivered")).call({ tracking: "t" })).toEqual({
      ok: true,
      content: "delivered",
    });
  });

  it("fails with the Observable's error (and its tag), or when it completes with no value", async () => {
    const tagged = carrier((tracking) => throwError(() => new NoSuchParcel({ tracking })));
    expect(await tagged.call({ tracking: "t9" })).toEqual({
      ok: false,
      error: { kind: "error", message: "NoSuchParcel", tag: "NoSuchParcel" },
    });
    const empty = await carrier(() => EMPTY).call({ tracking: "t" });
    expect(empty).toEqual({
      ok: false,
      error: {
        kind: "error",
        message: expect.stringMatching(/^carrier's Observable completed without emitting a value/),
      },
    });
  });

  it("times out when it never completes, and is unsubscribed (its teardown runs)", async () => {
    let tornDown = 0;
    const slow = carrier(
      () =>
        new Observable<r1.Json>((subscriber) => {
          subscriber.next("first");
          return () => tornDown++;
        }),
      50,
    );
    expect(await slow.call({ tracking: "t" })).toEqual({
      ok: false,
      error: { kind: "timeout", message: "carrier timed out after 50 ms" },
    });
    expect(tornDown).toBe(1);
    expect(await carrier(() => NEVER, 20).call({ tracking: "t" })).toMatchObject({
      ok: false,
      error: { kind: "timeout" },
    });
  });

  it("is unsubscribed when the episode stops waiting for it", async () => {
    let tornDown = 0;
    const tool = carrier(() => new Observable<r1.Json>(() => () => tornDown++));
    const episode = new AbortController();
    const call = tool.call({ tracking: "t" }, episode.signal);
    episode.abort(new Error("stopped"));
    expect(await call).toEqual({ ok: false, error: { kind: "error", message: "carrier was cancelled: stopped" } });
    expect(tornDown).toBe(1);
  });

  it("a teardown that throws, or a subscribe of another library's shape, fails only the call, not the process", async () => {
    // On a timeout or the episode's end the Observable is unsubscribed inside the signal's listener: a throwing
    // teardown (RxJS's UnsubscriptionError) or a `subscribe` that returns a function escaped it as an uncaught
    // exception, which ends a train or record run.
    const uncaught: unknown[] = [];
    const onUncaught = (cause: unknown) => uncaught.push(cause);
    process.prependListener("uncaughtException", onUncaught);
    try {
      const throwing = carrier(
        () =>
          new Observable<r1.Json>(() => () => {
            throw new Error("teardown failed");
          }),
        20,
      );
      expect(await throwing.call({ tracking: "t" })).toMatchObject({ ok: false, error: { kind: "timeout" } });
      const episode = new AbortController();
      const stopped = throwing.call({ tracking: "t" }, episode.signal);
      episode.abort(new Error("stopped"));
      expect(await stopped).toMatchObject({ ok: false, error: { kind: "error" } });
      let ended = 0;
      const storeLike = r1.defineTool({
        name: "storeLike",
        description: "A subscribe that returns its unsubscribe function.",
        parameters: r1.Schema.Struct({}),
        timeoutMs: 20,
        execute: () => ({ subscribe: () => () => ended++ }) as never,
      });
      expect(await storeLike.call({})).toMatchObject({ ok: false, error: { kind: "timeout" } });
      expect(ended).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });

  it("runs in an episode, and checkCoverage takes a synchronous Observable's value as the tool's own result", async () => {
    const tool = carrier(() => of("delivered"));
    const tools = { carrier: tool };
    type Context = { said: string };
    const machine = setup({
      types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<{ t: string }> },
      actors: r1.toolActors(tools),
    }).createMachine({
      context: { said: "" },
      entry: r1.observe("where is it ?"),
      initial: "waiting",
      states: {
        waiting: {
          on: {
            "agent.act": [
              { guard: ({ event }) => r1.callOf(event.text, tools, "carrier") !== undefined, target: "asking" },
              { target: "done", actions: r1.end("answered", { success: 1 }) },
            ],
          },
        },
        asking: {
          invoke: {
            src: "carrier",
            input: () => ({ tracking: "t1" }),
            onDone: {
              target: "waiting",
              // Shows what the tool gave: an Observable taken for its result would show "[object Object]".
              actions: [
                r1.assign({ said: ({ event }) => (event.output.ok ? `${event.output.content}` : "failed") }),
                r1.observe(({ context }) => context.said),
              ],
            },
          },
        },
        done: { type: "final" },
      },
    });
    const tokenizer = r1.WordTokenizer.fromCorpus(["where is it ? delivered failed carrier t1"]);
    const env = r1.defineEnv({
      id: "observable-tool",
      version: "1",
      description: "A carrier tool that is an Observable.",
      machine,
      tools,
      tokenizer,
      task: () => ({ t: "t1" }),
      policies: {
        ask: () =>
          r1.scriptedPolicy("ask", tokenizer, ({ turn }) => (turn ? "<answer>x</answer>" : "<carrier>t1</carrier>")),
      },
    });
    const episode = await r1.runEpisode({
      env,
      policy: new r1.PolicyActor(env.policies!.ask()),
      journal: new r1.MemoryJournal(),
      seed: "s",
    });
    expect(episode.events.filter((e) => e.type === "env.observed").map((e) => e.text)).toEqual([
      "where is it ?",
      "delivered",
    ]);
    kit.checkCoverage(env, {
      task: { t: "t1" },
      actions: ["<carrier>t1</carrier>", "<answer>x</answer>"],
      allowCycles: true,
    });
    const explored = kit.exploreEnv(env, { task: { t: "t1" }, actions: ["<carrier>t1</carrier>"] });
    expect(explored.paths.map((path) => path.steps.at(-1))).toContain('carrier {"tracking":"t1"} returns "delivered"');
    // One that completes with no value is the tool's own result there with the runtime's message (it said less).
    const empty = r1.defineEnv({ ...env, tools: { carrier: carrier(() => EMPTY) } });
    const live = await r1.runEpisode({
      env: empty,
      policy: new r1.PolicyActor(env.policies!.ask()),
      journal: new r1.MemoryJournal(),
      seed: "s",
    });
    const returned = live.events.find((e) => e.type === "tool.returned");
    expect(returned).toMatchObject({
      result: {
        ok: false,
        error: { message: "carrier's Observable completed without emitting a value (return of(null) for none)" },
      },
    });
    const own = kit
      .exploreEnv(empty, { task: { t: "t1" }, actions: ["<carrier>t1</carrier>"] })
      .paths.flatMap((path) => path.script.toolResults ?? []);
    expect(own).toContainEqual(returned?.type === "tool.returned" ? returned.result : undefined);
  });
});

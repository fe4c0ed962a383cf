import * as Data from "effect/Data";
import fc from "fast-check";
import { of } from "rxjs";
import { describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import * as r1 from "../../src/index.ts";
import {
  CoverageError,
  checkCoverage,
  checkModel,
  checkRewards,
  exploreEnv,
  neverCrashes,
  playEpisode,
} from "../../src/testing/index.ts";
import { createCounterEnv } from "./coverage-fixtures.ts";
import { createSecretEnv, WORDS } from "./fixtures.ts";

const secretActions = ["<check>ant</check>", "<check>bee</check>", "<answer>ant</answer>", "hello"];

describe("path coverage of an environment machine with xstate/graph", () => {
  it("a sound machine: every state node reached, every path ends, every waiting state observed", () => {
    const env = createSecretEnv();
    const report = checkCoverage(env, { task: { secret: "ant" }, actions: secretActions });
    expect(report.unreachable).toEqual([]);
    expect(report.reached).toEqual(["secret.checking", "secret.done", "secret.waiting"]);
    expect(report.problems).toEqual([]);
    expect(report.ends).toBeGreaterThan(0);
    expect(report.paths).toHaveLength(report.states);
  });

  it("every shortest path, played live through the runtime, ends where the graph says", async () => {
    const env = createSecretEnv();
    const report = exploreEnv(env, { task: { secret: "bee" }, actions: secretActions.slice(1) });
    for (const path of report.paths.filter((p) => p.state.ended)) {
      const played = await playEpisode(env, path.script);
      const last = played.events.findLast((e) => e.type === "env.transitioned");
      expect(last?.type === "env.transitioned" && last.state, path.steps.join(" → ")).toEqual(path.state.machine.value);
      expect(played.record.reason).toMatch(/^(answered|turn-limit)$/);
    }
  });

  it("a path's script carries one tool result per call, so it replays the path's results, not the real tool's", async () => {
    // Every call of a state's invoke has the same actor id: the script once kept one result for all of them,
    // so a path that called the tool twice played its second call on the real tool.
    const env = createSecretEnv();
    const report = exploreEnv(env, {
      task: { secret: "bee" },
      actions: ["<check>ant</check>", "<answer>bee</answer>"],
    });
    const twice = report.paths.filter(
      (p) => p.state.inFlight.length === 0 && p.steps.filter((s) => s.startsWith("check ")).length >= 2,
    );
    expect(twice.length).toBeGreaterThan(0);
    for (const path of twice) {
      const calls = path.steps.filter((s) => s.startsWith("check ")).length;
      expect(path.script.toolResults, path.steps.join(" → ")).toHaveLength(calls);
      const played = await playEpisode(env, path.script);
      const results = played.events.flatMap((e) => (e.type === "tool.returned" ? [e.result] : []));
      expect(results, path.steps.join(" → ")).toEqual(path.script.toolResults);
      const observed = played.events.findLast((e) => e.type === "env.observed");
      expect(observed?.type === "env.observed" && observed.text, path.steps.join(" → ")).toBe(path.state.observation);
    }
  });

  it("a synchronous tool that throws: its failure as the runtime journals it, the thrown error's _tag included", async () => {
    class StoreLocked extends Data.TaggedError("StoreLocked")<{ readonly message: string }> {}
    const check = r1.defineTool({
      name: "check",
      description: "Always locked.",
      parameters: r1.Schema.Struct({ word: r1.Schema.String }),
      execute: () => {
        throw new StoreLocked({ message: "the store is locked" });
      },
    });
    const live = await check.call({ word: "ant" });
    expect(live).toEqual({ ok: false, error: { kind: "error", message: "the store is locked", tag: "StoreLocked" } });
    const env = { ...createSecretEnv(), tools: { check } };
    const report = exploreEnv(env, { task: { secret: "bee" }, actions: ["<check>ant</check>"] });
    const own = report.paths
      .flatMap((p) => p.script.toolResults)
      .filter((r) => r?.ok === false && r.error.kind === "error");
    expect(own.length).toBeGreaterThan(0);
    // The tool's own result (the default's first sample) is what a live call journals, tag and all.
    expect(own).toContainEqual(live);
  });

  it("a call whose arguments do not fit its tool fails with the message a live call gives", async () => {
    // The machine's invoke input gives a number where the tool takes a string: coverage said only "arguments do
    // not decode", so an observation of the message was not the one a live episode shows.
    const check = r1.defineTool({
      name: "check",
      description: "Checks a word.",
      parameters: r1.Schema.Struct({ word: r1.Schema.String }),
      execute: ({ word }) => word.length,
    });
    const machine = setup({
      types: { events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<{ n: number }> },
      actors: r1.toolActors({ check }),
    }).createMachine({
      entry: r1.observe("go"),
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": { target: "checking" } } },
        checking: {
          invoke: {
            src: "check",
            input: () => ({ word: 7 }),
            onDone: {
              target: "done",
              actions: r1.end(({ event }) => (event.output.ok ? "ok" : `failed: ${event.output.error.message}`)),
            },
          },
        },
        done: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "bad-input",
      version: "1",
      description: "Calls its tool with arguments that do not fit.",
      machine,
      tools: { check },
      tokenizer: r1.WordTokenizer.fromCorpus(["go"]),
      task: () => ({ n: 1 }),
    });
    const live = await check.call({ word: 7 } as never);
    expect(live).toMatchObject({ ok: false, error: { kind: "invalid-args" } });
    const report = exploreEnv(env, { task: { n: 1 }, actions: ["go"] });
    const own = report.paths.flatMap((p) => p.script.toolResults).filter((r): r is r1.ToolResult => r != null);
    expect(own).toContainEqual(live);
    expect(own.filter((r) => !r.ok && r.error.kind === "invalid-args")).toEqual([live]);
  });

  it("a call whose arguments are not plain JSON fails as a live call does, in the exploration and the path played live", async () => {
    // The machine's invoke input holds a Date (a Map, a bigint, a cycle): a live call and checkCoverage both
    // passed it through JSON, so the tool got the date's text ("1970-01-01T00:00:00.000Z"), a Map got {}, and a
    // bigint or a cycle threw (live, the episode then aborted as waiting for nothing). Now the call does not run:
    // the machine gets an invalid-args failure naming where, journaled with the arguments JSON makes of them.
    let ran = 0;
    const check = r1.defineTool({
      name: "check",
      description: "Checks a word.",
      parameters: r1.Schema.Struct({ word: r1.Schema.Unknown }),
      execute: ({ word }) => {
        ran += 1;
        return JSON.stringify(word) ?? null;
      },
    });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, string, unknown][] = [
      [new Date(0), "arguments.word is a Date", { word: "1970-01-01T00:00:00.000Z" }],
      [new Map([["a", 1]]), "arguments.word is a Map", { word: {} }],
      // JSON can write none of these: journaled as null.
      [1n, "arguments.word is a bigint", null],
      [cyclic, "arguments.word.self refers back to arguments.word (a circular reference)", null],
    ];
    for (const [word, where, journaled] of cases) {
      const machine = setup({
        types: { events: {} as r1.AgentActEvent, input: {} as r1.EnvInput<{ n: number }> },
        actors: r1.toolActors({ check }),
      }).createMachine({
        entry: r1.observe("go"),
        initial: "waiting",
        states: {
          waiting: { on: { "agent.act": { target: "checking" } } },
          checking: {
            invoke: {
              src: "check",
              input: () => ({ word: word as never }),
              onDone: {
                target: "done",
                actions: r1.end(({ event }) => (event.output.ok ? "ok" : `failed: ${event.output.error.message}`)),
              },
            },
          },
          done: { type: "final" },
        },
      });
      const env = r1.defineEnv({
        id: "not-json-input",
        version: "1",
        description: "Calls its tool with arguments JSON would change.",
        machine,
        tools: { check },
        tokenizer: r1.WordTokenizer.fromCorpus(["go"]),
        task: () => ({ n: 1 }),
      });
      const refused = {
        ok: false,
        error: {
          kind: "invalid-args",
          message: `check's arguments are not plain JSON: ${where}; a call's arguments are journaled as JSON, so give plain data (e.g. date.toISOString(), Object.fromEntries(map))`,
        },
      };
      const live = await playEpisode(env, { seed: "s", actions: ["go"] });
      expect(live.record.reason, where).toBe(`failed: ${refused.error.message}`);
      expect(
        live.events.flatMap((e) => (e.type === "tool.called" ? [e.args] : [])),
        where,
      ).toEqual([journaled]);
      expect(r1.replayEpisode(live.events, env, { verify: true }).reason, where).toBe(live.record.reason);
      // The exploration gives the machine that failure only, and its path plays live to the same end.
      const report = exploreEnv(env, { task: { n: 1 }, actions: ["go"] });
      expect(report.problems, where).toEqual([]);
      const ended = report.paths.filter((p) => p.state.ended);
      expect(
        ended.map((p) => p.steps.at(-1)),
        where,
      ).toEqual([`check ${JSON.stringify(journaled)} fails: invalid-args`]);
      // The refused call never reaches its tool, so the script injects nothing for it (playEpisode counts calls that do).
      expect(ended[0].script.toolResults, where).toEqual([]);
      expect((await playEpisode(env, ended[0].script)).record.reason, where).toBe(live.record.reason);
    }
    expect(ran).toBe(0);
  });

  it("the timeout it explores says what a live timeout says", async () => {
    const slow = r1.defineTool({
      name: "check",
      description: "Never answers in time.",
      parameters: r1.Schema.Struct({ word: r1.Schema.String }),
      timeoutMs: 20,
      execute: () => new Promise(() => {}),
    });
    // A machine that keeps the failure's message (to observe it): each message is a state of its own.
    const machine = setup({
      types: {
        context: {} as { said: string },
        events: {} as r1.AgentActEvent,
        input: {} as r1.EnvInput<{ n: number }>,
      },
      actors: r1.toolActors({ check: slow }),
    }).createMachine({
      context: { said: "" },
      entry: r1.observe("go"),
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": { target: "checking" } } },
        checking: {
          invoke: {
            src: "check",
            input: () => ({ word: "ant" }),
            onDone: {
              target: "done",
              actions: [
                assign({ said: ({ event }) => (event.output.ok ? "" : event.output.error.message) }),
                r1.end("checked"),
              ],
            },
          },
        },
        done: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "slow",
      version: "1",
      description: "Calls a tool that times out.",
      machine,
      tools: { check: slow },
      tokenizer: r1.WordTokenizer.fromCorpus(["go"]),
      task: () => ({ n: 1 }),
    });
    const live = await slow.call({ word: "ant" });
    expect(live).toEqual({ ok: false, error: { kind: "timeout", message: "check timed out after 20 ms" } });
    const report = exploreEnv(env, { task: { n: 1 }, actions: ["go"] });
    const timeouts = report.paths
      .flatMap((p) => p.script.toolResults)
      .filter((r): r is r1.ToolResult => r != null && !r.ok && r.error.kind === "timeout");
    expect(timeouts).toEqual([live]);
  });

  it("a synchronous tool's own result is shaped as a live call shapes it: not plain JSON fails, a long one is cut", async () => {
    // A Date, NaN or a Map fails a live call; JSON.stringify would have made them a string, null and {}, so the
    // exploration followed a success the machine never gets (and never showed the tool's bug).
    const returning = (content: unknown, name = "check") =>
      r1.defineTool({
        name,
        description: "Returns what it is given.",
        parameters: r1.Schema.Struct({ word: r1.Schema.String }),
        maxResultChars: 50,
        execute: () => content as never,
      });
    const cases: [string, r1.Tool][] = [
      ["a Date", returning({ when: new Date(0) })],
      ["NaN", returning([1, Number.NaN])],
      ["a Map", returning(new Map([["a", 1]]))],
      ["a long string", returning("x".repeat(200))],
      ["an Observable of a Date", returning(of(new Date(0)))],
    ];
    for (const [what, check] of cases) {
      const live = await check.call({ word: "ant" });
      const env = { ...createSecretEnv(), tools: { check } };
      const report = exploreEnv(env, { task: { secret: "bee" }, actions: ["<check>ant</check>"] });
      const own = report.paths.flatMap((p) => p.script.toolResults).filter((r): r is r1.ToolResult => r != null);
      expect(own, what).toContainEqual(live);
      // No other success: the exploration gives the machine only what a live call would.
      const successes = new Set(own.filter((r) => r.ok).map((r) => JSON.stringify(r)));
      expect([...successes], what).toEqual(live.ok ? [JSON.stringify(live)] : []);
    }
  });

  it("a loop without a turn limit is an endless path, with the steps that reach it", () => {
    const env = createSecretEnv({}, { loops: true });
    const failure = (() => {
      try {
        checkCoverage(env, { task: { secret: "ant" }, actions: ["hello", "<answer>ant</answer>"] });
      } catch (cause) {
        return cause;
      }
    })();
    expect(failure).toBeInstanceOf(CoverageError);
    const report = (failure as CoverageError).report;
    // (checking is unreachable too: these sample actions never call the tool)
    expect(report.problems.map((p) => p.kind)).toEqual(["unreachable", "endless"]);
    expect((failure as Error).message).toMatch(
      /^environment secret: 2 coverage problem\(s\) in \d+ states \(\d+ transitions\):\n/,
    );
    expect((failure as Error).message).toContain(
      '  - endless: "waiting": a path loops back to this state, so an episode can go on forever',
    );
    // The steps around the loop are named, not only the way to it.
    expect((failure as Error).message).toMatch(/; the loop: act "hello"\n/);
  });

  it("finds unreachable states, silent states, missing values in observations and dead ends", () => {
    const machine = setup({
      types: { events: {} as r1.AgentActEvent, input: {} as r1.EnvInput },
    }).createMachine({
      id: "broken",
      initial: "asking",
      entry: r1.observe("go"),
      states: {
        asking: {
          on: {
            "agent.act": [
              { guard: ({ event }) => event.text === "stall", target: "stalled" },
              {
                guard: ({ event }) => event.text === "oops",
                target: "asking",
                reenter: true,
                actions: r1.observe(({ context }) => `value ${(context as { x?: number }).x}`),
              },
              { guard: ({ event }) => event.text === "stuck", target: "stuck", actions: r1.observe("you are stuck") },
              { target: "done", actions: r1.end("answered") },
            ],
          },
        },
        stalled: {},
        stuck: { on: { "agent.act": { target: "stuck", actions: r1.observe("still stuck") } } },
        never: {},
        done: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "broken",
      version: "1",
      description: "broken on purpose",
      machine,
      tools: {},
      tokenizer: new r1.WordTokenizer(["go"]),
      task: () => null,
    });
    const report = exploreEnv(env, { actions: ["stall", "oops", "stuck", "end"], allowCycles: true });
    const byKind = (kind: string) => report.problems.filter((p) => p.kind === kind);
    expect(byKind("unreachable").map((p) => p.detail)).toEqual([
      "state broken.never is never reached with these actions and tool results (exploration stops at the problems above: fix those first)",
    ]);
    expect(byKind("silent")).toEqual([
      {
        kind: "silent",
        // A state with no transition at all, not final: a forgotten type: "final", said so.
        detail:
          '"stalled": the machine waits for nothing: no observe(), no end(), no tool call in flight ("stalled" has no transition and is not final: make it a final state, type: "final", or end() the episode on the transition into it)',
        path: ['act "stall"'],
      },
    ]);
    expect(byKind("invalid")[0]).toMatchObject({
      detail: '"asking": the observation "value undefined" shows a missing value',
      path: ['act "oops"'],
    });
    expect(byKind("dead-end").map((p) => p.detail)).toContain('"stuck": no path from here ends the episode');
    expect(byKind("dead-end")[0].path?.[0]).toBe('act "stuck"');
  });

  it("an observation showing a missing value glued to a word is reported, as one set apart is", () => {
    const machine = setup({ types: { events: {} as r1.AgentActEvent } }).createMachine({
      entry: r1.observe("go"),
      initial: "asking",
      states: {
        asking: {
          on: {
            "agent.act": [
              // `you hold ${item}${suffix}` with suffix undefined, `${n}${unit}` with n NaN
              {
                guard: ({ event }) => event.text === "take",
                target: "took",
                actions: r1.observe("you hold keyundefined"),
              },
              { guard: ({ event }) => event.text === "price", target: "priced", actions: r1.observe("costs NaNkg") },
              { target: "fine", actions: r1.observe("a Canaanite banana") }, // no missing value in these words
            ],
          },
        },
        took: { on: { "agent.act": { target: "done", actions: r1.end("done") } } },
        priced: { on: { "agent.act": { target: "done", actions: r1.end("done") } } },
        fine: { on: { "agent.act": { target: "done", actions: r1.end("done") } } },
        done: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "glued",
      version: "1",
      description: "missing values glued to words",
      machine,
      tools: {},
      tokenizer: new r1.WordTokenizer(["go"]),
      task: () => null,
    });
    const report = exploreEnv(env, { actions: ["take", "price", "other"] });
    expect(report.problems.filter((p) => p.kind === "invalid").map((p) => p.detail)).toEqual([
      '"took": the observation "you hold keyundefined" shows a missing value',
      '"priced": the observation "costs NaNkg" shows a missing value',
    ]);
  });

  it("a suspiciousObservation with the g flag reports every observation it matches, not every second one", () => {
    const machine = setup({ types: { events: {} as r1.AgentActEvent } }).createMachine({
      entry: r1.observe("go"),
      initial: "asking",
      states: {
        asking: {
          on: {
            "agent.act": [
              { guard: ({ event }) => event.text === "price", target: "price", actions: r1.observe("price undefined") },
              { target: "qty", actions: r1.observe("qty undefined") },
            ],
          },
        },
        price: { on: { "agent.act": { target: "done", actions: r1.end("done") } } },
        qty: { on: { "agent.act": { target: "done", actions: r1.end("done") } } },
        done: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "twice",
      version: "1",
      description: "two missing values",
      machine,
      tools: {},
      tokenizer: new r1.WordTokenizer(["go"]),
      task: () => null,
    });
    const suspiciousObservation = /undefined/g;
    const report = exploreEnv(env, { actions: ["price", "qty"], suspiciousObservation });
    expect(report.problems.filter((p) => p.kind === "invalid").map((p) => p.detail)).toEqual([
      '"price": the observation "price undefined" shows a missing value',
      '"qty": the observation "qty undefined" shows a missing value',
    ]);
    expect(suspiciousObservation.lastIndex).toBe(0); // the option's own object is left as it was
  });

  it("a reward that is not a finite number names the line of its reward(), and the state before is no dead end", () => {
    const machine = setup({ types: { events: {} as r1.AgentActEvent } }).createMachine({
      entry: r1.observe("go"),
      initial: "w",
      states: {
        w: { on: { "agent.act": { target: "checking", actions: r1.observe("checking") } } },
        // The NaN comes with the step out of "checking"; exploration stops there, so "checking" cannot be shown to
        // end: it is not reported as a dead end on top of the reward.
        checking: {
          on: {
            "agent.act": {
              target: "d",
              actions: [r1.reward("process", () => Number.NaN, "checked"), r1.observe("checked")],
            },
          },
        },
        d: { on: { "agent.act": { target: "e", actions: r1.end("done") } } },
        e: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "nan",
      version: "1",
      description: "a NaN process reward",
      machine,
      tools: {},
      tokenizer: new r1.WordTokenizer(["go"]),
      task: () => null,
    });
    const { problems } = exploreEnv(env, { actions: ["go"] });
    // "e" is unreached as exploration stops at the NaN (the report says so); no dead end is added.
    expect(problems.map((p) => p.kind)).toEqual(["invalid", "unreachable"]);
    expect(problems[0].detail).toMatch(
      /^"d": reward "checked" is NaN, not a finite number \(reward\(\) at .*test\/testing\/coverage\.test\.ts:\d+:\d+\)$/,
    );
    expect(problems[0].path).toEqual(['act "go"', 'act "go"']);
  });

  it("a reward whose reason function gives no string is invalid, as it ends a live episode", () => {
    const machine = setup({ types: { events: {} as r1.AgentActEvent } }).createMachine({
      entry: r1.observe("go"),
      initial: "w",
      states: {
        w: {
          on: { "agent.act": { target: "d", actions: [r1.reward("outcome", 1, () => 7 as never), r1.end("done")] } },
        },
        d: { type: "final" },
      },
    });
    const env = r1.defineEnv({
      id: "reasons",
      version: "1",
      description: "a reward reason of a number",
      machine,
      tools: {},
      tokenizer: new r1.WordTokenizer(["go"]),
      task: () => null,
    });
    const invalid = exploreEnv(env, { actions: ["go"] }).problems.filter((p) => p.kind === "invalid");
    expect(invalid.map((p) => [p.detail, p.path])).toEqual([
      ['"d": reward("outcome", 1, reason): its reason is 7; give it as a string', ['act "go"']],
    ]);
  });

  it("a context that is not plain JSON, and an end() reason the runtime refuses, are invalid, as they end a live episode", async () => {
    // exploreEnv explored past both (a Date in the context hashed as its text; end() of a reason function giving
    // "aborted: ..." or a number), where a live episode ends as an environment error.
    const cases: [string, (r: { context: { at: unknown } }) => unknown, RegExp][] = [
      ["context", () => "fine", /^"d": context\.at is a Date: the machine's context must be plain JSON/],
      [
        "aborted",
        () => "aborted: gave up",
        /^"d": end\(\): the reason "aborted: gave up" \(a string\) starts with "aborted:"/,
      ],
      ["number", () => 404, /^"d": end\(\): its reason is 404; give it as a string$/],
    ];
    for (const [name, reason, said] of cases) {
      const machine = setup({
        types: { context: {} as { at: unknown }, events: {} as r1.AgentActEvent },
      }).createMachine({
        context: { at: null },
        entry: r1.observe("go"),
        initial: "w",
        states: {
          w: {
            on: {
              "agent.act": {
                target: "d",
                actions: [
                  assign({ at: () => (name === "context" ? new Date(0) : null) }),
                  r1.end(reason as () => string),
                ],
              },
            },
          },
          d: { type: "final" },
        },
      });
      const env = r1.defineEnv({
        id: "ends",
        version: "1",
        description: "ends in a way the runtime refuses",
        machine,
        tools: {},
        tokenizer: new r1.WordTokenizer(["go"]),
        task: () => null,
      });
      const live = await playEpisode(env, { seed: "s", actions: ["go"] });
      expect(live.record.reason, name).toMatch(/^aborted: environment error: ends: /);
      const invalid = exploreEnv(env, { actions: ["go"] }).problems.filter((p) => p.kind === "invalid");
      expect(
        invalid.map((p) => p.detail),
        name,
      ).toEqual([expect.stringMatching(said)]);
    }
  });

  it("a guard that throws is a problem naming the line that threw, as a live run's record names it", () => {
    const report = exploreEnv(createSecretEnv({}, { crashOn: /boom/ }), { task: { secret: "ant" }, actions: ["boom"] });
    const threw = report.problems.filter((p) => p.detail.includes("cannot read this action"));
    expect(threw).toHaveLength(1);
    expect(threw[0].detail).toMatch(
      /: the machine threw: [\s\S]*cannot read this action \(thrown at test\/testing\/fixtures\.ts:\d+:\d+\)$/,
    );
  });

  it("options without sample actions, or with a misspelt key, are named for the function called", () => {
    const env = createSecretEnv();
    expect(() => checkCoverage(env, { task: { secret: "ant" } } as never)).toThrow(
      "checkCoverage: options.actions must be the sample actions to try in each state (an array of texts, or (state) => texts), got none",
    );
    expect(() => checkCoverage(env, { actions: secretActions, limt: 10 } as never)).toThrow(/^checkCoverage: .*limt/);
    expect(() => exploreEnv(env, { actions: "hello" } as never)).toThrow(/^exploreEnv: options\.actions .*got string$/);
  });

  it("sample actions that are not a list of texts, given or returned by actions(state), are named with the state", () => {
    // They failed deep in the exploration: "texts.map is not a function", "text.matchAll is not a function".
    const env = createSecretEnv();
    const task = { secret: "ant" };
    const cases: [unknown, string][] = [
      [["hello", 5], "exploreEnv: options.actions is a list whose item 1 is 5, not an action text"],
      [
        () => "<check>ant</check>",
        'exploreEnv: options.actions(state) returned, in state "waiting", "<check>ant</check>" (a string); it must be a list of action texts',
      ],
      [
        () => undefined,
        'exploreEnv: options.actions(state) returned, in state "waiting", undefined; it must be a list',
      ],
      [
        () => [null],
        'options.actions(state) returned, in state "waiting", a list whose item 0 is null, not an action text',
      ],
    ];
    for (const [actions, said] of cases) expect(() => exploreEnv(env, { task, actions } as never)).toThrow(said);
  });

  it("the exploration's size is bounded and the message says how to shrink it", () => {
    const env = createSecretEnv();
    expect(() =>
      exploreEnv(env, {
        task: { secret: "ant" },
        actions: [...WORDS.map((w) => `<check>${w}</check>`), "x"],
        limit: 50,
      }),
    ).toThrow(/more than 50 states to explore: give fewer sample actions or tool results/);
  });

  it("reports a problem once per kind and state node, with the shortest path and how many paths reach it", () => {
    // "limbo" waits for nothing and "stuck" never ends; each is reached at turns 0, 1 and 2: 3 states apiece.
    const env = createCounterEnv({ turnLimit: 3, traps: true });
    const failure = (() => {
      try {
        checkCoverage(env, { actions: ["tick", "limbo", "stuck", "end"], allowCycles: true });
      } catch (cause) {
        return cause as CoverageError;
      }
    })();
    expect(failure).toBeInstanceOf(CoverageError);
    expect(failure!.report.problems).toEqual([
      {
        kind: "silent",
        detail:
          '"limbo": the machine waits for nothing: no observe(), no end(), no tool call in flight ("limbo" has no transition and is not final: make it a final state, type: "final", or end() the episode on the transition into it)',
        path: ['act "limbo"'],
        paths: 3,
      },
      {
        kind: "dead-end",
        detail: '"stuck": no path from here ends the episode',
        path: ['act "stuck"'],
        paths: 3,
      },
    ]);
    expect(failure!.message).toMatch(
      /^environment counter: 2 coverage problem\(s\) in \d+ states \(\d+ transitions\):\n/,
    );
    expect(failure!.message).toContain(
      '  - silent: "limbo": the machine waits for nothing: no observe(), no end(), no tool call in flight ("limbo" has no transition and is not final: make it a final state, type: "final", or end() the episode on the transition into it) (reached by 3 paths; the shortest is shown)\n      path: act "limbo"\n',
    );
    expect(failure!.message).not.toMatch(/\.\.\. and \d+ more/);
  });
});

describe("an episode that never ends while its context grows", () => {
  const thrown = (run: () => unknown): Error => {
    try {
      run();
    } catch (cause) {
      return cause as Error;
    }
    return expect.fail("the exploration should have stopped");
  };

  it("a count that goes up every turn: the state node, the field and the fix, found after 200 states", () => {
    const started = performance.now();
    const failure = thrown(() => checkCoverage(createCounterEnv(), { actions: ["tick", "end"] }));
    // It took 14-64 s when it explored to the default limit; about 0.5 s now, 5.5 s on shared cores at load 9.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(failure).toBeInstanceOf(RangeError);
    expect(failure.message).toBe(
      [
        'counter: endless: "waiting": the episode likely never ends: a loop comes back to this state with context.turns grown each time (0 → 1 → … → 1000 in 1000 rounds, none of which ends the episode), so every round is a new state and the exploration would never finish (stopped after 200 states)',
        "  path: (the initial state)",
        '  loop: act "tick"',
        "End the episode at a turn limit (count turns in the context and end() when they reach it), or `serialize` the states without context.turns: the loop is then a cycle, which `allowCycles` accepts.",
      ].join("\n"),
    );
  });

  it("following the advice: serialize the states without the growing field, and accept the loop", () => {
    const report = exploreEnv(createCounterEnv(), {
      actions: ["tick", "end"],
      allowCycles: true,
      // README's example
      serialize: (s) =>
        JSON.stringify([
          s.machine.value,
          { ...s.machine.context, turns: undefined },
          s.awaiting,
          s.ended,
          s.inFlight,
          s.problem,
        ]),
    });
    expect(report.problems.map((p) => p.kind)).toEqual(["unreachable", "unreachable"]);
    expect(report.reached).toEqual(["counter.done", "counter.waiting"]);
  });

  it("a list that gets longer every turn, through tool calls too", () => {
    const seen = thrown(() => exploreEnv(createCounterEnv({ grows: "seen" }), { actions: ["tick", "tock", "end"] }));
    expect(seen.message.split("\n")[0]).toBe(
      'counter: endless: "waiting": the episode likely never ends: a loop comes back to this state with context.seen grown each time (0 → 1 → … → 1000 items in 1000 rounds, none of which ends the episode), so every round is a new state and the exploration would never finish (stopped after 200 states)',
    );
    // secret without its turn limit: a check goes waiting → checking → waiting, and `checked` grows each time.
    const secret = thrown(() =>
      exploreEnv(createSecretEnv({}, { loops: true }), {
        task: { secret: "ant" },
        actions: ["<check>ant</check>", "<check>bee</check>", "hello", "<answer>ant</answer>"],
      }),
    );
    expect(secret.message).toContain(
      '"waiting": the episode likely never ends: a loop comes back to this state with context.turn and context.checked grown each time (turn: 0 → 1 → … → 1000, checked: 0 → 1 → … → 1000 items, in 1000 rounds, none of which ends the episode)',
    );
    expect(secret.message).toContain('\n  loop: act "<check>ant</check>" → check {"word":"ant"} returns "ant"\n');
    expect(secret.message).toContain("`serialize` the states without context.turn and context.checked");
    // A serialize of one's own that leaves out `turn` but keeps `checked`: the advice is about that serialize.
    const own = thrown(() =>
      exploreEnv(createSecretEnv({}, { loops: true }), {
        task: { secret: "ant" },
        actions: ["<check>ant</check>", "<check>bee</check>", "hello", "<answer>ant</answer>"],
        serialize: (s) =>
          JSON.stringify([s.machine.value, { ...s.machine.context, turn: undefined }, s.awaiting, s.inFlight]),
      }),
    );
    expect(own.message).toContain("make your `serialize` map states that differ only in");
    expect(own.message).not.toContain("`serialize` the states without");
  });

  it("a context that grows up to a turn limit is explored, not reported", () => {
    const report = exploreEnv(createCounterEnv({ turnLimit: 300 }), { actions: ["tick", "end"] });
    // (its traps are never reached: these sample actions do not lead there)
    expect(report.problems.map((p) => p.kind)).toEqual(["unreachable", "unreachable"]);
    expect(report.ends).toBeGreaterThan(300);
  });

  it("past the limit, the message says which context fields vary most among the states explored", () => {
    const env = createCounterEnv({ turnLimit: 8, grows: "both" });
    const failure = thrown(() => exploreEnv(env, { actions: ["tick", "tock", "end"], limit: 200 }));
    expect(failure).toBeInstanceOf(RangeError);
    expect(failure.message).toMatch(
      /^counter: more than 200 states to explore: give fewer sample actions or tool results, raise `limit` \(now 200\), or `serialize` fewer details of the context\. Among the states explored, the context fields that vary most: seen \(\d+ values\), turns \(\d+ values\)\.$/,
    );
  });
});

describe("an action function that changes the context in place", () => {
  type Context = { turns: number; seen: string[]; meta: { last: string } };
  /** Each action observes and counts a turn with assign, then runs `action` (an action function), then "end" ends. */
  const envWith = (action: (context: Context, text: string) => void) =>
    r1.defineEnv({
      id: "in-place",
      version: "1",
      description: "an action function",
      tools: {},
      tokenizer: new r1.WordTokenizer(["go", "end"]),
      task: () => null,
      machine: setup({
        types: { context: {} as Context, events: {} as r1.AgentActEvent, input: {} as r1.EnvInput },
      }).createMachine({
        context: { turns: 0, seen: [], meta: { last: "" } },
        entry: r1.observe("go"),
        initial: "waiting",
        states: {
          waiting: {
            on: {
              "agent.act": [
                { guard: ({ event }) => event.text === "end", target: "done", actions: r1.end("answered") },
                {
                  guard: ({ context }) => context.turns < 2,
                  actions: [
                    assign({ turns: ({ context }) => context.turns + 1 }),
                    ({ context, event }) => action(context, event.text),
                    r1.observe("again"),
                  ],
                },
                { target: "done", actions: r1.end("turn-limit") },
              ],
            },
          },
          done: { type: "final" },
        },
      }),
    });
  /** Each changes one field in place: a list, a number, a nested object, or a key the context did not have. */
  const mutations: Record<string, { field: string; run: (c: Context, text: string, by: number) => void }> = {
    push: { field: "seen", run: (c, text) => void c.seen.push(text) },
    count: {
      field: "turns",
      run: (c, _text, by) => {
        c.turns += by;
      },
    },
    nested: {
      field: "meta",
      run: (c, text) => {
        c.meta.last = `${text}!`;
      },
    },
    add: { field: "extra", run: (c, _text, by) => void Object.assign(c, { extra: by }) },
  };

  it("is reported as invalid, naming the field it changes, whichever field and however deep", () => {
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(mutations)), fc.integer({ min: 1, max: 1000 }), (which, by) => {
        const { field, run } = mutations[which];
        const report = exploreEnv(
          envWith((c, text) => run(c, text, by)),
          { actions: ["go", "end"] },
        );
        const invalid = report.problems.filter((p) => p.kind === "invalid");
        expect(invalid).toHaveLength(1);
        expect(invalid[0].detail).toMatch(
          new RegExp(
            `^"waiting": the action "\\(anonymous\\)" changes the context in place \\(${field}: .* -> .*\\): the live episode sees that change, replay and exploreEnv do not .*assign`,
          ),
        );
        expect(invalid[0].path).toEqual(['act "go"']);
        // Judged on a copy: the explored states keep the context the pure transitions give.
        expect(report.paths.every((p) => p.state.machine.context.seen.length === 0)).toBe(true);
      }),
      { numRuns: 12 },
    );
  });

  it("an action function that reads the context, or does nothing, is not reported", () => {
    const reads: string[] = [];
    const report = checkCoverage(
      envWith((c) => void reads.push(c.seen.join())),
      { actions: ["go", "end"] },
    );
    expect(report.problems).toEqual([]);
    expect(report.unreachable).toEqual([]);
    expect(reads.length).toBeGreaterThan(0);
  });
});

describe("a transition that is not a pure function of the state and the event", () => {
  // The user's mistake: a world that moves by Math.random (here a module-level counter, so that every
  // run differs). Replay would not re-derive it; exploring it, each state's transition is run twice.
  const envWith = (impure: "context" | "observation") => {
    let draws = 0;
    return r1.defineEnv({
      id: "impure",
      version: "1",
      description: "a world that moves by a draw outside the machine",
      tools: {},
      tokenizer: new r1.WordTokenizer(["go", "end", "moved", "0", "1", "2"]),
      task: () => null,
      machine: setup({
        types: {
          context: {} as { turns: number; spot: number },
          events: {} as r1.AgentActEvent,
          input: {} as r1.EnvInput,
        },
      }).createMachine({
        context: { turns: 0, spot: 0 },
        entry: r1.observe("go"),
        initial: "waiting",
        states: {
          waiting: {
            on: {
              "agent.act": [
                { guard: ({ context }) => context.turns >= 1, target: "done", actions: r1.end("turn-limit") },
                {
                  target: "waiting",
                  reenter: true,
                  actions: [
                    assign({
                      turns: ({ context }) => context.turns + 1,
                      spot: () => (impure === "context" ? ++draws : 0),
                    }),
                    r1.observe(() => (impure === "observation" ? `moved ${++draws}` : "moved")),
                  ],
                },
              ],
            },
          },
          done: { type: "final" },
        },
      }),
    });
  };
  it("is reported, naming the context field that came out otherwise", () => {
    const report = exploreEnv(envWith("context"), { task: null, actions: ["go"] });
    const impure = report.problems.filter((p) => /not a pure function/.test(p.detail));
    expect(impure).toHaveLength(1);
    expect(impure[0]?.kind).toBe("invalid");
    expect(impure[0]?.detail).toMatch(/run twice, it gave context\.spot \d+, then \d+; .*Math\.random/);
    expect(() => checkCoverage(envWith("context"), { task: null, actions: ["go"] })).toThrow(/not a pure function/);
  });
  it("is reported when only what it emits differs (an observation)", () => {
    const report = exploreEnv(envWith("observation"), { task: null, actions: ["go"] });
    expect(report.problems.map((p) => p.detail).join("\n")).toMatch(
      /run twice, it gave the emitted .*moved \d+.*, then/,
    );
  });
});

describe("injected tool results are checked as the runtime shapes a result", () => {
  // Fed to the machine as given, `{ ok: true }` explored states no live episode reaches (an observation of
  // "undefined") and reported them as the environment's own problems.
  it("refuses an answer that is not a tool result, naming the call, the item and what is wrong", async () => {
    const weather = (await import("../../actors/weather/env.ts")).default;
    const options = { task: { a: "oslo", b: "rome" }, actions: ["<weather>oslo</weather>", "<answer>rome</answer>"] };
    for (const [results, problem] of [
      [[{ ok: true }], /item 0 is not a tool result \(Missing key at \["content"\]\)/],
      [
        [
          { ok: true, content: 4 },
          { ok: true, content: Number.NaN },
        ],
        /item 1 is not a tool result \(Expected JSON value/,
      ],
      [
        [{ ok: false, error: { kind: "crash", message: "x" } }],
        /item 0 is not a tool result \(Expected "error" \| "timeout" \| "invalid-args"/,
      ],
      [[{ ok: true, content: 4, extra: 1 }], /item 0 is not a tool result \(.*excess.*\["extra"\]\)/],
      [{ ok: true, content: 4 }, /returned an object; it must return a list of tool results/],
    ] as const)
      expect(() => exploreEnv(weather, { ...options, toolResults: () => results as never })).toThrow(
        new RegExp(`^exploreEnv: options\\.toolResults\\("weather", \\{"city":"oslo"\\}\\) ${problem.source}`),
      );
    // checkRewards' and checkModel's injected results, and a script's, are refused alike, before anything
    // runs: a NaN content aborted the episode as "the environment wrote an event the journal cannot hold".
    const nan = fc.constant({ ok: true, content: Number.NaN }) as never;
    const said =
      /generated \{ ok: true, content: NaN \}, which is not a tool result \(Expected JSON value at \["content"\]\)/;
    await expect(checkRewards(weather, { toolResults: nan, invariants: [neverCrashes()], numRuns: 5 })).rejects.toThrow(
      new RegExp(`^option toolResults ${said.source}.*, or null for the real tool's result$`),
    );
    const model = { init: () => ({}), opening: () => "", act: () => ({ state: {} }) };
    await expect(checkModel(weather, { model, toolFaults: nan, numRuns: 5 })).rejects.toThrow(
      new RegExp(`^option toolFaults ${said.source}`),
    );
    await expect(
      playEpisode(weather, {
        seed: "s",
        actions: ["<weather>oslo</weather>"],
        toolResults: [null, { ok: true } as never],
      }),
    ).rejects.toThrow(/^playEpisode: script\.toolResults\[1\] is not a tool result \(Missing key at \["content"\]\)/);
    // Well-formed results explore as before.
    const report = exploreEnv(weather, { ...options, toolResults: () => [{ ok: true, content: 4 }] });
    expect(report.problems).toEqual([]);
  });
});

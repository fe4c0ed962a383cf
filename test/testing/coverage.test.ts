import { describe, expect, it } from "vitest";
import { setup } from "xstate";
import * as r1 from "../../src/index.ts";
import { CoverageError, checkCoverage, exploreEnv, playEpisode } from "../../src/testing/index.ts";
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
        detail: '"stalled": the machine waits for nothing: no observe(), no end(), no tool call in flight',
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
});

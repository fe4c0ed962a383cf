/**
 * Episodes with nothing for RL to learn from are left out of the update, not trained on: an aborted one
 * (its environment threw, here on a NaN reward: no return the environment stands by) and one that ended
 * before the policy acted (no action token, and a return no action earned). Before, the first was compared
 * with its group as if it had returned 0, and a batch of the second crashed the run with "training rows
 * need at least two tokens" (so did a batch whose every episode aborted, before its EpisodesAbortedError).
 * An episode the runtime's turn limit stopped is trained on, also in a batch of nothing else (which stopped
 * the run with an EpisodesAbortedError before).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { assign, setup } from "xstate";
import { defineEnv, type EnvInput, end, observe, reward, WordTokenizer } from "../../src/index.ts";
import { ESTIMATORS, type Estimator, initBackend, train, trainConfigFor } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

interface Task {
  /**
   * What the episode does: "nan" rewards NaN after the first action, "entry" ends before it, "ok" rewards 1,
   * "silent" never observes, "endless" never ends (the runtime's turn limit stops it).
   */
  readonly kind: "ok" | "nan" | "entry" | "silent" | "endless";
}

/** Task i of an update is `kinds[i % kinds.length]`. */
const envOf = (id: string, kinds: readonly Task["kind"][]) => {
  const machine = setup({
    types: { context: {} as { task: Task; turns: number }, input: {} as EnvInput<Task> },
  }).createMachine({
    context: ({ input }) => ({ task: input.task, turns: 0 }),
    initial: "start",
    states: {
      start: {
        always: [
          { guard: ({ context }) => context.task.kind === "silent", target: "waiting" },
          {
            guard: ({ context }) => context.task.kind === "entry",
            target: "done",
            actions: [observe("go"), reward("outcome", 1, "given"), end("given", { success: 1 })],
          },
          { target: "waiting", actions: observe("go") },
        ],
      },
      waiting: {
        on: {
          "agent.act": [
            {
              guard: ({ context }) => context.task.kind === "endless",
              actions: [reward("process", -0.5, "again"), observe("go")],
            },
            {
              target: "done",
              actions: [
                assign({ turns: ({ context }) => context.turns + 1 }),
                reward("outcome", ({ context }) => (context.task.kind === "nan" ? Number.NaN : 1), "scored"),
                end("scored", { success: 1 }),
              ],
            },
          ],
        },
      },
      done: { type: "final" },
    },
  });
  return defineEnv({
    id,
    version: "1",
    description: "episodes of a kind given by their task",
    machine,
    tools: {},
    tokenizer: new WordTokenizer(["go", "a", "b"]),
    maxTurns: 2,
    task: (seed: string) => ({ kind: kinds[Number(seed.slice(seed.lastIndexOf("task") + 4)) % kinds.length] }),
  });
};

/** Trains 1 update of 2 tasks x 2 episodes; what the estimator was given (episode ids) and what was said. */
const trainOnce = async (
  env: ReturnType<typeof envOf>,
  algo: "grpo" | "remax" | "ppo" = "grpo",
  lines: string[] = [],
) => {
  const given: string[][] = [];
  const spy: Estimator = (sequences, extras, options) => {
    given.push(sequences.map((s) => s.episode));
    return ESTIMATORS[algo](sequences, extras, options);
  };
  const config = trainConfigFor(env, {
    algo,
    steps: 1,
    tasksPerStep: 2,
    groupSize: 2,
    evalEpisodes: 0,
    warmStart: null,
    maxNewTokens: 2,
    model: { width: 16, layers: 1, heads: 2, contextLength: 16 },
  });
  const run = await train({
    env,
    config,
    out: tempDir("agent-r1-left-out-"),
    log: (line) => lines.push(line),
    estimator: { name: algo, estimate: spy },
  });
  return { run, given, lines };
};

describe("train leaves out episodes with nothing to learn from", () => {
  it("an aborted episode (a NaN reward) is not given to the estimator, and the run says so", async () => {
    for (const algo of ["grpo", "remax"] as const) {
      const { run, given, lines } = await trainOnce(envOf(`nan-${algo}`, ["nan", "ok"]), algo);
      expect(run.version).toBe(1);
      // Task 0's two episodes aborted on their NaN reward; task 1's two are trained on.
      expect(given).toHaveLength(1);
      expect(given[0]).toHaveLength(2);
      expect(
        given[0].every((e) => e.endsWith("-2") || e.endsWith("-3")),
        given[0].join(", "),
      ).toBe(true);
      expect(lines.join("\n")).toMatch(
        /2 of 4 episodes aborted: .*has value NaN.* \(the first: .*episodes\/u00000\/ep-0-u0-0\.jsonl\); left out of training/,
      );
    }
  });

  it("an episode that ended before the policy acted is left out; a batch of only such episodes trains nothing, without crashing", async () => {
    const mixed = await trainOnce(envOf("entry-mixed", ["entry", "ok"]));
    expect(mixed.given[0]).toHaveLength(2);
    expect(mixed.lines.join("\n")).toMatch(/2 of 4 episodes ended before the policy acted .*left out of training/);
    for (const algo of ["grpo", "ppo", "remax"] as const) {
      const { run, given, lines } = await trainOnce(envOf(`entry-only-${algo}`, ["entry"]), algo);
      expect(run.version).toBe(1);
      expect(given).toEqual([[]]);
      expect(lines.join("\n")).toMatch(/no episode of 4 was left to train on: this update changed nothing/);
    }
  });

  it("an episode the runtime's turn limit stopped is still trained on, with the rewards it was given", async () => {
    const { given, lines } = await trainOnce(envOf("endless", ["endless", "ok"]));
    expect(given[0]).toHaveLength(4);
    // Said as what happened and what is done with them: not "aborted", which reads as discarded.
    expect(lines.join("\n")).toMatch(
      /2 of 4 episodes cut at the runtime's turn limit \(maxTurns 2; the first: .*episodes\/u00000\/ep-0-u0-0\.jsonl\): the environment had not ended them, so they got no reward for an ending; trained on as they are, with the rewards given before the cut/,
    );
    expect(lines.join("\n")).not.toMatch(/aborted|left out of training/);
  });

  it("a batch whose every episode the turn limit stopped is trained on as in a mixed one, with a note on the limit", async () => {
    const { run, given, lines } = await trainOnce(envOf("endless-only", ["endless"]));
    expect(run.version).toBe(1);
    expect(given[0]).toHaveLength(4);
    const said = lines.join("\n");
    expect(said).toMatch(/4 of 4 episodes cut at the runtime's turn limit \(maxTurns 2; .*trained on as they are/);
    expect(said).not.toMatch(/aborted/);
    expect(said).toMatch(/note: every episode hit the runtime's turn limit \(maxTurns 2\); they are trained on/);
    expect(said).toMatch(/raise the environment's maxTurns/);
    expect(said).not.toMatch(/left out of training/);
    // A mixed batch says nothing of the kind.
    const mixed = await trainOnce(envOf("endless-mixed", ["endless", "ok"]));
    expect(mixed.lines.join("\n")).not.toMatch(/every episode hit/);
    // Every episode aborted, but half of them at the turn limit: those are trained on, the others left out.
    const broken = await trainOnce(envOf("endless-nan", ["endless", "nan"]));
    expect(broken.run.version).toBe(1);
    expect(broken.given[0]).toHaveLength(2);
    // Said apart: the ones cut at the limit trained on, the ones that broke left out, each with its first journal.
    const brokenSaid = broken.lines.join("\n");
    expect(brokenSaid).toMatch(/2 of 4 episodes cut at the runtime's turn limit .*trained on as they are/);
    expect(brokenSaid).toMatch(
      /2 of 4 episodes aborted: environment error: .*\(the first: .*\.jsonl\); left out of training/,
    );
  });

  it("a batch whose every episode aborted stops with the reason, not a RangeError of the update, and names the first journal", async () => {
    const lines: string[] = [];
    await expect(trainOnce(envOf("silent", ["silent"]), "grpo", lines)).rejects.toThrow(
      /every episode of update 1 of 1 was aborted: environment error: .*waiting for nothing/,
    );
    // The error names no journal: the line said before it does (as it did before the refusal moved up).
    expect(lines.join("\n")).toMatch(/4 of 4 episodes aborted: .*\(the first: .*episodes\/u00000\/ep-0-u0-0\.jsonl\)/);
    expect(lines.join("\n")).not.toMatch(/left out of training/);
  });
});

/**
 * Where PPO's critic is fitted. GAE reads the critic's value at every token of its chain: the action tokens
 * with the advantage mask on, every response token (observations included) without it. The critic must be
 * fitted wherever GAE reads it; before, the no-advantage-mask ablation with the loss mask on fitted it only at
 * action tokens, so GAE ran through values at observation tokens that no update ever trained.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { setup } from "xstate";
import { type AgentActEvent, defineEnv, end, observe, reward, WordTokenizer } from "../../src/index.ts";
import { initBackend, train, trainConfigFor } from "../../src/learn/index.ts";
import * as trainStepModule from "../../src/learn/train-step.ts";
import { tempDir } from "../support/index.ts";

vi.mock("../../src/learn/train-step.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/learn/train-step.ts")>();
  return { ...original, trainStep: vi.fn(original.trainStep) };
});

beforeAll(async () => {
  await initBackend("wasm", { log: () => {} });
});

/** Two turns: the policy acts, the environment answers with an observation, the policy acts again. */
const twoTurns = defineEnv({
  id: "two-turns",
  version: "1",
  description: "act, read an observation, act again",
  tools: {},
  tokenizer: new WordTokenizer(["go", "seen", "a", "b"]),
  maxTurns: 2,
  task: () => ({}),
  machine: setup({ types: { context: {} as Record<string, never>, events: {} as AgentActEvent } }).createMachine({
    context: {},
    entry: observe("go"),
    initial: "first",
    states: {
      first: { on: { "agent.act": { target: "second", actions: [reward("process", 0.1, "acted"), observe("seen")] } } },
      second: { on: { "agent.act": { target: "done", actions: [reward("outcome", 1, "done"), end("done", {})] } } },
      done: { type: "final" },
    },
  }),
});

/** One PPO update with the given masks; each trainStep call's rows, and which of their tokens the critic fits. */
const onePpoUpdate = async (masks: { maskAdvantages: boolean; maskLoss: boolean }) => {
  const step = vi.mocked(trainStepModule.trainStep);
  step.mockClear();
  const config = trainConfigFor(twoTurns, {
    algo: "ppo",
    steps: 1,
    tasksPerStep: 2,
    groupSize: 2,
    evalEpisodes: 0,
    warmStart: null,
    maxNewTokens: 2,
    model: { width: 16, layers: 1, heads: 2, contextLength: 32 },
    ...masks,
  });
  await train({ env: twoTurns, config, out: tempDir("agent-r1-critic-mask-"), log: () => {} });
  expect(step).toHaveBeenCalled();
  return step.mock.calls.map(([, batch]) => ({
    critic: (batch.valueMask ?? batch.lossMask).map((row) => Array.from(row, (w) => w > 0)),
    policy: batch.lossMask.map((row) => Array.from(row, (w) => w > 0)),
    tokens: batch.tokens,
  }));
};

const tokenOf = (word: string): number => {
  const id = twoTurns.tokenizer.idOf(word);
  if (id === undefined) throw new Error(`"${word}" is not a word of the tokenizer`);
  return id;
};

describe("PPO's critic is fitted wherever GAE reads its values", () => {
  it("without the advantage mask, observation tokens too (the loss mask on or off)", async () => {
    for (const maskLoss of [true, false]) {
      for (const call of await onePpoUpdate({ maskAdvantages: false, maskLoss })) {
        call.tokens.forEach((row, r) => {
          const seen = Array.from(row).indexOf(tokenOf("seen"));
          expect(seen, "the observation is in the row").toBeGreaterThan(0);
          expect(call.critic[r][seen], `maskLoss ${maskLoss}: the observation token is fitted`).toBe(true);
        });
        // With the loss mask on, the policy terms still cover only the action tokens.
        if (maskLoss)
          for (const [r, row] of call.tokens.entries())
            expect(call.policy[r][Array.from(row).indexOf(tokenOf("seen"))]).toBe(false);
      }
    }
  });

  it("with the advantage mask, only the action tokens (the loss mask on or off)", async () => {
    for (const maskLoss of [true, false]) {
      for (const call of await onePpoUpdate({ maskAdvantages: true, maskLoss })) {
        call.tokens.forEach((row, r) => {
          expect(call.critic[r][Array.from(row).indexOf(tokenOf("seen"))], `maskLoss ${maskLoss}`).toBe(false);
          expect(call.critic[r].some(Boolean), "some action token is fitted").toBe(true);
        });
      }
    }
  });
});

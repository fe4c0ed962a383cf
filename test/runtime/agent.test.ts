import { describe, expect, it } from "vitest";
import { WordTokenizer } from "../../src/kernel/tokenizer.ts";
import { type AgentEmitted, createAgent } from "../../src/runtime/agent.ts";
import type { Policy, PolicyAction, PolicyRequest } from "../../src/runtime/policy.ts";
import { PolicyActor } from "../../src/runtime/policy-actor.ts";

const tokenizer = new WordTokenizer(["ok"]);
const request = (turn: number): PolicyRequest => ({
  episode: "e",
  turn,
  seed: `s:${turn}`,
  task: null,
  history: [],
  context: [],
});
const action: PolicyAction = { tokens: [tokenizer.idOf("ok") as number], text: "ok", logprobs: [0], version: 0 };

/** A policy whose answers the test releases by hand; `asked` lists the turns it was asked for. */
const heldPolicy = () => {
  const asked: number[] = [];
  const releases: (() => void)[] = [];
  const policy: Policy = {
    id: "held",
    version: 0,
    tokenizer,
    act: (requests) => {
      asked.push(...requests.map((r) => r.turn));
      return new Promise((resolve) => releases.push(() => resolve(requests.map(() => action))));
    },
  };
  return { policy, asked, release: () => releases.shift()?.() };
};

const emittedBy = (agent: ReturnType<typeof createAgent>) => {
  const seen: AgentEmitted[] = [];
  agent.on("agent.decided", (e) => seen.push(e));
  agent.on("agent.failed", (e) => seen.push(e));
  return seen;
};

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("the agent actor (one per episode, an XState actor)", () => {
  it("asks the policy for each observation and emits its action with the request it answers", async () => {
    const { policy, asked, release } = heldPolicy();
    const agent = createAgent(new PolicyActor(policy));
    const seen = emittedBy(agent);
    agent.start();
    agent.send({ type: "agent.observe", request: request(0) });
    // A second observation while the first request is out is dropped: one request in flight per episode.
    agent.send({ type: "agent.observe", request: request(1) });
    await settle();
    expect(asked).toEqual([0]);
    release();
    await settle();
    expect(seen).toEqual([{ type: "agent.decided", request: request(0), action }]);
    agent.send({ type: "agent.observe", request: request(1) });
    await settle();
    release();
    await settle();
    expect(asked).toEqual([0, 1]);
    expect(seen.map((e) => e.request.turn)).toEqual([0, 1]);
    agent.stop();
  });

  it("emits agent.failed for a policy that rejects or throws, and nothing after it is stopped", async () => {
    const throwing = new PolicyActor({ ...heldPolicy().policy, act: () => Promise.reject(new Error("api down")) });
    const failing = createAgent(throwing);
    const failed = emittedBy(failing);
    failing.start();
    failing.send({ type: "agent.observe", request: request(0) });
    await settle();
    await settle();
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: "agent.failed", request: request(0) });
    expect(String((failed[0] as { error: unknown }).error)).toContain("api down");
    // A PolicyActor whose request() throws synchronously fails the same way.
    const sync = {
      request: () => {
        throw new Error("sync");
      },
    } as unknown as PolicyActor;
    const syncAgent = createAgent(sync);
    const syncFailed = emittedBy(syncAgent);
    syncAgent.start();
    syncAgent.send({ type: "agent.observe", request: request(0) });
    await settle();
    expect(syncFailed.map((e) => e.type)).toEqual(["agent.failed"]);

    const { policy, release } = heldPolicy();
    const stopped = createAgent(new PolicyActor(policy));
    const late = emittedBy(stopped);
    stopped.start();
    stopped.send({ type: "agent.observe", request: request(0) });
    await settle();
    stopped.stop();
    release();
    await settle();
    expect(late).toEqual([]);
  });
});

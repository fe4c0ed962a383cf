import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validatedEvents } from "../../src/journal/validate.ts";
import { hashValue } from "../../src/kernel/canonical.ts";
import type { EpisodeEvent, EventBody } from "../../src/kernel/events.ts";
import { episodeToSequence, episodeToSteps, fitToContext, type Sequence } from "../../src/learn/trajectory.ts";

interface TurnSpec {
  readonly action: readonly number[];
  readonly logprobs?: readonly number[];
  readonly allowed?: readonly (readonly number[] | null)[];
  readonly version?: number;
  readonly process?: readonly number[];
  readonly observation?: readonly number[];
}

interface EpisodeSpec {
  readonly id?: string;
  readonly task?: unknown;
  readonly prompt: readonly number[];
  readonly turns: readonly TurnSpec[];
  readonly outcome?: number;
  readonly metrics?: Record<string, number>;
}

/** A journal written by hand, in the order the runtime writes it. */
const journal = (spec: EpisodeSpec): EpisodeEvent[] => {
  const episode = spec.id ?? "e-1";
  const bodies: EventBody[] = [
    {
      type: "episode.started",
      env: { id: "test", version: "1" },
      task: (spec.task ?? { q: "question" }) as never,
      seed: "7",
      policy: { id: "p", version: 0 },
      tokenizer: "tok",
    },
    { type: "env.observed", turn: 0, text: "prompt", tokens: spec.prompt },
  ];
  spec.turns.forEach((turn, t) => {
    bodies.push({
      type: "agent.acted",
      turn: t,
      tokens: turn.action,
      text: "action",
      logprobs: turn.logprobs ?? turn.action.map((_, i) => -(i + 1) / 10),
      policy: { id: "p", version: turn.version ?? 3 },
      ...(turn.allowed === undefined ? {} : { allowed: turn.allowed }),
    });
    bodies.push({ type: "tool.called", turn: t, call: `c${t}`, actor: `a${t}`, tool: "search", args: {} });
    bodies.push({ type: "tool.returned", call: `c${t}`, result: { ok: true, content: "r" } });
    for (const value of turn.process ?? []) {
      bodies.push({ type: "reward.assigned", kind: "process", value, turn: t, reason: "format" });
    }
    if (t === spec.turns.length - 1 && spec.outcome !== undefined) {
      bodies.push({ type: "reward.assigned", kind: "outcome", value: spec.outcome, turn: t, reason: "em" });
    }
    bodies.push({ type: "env.transitioned", state: { t }, hash: `h${t}` });
    if (turn.observation !== undefined) {
      bodies.push({ type: "env.observed", turn: t + 1, text: "obs", tokens: turn.observation });
    }
  });
  bodies.push({
    type: "episode.ended",
    reason: "done",
    return: 0,
    turns: spec.turns.length,
    metrics: spec.metrics ?? { em: 1 },
  });
  return bodies.map(
    (body, seq) => ({ ...body, v: 1, episode, seq, prev: `p${seq}`, digest: `d${seq}` }) as EpisodeEvent,
  );
};

/** Prompt 10 11, action 20 21 22, observation 30 31, action 40 41, observation 50. */
const twoTurns: EpisodeSpec = {
  prompt: [10, 11],
  turns: [
    { action: [20, 21, 22], logprobs: [-0.1, -0.2, -0.3], process: [0.5], observation: [30, 31], version: 4 },
    { action: [40, 41], logprobs: [-0.4, -0.5], process: [0.25], observation: [50], version: 5 },
  ],
  outcome: 1,
  metrics: { em: 1, f1: 0.5 },
};

describe("episodeToSequence (append layout)", () => {
  it("is the exact concatenation of the recorded prompt, action and observation ids", () => {
    const s = episodeToSequence(journal(twoTurns));
    expect(s.episode).toBe("e-1");
    expect(s.tokens).toEqual([10, 11, 20, 21, 22, 30, 31, 40, 41, 50]);
    expect(s.promptLength).toBe(2);
    expect(s.actionMask).toEqual([0, 0, 1, 1, 1, 0, 0, 1, 1, 0]);
    expect(s.responseMask).toEqual([0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(s.logprobs).toEqual([0, 0, -0.1, -0.2, -0.3, 0, 0, -0.4, -0.5, 0]);
    expect(s.versions).toEqual([-1, -1, 4, 4, 4, -1, -1, 5, 5, -1]);
    expect(s.turns).toEqual([
      { turn: 0, start: 2, end: 5 },
      { turn: 1, start: 7, end: 9 },
    ]);
    expect(s.metrics).toEqual({ em: 1, f1: 0.5 });
    expect(s.turn).toBeUndefined();
  });

  it("puts each process reward on the last token of its action and the outcome on the last action token", () => {
    const s = episodeToSequence(journal(twoTurns));
    expect(s.rewards).toEqual([0, 0, 0, 0, 0.5, 0, 0, 0, 1.25, 0]);
    expect(s.processReturn).toBe(0.75);
    expect(s.outcomeReturn).toBe(1);
    expect(s.totalReturn).toBe(1.75);
    expect(s.droppedRewards).toBe(0);
  });

  it("weights process rewards by processRewardWeight (0 turns them off)", () => {
    const off = episodeToSequence(journal(twoTurns), { processRewardWeight: 0 });
    expect(off.rewards).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
    expect(off.totalReturn).toBe(1);
    const half = episodeToSequence(journal(twoTurns), { processRewardWeight: 0.5 });
    expect(half.rewards[4]).toBe(0.25);
    expect(half.rewards[8]).toBe(1.125);
    expect(half.totalReturn).toBe(1.375);
  });

  it("attaches a turn-0 reward written before any action to the first action", () => {
    const events = journal(twoTurns);
    const { v, episode, prev, digest } = events[0];
    const early = {
      v,
      episode,
      prev,
      digest,
      type: "reward.assigned",
      kind: "process",
      value: 2,
      turn: 0,
      reason: "early",
    };
    const s = episodeToSequence(
      [events[0], events[1], early, ...events.slice(2)].map((e, seq) => ({ ...e, seq }) as EpisodeEvent),
    );
    expect(s.rewards[4]).toBe(2.5);
  });

  it("records the allowed ids of constrained tokens and null elsewhere", () => {
    const s = episodeToSequence(
      journal({ prompt: [1], turns: [{ action: [5, 6], allowed: [[5, 7], null], observation: [9] }] }),
    );
    expect(s.allowed).toEqual([null, [5, 7], null, null]);
  });

  it("groups episodes of the same task by the task's hash, unless a group is given", () => {
    const a = episodeToSequence(journal({ ...twoTurns, id: "a", task: { q: "x", k: 1 } }));
    const b = episodeToSequence(journal({ ...twoTurns, id: "b", task: { k: 1, q: "x" } }));
    const c = episodeToSequence(journal({ ...twoTurns, id: "c", task: { q: "y" } }));
    expect(a.group).toBe(hashValue({ q: "x", k: 1 }));
    expect(b.group).toBe(a.group);
    expect(c.group).not.toBe(a.group);
    expect(episodeToSequence(journal(twoTurns), { group: "g" }).group).toBe("g");
  });

  it("refuses a sequence longer than maxTokens, naming the episode and its length", () => {
    expect(() => episodeToSequence(journal({ ...twoTurns, id: "e-long" }), { maxTokens: 9 })).toThrow(
      /episode e-long has 10 tokens, more than the model's context of 9/,
    );
    expect(episodeToSequence(journal(twoTurns), { maxTokens: 10 }).tokens).toHaveLength(10);
  });

  it("drops and counts the rewards of empty actions; the outcome goes on the last non-empty action", () => {
    const s = episodeToSequence(
      journal({
        prompt: [1],
        turns: [
          { action: [2, 3], process: [0.5], observation: [4] },
          { action: [], process: [0.25, 0.125], observation: [5] },
        ],
        outcome: 1,
      }),
    );
    expect(s.tokens).toEqual([1, 2, 3, 4, 5]);
    expect(s.turns).toEqual([
      { turn: 0, start: 1, end: 3 },
      { turn: 1, start: 4, end: 4 },
    ]);
    expect(s.rewards).toEqual([0, 0, 1.5, 0, 0]);
    expect(s.droppedRewards).toBe(2);
    expect(s.totalReturn).toBe(1.5);
  });

  it("drops the outcome when the episode has no action token at all", () => {
    const s = episodeToSequence(journal({ prompt: [1, 2], turns: [{ action: [], observation: [3] }], outcome: 1 }));
    expect(s.actionMask).toEqual([0, 0, 0]);
    expect(s.promptLength).toBe(2);
    expect(s.turns).toEqual([{ turn: 0, start: 2, end: 2 }]);
    expect(s.responseMask).toEqual([0, 0, 1]);
    expect(s.rewards).toEqual([0, 0, 0]);
    expect(s.droppedRewards).toBe(1);
    expect(s.totalReturn).toBe(0);
  });

  it("refuses incomplete or inconsistent journals with a message that says what is wrong", () => {
    expect(() => episodeToSequence(journal(twoTurns).slice(0, -1))).toThrow(/no episode.ended/);
    expect(() => episodeToSequence(journal(twoTurns).slice(1))).toThrow(/no episode.started/);
    expect(() => episodeToSequence(journal({ prompt: [1], turns: [{ action: [2, 3], logprobs: [-1] }] }))).toThrow(
      // Refused as a journal's reader refuses it, naming the event (before: "turn 0: 2 tokens but 1 logprobs").
      /episodeToSequence's event 2 \(seq 2\): schema: 1 logprobs for 2 tokens/,
    );
    // Allowed lists that do not line up with the tokens would score tokens under other tokens' masks: refused as
    // a reader refuses them, and, in events a reader passed (marked validated), by episodeToSequence itself.
    const misaligned = journal({ prompt: [1], turns: [{ action: [2, 3], logprobs: [-1, -1], allowed: [[2]] }] });
    expect(() => episodeToSequence(misaligned)).toThrow(/episodeToSequence's event 2 \(seq 2\): schema: /);
    expect(() => episodeToSequence(validatedEvents([...misaligned]))).toThrow(
      /turn 0: 2 tokens but 1 allowed-id lists recorded/,
    );
  });
});

describe("episodeToSteps (step layout)", () => {
  it("makes one sample per turn: the context before the action as prompt, the action as response", () => {
    const steps = episodeToSteps(journal(twoTurns));
    expect(steps).toHaveLength(2);
    const [first, second] = steps;
    expect(first.turn).toBe(0);
    expect(first.tokens).toEqual([10, 11, 20, 21, 22]);
    expect(first.promptLength).toBe(2);
    expect(first.actionMask).toEqual([0, 0, 1, 1, 1]);
    expect(first.rewards).toEqual([0, 0, 0, 0, 0.5]);
    expect(second.turn).toBe(1);
    expect(second.tokens).toEqual([10, 11, 20, 21, 22, 30, 31, 40, 41]);
    expect(second.promptLength).toBe(7);
    expect(second.actionMask).toEqual([0, 0, 0, 0, 0, 0, 0, 1, 1]);
    expect(second.responseMask).toEqual(second.actionMask);
    expect(second.logprobs).toEqual([0, 0, 0, 0, 0, 0, 0, -0.4, -0.5]);
    expect(second.versions).toEqual([-1, -1, -1, -1, -1, -1, -1, 5, 5]);
    expect(second.rewards).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1.25]);
    expect(second.turns).toEqual([{ turn: 1, start: 7, end: 9 }]);
    for (const step of steps) {
      expect(step.group).toBe(hashValue({ q: "question" }));
      expect(step.totalReturn).toBe(1.75);
      expect(step.metrics).toEqual({ em: 1, f1: 0.5 });
    }
  });

  it("checks maxTokens per step, naming the episode and turn", () => {
    expect(episodeToSteps(journal(twoTurns), { maxTokens: 9 })).toHaveLength(2);
    expect(() => episodeToSteps(journal(twoTurns), { maxTokens: 8 })).toThrow(
      /episode e-1 turn 1 has 9 tokens, more than the model's context of 8/,
    );
  });
});

const ids = (max: number) => fc.array(fc.nat(500), { maxLength: max });
const turnArb = fc.record({
  action: ids(5),
  process: fc.array(
    fc.integer({ min: -4, max: 4 }).map((x) => x / 4),
    { maxLength: 2 },
  ),
  observation: fc.option(ids(4), { nil: undefined }),
});
const episodeArb = fc.record({
  prompt: ids(6),
  turns: fc.array(turnArb, { minLength: 1, maxLength: 5 }),
  outcome: fc.option(fc.integer({ min: -2, max: 2 }), { nil: undefined }),
});

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

const expectAligned = (s: Sequence): void => {
  const n = s.tokens.length;
  for (const perToken of [s.actionMask, s.responseMask, s.logprobs, s.versions, s.allowed, s.rewards]) {
    expect(perToken).toHaveLength(n);
  }
  s.rewards.forEach((r, i) => {
    if (r !== 0) expect(s.actionMask[i]).toBe(1);
  });
  s.actionMask.forEach((m, i) => {
    if (m === 1) expect(s.responseMask[i]).toBe(1);
    expect(s.versions[i] === -1).toBe(m === 0);
  });
};

describe("token-in/token-out, for any turn lengths", () => {
  it("keeps tokens, masks, spans and rewards consistent in both layouts", () => {
    fc.assert(
      fc.property(episodeArb, (spec) => {
        const s = episodeToSequence(journal(spec));
        const expected = [...spec.prompt, ...spec.turns.flatMap((t) => [...t.action, ...(t.observation ?? [])])];
        expect(s.tokens).toEqual(expected);
        expectAligned(s);
        expect(sum(s.actionMask)).toBe(sum(spec.turns.map((t) => t.action.length)));
        const firstAction = spec.turns.findIndex((t) => t.action.length > 0);
        // The prompt ends where the first action (even an empty one) begins.
        const promptLength = spec.prompt.length;
        expect(s.promptLength).toBe(promptLength);
        expect(sum(s.responseMask)).toBe(expected.length - promptLength);
        s.turns.forEach((span, t) => {
          expect(s.tokens.slice(span.start, span.end)).toEqual(spec.turns[t].action);
          expect(s.actionMask.slice(span.start, span.end).every((m) => m === 1)).toBe(true);
        });
        expect(sum(s.rewards)).toBeCloseTo(s.totalReturn, 9);
        const droppedProcess = sum(spec.turns.map((t) => (t.action.length === 0 ? t.process.length : 0)));
        const droppedOutcome = spec.outcome !== undefined && firstAction < 0 ? 1 : 0;
        expect(s.droppedRewards).toBe(droppedProcess + droppedOutcome);

        const steps = episodeToSteps(journal(spec));
        expect(steps).toHaveLength(spec.turns.length);
        steps.forEach((step, t) => {
          expectAligned(step);
          expect(step.tokens).toEqual(s.tokens.slice(0, s.turns[t].end));
          expect(step.promptLength).toBe(s.turns[t].start);
          expect(sum(step.actionMask)).toBe(spec.turns[t].action.length);
          expect(step.totalReturn).toBe(s.totalReturn);
        });
        expect(sum(steps.map((step) => sum(step.rewards)))).toBeCloseTo(sum(s.rewards), 9);
      }),
      { numRuns: 200 },
    );
  });
});

describe("fitToContext: an episode longer than the context, cut for training", () => {
  it("keeps the actions its sampler saw whole, and the episode's whole return", () => {
    fc.assert(
      fc.property(
        episodeArb,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (spec, contextLength, maxNewTokens) => {
          const whole = episodeToSequence(journal(spec));
          const fitted = fitToContext(whole, contextLength, maxNewTokens);
          if (whole.tokens.length <= contextLength) {
            expect(fitted).toBe(whole);
            return;
          }
          // What the sampler saw whole: each action from a context it did not have to cut.
          const seenWhole = whole.turns.filter(
            (span, t) =>
              whole.turns
                .slice(0, t + 1)
                .every((s) => s.start + Math.max(maxNewTokens, s.end - s.start) <= contextLength) &&
              span.end > span.start,
          );
          if (seenWhole.length === 0) {
            expect(fitted).toBeUndefined();
            return;
          }
          expect(fitted).toBeDefined();
          const cut = fitted!;
          expectAligned(cut);
          expect(cut.cutFrom).toBe(whole.tokens.length);
          expect(cut.tokens.length).toBeLessThanOrEqual(contextLength);
          expect(cut.tokens).toEqual(whole.tokens.slice(0, cut.tokens.length));
          expect(cut.logprobs).toEqual(whole.logprobs.slice(0, cut.tokens.length));
          // Every kept action was sampled from the whole episode before it; the last one seen whole is kept.
          for (const span of cut.turns)
            expect(span.start + Math.max(maxNewTokens, span.end - span.start)).toBeLessThanOrEqual(contextLength);
          expect(cut.turns.some((s) => s.turn === seenWhole[seenWhole.length - 1].turn)).toBe(true);
          // The return is the whole episode's, and the rewards still sum to it.
          expect(cut.totalReturn).toBe(whole.totalReturn);
          expect(sum(cut.rewards)).toBeCloseTo(whole.totalReturn, 9);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("moves the rewards of the turns cut away onto the last action token kept", () => {
    const spec: EpisodeSpec = {
      prompt: [1, 2],
      turns: [
        { action: [3, 4], process: [0.25], observation: [5, 6, 7] },
        { action: [8, 9], process: [-0.5], observation: [10] },
        { action: [11], process: [-0.5] },
      ],
      outcome: 1,
    };
    const whole = episodeToSequence(journal(spec));
    expect(whole.tokens).toHaveLength(11);
    // Context 9, budget 2: the second action starts at 7 (7 + 2 <= 9), the third at 10 (cut away).
    const cut = fitToContext(whole, 9, 2)!;
    expect(cut.tokens).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(cut.turns.map((s) => s.turn)).toEqual([0, 1]);
    expect(cut.rewards).toEqual([0, 0, 0, 0.25, 0, 0, 0, 0, -0.5 + -0.5 + 1]);
    // A budget of 3 leaves the second action's sampler a cut context: only the first is kept.
    expect(fitToContext(whole, 9, 3)!.tokens).toEqual([1, 2, 3, 4]);
    // Not even the first action seen whole: nothing to train on.
    expect(fitToContext(whole, 9, 8)).toBeUndefined();
  });
});

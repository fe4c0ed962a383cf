/**
 * Every shipped estimator against a plain-JS reference written from the published formulas (not from the
 * code): GAE as the explicit sum A_k = sum_l (gamma lambda)^l delta_{k+l} over the episode's action tokens
 * (observation tokens skipped, turns linked), REINFORCE++'s explicit discounted sum with k1 folded into the
 * reward, then whitened with the sample std; GRPO's group mean and sample std; RLOO's mean of the other
 * G - 1; REINFORCE++-baseline's group centring then token-level whitening; ReMax's greedy baseline. Random
 * batches of several groups, episodes with observation gaps, both advantage-mask settings.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { computeAdvantages, type ScoredSequence } from "../../../src/learn/advantages/index.ts";
import { scored } from "./layout.ts";

const layoutArb = fc
  .tuple(
    fc.integer({ min: 1, max: 3 }),
    fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 })), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([prompt, turns]) => "p".repeat(prompt) + turns.map(([a, o]) => "a".repeat(a) + "o".repeat(o)).join(""));

const reward = fc.integer({ min: -8, max: 8 }).map((x) => x / 4);

/** Groups of 1..4 episodes, each with process rewards on the last token of some actions and an outcome. */
const batchArb = fc
  .array(fc.array(fc.tuple(layoutArb, fc.array(reward, { maxLength: 5 }), reward), { minLength: 1, maxLength: 4 }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((groups) =>
    groups.flatMap((members, g) =>
      members.map(([layout, processRewards, outcome], e) => {
        const kinds = [...layout];
        const lastOfActions = kinds.flatMap((k, i) => (k === "a" && kinds[i + 1] !== "a" ? [i] : []));
        const rewards: Record<number, number> = {};
        processRewards.forEach((r, k) => {
          const at = lastOfActions[k % lastOfActions.length];
          rewards[at] = (rewards[at] ?? 0) + r;
        });
        const last = lastOfActions[lastOfActions.length - 1];
        rewards[last] = (rewards[last] ?? 0) + outcome;
        const logprobs = kinds.map((k, i) => (k === "a" ? -(((i * 5) % 7) + 1) / 4 : 0));
        return scored(layout, { episode: `g${g}e${e}`, group: `g${g}`, rewards, logprobs });
      }),
    ),
  );

// ------------------------------------------------------------------------------------------------------
// References
// ------------------------------------------------------------------------------------------------------

/** Positions [sequence, index] of one episode's tokens that count (action or response tokens), in order. */
const tokensOf = (batch: readonly ScoredSequence[], i: number, mask: boolean): number[] =>
  (mask ? batch[i].actionMask : batch[i].responseMask).flatMap((m, t) => (m === 1 ? [t] : []));

const sampleStd = (xs: readonly number[]): number => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

const gaeReference = (
  batch: readonly ScoredSequence[],
  values: number[][],
  gamma: number,
  lambda: number,
  mask: boolean,
) =>
  batch.map((s, i) => {
    const at = tokensOf(batch, i, mask);
    const advantages = s.actionMask.map(() => 0);
    const returns = s.actionMask.map(() => 0);
    const delta = at.map(
      (t, k) => s.rewards[t] + gamma * (k + 1 < at.length ? values[i][at[k + 1]] : 0) - values[i][t],
    );
    at.forEach((t, k) => {
      let a = 0;
      for (let l = 0; k + l < at.length; l++) a += (gamma * lambda) ** l * delta[k + l];
      advantages[t] = a;
      returns[t] = a + values[i][t];
    });
    return { advantages, returns };
  });

const whitenReference = (xs: readonly number[], eps: number): number[] => {
  if (xs.every((x) => x === xs[0])) return xs.map(() => 0);
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const s = sampleStd(xs);
  return xs.map((x) => (x - m) / (s + eps));
};

const reinforceReference = (
  batch: readonly ScoredSequence[],
  ref: number[][],
  beta: number,
  gamma: number,
  eps: number,
  mask: boolean,
): number[][] => {
  const positions: [number, number][] = [];
  const returns: number[] = [];
  batch.forEach((s, i) => {
    const at = tokensOf(batch, i, mask);
    const shaped = at.map((t) => s.rewards[t] - (s.actionMask[t] === 1 ? beta * (s.logprobs[t] - ref[i][t]) : 0));
    at.forEach((t, k) => {
      let g = 0;
      for (let j = k; j < at.length; j++) g += gamma ** (j - k) * shaped[j];
      positions.push([i, t]);
      returns.push(g);
    });
  });
  const out = batch.map((s) => s.actionMask.map(() => 0));
  whitenReference(returns, eps).forEach((a, k) => {
    out[positions[k][0]][positions[k][1]] = a;
  });
  return out;
};

const groupsOf = (batch: readonly ScoredSequence[]): Map<string, number[]> => {
  const groups = new Map<string, number[]>();
  batch.forEach((s, i) => {
    groups.set(s.group, [...(groups.get(s.group) ?? []), i]);
  });
  return groups;
};

/** An episode-level advantage written on the episode's counted tokens. */
const spread = (batch: readonly ScoredSequence[], perEpisode: number[], mask: boolean): number[][] =>
  batch.map((s, i) => {
    const at = new Set(tokensOf(batch, i, mask));
    return s.actionMask.map((_, t) => (at.has(t) ? perEpisode[i] : 0));
  });

const grpoReference = (batch: readonly ScoredSequence[], eps: number, mask: boolean): number[][] => {
  const perEpisode = batch.map(() => 0);
  for (const members of groupsOf(batch).values()) {
    const rs = members.map((i) => batch[i].totalReturn);
    if (rs.length < 2 || rs.every((r) => r === rs[0])) continue;
    const m = rs.reduce((a, b) => a + b, 0) / rs.length;
    const s = sampleStd(rs);
    members.forEach((i) => {
      perEpisode[i] = (batch[i].totalReturn - m) / (s + eps);
    });
  }
  return spread(batch, perEpisode, mask);
};

const rlooReference = (batch: readonly ScoredSequence[], mask: boolean): number[][] => {
  const perEpisode = batch.map(() => 0);
  for (const members of groupsOf(batch).values()) {
    if (members.length < 2) continue;
    members.forEach((i) => {
      const others = members.filter((j) => j !== i).map((j) => batch[j].totalReturn);
      perEpisode[i] = batch[i].totalReturn - others.reduce((a, b) => a + b, 0) / others.length;
    });
  }
  return spread(batch, perEpisode, mask);
};

const baselineReference = (batch: readonly ScoredSequence[], eps: number, mask: boolean): number[][] => {
  const centred = new Map<number, number>();
  for (const members of groupsOf(batch).values()) {
    const rs = members.map((i) => batch[i].totalReturn);
    if (rs.length < 2 || rs.every((r) => r === rs[0])) continue;
    const m = rs.reduce((a, b) => a + b, 0) / rs.length;
    for (const i of members) centred.set(i, batch[i].totalReturn - m);
  }
  const positions: [number, number][] = [];
  const xs: number[] = [];
  batch.forEach((_, i) => {
    if (!centred.has(i)) return;
    for (const t of tokensOf(batch, i, mask)) {
      positions.push([i, t]);
      xs.push(centred.get(i)!);
    }
  });
  const out = batch.map((s) => s.actionMask.map(() => 0));
  whitenReference(xs, eps).forEach((a, k) => {
    out[positions[k][0]][positions[k][1]] = a;
  });
  return out;
};

// ------------------------------------------------------------------------------------------------------

const close = (actual: ArrayLike<number>[], expected: number[][], what: string): void => {
  expect(actual.length).toBe(expected.length);
  expected.forEach((row, i) => {
    expect(actual[i].length).toBe(row.length);
    row.forEach((x, t) => {
      const got = actual[i][t];
      expect(Math.abs(got - x), `${what} [${i}][${t}]: ${got} vs ${x}`).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(x)));
    });
  });
};

const unit = fc.integer({ min: 0, max: 20 }).map((x) => x / 20);

describe("every estimator matches a reference written from its published formula", () => {
  test.prop([batchArb, unit, unit, fc.boolean()], { numRuns: 150 })(
    "ppo (GAE): explicit sum over the compacted chain, value target A + V",
    (batch, gamma, lambda, mask) => {
      const values = batch.map((s, i) => s.actionMask.map((_, t) => Math.sin(3 * i + t)));
      const got = computeAdvantages("ppo", batch, { values }, { gamma, lambda, maskAdvantages: mask });
      const want = gaeReference(batch, values, gamma, lambda, mask);
      close(
        got.advantages,
        want.map((w) => w.advantages),
        "advantage",
      );
      close(
        got.returns!,
        want.map((w) => w.returns),
        "return",
      );
    },
  );

  test.prop([batchArb, unit, fc.constantFrom(0, 0.1, 1), fc.boolean()], { numRuns: 150 })(
    "reinforce++: discounted token return with k1 in the reward, whitened over the batch (sample std + eps)",
    (batch, gamma, beta, mask) => {
      const ref = batch.map((s, i) => s.actionMask.map((_, t) => -Math.abs(Math.cos(i + 2 * t))));
      const got = computeAdvantages(
        "reinforce++",
        batch,
        { refLogprobs: ref, klCoef: beta },
        { gamma, maskAdvantages: mask, eps: 1e-6 },
      );
      close(got.advantages, reinforceReference(batch, ref, beta, gamma, 1e-6, mask), "advantage");
    },
  );

  test.prop([batchArb, fc.boolean()], { numRuns: 150 })(
    "grpo: (R - group mean) / (group sample std + eps); 0 for a group of one or of equal returns",
    (batch, mask) => {
      close(
        computeAdvantages("grpo", batch, {}, { maskAdvantages: mask, eps: 1e-4 }).advantages,
        grpoReference(batch, 1e-4, mask),
        "advantage",
      );
    },
  );

  test.prop([batchArb, fc.boolean()], { numRuns: 150 })("rloo: R minus the mean of the other G - 1", (batch, mask) => {
    close(
      computeAdvantages("rloo", batch, {}, { maskAdvantages: mask }).advantages,
      rlooReference(batch, mask),
      "advantage",
    );
  });

  test.prop([batchArb, fc.boolean()], { numRuns: 150 })(
    "reinforce++-baseline: group centring, then whitening over the batch's tokens",
    (batch, mask) => {
      close(
        computeAdvantages("reinforce++-baseline", batch, {}, { maskAdvantages: mask, eps: 1e-6 }).advantages,
        baselineReference(batch, 1e-6, mask),
        "advantage",
      );
    },
  );

  test.prop([batchArb, reward, fc.boolean()], { numRuns: 100 })(
    "remax: R minus the greedy rollout's R of the group",
    (batch, greedy, mask) => {
      const greedyReward = Object.fromEntries(batch.map((s) => [s.group, greedy]));
      close(
        computeAdvantages("remax", batch, { greedyReward }, { maskAdvantages: mask }).advantages,
        spread(
          batch,
          batch.map((s) => s.totalReturn - greedy),
          mask,
        ),
        "advantage",
      );
    },
  );
});

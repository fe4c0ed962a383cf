/**
 * The one contract every advantage estimator honours: sequences in, one advantage per token out (zero
 * outside the advantage mask), plus value targets for PPO.
 */
import type { Sequence } from "../trajectory.ts";

/** The advantage estimators train can use, by name (TrainConfig's `algo`, the CLI's `--algo`). */
export const ALGORITHMS = ["ppo", "grpo", "reinforce++", "reinforce++-baseline", "rloo", "remax"] as const;
/** One of ALGORITHMS. */
export type Algorithm = (typeof ALGORITHMS)[number];

export const isAlgorithm = (name: string): name is Algorithm => (ALGORITHMS as readonly string[]).includes(name);

/** What an estimator reads from a sequence (either layout). */
export type ScoredSequence = Pick<
  Sequence,
  "episode" | "group" | "turn" | "actionMask" | "responseMask" | "rewards" | "totalReturn" | "logprobs"
>;

/** Per-token inputs are aligned with each sequence's tokens. */
export interface AdvantageExtras {
  /** ppo: critic value V(s) of the state in which each token is produced. */
  readonly values?: readonly ArrayLike<number>[];
  /** reinforce++: reference-policy logprob of each token; a missing sequence means KL_t = 0. */
  readonly refLogprobs?: readonly (ArrayLike<number> | undefined)[];
  /** reinforce++: policy logprobs for KL_t; default the recorded `logprobs` of each sequence. */
  readonly policyLogprobs?: readonly ArrayLike<number>[];
  /** reinforce++: beta, weight of the per-token KL penalty in the reward. Default 0. */
  readonly klCoef?: number;
  /** remax: reward of the greedy rollout of each group's task, keyed by group id. */
  readonly greedyReward?: Readonly<Record<string, number>>;
}

/** Options shared by the estimators; each reads only those it names. Defaults: DEFAULT_ADVANTAGE_OPTIONS. */
export interface AdvantageOptions {
  /** false = the "no advantage mask" ablation: advantages over every response token, not actions only. */
  readonly maskAdvantages?: boolean;
  /** Discount gamma (ppo, reinforce++). */
  readonly gamma?: number;
  /** GAE lambda (ppo). */
  readonly lambda?: number;
  /** Added to a standard deviation before dividing by it. */
  readonly eps?: number;
  /** grpo: divide by the group's std (false = Dr. GRPO, centring only). */
  readonly normalizeByStd?: boolean;
}

/** Advantage mask on, gamma 1, lambda 1, eps 1e-6, GRPO divides by the group's std. */
export const DEFAULT_ADVANTAGE_OPTIONS: Required<AdvantageOptions> = {
  maskAdvantages: true,
  gamma: 1,
  lambda: 1,
  eps: 1e-6,
  normalizeByStd: true,
};

/** What an estimator returns for a batch of sequences. */
export interface AdvantageResult {
  /** One array per sequence, as long as its tokens; exactly 0 outside the advantage mask. */
  readonly advantages: Float32Array[];
  /** ppo: value targets (advantage + value), 0 outside the advantage mask. */
  readonly returns?: Float32Array[];
  /** Groups with no learning signal (one episode, or all rewards equal); their advantages are 0. */
  readonly degenerateGroups: number;
  /** reinforce++ with a KL penalty: the mean KL_k it put in the reward, over action tokens. */
  readonly rewardKl?: number;
}

/** An advantage estimator: what ESTIMATORS holds, and what `TrainOptions.estimator` takes in place of one. */
export type Estimator = (
  sequences: readonly ScoredSequence[],
  extras: AdvantageExtras,
  options: Required<AdvantageOptions>,
) => AdvantageResult;

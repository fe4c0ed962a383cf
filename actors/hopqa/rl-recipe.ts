/**
 * The RL step size both `npm start` and `npm run experiment` use from the copy-head warm start: lr 3e-4
 * with a KL term (0.05, k3) to the warm start. From that clone lr 1e-3 without KL lost exact match, and
 * lr 1e-3 at temperature 2 lost 0.05 (docs/hopqa.md).
 */
export const RL_STEP: { readonly lr: number; readonly klCoef: number } = { lr: 3e-4, klCoef: 0.05 };

/**
 * RL settings that `npm run experiment -- --explore` and `npm start` share: sample at temperature 2
 * (constrained decoding keeps every sample a legal action) so that fewer groups are all-fail or
 * all-success, and cut each batch into 4 minibatches (4 AdamW steps per update instead of 1). Over the
 * experiment's three seeds this moved average exact match by -0.04 to +0.02, within the seed noise
 * (docs/explore/results.md, docs/hopqa.md).
 */
export const EXPLORE = { temperature: 2, minibatches: 4 } as const;

/**
 * The larger budget of `npm run experiment -- --long` (with EXPLORE's sampling): 45 updates of 16 questions
 * x 8 episodes, 5,760 episodes per run. Two GRPO runs at this budget lifted the two test columns from 0.735
 * to about 0.85 (docs/hopqa.md, "Longer RL"); a run takes 32-69 minutes here (50 on average), the table of 27 about 11 hours
 * two at a time, so it is meant to be completed over several sittings (finished runs are kept).
 */
export const LONG = { steps: 45, tasksPerStep: 16 } as const;

/**
 * The budget of `npm run experiment -- --hasty` (with EXPLORE's sampling): 20 updates of 8 questions x 8
 * episodes. From the hasty demonstrator's clone, GRPO at these settings lifted the two test columns from
 * 0.30 to 0.67 in 20 updates, about 10 minutes two runs at a time (docs/hopqa.md).
 */
export const HASTY_STEPS = { steps: 20 } as const;

/**
 * The budget of `npm run experiment -- --possessive` (with EXPLORE's sampling): 30 updates of 8 questions x 8
 * episodes. From the possessive variant's weak turn-local clone (test 0.415), each of the six algorithms lifted
 * test to 0.81-0.845 and ood to 0.40-0.48 on fresh questions at this budget, 10-16 minutes a run alone
 * (docs/hopqa.md, "Every algorithm from the weak turn-local clone").
 */
export const POSSESSIVE_STEPS = { steps: 30 } as const;

/**
 * The budget of `npm run experiment -- --sloppy` (with EXPLORE's sampling): 30 updates of 8 questions x 8
 * episodes, as the runs by hand from the sloppy clone (test 0.558): each of the six algorithms lifted test to
 * 0.882-0.925 and ood to 0.477-0.647 on fresh questions, 7-12 minutes a run two at a time (docs/hopqa.md).
 */
export const SLOPPY_STEPS = { steps: 30 } as const;

/**
 * The budget of `npm run experiment -- --left` (with EXPLORE's sampling): 30 updates of 8 questions x 8 episodes,
 * as the sloppy plan's, at which GRPO from the left=phrases clone reached ood 0.72-0.78 on fresh questions
 * (docs/hopqa.md).
 */
export const LEFT_STEPS = SLOPPY_STEPS;

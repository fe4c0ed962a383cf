/*
 * ReMax (Li et al. 2024): the reward of a greedy rollout of the same task is the baseline.
 *
 *   A_i = R_i - R_greedy(group of i)                         on every action token of episode i
 *
 * The baseline comes from outside the group, so a group of one episode is the normal case here. A group
 * is degenerate (no signal) when every R_i equals R_greedy; its advantages are then exactly 0.
 */
import type { Estimator } from "./types.ts";
export declare const remax: Estimator;

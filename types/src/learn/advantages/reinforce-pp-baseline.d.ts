/*
 * REINFORCE++-baseline (Hu 2025): a group-mean baseline, then normalisation over the batch's tokens.
 *
 *   A'_i = R_i - mean(R_1..R_G)                                   episode i, within its group of G
 *   A_k  = (A'_i(k) - mean(A')) / (std(A') + eps)                 mean, std over the batch's action tokens
 *
 * where i(k) is the episode of token k. A group of one episode, or whose rewards are all equal, carries
 * no signal: its tokens get A_k = 0 and stay out of the batch mean and std. The KL to the reference
 * belongs to the loss here, not to the reward.
 */
import type { Estimator } from "./types.ts";
export declare const reinforcePlusPlusBaseline: Estimator;

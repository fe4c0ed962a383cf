/*
 * RLOO, REINFORCE leave-one-out (Kool et al. 2019; Ahmadian et al. 2024), over a group of G episodes:
 *
 *   A_i = R_i - (1 / (G - 1)) * sum_{j != i} R_j             on every action token of episode i
 *
 * A group of one episode (no other to compare with), or whose rewards are all equal: A_i = 0.
 */
import type { Estimator } from "./types.ts";
export declare const rloo: Estimator;

/*
 * GRPO (Shao et al. 2024, DeepSeekMath), outcome supervision over a group of G episodes of one task:
 *
 *   A_i = (R_i - mean(R_1..R_G)) / (std(R_1..R_G) + eps)      on every action token of episode i
 *
 * R_i is the episode's total return, std the sample std. normalizeByStd=false keeps only the centring
 * (Dr. GRPO). A group of one episode, or whose rewards are all equal, carries no signal: A_i = 0.
 */
import type { Estimator } from "./types.ts";
export declare const grpo: Estimator;

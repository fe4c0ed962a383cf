/*
 * REINFORCE++ (Hu 2025): token-level reward with a KL penalty, discounted return-to-go, batch-normalised.
 *
 *   r'_k = r_k - beta * KL_k        KL_k = log pi(a_k) - log pi_ref(a_k); 0 off action tokens or with no ref
 *   G_k  = sum_{j >= k} gamma^(j - k) * r'_j                   over the episode's chain of action tokens
 *   A_k  = (G_k - mean(G)) / (std(G) + eps)                    mean, std over every chain token of the batch
 *
 * The chain skips observation tokens (maskAdvantages=false: it keeps them). No critic, no group. When
 * every G_k of the batch is equal there is no signal and A_k = 0.
 */
import type { Estimator } from "./types.ts";
export declare const reinforcePlusPlus: Estimator;

/*
 * PPO: Generalized Advantage Estimation (Schulman et al. 2016) over action tokens only.
 *
 *   delta_k = r_k + gamma * V(s_{k+1}) - V(s_k)
 *   A_k     = delta_k + gamma * lambda * A_{k+1}        A_n = 0, V(s_n) = 0 (the episode ended)
 *   G_k     = A_k + V(s_k)                              value target for the critic
 *
 * k runs over the episode's compacted chain of action tokens (observation tokens taken out), so the last
 * token of action a_t bootstraps from V at the first token of a_{t+1}, across the observation between
 * them; the results are scattered back to their token positions (Agent-R1). Observation tokens get 0.
 * maskAdvantages=false (ablation): the chain is every response token, observations included.
 * Advantages are not whitened, here or in the loss: `train` uses them as GAE gives them (trainStep's
 * `normalizeAdvantages`, CleanRL's norm_adv, whitens per minibatch when a caller asks; no flag sets it).
 */
import type { Estimator } from "./types.ts";
export declare const gae: Estimator;

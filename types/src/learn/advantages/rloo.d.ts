import type { Estimator } from "./types.ts";
export declare const rloo: Estimator;

/* Scripted policies for `lookup`: an expert that is always right, and a random one. */
export declare const expertPolicy: () => import("../../src/index.ts").Policy;
export declare const randomPolicy: () => import("../../src/index.ts").Policy;

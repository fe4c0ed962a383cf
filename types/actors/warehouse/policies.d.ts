/* Scripted policies for `warehouse`: an expert that keeps a ledger of what it saw, and a random one. */
/** Orders the lowest item when it runs low (while an order can still arrive), else checks its stock. */
export declare const expertPolicy: () => import("../../src/index.ts").Policy;
export declare const randomPolicy: () => import("../../src/index.ts").Policy;

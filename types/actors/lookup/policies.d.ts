export declare const expertPolicy: () => import("../../src/index.ts").Policy;
export declare const randomPolicy: () => import("../../src/index.ts").Policy;

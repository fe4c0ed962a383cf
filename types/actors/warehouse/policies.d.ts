/*
 * Scripted policies for `warehouse`: an expert that keeps a ledger of what it saw, a sloppy one (the expert
 * with a habit that costs it: most of its orders are of 2), and a random one.
 */
/** Orders the lowest item when it runs low (while an order can still arrive), else checks its stock. */
export declare const expertPolicy: () => import("../../src/index.ts").Policy;
/** How often the sloppy demonstrator orders SLOPPY_QTY instead of what the expert would order. */
export declare const SLOPPY_RATE = 0.7;
export declare const SLOPPY_QTY = 2;
/**
 * The sloppy demonstrator: the expert, except that on each order, with probability `rate` (drawn from the
 * turn's seed), it orders SLOPPY_QTY of the item instead of what it needs. Its ledger still counts what it
 * ordered, so it orders again the next day while the item stays low: more orders, later stock, more
 * stock-outs. A clone decoding greedily tends to take the habit (the more frequent choice);
 * sampling still finds the expert's qty on the other 30%, which RL can make the mode. Its id names any other
 * rate (`warehouse-sloppy@0.5`).
 */
export declare const sloppyPolicy: (rate?: number) => import("../../src/index.ts").Policy;
export declare const randomPolicy: () => import("../../src/index.ts").Policy;

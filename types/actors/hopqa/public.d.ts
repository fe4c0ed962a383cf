/**
 * `agent-r1-ts/hopqa`: the multi-hop QA benchmark from code: the environment (and its world generator and
 * policies) and the results table's evaluation suite, the same three columns `eval --suite` scores.
 */
export * from "./index.ts";
export { COLUMNS, type ColumnId, evaluateSuite, type SuiteResult, type SuiteScore, suiteTicker } from "./suite.ts";

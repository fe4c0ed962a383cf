import { warehouseEnv } from "./env.ts";
import { expertPolicy, randomPolicy } from "./policies.ts";

export { checkStock, order, REWARDS, tokenizer, warehouseEnv } from "./env.ts";
export { expertPolicy, randomPolicy } from "./policies.ts";
export * from "./world.ts";

export const warehouse = { ...warehouseEnv, policies: { expert: expertPolicy, random: randomPolicy } };

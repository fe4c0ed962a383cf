import { warehouseEnv } from "./env.ts";
import { expertPolicy, randomPolicy, sloppyPolicy } from "./policies.ts";

export { checkStock, order, REWARDS, tokenizer, warehouseEnv } from "./env.ts";
export { expertPolicy, randomPolicy, SLOPPY_QTY, SLOPPY_RATE, sloppyPolicy } from "./policies.ts";
export * from "./world.ts";

export const warehouse = {
  ...warehouseEnv,
  policies: { expert: expertPolicy, sloppy: () => sloppyPolicy(), random: randomPolicy },
};

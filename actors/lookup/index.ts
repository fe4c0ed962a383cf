import { lookupEnv } from "./env.ts";
import { expertPolicy, randomPolicy } from "./policies.ts";

export {
  createLookupEnv,
  DEFAULT_REWARDS,
  type LookupRewards,
  lookupEnv,
  lookupTool,
  MAX_TURNS,
  tokenizer,
} from "./env.ts";
export { expertPolicy, randomPolicy } from "./policies.ts";
export * from "./store.ts";

export const lookup = { ...lookupEnv, policies: { expert: expertPolicy, random: randomPolicy } };

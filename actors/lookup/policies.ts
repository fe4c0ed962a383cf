/** Scripted policies for `lookup`: an expert that is always right, and a random one. */
import { formatAnswer, formatCall, type PolicyRequest, type Rng } from "../../src/index.ts";
import { scriptedPolicy } from "../../src/runtime/scripted-policy.ts";
import { lookupTool, tokenizer } from "./env.ts";
import { KEYS, type LookupTask, VALUES } from "./store.ts";

/** Reads the last `key = value` the environment showed. */
const lastValue = (request: PolicyRequest): string | undefined => {
  const last = request.history.at(-1);
  return last?.role === "observation" ? /= (\S+) \.$/.exec(last.text)?.[1] : undefined;
};

export const expertPolicy = () =>
  scriptedPolicy<LookupTask>("lookup-expert", tokenizer, (request) => {
    const task = request.task;
    const lookups = request.history.filter((t) => t.role === "action").length;
    const value = lastValue(request);
    if (lookups === 0) return formatCall(lookupTool, { key: task.key });
    if (task.hops === 2 && lookups === 1 && value !== undefined) return formatCall(lookupTool, { key: value });
    return formatAnswer(value ?? "unknown");
  });

const WORDS = [...KEYS, ...VALUES, "<", ">", "/", "lookup", "answer", "."];

export const randomPolicy = () =>
  scriptedPolicy<LookupTask>("lookup-random", tokenizer, (_request, rng: Rng) => {
    const roll = rng.float();
    if (roll < 0.4)
      return { text: formatCall(lookupTool, { key: rng.pick(KEYS) }), logprob: Math.log(0.4 / KEYS.length) };
    if (roll < 0.7) return { text: formatAnswer(rng.pick(VALUES)), logprob: Math.log(0.3 / VALUES.length) };
    const length = rng.int(1, 8);
    const text = Array.from({ length }, () => rng.pick(WORDS)).join(" ");
    return { text, logprob: Math.log(0.3) + length * Math.log(1 / WORDS.length) - Math.log(8) };
  });

/**
 * What an environment's `policies` factory makes is checked where it is made: a factory that returned
 * something else failed at the episode's start with the framework's own stack ("Cannot read properties of
 * undefined (reading 'id')"), and one that threw (an API key missing) printed a stack trace from record.
 */
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import weather from "../../actors/weather/env.ts";
import { policyFor } from "../../src/cli/record.ts";
import { defineEnv, PolicyActor, scriptedPolicy } from "../../src/index.ts";
import { UsageError } from "../../src/kernel/errors.ts";

const withPolicies = (policies: Record<string, () => unknown>) =>
  defineEnv({ ...lookupEnv, policies: policies as never });

describe("a policy factory that does not make a Policy", () => {
  it("record's policyFor names the factory and what it returned", () => {
    const env = withPolicies({ text: () => "hi", none: () => undefined });
    expect(() => policyFor(env, "text")).toThrow(UsageError);
    expect(() => policyFor(env, "text")).toThrow(
      'environment lookup: policies.text() did not return a Policy ({ id, version, tokenizer, act }, as scriptedPolicy(...) makes): got "hi" (a string)',
    );
    expect(() => policyFor(env, "none")).toThrow("policies.none() did not return a Policy");
    expect(() => policyFor(env, "none")).toThrow("got nothing (undefined)");
  });

  it("record's policyFor says how to register a policy in an environment that declares none", () => {
    const { policies: _, ...rest } = lookupEnv;
    const env = defineEnv(rest);
    expect(() => policyFor(env, "expert")).toThrow(
      'environment lookup has no policy "expert": it declares no policies; register a scripted one in its definition, defineEnv({ ..., policies: { expert: () => scriptedPolicy(...) } })',
    );
  });

  it("record's policyFor names a factory that throws, and the line that threw", () => {
    const env = withPolicies({
      llm: () => {
        throw new Error("no API key in OPENAI_API_KEY");
      },
    });
    let error: unknown;
    try {
      policyFor(env, "llm");
    } catch (cause) {
      error = cause;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).detail).toMatch(
      /^environment lookup: policies\.llm\(\) threw: no API key in OPENAI_API_KEY \(thrown at test\/runtime\/policy-factory\.test\.ts:\d+:\d+\)$/,
    );
  });

  it("PolicyActor refuses what is not a Policy, naming the part missing", () => {
    const good = scriptedPolicy("s", lookupEnv.tokenizer, () => "<answer>x</answer>");
    expect(() => new PolicyActor("hi" as never)).toThrow(
      'PolicyActor takes a Policy ({ id, version, tokenizer, act }): got "hi" (a string)',
    );
    expect(() => new PolicyActor({ ...good, act: undefined } as never)).toThrow(
      "policy s has no act(requests) function",
    );
    expect(() => new PolicyActor({ ...good, tokenizer: undefined } as never)).toThrow(
      "policy s has no tokenizer (give it the environment's, env.tokenizer)",
    );
    expect(() => new PolicyActor({ ...good, version: -1 })).toThrow("policy s's version is -1, not a natural number");
    expect(new PolicyActor(good).policy).toBe(good);
    expect(policyFor(weather, "expert").id).toBe("weather-expert");
  });
});

describe("scriptedPolicy's own arguments", () => {
  it("a tokenizer missing or out of place, an id or decide that is none, is refused by name where it is made", () => {
    const decide = () => "<answer>x</answer>";
    const made = 'scriptedPolicy("expert", tokenizer, decide)';
    // Before: "Cannot read properties of undefined (reading 'idOf')", from inside the framework.
    expect(() => scriptedPolicy("expert", undefined as never, decide)).toThrow(
      new TypeError(
        `${made}: tokenizer must be the environment's Tokenizer (encode, decode, idOf; e.g. WordTokenizer.fromCorpus(...)), got undefined`,
      ).message,
    );
    expect(() => scriptedPolicy("expert", decide as never, weather.tokenizer as never)).toThrow(
      "got a function (the arguments are id, tokenizer, decide)",
    );
    expect(() => scriptedPolicy("expert", weather.tokenizer, "<answer>x</answer>" as never)).toThrow(
      `${made}: decide must be a function (request, rng) => the action's text, got "<answer>x</answer>" (a string)`,
    );
    expect(() => scriptedPolicy(weather.tokenizer as never, weather.tokenizer, decide)).toThrow(
      "scriptedPolicy(id, tokenizer, decide): id must be the policy's name, a non-empty string, got an object",
    );
    expect(scriptedPolicy("expert", weather.tokenizer, decide).id).toBe("expert");
  });
});

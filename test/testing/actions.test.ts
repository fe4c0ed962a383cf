import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import weather from "../../actors/weather/env.ts";
import { defineTool, parseAction, Schema } from "../../src/index.ts";
import {
  actionArbitrary,
  almostRightActionArbitrary,
  episodeScriptArbitrary,
  hostileActionArbitrary,
  toolCallArbitrary,
  wellFormedActionArbitrary,
} from "../../src/testing/index.ts";

describe("action arbitraries", () => {
  fcTest.prop([wellFormedActionArbitrary(lookupEnv)], { numRuns: 200 })(
    "well-formed actions parse: a call of one of the tools, or an answer",
    (text) => {
      expect(parseAction(text, lookupEnv.tools).kind).not.toBe("malformed");
    },
  );

  it("tool arguments come from the tool's parameter schema, or from the meaningful ones given", () => {
    const derived = fc.sample(toolCallArbitrary(weather.tools.weather), { numRuns: 50, seed: 1 });
    expect(derived.every((t) => parseAction(t, weather.tools).kind === "call")).toBe(true);
    const cities = fc.sample(toolCallArbitrary(weather.tools.weather, fc.constant({ city: "oslo" })), {
      numRuns: 100,
      seed: 2,
    });
    const oslo = cities.filter((t) => t === "<weather>oslo</weather>").length;
    expect(oslo).toBeGreaterThan(60);
    expect(oslo).toBeLessThan(100);
  });

  it("almost-right actions are near misses of well-formed ones, mostly refused by the parser", () => {
    // About 53% on lookup, whose one string argument takes much of what a JSON tool refuses (an empty
    // argument, JSON as text): over 1,000 samples the share is within a few points of that.
    const near = fc.sample(almostRightActionArbitrary(lookupEnv), { numRuns: 1000, seed: 3 });
    const malformed = near.filter((t) => parseAction(t, lookupEnv.tools).kind === "malformed");
    expect(malformed.length).toBeGreaterThan(near.length * 0.45);
    expect(near.some((t) => t.includes("<lookup>") || t.includes("<LOOKUP>"))).toBe(true);
  });

  it("hostile actions include random text, unicode, lone surrogates, control characters, huge strings and near misses", () => {
    const hostile = fc.sample(hostileActionArbitrary(lookupEnv, { hugeLength: 100_001 }), { numRuns: 400, seed: 4 });
    const codes = (t: string) => [...t].map((c) => c.codePointAt(0)!);
    expect(hostile.some((t) => codes(t).some((c) => c > 0x7f))).toBe(true);
    // The README promised them, and fc.string's units (even "binary") never make one.
    expect(hostile.some((t) => codes(t).some((c) => c >= 0xd800 && c <= 0xdfff))).toBe(true);
    expect(hostile.some((t) => codes(t).some((c) => c < 0x09))).toBe(true);
    expect(hostile.some((t) => t.length > 100_000 && parseAction(t, lookupEnv.tools).kind === "malformed")).toBe(true);
    expect(hostile.some((t) => t.startsWith("Sure! I will do that: <"))).toBe(true);
  });

  it("a hugeLength that draws no huge action, or one past any string, is refused before anything runs", async () => {
    const { checkRewards, neverCrashes } = await import("../../src/testing/index.ts");
    for (const hugeLength of [-5, 0, 2.5, Number.NaN, 2e9])
      expect(() => hostileActionArbitrary(lookupEnv, { hugeLength })).toThrow(
        `hugeLength must be an integer from 1 to 100000000 (the characters of a huge action; default 20000), got ${hugeLength}`,
      );
    // checkRewards draws them: refused there too, not a run that passed without one huge action (NaN: "".repeat).
    await expect(
      checkRewards(lookupEnv, { invariants: [neverCrashes()], hugeLength: Number.NaN, numRuns: 1 }),
    ).rejects.toThrow(/^hugeLength must be an integer from 1 to 100000000 .* got NaN$/);
  });

  it("actionArbitrary mixes well-formed (about 2 in 3) and hostile actions", () => {
    const texts = fc.sample(actionArbitrary(lookupEnv, { hugeLength: 50 }), { numRuns: 600, seed: 5 });
    const wellFormed = texts.filter((t) => parseAction(t, lookupEnv.tools).kind !== "malformed").length;
    expect(wellFormed / texts.length).toBeGreaterThan(0.55);
    expect(wellFormed / texts.length).toBeLessThan(0.85);
  });
});

describe("options that no action could be written from", () => {
  it("answers that formatAnswer refuses every time are refused at once, not a check that hangs looking for one", async () => {
    const { checkModel, checkRewards, neverCrashes } = await import("../../src/testing/index.ts");
    const said =
      'option answers: none of the 20 answers it generated can be written as an answer ("x</answer>y": formatAnswer: "x</answer>y" holds the closing tag </answer>, which would end the answer early (the action would be malformed)), so no answer could be drawn';
    expect(() => actionArbitrary(lookupEnv, { answers: fc.constant("x</answer>y") })).toThrow(said);
    await expect(
      checkRewards(lookupEnv, { answers: fc.constant("x</answer>y"), invariants: [neverCrashes()], numRuns: 2 }),
    ).rejects.toThrow(said);
    const model = { init: () => null, act: (state: null) => ({ state }) };
    await expect(checkModel(lookupEnv, { model, answers: fc.constant("x</answer>y"), numRuns: 2 })).rejects.toThrow(
      said,
    );
    // Some refused, some not: the refused ones are left out of the draws, as before.
    const mixed = fc.oneof(fc.constant("x</answer>y"), fc.constant("lima"));
    expect(fc.sample(actionArbitrary(lookupEnv, { answers: mixed }), { numRuns: 200, seed: 3 })).toContain(
      "<answer>lima</answer>",
    );
  });

  it("args that no call could carry (white space at a bare text's ends, every time) are refused, not left unused", () => {
    const said =
      'option args.lookup: none of the 5 arguments it generated can be written as a call ({"key":" k1 "}: lookup\'s key " k1 " starts or ends with white space, which parsing trims: the call would ask for "k1"), so every call of lookup would be made from its parameter schema instead';
    expect(() => actionArbitrary(lookupEnv, { args: { lookup: fc.constant({ key: " k1 " }) } })).toThrow(said);
    // Some left out, some not: the calls are made from the others.
    const mixed = fc.oneof(fc.constant({ key: " k1 " }), fc.constant({ key: "k2" }));
    expect(fc.sample(actionArbitrary(lookupEnv, { args: { lookup: mixed } }), { numRuns: 200, seed: 3 })).toContain(
      "<lookup>k2</lookup>",
    );
  });
});

describe("options that must be arbitraries", () => {
  it("a plain array or value is refused with the option's name and how to make one", async () => {
    const { checkRewards, neverCrashes, returnBounds } = await import("../../src/testing/index.ts");
    const bounds = [returnBounds({ min: -10, max: 10 })];
    await expect(
      checkRewards(lookupEnv, { invariants: bounds, tasks: [{ key: "k1" }] as never, numRuns: 2 }),
    ).rejects.toThrow(
      "option tasks must be a fast-check arbitrary (for example fc.constantFrom(...values)), got an array",
    );
    await expect(
      checkRewards(lookupEnv, { invariants: bounds, args: { lookup: "k1" } as never, numRuns: 2 }),
    ).rejects.toThrow("option args.lookup must be a fast-check arbitrary");
    // A misspelt tool name is refused (it was ignored, and the test fell back to schema-made arguments).
    await expect(
      checkRewards(lookupEnv, { invariants: bounds, args: { lookups: fc.constant({ key: "k1" }) }, numRuns: 2 }),
    ).rejects.toThrow('option args.lookups: environment lookup has no tool "lookups"; its tools: lookup');
    // A switch given as text from plain JavaScript (legal: "false" is truthy: the legal picks were drawn).
    for (const name of ["legal", "repeats"])
      await expect(
        checkRewards(lookupEnv, { invariants: bounds, [name]: "false", numRuns: 2 } as never),
      ).rejects.toThrow(`option ${name} must be true or false, got "false" (a string)`);
    expect(() => actionArbitrary(lookupEnv, { args: { lookups: fc.constant({ key: "k1" }) } })).toThrow(
      'has no tool "lookups"',
    );
    // Arguments of the wrong shape are refused too (they made meaningless calls such as <lookup>undefined</lookup>).
    expect(() => actionArbitrary(lookupEnv, { args: { lookup: fc.constant({ titel: "dune" }) } })).toThrow(
      'option args.lookup: it generated {"titel":"dune"}, which does not fit the parameters of lookup',
    );
    expect(() => actionArbitrary(lookupEnv, { args: { lookup: fc.constant("k1") } })).toThrow(
      'it generated "k1", which does not fit the parameters of lookup',
    );
    // An optional field of a bare-text tool, which the machine fills (before: "it generated look takes its one ...").
    const look = defineTool({
      name: "look",
      description: "a key in a book the machine passes",
      parameters: Schema.Struct({ key: Schema.String, book: Schema.optional(Schema.String) }),
      execute: ({ key }) => key,
    });
    expect(() =>
      actionArbitrary({ tools: { look } }, { args: { look: fc.constant({ key: "k", book: "b" }) } }),
    ).toThrow(
      'option args.look: it generated {"key":"k","book":"b"}, which formatCall refuses: look takes its one required string field key as bare text, so a call cannot carry book',
    );
    const calc = defineTool({
      name: "calc",
      description: "n squared",
      parameters: Schema.Struct({ n: Schema.Number }),
      execute: ({ n }) => n * n,
    });
    expect(() => actionArbitrary({ tools: { calc } }, { args: { calc: fc.constant({ n: Number.NaN }) } })).toThrow(
      "option args.calc: it generated arguments that formatCall refuses: the arguments of calc are not plain JSON: ",
    );
    // A check that checks nothing is refused.
    await expect(checkRewards(lookupEnv, { invariants: [] })).rejects.toThrow("give at least one invariant");
    // One invariant given bare, not in a list: said so (it was "give at least one invariant").
    await expect(checkRewards(lookupEnv, { invariants: neverCrashes() as never })).rejects.toThrow(
      'checkRewards: invariants must be a list of invariants, got the invariant "no action or tool result crashes the environment" alone: wrap it in a list, invariants: [...]',
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, numRuns: 0 })).rejects.toThrow(
      "numRuns must be an integer >= 1, got 0",
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, numRuns: "5" as never })).rejects.toThrow(
      'checkRewards: numRuns must be an integer >= 1, got "5"',
    );
    // A path without its seed would be ignored, and a search of other cases could pass: refused.
    await expect(checkRewards(lookupEnv, { invariants: bounds, path: "977:0:6" })).rejects.toThrow(
      'checkRewards: path "977:0:6" without its seed reruns nothing; give the seed the counterexample printed with it',
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, seed: "abc" as never })).rejects.toThrow(
      'checkRewards: seed must be an integer (fast-check\'s seed, as a counterexample prints it), got "abc"',
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, maxActions: 0 })).rejects.toThrow(
      "checkRewards: maxActions must be an integer >= 1, got 0",
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, minActions: 7 })).rejects.toThrow(
      "minActions must be an integer from 0 to maxActions (6), got 7",
    );
    await expect(checkRewards(lookupEnv, { invariants: bounds, actions: fc.constant(5) as never })).rejects.toThrow(
      "option actions must generate text (strings), but it generated 5 (number)",
    );
    // An invariant passed without calling it.
    await expect(checkRewards(lookupEnv, { invariants: [returnBounds as never] })).rejects.toThrow(
      "checkRewards: invariants[0] is the function returnBounds, not an invariant: call it (returnBounds(...))",
    );
    // A misspelt option or invariant option is refused, not ignored (numRun ran the default 50 cases).
    await expect(checkRewards(lookupEnv, { invariants: bounds, numRun: 5 } as never)).rejects.toThrow(
      "checkRewards: unknown option `numRun` (did you mean `numRuns`?); checkRewards knows args, answers,",
    );
    const { checkModel, exploreEnv, noRewardForRepeatedCalls, processRewardCap, rewardBounds } = await import(
      "../../src/testing/index.ts"
    );
    await expect(checkModel(lookupEnv, { model: {} as never, maxCommand: 3 } as never)).rejects.toThrow(
      "checkModel: unknown option `maxCommand` (did you mean `maxCommands`?)",
    );
    await expect(checkModel(lookupEnv, { model: {} as never, numRuns: "3" } as never)).rejects.toThrow(
      'checkModel: numRuns must be an integer >= 1, got "3"',
    );
    expect(() => exploreEnv(lookupEnv, { actions: [], allowCycle: true } as never)).toThrow(
      "exploreEnv: unknown option `allowCycle` (did you mean `allowCycles`?)",
    );
    // Coverage options of the wrong kind are named (they read as nonsense further on: "more than -1 states").
    const sample = ["<answer>red</answer>"];
    for (const [options, says] of [
      [{ actions: [] }, "exploreEnv: options.actions is empty: give the sample actions to try"],
      [
        { actions: sample, limit: -1 },
        "exploreEnv: options.limit must be an integer >= 1 (distinct states to explore at most), got -1",
      ],
      [
        { actions: sample, limit: "10" },
        'options.limit must be an integer >= 1 (distinct states to explore at most), got "10"',
      ],
      [{ actions: sample, allowCycles: "yes" }, 'exploreEnv: options.allowCycles must be true or false, got "yes"'],
      [
        { actions: sample, toolResults: [] },
        "exploreEnv: options.toolResults must be a function (tool, args) => ToolResult[]",
      ],
      [{ actions: sample, serialize: () => 1 }, "exploreEnv: options.serialize must return a string"],
      [
        {
          actions: sample,
          serialize: () => {
            throw new Error("boom");
          },
        },
        'exploreEnv: options.serialize threw on state "awaiting": boom',
      ],
    ] as const)
      expect(() => exploreEnv(lookupEnv, options as never)).toThrow(says);
    const { playEpisode } = await import("../../src/testing/index.ts");
    await expect(playEpisode(lookupEnv, { actions: sample } as never)).rejects.toThrow(
      "playEpisode: the script must be { seed: string, actions: [...], task?, toolResults? }; its seed is missing",
    );
    // A misspelt field was ignored: the real tools ran where a failure was meant to be injected.
    const failure = { ok: false, error: { kind: "error", message: "down" } };
    await expect(
      playEpisode(lookupEnv, { seed: "s", actions: sample, toolResult: [failure] } as never),
    ).rejects.toThrow(
      "playEpisode: the script has an unknown field `toolResult` (did you mean `toolResults`?); a script is { seed: string, actions: [...], task?, toolResults? }",
    );
    // A misspelt `actions` is named as such, not said as actions that are not an array.
    await expect(playEpisode(lookupEnv, { seed: "s", action: sample } as never)).rejects.toThrow(
      "playEpisode: the script has an unknown field `action` (did you mean `actions`?)",
    );
    // What is no environment, no action, no list of results or no schedule is named, not met deep in the runtime
    // ("reading 'tokenizer'", "policy script failed: ... reading 'matchAll'", ".entries is not a function"), nor
    // blamed on the environment (a schedule that is no function ended the episode "waiting for nothing").
    const refusals: [() => Promise<unknown>, string][] = [
      [
        () => playEpisode(undefined as never, { seed: "s", actions: sample }),
        "playEpisode: the first argument must be an environment (defineEnv(...)), got undefined",
      ],
      [
        () => playEpisode(lookupEnv, { seed: "s", actions: ["<lookup>k1</lookup>", 5] as never }),
        "playEpisode: script.actions[1] is 5, not an action: give the action's text, or { legal: i } for the i-th legal action",
      ],
      [
        () => playEpisode(lookupEnv, { seed: "s", actions: sample, toolResults: failure as never }),
        "playEpisode: script.toolResults must be a list, the result to inject by tool call in call order (null: the real tool's), got an object",
      ],
      [
        () => playEpisode(lookupEnv, { seed: "s", actions: sample }, { schedule: 5 as never }),
        "playEpisode: options.schedule must be a function (label, result) => a promise of the result",
      ],
      [
        () => playEpisode(lookupEnv, { seed: "s", actions: sample }, { schedul: () => 1 } as never),
        "playEpisode: unknown option `schedul` (did you mean `schedule`?)",
      ],
    ];
    for (const [play, says] of refusals) await expect(play()).rejects.toThrow(says);
    expect(() => noRewardForRepeatedCalls({ allowRetry: true } as never)).toThrow(
      "noRewardForRepeatedCalls: unknown option `allowRetry` (did you mean `allowRetryAfterFailure`?); noRewardForRepeatedCalls knows callOf, allowRetryAfterFailure",
    );
    // Bounds that could only ever fail are refused up front.
    expect(() => rewardBounds({ min: 1, max: 0 })).toThrow("rewardBounds: min 1 is above max 0");
    expect(() => returnBounds({ min: 0, max: Number.NaN })).toThrow("returnBounds: min and max must be numbers");
    // A number written as text says so: "got min -0.1" read as a valid bound.
    expect(() => rewardBounds({ min: "-0.1", max: 1 } as never)).toThrow(
      'rewardBounds: min and max must be numbers, got min "-0.1" (a string), max 1',
    );
    expect(() => processRewardCap("0.2" as never)).toThrow(
      'processRewardCap: the cap must be a finite number >= 0 (the most process reward one episode may earn), got "0.2" (a string)',
    );
    // A negative cap fails every episode (0 is above it), NaN and Infinity cap nothing; 0 is a cap.
    for (const [cap, shown] of [
      [-1, "-1"],
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
    ] as const)
      expect(() => processRewardCap(cap)).toThrow(
        `processRewardCap: the cap must be a finite number >= 0 (the most process reward one episode may earn), got ${shown}`,
      );
    expect(() => processRewardCap(0)).not.toThrow();
    // An infinite bound leaves one side open; one that admits no number, or bounds nothing, is refused.
    expect(() => rewardBounds({ min: Number.POSITIVE_INFINITY, max: Number.POSITIVE_INFINITY })).toThrow(
      "rewardBounds: min must be finite or -Infinity (no lower bound) and max finite or Infinity (no upper bound), got min Infinity, max Infinity",
    );
    expect(() => returnBounds({ min: Number.NEGATIVE_INFINITY, max: Number.NEGATIVE_INFINITY })).toThrow(
      "returnBounds: min must be finite or -Infinity (no lower bound) and max finite or Infinity (no upper bound), got min -Infinity, max -Infinity",
    );
    expect(() => returnBounds({ min: Number.NEGATIVE_INFINITY, max: Number.POSITIVE_INFINITY })).toThrow(
      "returnBounds: min -Infinity and max Infinity bound nothing: give a finite min or max",
    );
    expect(() => rewardBounds({ min: Number.NEGATIVE_INFINITY, max: 1 })).not.toThrow();
    expect(() => rewardBounds({ min: 0, max: 1, kind: "outcom" } as never)).toThrow(
      'rewardBounds: kind must be "process" or "outcome", got "outcom"',
    );
    // The arbitrary itself is accepted.
    await checkRewards(lookupEnv, {
      invariants: bounds,
      seeds: fc.constantFrom("s1", "s2"),
      numRuns: 2,
    });
  });
});

describe("minActions", () => {
  it("draws scripts of at least that many actions, repeats included (a world that ends only after N actions)", () => {
    for (const repeats of [true, false])
      fc.assert(
        fc.property(episodeScriptArbitrary(weather, { minActions: 4, maxActions: 6, repeats }), (script) => {
          expect(script.actions.length).toBeGreaterThanOrEqual(4);
          expect(script.actions.length).toBeLessThanOrEqual(6);
        }),
        { numRuns: 200 },
      );
  });
});

describe("options the arbitraries do not know", () => {
  it("are refused, naming the one meant, not ignored (maxAction: 3 drew scripts of the default length)", () => {
    expect(() => episodeScriptArbitrary(lookupEnv, { maxAction: 3 } as never)).toThrow(
      "episodeScriptArbitrary: unknown option `maxAction` (did you mean `maxActions`?); episodeScriptArbitrary knows args, answers, hugeLength, actions, maxActions,",
    );
    expect(() => actionArbitrary(lookupEnv, { answer: fc.constant("k1") } as never)).toThrow(
      "actionArbitrary: unknown option `answer` (did you mean `answers`?); actionArbitrary knows args, answers, hugeLength",
    );
    // An episode script's option is none of the actions'.
    expect(() => actionArbitrary(lookupEnv, { maxActions: 3 } as never)).toThrow(
      "actionArbitrary: unknown option `maxActions`; actionArbitrary knows args, answers, hugeLength",
    );
    expect(() => hostileActionArbitrary(lookupEnv, { hugeLenght: 50 } as never)).toThrow(
      "hostileActionArbitrary: unknown option `hugeLenght` (did you mean `hugeLength`?)",
    );
    expect(() => wellFormedActionArbitrary(lookupEnv, { arg: {} } as never)).toThrow(
      "wellFormedActionArbitrary: unknown option `arg` (did you mean `args`?)",
    );
    expect(() => almostRightActionArbitrary(lookupEnv, { answer: fc.constant("k1") } as never)).toThrow(
      "almostRightActionArbitrary: unknown option `answer` (did you mean `answers`?)",
    );
    expect(() => episodeScriptArbitrary(lookupEnv, null as never)).toThrow(
      "episodeScriptArbitrary: the options must be an object, got null",
    );
  });

  it("an invariant's own arbitrary is given the script options only, so episodeScriptArbitrary(env, options) takes them", async () => {
    const { checkRewards, neverCrashes } = await import("../../src/testing/index.ts");
    const given: string[][] = [];
    const mine = {
      name: "scripts of at most 2 actions",
      arbitrary: (env: typeof lookupEnv, options: object) => {
        given.push(Object.keys(options));
        return episodeScriptArbitrary(env, options);
      },
      check: async (_env: typeof lookupEnv, script: { actions: readonly unknown[] }) =>
        script.actions.length <= 2 ? undefined : { message: `${script.actions.length} actions`, episodes: [] },
    };
    await checkRewards(lookupEnv, {
      invariants: [mine, neverCrashes()],
      maxActions: 2,
      numRuns: 3,
      log: () => {},
      legal: false,
    });
    expect(given).toEqual([["maxActions", "legal"]]);
  });
});

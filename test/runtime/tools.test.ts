import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { fromPromise, setup } from "xstate";
import { expertPolicy, lookupEnv } from "../../actors/lookup/index.ts";
import {
  defineEnv,
  defineTool,
  MemoryJournal,
  PolicyActor,
  runEpisode,
  Schema,
  scriptedPolicy,
  toolActors,
} from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { TRUNCATION_MARKER } from "../../src/runtime/tool.ts";
import { playing } from "../support/index.ts";

const withLookup = (
  execute: (args: { key: string }, ctx: { signal: AbortSignal }) => unknown,
  timeoutMs = 50,
  maxResultChars = 100,
) => {
  const lookup = defineTool({
    name: "lookup",
    description: "faulty lookup",
    parameters: Schema.Struct({ key: Schema.String }),
    timeoutMs,
    maxResultChars,
    execute: execute as never,
  });
  return defineEnv({
    ...lookupEnv,
    tools: { lookup },
    machine: lookupEnv.machine.provide({}),
  });
};

const returned = async (env: ReturnType<typeof withLookup>) => {
  const journal = new MemoryJournal();
  const run = await runEpisode({
    env,
    policy: new PolicyActor(playing(["<lookup>k1</lookup>", "<answer>red</answer>"])),
    journal,
    seed: "faults",
  });
  const events = await journal.read(run.episode);
  // Replay never calls the tool: the recorded fault is the truth.
  expect(() => replayEpisode(events, lookupEnv)).not.toThrow();
  const result = events.find((e) => e.type === "tool.returned");
  return { run, result: result?.type === "tool.returned" ? result.result : undefined };
};

describe("tool faults are recorded outcomes, never crashes", () => {
  it("a throw becomes ok:false kind error and the episode completes", async () => {
    const { run, result } = await returned(
      withLookup(() => {
        throw new Error("store offline");
      }),
    );
    expect(result).toEqual({ ok: false, error: { kind: "error", message: "store offline" } });
    expect(run.reason).toBe("answered");
  });

  it("a thrown value that is not an Error is said to be one, as inspect shows it, not as 'undefined'", async () => {
    const cyclic: { code: number; self?: unknown } = { code: 7 };
    cyclic.self = cyclic;
    for (const [thrown, message] of [
      [undefined, "threw undefined, not an Error"],
      [42, "threw 42, not an Error"],
      [cyclic, "threw <ref *1> { code: 7, self: [Circular *1] }, not an Error"],
      [{ message: "bad unit" }, "bad unit"], // an error-like object's own message
      ["plain text", "plain text"],
    ] as const) {
      const { result } = await returned(
        withLookup(() => {
          throw thrown;
        }),
      );
      expect(result).toEqual({ ok: false, error: { kind: "error", message } });
    }
  });

  it("a hang is cut by the timeout, and the tool's signal is aborted", async () => {
    let aborted = "";
    const { run, result } = await returned(
      withLookup(
        (_args, { signal }) =>
          new Promise(() => {
            signal.addEventListener("abort", () => {
              aborted = `${(signal.reason as DOMException).name}: ${(signal.reason as DOMException).message}`;
            });
          }),
        30,
      ),
    );
    expect(result).toEqual({
      ok: false,
      error: { kind: "timeout", message: "lookup timed out after 30 ms" },
    });
    // Named as AbortSignal.timeout() names its reason.
    expect(aborted).toBe("TimeoutError: timed out after 30 ms");
    expect(run.reason).toBe("answered");
  });

  it("a huge output is cut with a visible marker", async () => {
    const { result } = await returned(withLookup(() => "x".repeat(10_000)));
    expect(result?.ok).toBe(true);
    const content = result?.ok ? String(result.content) : "";
    expect(content.endsWith(TRUNCATION_MARKER)).toBe(true);
    expect(content.length).toBe(100 + TRUNCATION_MARKER.length);
  });

  it.each([
    ["NaN", () => ({ n: Number.NaN, ok: "yes" }), "result.n is NaN"],
    ["a function", () => ({ f: () => 1, ok: "yes" }), "result.f is a function"],
    ["a Map", () => ({ prices: new Map([["a", 1]]) }), "result.prices is a Map"],
    ["a Date", () => [new Date(0)], "result[0] is a Date"],
    ["a bigint", () => ({ n: 1n }), "result.n is a bigint"],
    [
      "a cycle",
      () => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      },
      "refers back",
    ],
  ])("a result holding %s is a tool failure that names where, not a silent {} or null", async (_, execute, where) => {
    const { result } = await returned(withLookup(execute, 50, 1000));
    expect(result).toMatchObject({ ok: false, error: { kind: "error" } });
    const message = result?.ok ? "" : result?.error.message;
    expect(message).toContain("lookup returned a value that is not plain JSON");
    expect(message).toContain(where);
  });

  it('an Effect returned unrun, or an object of no class of its own, is named as such, not as "a Object"', async () => {
    const program = Effect.succeed(3);
    const unrun = await defineTool({
      name: "count",
      description: "",
      parameters: Schema.Struct({ item: Schema.String }),
      execute: () => program as never,
    }).call({ item: "apple" });
    expect(unrun).toEqual({
      ok: false,
      error: {
        kind: "error",
        message:
          "count returned an Effect program, not its result: run it in execute, `execute: (args, { signal }) => Effect.runPromise(program, { signal })`, so that a timeout or the episode's end interrupts it",
      },
    });
    const { result } = await returned(
      withLookup(() => ({ a: Object.create({ inherited: 1 }), b: new Int8Array(1) }), 50, 1000),
    );
    const message = result?.ok ? "" : result?.error.message;
    expect(message).toContain(
      "result.a is an object of no plain prototype (a class instance, an Effect, another realm's object);",
    );
    const second = await returned(withLookup(() => ({ b: new Int8Array(1) }), 50, 1000));
    expect(second.result?.ok ? "" : second.result?.error.message).toContain("result.b is an Int8Array;");
  });

  it("a tool that returns nothing returned null; plain results pass unchanged", async () => {
    expect((await returned(withLookup(() => undefined))).result).toEqual({ ok: true, content: null });
    const plain = { a: [1, "x", null, true], b: { c: -0.5 }, skipped: undefined };
    expect((await returned(withLookup(() => plain))).result).toEqual({
      ok: true,
      content: { a: [1, "x", null, true], b: { c: -0.5 } },
    });
  });

  it("arguments that do not decode are refused before execute runs", async () => {
    let ran = false;
    const tool = defineTool({
      name: "t",
      description: "",
      parameters: Schema.Struct({ n: Schema.Int }),
      execute: () => {
        ran = true;
        return 1;
      },
    });
    expect(await tool.call({ n: "1" })).toMatchObject({ ok: false, error: { kind: "invalid-args" } });
    expect(ran).toBe(false);
    // One line that names the tool (record's note quotes it; a model may be shown it), not Effect's two.
    expect(await tool.call({ n: "1" })).toEqual({
      ok: false,
      error: { kind: "invalid-args", message: 't\'s arguments do not fit its parameters: Expected number at ["n"]' },
    });
    expect(tool.jsonSchema).toMatchObject({ type: "object", required: ["n"] });
  });

  it("arguments that are not plain JSON are refused by tool.call as an episode refuses them, before execute runs", async () => {
    // An episode refuses a machine's invoke input holding a Date (JSON would give the tool its text); tool.call,
    // which README says runs a call as an episode does, handed execute the Date itself.
    const given: unknown[] = [];
    const tool = defineTool({
      name: "t",
      description: "",
      parameters: Schema.Struct({ when: Schema.Unknown }),
      execute: ({ when }) => {
        given.push(when);
        return 1;
      },
    });
    expect(await tool.call({ when: new Date(0) })).toEqual({
      ok: false,
      error: {
        kind: "invalid-args",
        message:
          "t's arguments are not plain JSON: arguments.when is a Date; a call's arguments are journaled as JSON, so give plain data (e.g. date.toISOString(), Object.fromEntries(map))",
      },
    });
    expect(given).toEqual([]);
    expect(await tool.call({ when: "1970-01-01T00:00:00.000Z" })).toEqual({ ok: true, content: 1 });
  });
});

describe("concurrent tool results", () => {
  it("results arriving in the same tick are recorded in the order the machine takes them, and replay", async () => {
    const { createRaceEnv, playing: play } = await import("../support/index.ts");
    const env = createRaceEnv({ a: () => "A", b: () => "B" });
    const journal = new MemoryJournal();
    const run = await runEpisode({
      env,
      policy: new PolicyActor(play(["<a>x</a>", "<a>x</a>"], env.tokenizer)),
      journal,
      seed: "same-tick",
    });
    expect(run.reason).toBe("answered");
    const events = await journal.read(run.episode);
    expect(events.filter((e) => e.type === "tool.returned")).toHaveLength(4);
    expect(() => replayEpisode(events, env)).not.toThrow();
  });
});

describe("defineTool refuses a tool a model could never call", () => {
  const spec = {
    name: "search",
    description: "d",
    parameters: Schema.Struct({ query: Schema.String }),
    execute: () => "found",
  };
  it.each([
    [{ name: "answer" }, /a tool cannot be named "answer": <answer>\.\.\.<\/answer> is the final answer/],
    [{ name: "my tool" }, /name "my tool" cannot be called: a model calls a tool as <name>\.\.\.<\/name>/],
    [{ name: "2fast" }, /name "2fast" cannot be called/],
    [
      { parameters: Schema.String },
      /tool search: parameters must be a Schema\.Struct .*got a schema of no object \(String\)/,
    ],
    [{ parameters: Schema.Array(Schema.String) }, /got a schema of no object \(Arrays\)/],
    [{ timeout: 100 }, /tool search: unknown field `timeout` \(did you mean `timeoutMs`\?\)/],
    [{ execute: undefined }, /tool search: execute must be a function .*got none/],
    // Required by the type, but taken as undefined from plain JavaScript or tsx (which does not typecheck).
    [{ description: undefined }, /^tool search: description must be a string \(what the tool does, .*\), got none$/],
    [{ description: 3 }, /^tool search: description must be a string .*, got 3$/],
  ])("%o", (change, says) => {
    expect(() => defineTool({ ...spec, ...change } as never)).toThrow(says);
  });
  it("takes a defined tool spread with a field changed (a stand-in keeping its name and parameters), refuses a call of one's own", async () => {
    const real = defineTool({ ...spec, timeoutMs: 500 });
    const stub = defineTool({ ...real, execute: () => "stubbed" });
    expect([stub.name, stub.timeoutMs, stub.jsonSchema]).toEqual(["search", 500, real.jsonSchema]);
    expect(await stub.call({ query: "q" })).toEqual({ ok: true, content: "stubbed" });
    expect(await real.call({ query: "q" })).toEqual({ ok: true, content: "found" });
    const faster = defineTool({ ...stub, timeoutMs: 5, execute: () => new Promise<string>(() => {}) });
    expect(await faster.call({ query: "q" })).toMatchObject({ ok: false, error: { kind: "timeout" } });
    const own = async () => ({ ok: true as const, content: "mine" });
    expect(() => defineTool({ ...spec, call: own } as never)).toThrow(/tool search: unknown field `call`/);
    expect(() => defineTool({ ...spec, jsonSchema: {} } as never)).toThrow(/tool search: unknown field `jsonSchema`/);
  });
  it("defineEnv refuses a copy of a defined tool with a field changed and no defineTool around it (it ran the original)", async () => {
    // `{ ...real, execute }` keeps the original's `call`, which runs the original's execute: the stand-in type-checks
    // (env.tools keeps each tool's type) and is called, and the real tool answered in its place.
    const [key, real] = Object.entries(lookupEnv.tools)[0]!;
    const copy = { ...real, execute: () => "stubbed" };
    expect(await copy.call({ query: "q" })).not.toEqual({ ok: true, content: "stubbed" });
    expect(() => defineEnv({ ...lookupEnv, tools: { ...lookupEnv.tools, [key]: copy } })).toThrow(
      `environment lookup: tools.${key}: it is a copy of the tool ${key} with \`execute\` changed, but its \`call\` is still the original's and runs the original's execute: make it with defineTool({ ...${key}, execute: ... })`,
    );
    // A plain copy runs as it reads, and defineTool around a changed one makes a tool of its own.
    const stub = defineTool({ ...real, execute: () => "stubbed" });
    expect(defineEnv({ ...lookupEnv, tools: { ...lookupEnv.tools, [key]: { ...real } } }).id).toBe("lookup");
    expect(defineEnv({ ...lookupEnv, tools: { ...lookupEnv.tools, [key]: stub } }).tools[key]).toBe(stub);
  });
  it("accepts names a model can write and object schemas of any shape", () => {
    for (const name of ["get_weather", "_private", "Search2"]) expect(defineTool({ ...spec, name }).name).toBe(name);
    const union = Schema.Union([Schema.Struct({ a: Schema.String }), Schema.Struct({ b: Schema.Number })]);
    expect(defineTool({ ...spec, parameters: union }).name).toBe("search");
  });
});

describe("defineEnv and scriptedPolicy name what a user left out", () => {
  it.each([
    ["machine", { machine: undefined }, /environment lookup: `machine` is not an XState machine/],
    ["tokenizer", { tokenizer: {} }, /environment lookup: `tokenizer` \(an object\) is not a tokenizer/],
    ["task", { task: "t" }, /`task` "t" is not a function from a seed to a task/],
    [
      "id",
      { id: "" },
      /^defineEnv: `id` "" is not an id: 1 to 64 letters, digits, '\.', '_' or '-', starting with a letter/,
    ],
    ["id", { id: "Bad Id!" }, /^defineEnv: `id` "Bad Id!" is not an id/],
    ["id", { id: "./lookup" }, /^defineEnv: `id` "\.\/lookup" is not an id/],
    ["id", { id: "lookup?x=1" }, /^defineEnv: `id` "lookup\?x=1" is not an id/],
    ["id", { id: 7 }, /^defineEnv: `id` \(7\) is not an id/],
    ["version", { version: "" }, /^environment lookup: `version` "" is not a version: 1 to 64 letters, digits/],
    ["version", { version: "1 beta" }, /^environment lookup: `version` "1 beta" is not a version/],
    [
      "maxActionTokens",
      { maxActionTokens: 0 },
      /^environment lookup: `maxActionTokens` must be an integer >= 1, got 0/,
    ],
    ["maxActionTokens", { maxActionTokens: "20" }, /`maxActionTokens` must be an integer >= 1, got "20"/],
    // 0 or -1 aborted every episode before its first action; NaN or "5" turned the turn limit off silently.
    ["maxTurns", { maxTurns: 0 }, /^environment lookup: `maxTurns` must be an integer >= 1, got 0$/],
    ["maxTurns", { maxTurns: -1 }, /`maxTurns` must be an integer >= 1, got -1$/],
    ["maxTurns", { maxTurns: 2.5 }, /`maxTurns` must be an integer >= 1, got 2\.5$/],
    ["maxTurns", { maxTurns: Number.NaN }, /`maxTurns` must be an integer >= 1, got NaN$/],
    ["maxTurns", { maxTurns: "5" }, /`maxTurns` must be an integer >= 1, got "5" \(a string\)$/],
    // A misspelt model field trained the default shape silently; a list of legal actions loaded, then aborted
    // every constrained episode with "env.legalActions is not a function".
    ["model", { model: { layer: 3 } }, /^environment lookup: `model` has no field `layer` \(did you mean `layers`\?\)/],
    ["model", { model: "big" }, /`model` must be \{ layers, heads, width, contextLength, copy, positions \}/],
    ["legalActions", { legalActions: ["<answer>a</answer>"] }, /`legalActions` must be a function .*, got an array$/],
    ["configure", { configure: 3 }, /`configure` must be a function .*, got 3$/],
    ["options", { options: "x" }, /`options` must be an object of the options in effect, got "x" \(a string\)$/],
    ["evaluation", { evaluation: "heldout" }, /`evaluation` must be an environment .*, got "heldout"/],
    // An object that is no environment loaded, then crashed train's first evaluation with a stack trace.
    [
      "evaluation",
      { evaluation: { id: "lookup" } },
      /^environment lookup: `evaluation` must be an environment \(a variant, e\.g\. env\.configure\(\{ \.\.\. \}\)\), got an object without tools and machine$/,
    ],
    // A list given as one string, or without the configure it names the keys of, would check nothing.
    [
      "optionKeys",
      { optionKeys: "split", configure: () => lookupEnv },
      /^environment lookup: `optionKeys` must be the keys configure reads, an array of names \(\["split", "top-k"\]\), got "split"/,
    ],
    ["optionKeys", { optionKeys: ["split", ""], configure: () => lookupEnv }, /`optionKeys` must be the keys/],
    [
      "optionKeys",
      { optionKeys: ["split"] },
      /`optionKeys` names the keys configure reads, but the environment has no `configure`/,
    ],
  ])("a wrong or missing %s: %j", (_field, change, says) => {
    expect(() => defineEnv({ ...lookupEnv, ...(change as object) } as typeof lookupEnv)).toThrow(says);
  });

  it("an evaluation of another environment is refused when defined, not when train first evaluates on it", () => {
    expect(() => defineEnv({ ...lookupEnv, evaluation: { ...lookupEnv, id: "heldout" } })).toThrow(
      /^environment lookup: `evaluation` is environment "heldout", not a variant of lookup: train evaluates/,
    );
    expect(defineEnv({ ...lookupEnv, evaluation: lookupEnv }).evaluation).toBe(lookupEnv);
  });

  it("ids and versions like the shipped environments' are accepted", () => {
    for (const [id, version] of [
      ["lookup", "1"],
      ["my-env.v2_b", "2.0.1+build.7"],
      ["E", "v3"],
    ])
      expect(defineEnv({ ...lookupEnv, id, version }).id).toBe(id);
  });

  it.each([
    ["polices", { polices: {} }, "unknown field `polices` (did you mean `policies`?); defineEnv knows id, version,"],
    ["maxActionToken", { maxActionToken: 16 }, "unknown field `maxActionToken` (did you mean `maxActionTokens`?)"],
    ["MaxTurns", { MaxTurns: 3 }, "unknown field `MaxTurns` (did you mean `maxTurns`?)"],
    ["rewards", { rewards: {} }, "unknown field `rewards`; defineEnv knows id, version, description, machine,"],
  ])("a misspelt or unknown field is refused, not ignored: %s", (_field, change, says) => {
    expect(() => defineEnv({ ...lookupEnv, ...(change as object) } as typeof lookupEnv)).toThrow(
      `environment lookup: ${says}`,
    );
  });

  it("a tool under a key other than its name is refused (every call of it would be malformed)", () => {
    const lookup = lookupEnv.tools.lookup;
    expect(() => defineEnv({ ...lookupEnv, tools: { find: lookup } })).toThrow(
      'environment lookup: tools.find is the tool named "lookup"; the key must be its name, as a model calls it <lookup>...</lookup>: write { lookup: ... }',
    );
    expect(() => defineEnv({ ...lookupEnv, tools: { lookup: { execute: () => 1 } as never } })).toThrow(
      "environment lookup: tools.lookup is not a tool; make it with defineTool({ name, ... })",
    );
  });

  it("a required field left out is called missing", () => {
    const { description: _, ...rest } = lookupEnv;
    expect(() => defineEnv(rest as typeof lookupEnv)).toThrow(
      "environment lookup: `description` is missing; it must be a string",
    );
    // Left out because it was misspelt: the misspelling is named too.
    const { task, ...untasked } = lookupEnv;
    expect(() => defineEnv({ ...untasked, tasks: task } as unknown as typeof lookupEnv)).toThrow(
      "environment lookup: unknown field `tasks` (did you mean `task`?); defineEnv knows id, version,",
    );
  });

  it("an invoke whose src names no actor is refused when the environment is defined, naming the state", () => {
    const machine = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "waiting",
      states: { waiting: { on: { "agent.act": "calling" } }, calling: { invoke: { src: "lokup" as never } } },
    });
    expect(() => defineEnv({ ...lookupEnv, machine })).toThrow(
      'environment lookup: state "calling" invokes src "lokup", which is not among the machine\'s actors (did you mean `lookup`?); it has lookup',
    );
    // Inline actor logic and nested states are walked too: the first is fine, the second is not.
    const nested = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "a",
      states: {
        a: { invoke: { src: fromPromise(async () => 1) } },
        b: { initial: "c", states: { c: { invoke: [{ src: "lookup" }, { src: "fetch" as never }] } } },
      },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: nested })).toThrow('state "b.c" invokes src "fetch"');
    // A name every object has through its prototype is no actor either.
    const inherited = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "a",
      states: { a: { invoke: { src: "toString" as never } } },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: inherited })).toThrow('invokes src "toString"');
  });

  it("an onError on a tool's invoke is refused when the environment is defined: a tool's failures arrive on onDone", () => {
    // XState's place for a failed actor is onError; written there, a tool's timeout or throw (which arrives on
    // onDone as { ok: false }) ended the episode as "waiting for nothing", naming neither onError nor onDone.
    const machine = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": "calling" } },
        calling: { invoke: { src: "lookup", input: { key: "k0" }, onError: { target: "done" } } },
        done: { type: "final" },
      },
    });
    expect(() => defineEnv({ ...lookupEnv, machine })).toThrow(
      'environment lookup: state "calling" invokes the tool lookup with an onError, which never runs: a tool\'s failure (a throw, a timeout, invalid arguments) arrives on onDone as { ok: false, error }, like its results; handle it there (a guard on event.output.ok) and remove the onError',
    );
    // An actor of the machine's own that is no tool may fail as XState's actors do: its onError is kept.
    const own = setup({ actors: { ...toolActors(lookupEnv.tools), clock: fromPromise(async () => 1) } }).createMachine({
      initial: "a",
      states: {
        a: { invoke: { src: "clock", onDone: "b", onError: "b" }, on: { "agent.act": "b" } },
        b: { type: "final" },
      },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: own })).not.toThrow();
  });

  it("states that pass to each other by unguarded `always` transitions are refused when the environment is defined", () => {
    // Live, entering one looped forever inside XState's microsteps: the process ran out of memory after
    // minutes (a V8 crash naming nothing), and record never said which states.
    const looping = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": "moving" } },
        moving: { always: [{ guard: () => false, target: "waiting" }, { target: "spin" }] },
        spin: { always: { target: "spin2" } },
        spin2: { always: "spin" },
      },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: looping })).toThrow(
      'environment lookup: states "spin" → "spin2" → "spin" pass to each other by `always` transitions without a guard, so entering one loops forever',
    );
    // A guard on the first `always` of one of them may stop the loop: not refused, nor an unguarded chain that ends.
    const guarded = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "waiting",
      states: {
        waiting: { on: { "agent.act": "spin" } },
        spin: { always: { target: "spin2" } },
        spin2: { always: [{ guard: () => true, target: "waiting" }, { target: "spin" }] },
      },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: guarded })).not.toThrow();
    const chain = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "a",
      states: { a: { always: "b" }, b: { always: "c" }, c: { on: { "agent.act": "a" } } },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: chain })).not.toThrow();
  });

  it("a delayed transition (`after`) is refused when the environment is defined, naming the state", () => {
    // Live, the episode waited for an action or a tool's result and ended as "waiting for nothing", naming
    // no `after`; replay folds without timers.
    const delayed = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "waiting",
      states: { waiting: { on: { "agent.act": "napping" } }, napping: { after: { 100: { target: "waiting" } } } },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: delayed })).toThrow(
      'environment lookup: state "napping" has `after` (a delayed transition, 100): an episode moves only on',
    );
    const nested = setup({ actors: toolActors(lookupEnv.tools) }).createMachine({
      initial: "a",
      states: { a: { initial: "b", states: { b: { after: { 5: "c" } }, c: {} } } },
    });
    expect(() => defineEnv({ ...lookupEnv, machine: nested })).toThrow('state "a.b" has `after`');
  });

  it("policies must be factories, and warmStart { episodes, epochs }: refused when defined, naming the field", () => {
    const policy = expertPolicy();
    expect(() => defineEnv({ ...lookupEnv, policies: { expert: policy as never } })).toThrow(
      "environment lookup: policies.expert must be a function that makes the policy (() => Policy), got a policy: write `expert: () => policy`",
    );
    expect(() => defineEnv({ ...lookupEnv, policies: { expert: "expert" as never } })).toThrow(
      'policies.expert must be a function that makes the policy (() => Policy), got "expert" (a string)',
    );
    expect(() => defineEnv({ ...lookupEnv, warmStart: { episode: 8, epochs: 1 } as never })).toThrow(
      "environment lookup: `warmStart` has no field `episode` (did you mean `episodes`?); it takes episodes and epochs",
    );
    expect(() => defineEnv({ ...lookupEnv, warmStart: { episodes: "8", epochs: 1 } as never })).toThrow(
      'environment lookup: warmStart.episodes must be a positive integer, got "8" (a string)',
    );
    expect(() => defineEnv({ ...lookupEnv, warmStart: { episodes: 8 } as never })).toThrow(
      "warmStart.epochs must be a positive integer, got nothing",
    );
    expect(defineEnv({ ...lookupEnv, warmStart: { episodes: 8, epochs: 2 } }).warmStart).toEqual({
      episodes: 8,
      epochs: 2,
    });
  });

  it("an async script (one that awaits a service) is awaited, like a synchronous one", async () => {
    const script = scriptedPolicy("async", lookupEnv.tokenizer, async ({ history }) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return history.length < 2 ? "<lookup>k1</lookup>" : "<answer>v1</answer>";
    });
    const run = await runEpisode({
      env: lookupEnv,
      policy: new PolicyActor(script),
      journal: new MemoryJournal(),
      seed: "a",
    });
    expect(run.reason).not.toMatch(/aborted/);
    const acted = run.events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []));
    expect(acted).toEqual(["<lookup>k1</lookup>", "<answer>v1</answer>"]);
  });

  it("a policy whose text is not what its tokens spell aborts the episode (the learner trains on the tokens)", async () => {
    const liar = {
      id: "liar",
      version: 0,
      tokenizer: lookupEnv.tokenizer,
      act: async (requests: readonly unknown[]) =>
        requests.map(() => ({ text: "<answer>v1</answer>", tokens: [1, 2, 3], logprobs: [0, 0, 0], version: 0 })),
    };
    const run = await runEpisode({
      env: lookupEnv,
      policy: new PolicyActor(liar),
      journal: new MemoryJournal(),
      seed: "liar",
    });
    expect(run.reason).toMatch(
      /^aborted: policy liar returned an invalid action: its text "<answer>v1<\/answer>" is not what its tokens spell \("\\u0001\\u0002\\u0003"\) with its tokenizer/,
    );
  });

  it("a script that returns nothing aborts the episode with a message saying so", async () => {
    const journal = new MemoryJournal();
    const script = scriptedPolicy("short", lookupEnv.tokenizer, ({ history }) =>
      history.length < 2 ? "<lookup>k1</lookup>" : (undefined as unknown as string),
    );
    const run = await runEpisode({ env: lookupEnv, policy: new PolicyActor(script), journal, seed: "short" });
    expect(run.reason).toMatch(
      /aborted: policy short failed: scripted policy short returned nothing at turn 1; it must return the action's text/,
    );
  });

  it("a script's choice with a misspelt field is refused, naming the one meant, not journaled with logprob 0", async () => {
    const script = scriptedPolicy("sampler", lookupEnv.tokenizer, () => ({
      text: "<lookup>k1</lookup>",
      logprobs: -1.5,
    }));
    const run = await runEpisode({
      env: lookupEnv,
      policy: new PolicyActor(script),
      journal: new MemoryJournal(),
      seed: "typo",
    });
    expect(run.reason).toBe(
      "aborted: policy sampler failed: scripted policy sampler returned an unknown field `logprobs` (did you mean `logprob`?) at turn 0; it must return the action's text (a string or { text, logprob })",
    );
  });
});

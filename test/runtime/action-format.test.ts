/** The action format a model writes: what parses as a call, and what is malformed (never an exception). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  answerOf,
  callOf,
  defineTool,
  formatAnswer,
  formatCall,
  parseAction,
  Schema,
  type Tool,
} from "../../src/index.ts";
import { almostRightActionArbitrary } from "../../src/testing/index.ts";

// A tool of several parameters, as a user's calculator would declare it: JSON arguments.
const calc = defineTool({
  name: "calc",
  description: "a op b",
  parameters: Schema.Struct({ a: Schema.Number, op: Schema.Literals(["+", "-", "*"]), b: Schema.Number }),
  execute: ({ a, op, b }) => (op === "+" ? a + b : op === "-" ? a - b : a * b),
});
const tools = { calc };

describe("parseAction on a tool with JSON arguments", () => {
  it("round-trips every call formatCall writes", () => {
    fc.assert(
      fc.property(
        fc.record({
          a: fc.double({ noNaN: true, noDefaultInfinity: true }),
          op: fc.constantFrom("+", "-", "*"),
          b: fc.integer(),
        }),
        (args) => {
          const parsed = parseAction(formatCall(calc, args), tools);
          expect(parsed).toEqual({ kind: "call", tool: "calc", args: JSON.parse(JSON.stringify(args)) });
        },
      ),
    );
  });

  it("never writes a call that parses as anything else: any string round-trips or formatCall throws", () => {
    const note = defineTool({
      name: "note",
      description: "keeps a note",
      parameters: Schema.Struct({ text: Schema.String, tags: Schema.Array(Schema.String) }),
      execute: ({ text }) => text.length,
    });
    const inventory = defineTool({
      name: "inventory",
      description: "stock of an item",
      parameters: Schema.Struct({ item: Schema.String, stock: Schema.optional(Schema.Number) }),
      execute: ({ item }) => item,
    });
    // Strings rich in what could break the format: tags, slashes, white space at the ends.
    const text = fc
      .stringMatching(/^[ <>/a-z"\\]{0,12}$/)
      .chain((s) => fc.constantFrom(s, `${s}</note>`, `</inventory>${s}`, ` ${s} `, `</answer>${s}`));
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 3 }), (t, tags) => {
        const args = { text: t, tags };
        expect(parseAction(formatCall(note, args), { note })).toEqual({ kind: "call", tool: "note", args });
        let bare: string | undefined;
        try {
          bare = formatCall(inventory, { item: t });
        } catch (error) {
          // Refused only for what the bare form cannot carry: white space at the ends, or its closing tag.
          expect(t !== t.trim() || t.includes("</inventory>"), String(error)).toBe(true);
        }
        if (bare !== undefined)
          expect(parseAction(bare, { inventory })).toEqual({ kind: "call", tool: "inventory", args: { item: t } });
        let answer: string | undefined;
        try {
          answer = formatAnswer(t);
        } catch {
          expect(t).toContain("</answer>");
        }
        if (answer !== undefined) expect(parseAction(answer, {})).toEqual({ kind: "answer", text: t.trim() });
      }),
    );
    // An optional field cannot ride in the bare form (the model cannot write it either).
    expect(() => formatCall(inventory, { item: "tea", stock: 3 })).toThrow(
      /inventory takes its one required string field item as bare text, so a call cannot carry stock/,
    );
  });

  it("calls a number too large for JSON malformed, and says where it is", () => {
    for (const [text, where] of [
      ['<calc>{"a":1e400,"op":"*","b":4}</calc>', ".a"],
      ['<calc>{"a":1,"op":"+","b":-1e999}</calc>', ".b"],
    ] as const) {
      const parsed = parseAction(text, tools);
      expect(parsed.kind).toBe("malformed");
      expect(parsed.kind === "malformed" && parsed.reason).toMatch(
        new RegExp(`${where.replace(".", "\\.")} is -?Infinity, a number too large for JSON`),
      );
      expect(callOf(text, tools, "calc")).toBeUndefined();
    }
  });

  it("calls a key written twice malformed, saying which and where, rather than keeping the last silently", () => {
    // JSON.parse keeps the last: `{"a":1,...,"a":9}` called calc with a = 9, whichever the model meant.
    const book = defineTool({
      name: "book",
      description: "books legs",
      parameters: Schema.Struct({ legs: Schema.Array(Schema.Struct({ from: Schema.String, to: Schema.String })) }),
      execute: ({ legs }) => legs.length,
    });
    for (const [text, reason] of [
      ['<calc>{"a":1,"op":"+","b":2,"a":9}</calc>', 'arguments of calc: the object has the key "a" twice'],
      ['<calc>{"a":1,"op":"+","\\u0062":2,"b":3}</calc>', 'arguments of calc: the object has the key "b" twice'],
      [
        '<book>{"legs":[{"from":"a","to":"b"},{"from":"b","to":"c","to":"d"}]}</book>',
        'arguments of book: .legs[1] has the key "to" twice',
      ],
    ] as const) {
      expect(parseAction(text, { calc, book })).toEqual({
        kind: "malformed",
        reason: `${reason} (write each field once)`,
      });
      expect(callOf(text, { calc, book }, text.startsWith("<calc>") ? "calc" : "book")).toBeUndefined();
    }
    // The same key in two objects, or a key's text inside a string, is no repeat.
    expect(parseAction('<book>{"legs":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}</book>', { book }).kind).toBe(
      "call",
    );
    expect(parseAction('<book>{"legs":[{"from":"x\\",\\"from\\":1","to":"b"}]}</book>', { book }).kind).toBe("call");
  });

  it("finds a key written twice at any depth, and never calls JSON without one a repeat (property)", () => {
    const any = defineTool({
      name: "any",
      description: "takes any JSON",
      parameters: Schema.Struct({ v: Schema.Unknown }),
      execute: () => 0,
    });
    // JSON.stringify never writes a key twice: every such call goes through, with its value as parsed.
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = `<any>${JSON.stringify({ v })}</any>`;
        expect(parseAction(text, { any })).toEqual({
          kind: "call",
          tool: "any",
          args: JSON.parse(JSON.stringify({ v })),
        });
      }),
    );
    // A key of an object written again in front of it, inside arrays and objects around it: found, where it is.
    const keyed = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
      minKeys: 1,
      maxKeys: 4,
    });
    fc.assert(
      fc.property(keyed, fc.nat(), fc.nat({ max: 3 }), (object, pick, before) => {
        const keys = Object.keys(object);
        const key = keys[pick % keys.length];
        const twice = `{${JSON.stringify(key)}:null,${JSON.stringify(object).slice(1)}`;
        const text = `<any>{"v":[${"0,".repeat(before)}{"w":${twice}}]}</any>`;
        expect(parseAction(text, { any })).toEqual({
          kind: "malformed",
          reason: `arguments of any: .v[${before}].w has the key ${JSON.stringify(key)} twice (write each field once)`,
        });
      }),
    );
  });

  it("calls arguments whose JSON escapes write a lone surrogate malformed, and formatCall refuses them", () => {
    // `\ud800` is six ASCII characters a model can type; parsed, it is a string that is not Unicode, which the
    // journal cannot write: the call's tool.called aborted the episode.
    for (const [text, where] of [
      ['<calc>{"a":1,"op":"\\ud800","b":2}</calc>', ".op"],
      ['<calc>{"a":1,"op":"+","b":2,"\\udc00":3}</calc>', "a key of the value"],
    ] as const) {
      const parsed = parseAction(text, tools);
      expect(parsed).toEqual({
        kind: "malformed",
        reason: `arguments of calc: ${where} holds a lone surrogate, which is not Unicode`,
      });
      expect(callOf(text, tools, "calc")).toBeUndefined();
    }
    const note = defineTool({
      name: "note",
      description: "keeps a note",
      parameters: Schema.Struct({ text: Schema.String, n: Schema.Number }),
      execute: ({ text }) => text,
    });
    // A surrogate pair written as two escapes is one character: a call like any other.
    expect(parseAction('<note>{"text":"\\ud83c\\udf4e","n":1}</note>', { note })).toEqual({
      kind: "call",
      tool: "note",
      args: { text: "\u{1F34E}", n: 1 },
    });
    expect(() => formatCall(note, { text: "half \ud800", n: 1 })).toThrow(
      "formatCall: the arguments of note: .text holds a lone surrogate, which is not Unicode",
    );
    const bare = defineTool({
      name: "bare",
      description: "one string",
      parameters: Schema.Struct({ q: Schema.String }),
      execute: ({ q }) => q,
    });
    expect(() => formatCall(bare, { q: "\udfff" })).toThrow(/\.q holds a lone surrogate/);
  });

  it("calls arguments nested past the depth limit malformed instead of overflowing the stack", () => {
    // A tool that takes any JSON: its parameters would decode whatever nesting came through.
    const store = defineTool({
      name: "store",
      description: "keeps a JSON document",
      parameters: Schema.Struct({ doc: Schema.Unknown }),
      execute: ({ doc }) => JSON.stringify(doc).length,
    });
    const deep = (depth: number, open: string, close: string) => `${open.repeat(depth)}${close.repeat(depth)}`;
    for (const [inner, what] of [
      [deep(10_000, "[", "]"), "arrays"],
      [`${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`, "objects"],
      [`{"doc":${deep(5_000, "[", "]")}}`, "a field"],
    ] as const) {
      const text = `<store>${inner}</store>`;
      expect(text.length, what).toBeLessThan(100_000);
      for (const tools of [{ store }, { calc }] as Readonly<Record<string, Tool>>[]) {
        const parsed = parseAction(text.replaceAll("store>", `${Object.keys(tools)[0]}>`), tools);
        expect(parsed.kind, what).toBe("malformed");
        expect(parsed.kind === "malformed" && parsed.reason, what).toMatch(/nests deeper than 256 levels/);
      }
    }
    // Within the limit, it is a call.
    const ok = `<store>{"doc":${deep(200, "[", "]")}}</store>`;
    expect(parseAction(ok, { store }).kind).toBe("call");
  });

  it("calls arguments with a field the parameters do not declare malformed, naming the field", () => {
    const parsed = parseAction('<calc>{"a":3,"op":"*","b":4,"extra":[1,2]}</calc>', tools);
    expect(parsed.kind).toBe("malformed");
    expect(parsed.kind === "malformed" && parsed.reason).toMatch(/arguments of calc: .*excess property[\s\S]*extra/);
    expect(() => formatCall(calc, { a: 1, op: "+", b: 2, extra: 1 })).toThrow(/does not fit the parameters of calc/);
  });

  it("an answer's text is trimmed at its ends and kept as is inside (rewards of recorded journals depend on it)", () => {
    expect(parseAction("<answer>  new  york \n</answer>", tools)).toEqual({ kind: "answer", text: "new  york" });
    expect(parseAction(" <answer>x</answer>\n", tools)).toEqual({ kind: "answer", text: "x" });
  });

  it("a single-string tool's text is trimmed at its ends, as an answer's is (formatCall refuses text it would change)", () => {
    const lookup = defineTool({
      name: "lookup",
      description: "the value of a key",
      parameters: Schema.Struct({ key: Schema.String }),
      execute: ({ key }) => key,
    });
    expect(parseAction("<lookup>  k30 \n</lookup>", { lookup })).toEqual({
      kind: "call",
      tool: "lookup",
      args: { key: "k30" },
    });
    expect(() => formatCall(lookup, { key: " k30" })).toThrow(/starts or ends with white space/);
  });

  it("reads an action of up to 100,000 characters; one longer is malformed, as formatAnswer refuses to write it", () => {
    const longest = formatAnswer("x".repeat(100_000 - "<answer></answer>".length));
    expect(parseAction(longest, tools)).toMatchObject({ kind: "answer" });
    expect(parseAction(`${longest} `, tools)).toEqual({
      kind: "malformed",
      reason: "action longer than 100000 characters",
    });
    expect(() => formatAnswer("x".repeat(100_000 - "<answer></answer>".length + 1))).toThrow(/more than the 100000/);
  });

  it("callOf with a tool name not among the tools throws (a misspelt name matched nothing, silently)", () => {
    expect(callOf('<calc>{"a":1,"op":"+","b":2}</calc>', tools, "calc")).toEqual({ a: 1, op: "+", b: 2 });
    const untyped: Readonly<Record<string, Tool>> = tools;
    expect(() => callOf('<calc>{"a":1,"op":"+","b":2}</calc>', untyped, "clac")).toThrow(
      'callOf: no tool named "clac" among the tools given (calc)',
    );
  });

  it("parseAction, answerOf and callOf without the tools record (tsx does not typecheck) say so, not crash inside", () => {
    const call = '<calc>{"a":1,"op":"+","b":2}</calc>';
    // The slips of a module run by tsx: the tools forgotten, given as a list, as one tool, or the name in their place.
    const slips: [() => unknown, string][] = [
      [
        () => (parseAction as (text: string) => unknown)(call),
        "parseAction(text, tools, ...): tools must be the environment's tools, a record of tools by name ({ search, lookup }, as defineEnv takes them), got undefined",
      ],
      [
        () => answerOf(call, [calc] as never),
        "answerOf(text, tools, ...): tools must be the environment's tools, a record of tools by name ({ search, lookup }, as defineEnv takes them), got an array (the tools' names are the record's keys, as a model calls them)",
      ],
      [() => parseAction(call, calc as never), "got the tool calc itself"],
      [
        () => (callOf as (text: string, name: string) => unknown)(call, "calc"),
        'callOf(text, tools, ...): tools must be the environment\'s tools, a record of tools by name ({ search, lookup }, as defineEnv takes them), got "calc" (a string)',
      ],
      [
        () => (callOf as (text: string, tools: unknown) => unknown)(call, tools),
        "callOf(text, tools, name): name must be the name of one of the tools (calc), got undefined",
      ],
    ];
    for (const [slip, message] of slips) expect(slip).toThrow(new TypeError(message).message);
    // Before, a call crashed with "Cannot convert undefined or null to object"; a list made every call malformed.
    expect(() => (parseAction as (text: string) => unknown)(call)).toThrow(TypeError);
  });

  it("formatAnswer of a number (a balance, a count) says to write it as text", () => {
    // Before: "text.includes is not a function".
    expect(() => formatAnswer(42 as never)).toThrow(
      new TypeError("formatAnswer: the answer must be text, got the number 42: write formatAnswer(String(42))").message,
    );
    expect(() => formatAnswer(undefined as never)).toThrow("formatAnswer: the answer must be text, got undefined");
    expect(formatAnswer(String(42))).toBe("<answer>42</answer>");
  });

  it("refuses NaN and Infinity in formatCall (written as null, the call would parse as malformed)", () => {
    for (const a of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(() => formatCall(calc, { a, op: "/", b: 0 } as never)).toThrow(
        /formatCall: the arguments of calc are not plain JSON: .*\.a is/,
      );
  });

  it.each(["toString", "constructor", "__proto__", "valueOf", "hasOwnProperty"])(
    "calls a tag named after an object's built-in %s an unknown tool (it threw, aborting the episode)",
    (name) => {
      expect(parseAction(`<${name}>{}</${name}>`, tools)).toEqual({
        kind: "malformed",
        reason: `unknown tool ${name}; tools: calc`,
      });
    },
  );

  it("calls two tags in one action malformed: an action is one call or one answer", () => {
    const search = defineTool({
      name: "search",
      description: "query",
      parameters: Schema.Struct({ q: Schema.String }),
      execute: ({ q }) => q,
    });
    for (const [text, name] of [
      ["<answer>1</answer> or <answer>2</answer>", "answer"],
      ["<search>a</search><search>b</search>", "search"],
      ['<calc>{"a":1,"op":"+","b":2}</calc> <calc>{"a":1,"op":"+","b":2}</calc>', "calc"],
    ] as const) {
      const parsed = parseAction(text, { calc, search });
      expect(parsed).toEqual({
        kind: "malformed",
        reason: `more than one <${name}> in one action; an action is one call or one answer (make several calls in several actions)`,
      });
    }
    // One tag whose text merely mentions another tag's name is still one call.
    expect(parseAction("<search>what does <answer> mean</search>", { search })).toEqual({
      kind: "call",
      tool: "search",
      args: { q: "what does <answer> mean" },
    });
  });

  it("never throws on what a model types, and every call it accepts is journaled exactly (JSON-safe arguments)", () => {
    const fragments = fc.constantFrom(
      '"a":',
      '"b":',
      '"op":',
      '"*"',
      "1e400",
      "-1e999",
      "1e308",
      "0",
      ",",
      "{",
      "}",
      "[",
      "]",
      '"x":',
      "null",
    );
    const text = fc.oneof(
      fc.string(),
      fc.array(fragments, { maxLength: 12 }).map((parts) => `<calc>${parts.join("")}</calc>`),
      fc.array(fragments, { maxLength: 12 }).map((parts) => `<calc>{"a":1,"op":"+",${parts.join("")}}</calc>`),
    );
    fc.assert(
      fc.property(text, (action) => {
        const parsed = parseAction(action, tools);
        if (parsed.kind === "call") expect(JSON.parse(JSON.stringify(parsed.args))).toEqual(parsed.args);
      }),
      { numRuns: 500 },
    );
  });
});

describe("the kit's hostile actions", () => {
  it("include JSON that parses but does not fit: a number past float range, an undeclared field, deep nesting", () => {
    const near = fc.sample(almostRightActionArbitrary({ tools }), { numRuns: 600, seed: 3 });
    const reasons = near
      .map((text) => parseAction(text, tools))
      .flatMap((p) => (p.kind === "malformed" ? [p.reason] : []));
    expect(reasons.some((r) => r.includes("too large for JSON"))).toBe(true);
    expect(reasons.some((r) => r.includes("unexpected_field"))).toBe(true);
    expect(reasons.some((r) => r.includes("nests deeper than"))).toBe(true);
  });
});

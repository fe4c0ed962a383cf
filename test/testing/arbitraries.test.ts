import { test as fcTest } from "@fast-check/vitest";
import { Schema } from "effect";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EpisodeEvent, MemoryJournal, ToolResult } from "../../src/index.ts";
import {
  arbitraryOf,
  eventArbitrary,
  eventBodyArbitrary,
  journalEpisodeArbitrary,
  toolResultArbitrary,
} from "../../src/testing/index.ts";

const decodes =
  <S extends Schema.Top>(schema: S) =>
  (value: unknown) =>
    Schema.is(schema as unknown as Schema.Codec<unknown>)(value);

const TYPES = [
  "episode.started",
  "agent.acted",
  "tool.called",
  "tool.returned",
  "env.observed",
  "reward.assigned",
  "env.transitioned",
  "episode.ended",
] as const;

describe("arbitraries derived from the event schemas", () => {
  fcTest.prop([eventArbitrary()], { numRuns: 200 })("every generated event is a valid event", (event) => {
    expect(decodes(EpisodeEvent)(event)).toBe(true);
  });

  it("each event type has its own arbitrary, and every one decodes", () => {
    for (const type of TYPES)
      fc.assert(
        fc.property(eventArbitrary(type), (event) => event.type === type && decodes(EpisodeEvent)(event)),
        { numRuns: 40 },
      );
  });

  it("the schema's refinements shape the values: non-negative integers, finite numbers, optional keys", () => {
    const acted = fc.sample(eventArbitrary("agent.acted"), { numRuns: 300, seed: 1 });
    expect(acted.every((e) => Number.isInteger(e.seq) && e.seq >= 0 && e.tokens.every((t) => t >= 0))).toBe(true);
    expect(acted.every((e) => e.logprobs.every(Number.isFinite))).toBe(true);
    expect(acted.some((e) => "allowed" in e)).toBe(true);
    expect(acted.some((e) => !("allowed" in e))).toBe(true);
    const bodies = fc.sample(eventBodyArbitrary("reward.assigned"), { numRuns: 20, seed: 2 });
    expect(bodies.every((b) => !("seq" in b) && !("digest" in b) && b.type === "reward.assigned")).toBe(true);
  });

  it("tool results cover successes and every kind of failure", () => {
    const results = fc.sample(toolResultArbitrary(), { numRuns: 300, seed: 3 });
    expect(results.every(decodes(ToolResult))).toBe(true);
    const kinds = new Set(results.map((r) => (r.ok ? "ok" : r.error.kind)));
    expect([...kinds].sort()).toEqual(["error", "invalid-args", "ok", "timeout"]);
    const own = fc.sample(toolResultArbitrary({ content: fc.constant("fixed") }), { numRuns: 50, seed: 4 });
    expect(own.filter((r) => r.ok).every((r) => r.ok && r.content === "fixed")).toBe(true);
  });

  fcTest.prop([journalEpisodeArbitrary()], { numRuns: 60 })(
    "whole journal streams pass the journal's validation (schema, seq, hash chain, order)",
    async (events) => {
      const journal = new MemoryJournal();
      const writer = await journal.create(events[0].episode);
      for (const event of events) await writer.append(event);
      const read = await journal.read(events[0].episode);
      expect(read).toHaveLength(events.length);
      const ended = read.at(-1)!;
      expect(ended.type).toBe("episode.ended");
      if (ended.type === "episode.ended") expect(ended.turns).toBe(read.filter((e) => e.type === "agent.acted").length);
    },
  );
});

describe("arbitraryOf interprets any schema's AST", () => {
  const Shapes = Schema.Struct({
    count: Schema.Int.check(Schema.isBetween({ minimum: 3, maximum: 7 })),
    ratio: Schema.Finite.check(Schema.isGreaterThan(0)),
    name: Schema.String.check(Schema.isMinLength(2), Schema.isMaxLength(4)),
    code: Schema.String.check(Schema.isPattern(/^[A-Z]{3}-\d{2}$/)),
    color: Schema.Literals(["red", "green"]),
    note: Schema.optionalKey(Schema.String),
    pair: Schema.Tuple([Schema.Boolean, Schema.NullOr(Schema.Number)]),
    tags: Schema.Array(Schema.String).check(Schema.isMaxLength(2)),
    scores: Schema.Record(Schema.String, Schema.Int),
  });

  fcTest.prop([arbitraryOf(Shapes)], { numRuns: 150 })("values satisfy every check of the schema", (value) => {
    expect(decodes(Shapes)(value)).toBe(true);
    expect(value.count).toBeGreaterThanOrEqual(3);
    expect(value.code).toMatch(/^[A-Z]{3}-\d{2}$/);
  });

  interface Tree {
    readonly label: string;
    readonly children: readonly Tree[];
  }
  const Tree: Schema.Codec<Tree> = Schema.Struct({
    label: Schema.String,
    children: Schema.Array(Schema.suspend((): Schema.Codec<Tree> => Tree)),
  });

  fcTest.prop([arbitraryOf(Tree, { maxDepth: 2, maxLength: 3 })], { numRuns: 60 })("recursive schemas end", (tree) => {
    const depth = (t: Tree): number => 1 + Math.max(0, ...t.children.map(depth));
    expect(decodes(Tree)(tree)).toBe(true);
    expect(depth(tree)).toBeLessThanOrEqual(4);
  });

  it("a declaration it cannot know fails with a message naming the way out", () => {
    expect(() => arbitraryOf(Schema.instanceOf(URL))).toThrow(/cannot derive an arbitrary for a Declaration node/);
    expect(() => arbitraryOf(Schema.instanceOf(URL))).toThrow(/options\.declarations/);
  });

  it("what is no schema, or no event type, is refused by name (it failed reading 'encoding' or 'ast' of undefined)", () => {
    expect(() => arbitraryOf({ city: "string" } as never)).toThrow(
      "arbitraryOf: the first argument must be an Effect Schema (e.g. r1.Schema.Struct({ city: r1.Schema.String })), got an object",
    );
    expect(() => eventArbitrary("reward" as never)).toThrow(
      'eventArbitrary: no event type "reward"; the types: episode.started, agent.acted, tool.called, tool.returned, env.observed, reward.assigned, env.transitioned, episode.ended',
    );
  });

  it("a schema change changes the arbitrary: an added field is generated", () => {
    const Before = Schema.Struct({ a: Schema.String });
    const After = Schema.Struct({ ...Before.fields, b: Schema.Literal(42) });
    expect(fc.sample(arbitraryOf(After), { numRuns: 5, seed: 5 }).every((v) => v.b === 42)).toBe(true);
  });
});

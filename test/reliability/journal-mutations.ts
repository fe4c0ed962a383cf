/**
 * Journal mutations for the fuzz tests, and the oracle every mutated journal must satisfy.
 *
 * Two families:
 * - raw: byte changes, insertions, deletions, NUL runs, truncation, duplicated, dropped, reordered and
 *   foreign lines, a second journal appended, a BOM, blank lines, lines that are JSON but not events.
 *   The digests are left as they are.
 * - resealed: valid JSON with wrong types (a value of another JSON type, an integer field made negative
 *   or fractional, a field removed or added, another format version), after which the line's digest and
 *   every later `prev` and digest are recomputed, as a forger would: only the schema (or replay) can
 *   catch them. Fields typed as arbitrary JSON (a task, tool arguments and results, a state value) are
 *   not retyped: any JSON is valid there by design, and raw mutations cover them.
 *
 * The oracle: a mutated journal is accepted by `replay --verify` only if every line keeps its exact
 * content (re-serialised: whitespace, number spelling); a line-wise prefix reads back as the prefix it is
 * and fails --verify as cut short; anything else fails with a typed error (JournalError when reading,
 * NonDeterminismError when replaying) naming file and line, never before the first damaged line, and,
 * for raw damage, exactly at it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { expect } from "vitest";
import { canonicalJson, hashEvent, JournalError, NonDeterminismError, readJournalFile } from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { checkFile } from "../../src/replay/verify-files.ts";
import type { EnvDefinition } from "../../src/runtime/env.ts";

export interface Source {
  readonly name: string;
  readonly bytes: Buffer;
  readonly env: EnvDefinition;
}

type Lines = string[];
const linesOf = (bytes: Buffer): Lines => bytes.toString("utf8").replace(/\n$/, "").split("\n");
const joinLines = (lines: Lines): Buffer => Buffer.from(lines.length ? `${lines.join("\n")}\n` : "");

/** A mutation: a description and what it does to the bytes (structure-aware ones work on lines). */
export interface Mutation {
  readonly label: string;
  readonly resealed: boolean;
  readonly apply: (bytes: Buffer, other: Buffer) => Buffer;
}

/** Fields whose type is arbitrary JSON: every value is valid there. */
const JSON_FIELDS = new Set(["task", "args", "state", "content"]);
/** Fields typed as non-negative integers. */
const INT_FIELDS = new Set(["seq", "turn", "turns", "version", "tokens", "allowed"]);
const OPTIONAL_FIELDS = new Set(["meta", "allowed"]);

type Path = (string | number)[];

/** Paths to every typed value of an event (not inside arbitrary-JSON fields). */
const pathsOf = (value: unknown, path: Path = []): Path[] => {
  if (typeof value !== "object" || value === null) return [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  const out: Path[] = [];
  for (const [key, child] of entries) {
    if (typeof key === "string" && JSON_FIELDS.has(key)) continue;
    out.push([...path, key], ...pathsOf(child, [...path, key]));
  }
  return out;
};

const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const VALUES: unknown[] = [null, true, false, 0, -1, 1.5, "", "x", "0", [], [1], {}, { a: 1 }];

const parentOf = (root: Record<string, unknown>, path: Path) => {
  let node: unknown = root;
  for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
  return node as Record<string | number, unknown>;
};

/** Recomputes the digest of line `from` and the chain after it, as a forger who knows the format would. */
const reseal = (lines: Lines, from: number, edited: Record<string, unknown>): Lines => {
  const out = [...lines];
  edited.digest = hashEvent(edited);
  out[from] = JSON.stringify(edited);
  let prev = edited.digest;
  for (let k = from + 1; k < out.length; k++) {
    try {
      const event = JSON.parse(out[k]);
      event.prev = prev;
      event.digest = hashEvent(event);
      prev = event.digest;
      out[k] = JSON.stringify(event);
    } catch {
      break;
    }
  }
  return out;
};

const pick = <T>(items: readonly T[], n: number): T => items[n % items.length];

const DERIVED = new Set(["tool.called", "env.observed", "reward.assigned", "env.transitioned", "episode.ended"]);
const ENVELOPE = new Set(["v", "episode", "seq", "prev", "digest", "type"]);

/**
 * A well-typed change of a derived event (a reward, an observation, a state hash, the return), resealed:
 * the schema accepts it, so replay must catch it.
 */
const derivedEdit = (lines: Lines, i: number, event: Record<string, unknown>, n: number): Buffer | undefined => {
  if (!DERIVED.has(String(event.type))) return undefined;
  const leaves = pathsOf(event).filter((p) => {
    if (typeof p[0] === "string" && ENVELOPE.has(p[0])) return false;
    const value = parentOf(event, p)[p.at(-1)!];
    return typeof value === "number" || typeof value === "string";
  });
  if (leaves.length === 0) return undefined;
  const path = pick(leaves, n);
  const parent = parentOf(event, path);
  const key = path.at(-1)!;
  const old = parent[key];
  const integer = typeof old === "number" && Number.isInteger(old);
  parent[key] = typeof old === "number" ? old + (integer ? 1 : 0.5) : `${old}x`;
  return joinLines(reseal(lines, i, event));
};

/** An edit of one event that keeps the JSON valid but breaks its types, resealed. */
export const resealedEdit = (line: number, choice: number, valueChoice: number): Mutation => ({
  label: `resealed-edit(line ${line + 1}, ${choice}, ${valueChoice})`,
  resealed: true,
  apply: (bytes) => {
    const lines = linesOf(bytes);
    const i = line % lines.length;
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(lines[i]);
    } catch {
      return bytes;
    }
    if (typeof event !== "object" || event === null || Array.isArray(event)) return bytes;
    const kind = choice % 5;
    if (kind === 4) return derivedEdit(lines, i, event, Math.floor(choice / 5)) ?? bytes;
    const paths = pathsOf(event);
    if (kind === 0 || paths.length === 0) {
      // Another format version.
      event.v = pick([0, 2, "1", null, 1.5, -1, true], valueChoice);
      return joinLines(reseal(lines, i, event));
    }
    const path = pick(paths, Math.floor(choice / 5));
    const parent = parentOf(event, path);
    const key = path.at(-1)!;
    const old = parent[key];
    if (kind === 1) {
      // A value of another JSON type; for integer fields also a negative or fractional number.
      const intField = path.some((p) => typeof p === "string" && INT_FIELDS.has(p)) && typeof old === "number";
      const candidates = VALUES.filter((v) => jsonType(v) !== jsonType(old));
      parent[key] =
        intField && valueChoice % 3 === 0 ? pick([-1, 0.5, 1e21], valueChoice) : pick(candidates, valueChoice);
    } else if (kind === 2) {
      // A required field removed.
      if (Array.isArray(parent) || OPTIONAL_FIELDS.has(String(key)) || path.length === 0) return bytes;
      delete parent[key];
    } else {
      // An unknown field added next to a typed one (inside a record of metrics it is a new metric).
      const value = pick(VALUES, valueChoice);
      if (Array.isArray(parent)) parent.push(value);
      else
        Object.defineProperty(parent, pick(["extra", "__proto__", "constructor", "digest2", "Type"], valueChoice), {
          value,
          enumerable: true,
          configurable: true,
          writable: true,
        });
    }
    return joinLines(reseal(lines, i, event));
  },
});

/** Raw mutations: the bytes or the lines change, digests stay as written. */
export const rawMutation = (kind: number, a: number, b: number, c: number): Mutation => {
  const labels = [
    "byte-set",
    "byte-insert",
    "byte-delete",
    "truncate",
    "duplicate-line",
    "drop-line",
    "swap-lines",
    "move-line",
    "foreign-line",
    "append-journal",
    "nul-run",
    "bom",
    "blank-line",
    "non-event-line",
    "edit-value",
  ];
  const label = `${labels[kind % labels.length]}(${a}, ${b}, ${c})`;
  const apply = (bytes: Buffer, other: Buffer): Buffer => {
    const n = bytes.length;
    const lines = linesOf(bytes);
    const i = a % Math.max(1, lines.length);
    const j = b % Math.max(1, lines.length);
    switch (kind % labels.length) {
      case 0: {
        if (n === 0) return bytes;
        const out = Buffer.from(bytes);
        out[a % n] = (out[a % n] + 1 + (c % 255)) % 256;
        return out;
      }
      case 1:
        return Buffer.concat([bytes.subarray(0, a % (n + 1)), Buffer.from([c % 256]), bytes.subarray(a % (n + 1))]);
      case 2:
        return n === 0 ? bytes : Buffer.concat([bytes.subarray(0, a % n), bytes.subarray((a % n) + 1)]);
      case 3:
        return bytes.subarray(0, a % (n + 1));
      case 4:
        return joinLines([...lines.slice(0, i + 1), lines[i], ...lines.slice(i + 1)]);
      case 5:
        return joinLines(lines.filter((_, k) => k !== i));
      case 6: {
        const out = [...lines];
        [out[i], out[j]] = [out[j], out[i]];
        return joinLines(out);
      }
      case 7: {
        const out = [...lines];
        const [moved] = out.splice(i, 1);
        out.splice(j, 0, moved);
        return joinLines(out);
      }
      case 8: {
        const foreign = linesOf(other);
        const out = [...lines];
        out[i] = foreign[b % foreign.length];
        return joinLines(out);
      }
      case 9:
        return Buffer.concat([bytes, other]);
      case 10: {
        if (n === 0) return bytes;
        const from = a % n;
        const out = Buffer.from(bytes);
        out.fill(0, from, Math.min(n, from + 1 + (c % 4096)));
        return out;
      }
      case 11:
        return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
      case 12:
        return joinLines([...lines.slice(0, i), pick(["", " ", "\r", "\t"], c), ...lines.slice(i)]);
      case 13:
        return joinLines([
          ...lines.slice(0, i),
          pick(["null", "[]", "{}", "42", '"event"', "true", '{"v":1}', "[{}]"], c),
          ...lines.slice(i + 1),
        ]);
      default: {
        // A value edited in place, with no new digest: a typo, a hand edit.
        const out = [...lines];
        try {
          const event = JSON.parse(out[i]);
          const paths = pathsOf(event);
          if (paths.length === 0) return bytes;
          const path = pick(paths, b);
          parentOf(event, path)[path.at(-1)!] = pick(VALUES, c);
          out[i] = JSON.stringify(event);
        } catch {
          return bytes;
        }
        return joinLines(out);
      }
    }
  };
  return { label, resealed: false, apply };
};

const nat = fc.nat({ max: 1 << 30 });

/**
 * One to three mutations, raw or resealed; resealed ones first, since resealing after raw damage would
 * re-hash that damage too (a forgery of inputs, which a hash chain cannot detect; see the header).
 */
export const mutations = (): fc.Arbitrary<Mutation[]> =>
  fc
    .array(
      fc.oneof(
        { weight: 3, arbitrary: fc.tuple(nat, nat, nat, nat).map(([k, a, b, c]) => rawMutation(k, a, b, c)) },
        { weight: 2, arbitrary: fc.tuple(nat, nat, nat).map(([l, ch, v]) => resealedEdit(l, ch, v)) },
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((ms) => [...ms.filter((m) => m.resealed), ...ms.filter((m) => !m.resealed)]);

const canonicalLines = (bytes: Buffer): (string | undefined)[] => {
  const text = bytes.toString("utf8");
  const parts = text.split("\n");
  const complete = parts.slice(0, -1);
  const out: (string | undefined)[] = complete.map((line) => {
    try {
      return canonicalJson(JSON.parse(line));
    } catch {
      return undefined;
    }
  });
  // Bytes after the last newline: a whole event missing only its newline is read as that event (as the
  // journal reader does); anything else is a torn line, never equal to a complete one.
  const tail = parts.at(-1) ?? "";
  if (tail !== "")
    try {
      out.push(canonicalJson(JSON.parse(tail)));
    } catch {
      out.push(undefined);
    }
  return out;
};

const originalLines = new WeakMap<Source, (string | undefined)[]>();

export type Outcome = "identical" | "same-content" | "prefix" | "refused";

export interface Tally {
  mutations: number;
  byOutcome: Record<Outcome, number>;
  byProblem: Record<string, number>;
  byLabel: Record<string, number>;
}

export const newTally = (): Tally => ({
  mutations: 0,
  byOutcome: { identical: 0, "same-content": 0, prefix: 0, refused: 0 },
  byProblem: {},
  byLabel: {},
});

/**
 * Applies the mutations to a source, writes the result, and checks the oracle. Returns what happened.
 */
export const checkMutated = async (
  dir: string,
  source: Source,
  other: Buffer,
  applied: readonly Mutation[],
  tally: Tally,
): Promise<Outcome> => {
  let bytes = source.bytes;
  for (const m of applied) bytes = m.apply(bytes, other);
  const file = join(dir, `${source.name}.jsonl`);
  writeFileSync(file, bytes);
  const what = `${source.name} after ${applied.map((m) => m.label).join(" + ")}`;
  tally.mutations += 1;
  for (const m of applied) {
    const family = m.label.split("(")[0];
    tally.byLabel[family] = (tally.byLabel[family] ?? 0) + 1;
  }

  const original = originalLines.get(source) ?? canonicalLines(source.bytes);
  originalLines.set(source, original);
  const mutated = canonicalLines(bytes);
  let firstDiff = 0;
  while (firstDiff < mutated.length && mutated[firstDiff] !== undefined && mutated[firstDiff] === original[firstDiff])
    firstDiff += 1;
  const sameContent = firstDiff === original.length && mutated.length === original.length;
  const prefix = !sameContent && firstDiff === mutated.length && mutated.length < original.length;

  const envOf = () => source.env;
  const verdict = await checkFile(file, { verify: true, repair: false, envOf });
  let read: JournalError | undefined;
  try {
    await readJournalFile(file);
  } catch (cause) {
    expect(cause, `${what}: reading threw an untyped error`).toBeInstanceOf(JournalError);
    read = cause as JournalError;
  }

  let outcome: Outcome;
  if (sameContent) {
    // Same values, maybe spelled differently (whitespace, 0.20 for 0.2): the same journal.
    expect(verdict.ok, `${what}: ${verdict.problem}`).toBe(true);
    outcome = bytes.equals(source.bytes) ? "identical" : "same-content";
  } else if (prefix) {
    // What a crash may leave: reads back as the prefix it is; verify says it was cut short.
    expect(verdict.ok, what).toBe(false);
    if (mutated.length === 0) expect(read?.problem, what).toBe("empty");
    else {
      expect(read, `${what}: ${read?.message}`).toBeUndefined();
      expect(verdict.problem, what).toContain(`${file}:${mutated.length + 1}: the episode has no episode.ended`);
    }
    outcome = "prefix";
  } else {
    expect(verdict.ok, `${what}: accepted`).toBe(false);
    expect(verdict.problem, what).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+`));
    if (read) {
      // Reading refuses at the first damaged line, never earlier; raw damage is named exactly there.
      if (read.problem === "empty") expect(bytes.toString("utf8").trim(), what).toBe("");
      else {
        expect(read.line, `${what}: ${read.message}`).toBeGreaterThanOrEqual(firstDiff + 1);
        // (A foreign line, alone or from an appended journal and then moved, can be a valid first line, another
        // episode's start: then the damage shows one line later.)
        const foreign = (m: { label: string }) =>
          m.label.startsWith("foreign-line") || m.label.startsWith("append-journal");
        if (applied.every((m) => !m.resealed && !foreign(m)))
          expect(read.line, `${what}: ${read.message}`).toBe(firstDiff + 1);
      }
      tally.byProblem[read.problem] = (tally.byProblem[read.problem] ?? 0) + 1;
    } else {
      // Every line is a valid event: only replay can tell, and it must say so with a typed error.
      const events = await readJournalFile(file);
      let replayError: unknown;
      try {
        replayEpisode(events, source.env, { file });
      } catch (cause) {
        replayError = cause;
      }
      if (events.at(-1)?.type === "episode.ended") {
        expect(replayError, `${what}: replay threw an untyped error: ${replayError}`).toBeInstanceOf(
          NonDeterminismError,
        );
        expect((replayError as NonDeterminismError).seq + 1, what).toBeGreaterThanOrEqual(firstDiff + 1);
        tally.byProblem["replay-divergence"] = (tally.byProblem["replay-divergence"] ?? 0) + 1;
      } else tally.byProblem["not-ended"] = (tally.byProblem["not-ended"] ?? 0) + 1;
    }
    outcome = "refused";
  }
  tally.byOutcome[outcome] += 1;
  return outcome;
};

/** Journals to mutate: several environments and shapes (multi-turn, tool faults, concurrent tools). */
export const recordSources = async (dir: string): Promise<Source[]> => {
  const { lookupEnv } = await import("../../actors/lookup/index.ts");
  const { expertPolicy, randomPolicy } = await import("../../actors/lookup/policies.ts");
  const weather = (await import("../../actors/weather/env.ts")).default;
  const { createRaceEnv, playing } = await import("../support/index.ts");
  const { defineEnv, defineTool, JsonlJournal, PolicyActor, runEpisode, Schema } = await import("../../src/index.ts");
  const journal = new JsonlJournal(dir, "none");
  const recorded = async (name: string, env: EnvDefinition, replayEnv: EnvDefinition, options: object) => {
    const run = await runEpisode({
      env,
      journal,
      ...(options as { policy: InstanceType<typeof PolicyActor>; seed: string }),
    });
    const { readFileSync } = await import("node:fs");
    return { name, bytes: readFileSync(journal.fileOf(run.episode)), env: replayEnv };
  };
  let calls = 0;
  const faulty = defineTool({
    name: "lookup",
    description: "a lookup that fails every other call",
    parameters: Schema.Struct({ key: Schema.String }),
    timeoutMs: 20,
    maxResultChars: 1_000,
    execute: ({ key }: { key: string }) => {
      calls += 1;
      if (calls % 3 === 1) throw new Error(`store offline for ${key}`);
      if (calls % 3 === 2) return new Promise(() => {});
      return "x".repeat(3_000);
    },
  });
  const faultyEnv = defineEnv({ ...lookupEnv, tools: { lookup: faulty }, machine: lookupEnv.machine.provide({}) });
  const race = createRaceEnv({ a: () => "A", b: () => new Promise((r) => setTimeout(() => r("B"), 3)) });
  return [
    await recorded("lookup-random", lookupEnv, lookupEnv, { policy: new PolicyActor(randomPolicy()), seed: "fuzz:3" }),
    await recorded("lookup-expert", lookupEnv, lookupEnv, { policy: new PolicyActor(expertPolicy()), seed: "fuzz:1" }),
    await recorded("lookup-faults", faultyEnv, lookupEnv, {
      policy: new PolicyActor(playing(["<lookup>k1</lookup>", "<lookup>k2</lookup>", "<lookup>k3</lookup>", "oops"])),
      seed: "fuzz:faults",
    }),
    await recorded("weather", weather, weather, {
      policy: new PolicyActor(weather.policies!.expert()),
      seed: "fuzz:w",
    }),
    await recorded("race", race, race, {
      policy: new PolicyActor(playing(["go", "go", "<answer>done</answer>"], race.tokenizer)),
      seed: "fuzz:race",
    }),
  ];
};

/**
 * Corrupted journals, quick version (journal-fuzz.slow.test.ts runs 20,000 mutations): random
 * combinations of raw and resealed mutations of five journals, each refused with a typed error naming
 * file and line or provably harmless (same content, or a prefix that verify reports as cut short; see
 * journal-mutations.ts); hostile files (huge lines, deep nesting, NUL runs, binary, prototype keys, path
 * episode ids) refused in bounded memory; and `agent-r1 replay --verify` over a folder of mutated
 * journals, which must name every bad file on one line and never crash.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { hashEvent, JournalError, readJournalFile } from "../../src/index.ts";
import { MAX_LINE_BYTES } from "../../src/journal/jsonl.ts";
import { checkFile } from "../../src/replay/verify-files.ts";
import { tempDir } from "../support/index.ts";
import { ROOT } from "./crash-harness.ts";
import { checkMutated, mutations, newTally, recordSources, type Source } from "./journal-mutations.ts";

const dir = tempDir("agent-r1-fuzz-");
let sources: Source[] = [];
const tally = newTally();

beforeAll(async () => {
  sources = await recordSources(join(dir, "sources"));
  mkdirSync(join(dir, "mutated"));
});

describe("fuzzed journals: refused with a typed error naming the place, never accepted, never a crash", () => {
  fcTest.prop([fc.nat(), fc.nat(), mutations()], { numRuns: 300 })(
    "random mutations of five journals",
    async (s, o, applied) => {
      const source = sources[s % sources.length];
      const other = sources[(s + 1 + (o % (sources.length - 1))) % sources.length].bytes;
      await checkMutated(join(dir, "mutated"), source, other, applied, tally);
    },
  );

  it("tried every kind of mutation", () => {
    console.log(`journal fuzz (quick): ${JSON.stringify(tally)}`);
    expect(tally.mutations).toBe(300);
    expect(tally.byOutcome.refused).toBeGreaterThan(tally.mutations * 0.9);
  });
});

/** The first line of a source, edited and resealed (valid digest): only the schema or replay can object. */
const resealedFirst = (source: Source, edit: (event: Record<string, unknown>) => void): string => {
  const lines = source.bytes.toString("utf8").trimEnd().split("\n");
  const event = JSON.parse(lines[0]);
  edit(event);
  event.digest = hashEvent(event);
  return `${JSON.stringify(event)}\n`;
};

describe("hostile files", () => {
  const refused = async (name: string, content: Buffer | string, problem: string, line: number) => {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, content);
    const error = await readJournalFile(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, name).toBeInstanceOf(JournalError);
    expect((error as JournalError).problem, `${name}: ${(error as Error).message.slice(0, 300)}`).toBe(problem);
    expect((error as JournalError).line, name).toBe(line);
    const verdict = await checkFile(file, { verify: true, repair: false, envOf: () => sources[0].env });
    expect(verdict.ok).toBe(false);
    expect(verdict.problem).toContain(`${file}:${line}`);
  };

  it("lines longer than the limit are refused without reading them whole", async () => {
    const before = process.memoryUsage().rss;
    await refused("long-torn", Buffer.alloc(MAX_LINE_BYTES + 4096, "a"), "parse", 1);
    const first = sources[0].bytes.subarray(0, sources[0].bytes.indexOf(10) + 1);
    await refused("long-second", Buffer.concat([first, Buffer.alloc(MAX_LINE_BYTES * 2, " ")]), "parse", 2);
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });

  it("deep nesting is refused before any recursive code sees it", async () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const line = resealedFirst(sources[0], (e) => {
      e.task = "PLACEHOLDER";
    }).replace('"PLACEHOLDER"', deep);
    await refused("deep", line, "schema", 1);
    await refused("deep-object", `${'{"a":'.repeat(50_000)}1${"}".repeat(50_000)}\n`, "schema", 1);
  });

  it("NUL runs, binary noise, a BOM, non-events and impossible numbers", async () => {
    await refused("nuls", Buffer.alloc(8192), "torn-tail", 1);
    const noise = Buffer.from(Array.from({ length: 65_536 }, (_, i) => (i * 2654435761) % 251));
    await refused("noise", noise, "parse", 1);
    await refused("bom", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), sources[0].bytes]), "parse", 1);
    // JSON that is no event is said as such (a schema problem), not as "event format version undefined".
    for (const [k, text] of ["[]", "null", "42", '"x"', "{}"].entries())
      await refused(`non-event-${k}`, `${text}\n`, "schema", 1);
    await refused("infinite-seq", sources[0].bytes.toString().replace('"seq":0', '"seq":1e400'), "schema", 1);
  });

  it("journals are data: prototype keys are inert, and an episode id cannot be a path", async () => {
    const polluting = resealedFirst(sources[0], (e) => {
      e.task = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
    });
    const file = join(dir, "proto.jsonl");
    writeFileSync(file, polluting);
    const [event] = await readJournalFile(file); // arbitrary JSON is allowed in a task...
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined(); // ...and never reaches a prototype
    expect(Object.getPrototypeOf((event as { task: object }).task)).toBe(Object.prototype);
    for (const id of ["../../etc/passwd", "/abs", "a/b", ".hidden", "", "x".repeat(200), "a\\b", "a\u0000b"])
      await refused(
        `episode-${Buffer.from(id).toString("hex").slice(0, 16)}`,
        resealedFirst(sources[0], (e) => {
          e.episode = id;
        }),
        "episode",
        1,
      );
  });
});

describe("agent-r1 replay --verify over a folder of mutated journals", () => {
  it("names every bad file on one line each, exits 1, and never crashes", async () => {
    const folder = join(dir, "cli");
    mkdirSync(folder);
    const lookups = sources.filter((s) => s.name.startsWith("lookup"));
    const samples = fc.sample(fc.tuple(fc.nat(), mutations()), { numRuns: 40, seed: 7 });
    const local = newTally();
    let bad = 0;
    for (const [k, [s, applied]] of samples.entries()) {
      const source = lookups[s % lookups.length];
      const outcome = await checkMutated(join(dir, "mutated"), source, sources[4].bytes, applied, local);
      let bytes = source.bytes;
      for (const m of applied) bytes = m.apply(bytes, sources[4].bytes);
      writeFileSync(join(folder, `m${k}.jsonl`), bytes);
      if (outcome === "refused" || outcome === "prefix") bad += 1;
    }
    for (const source of lookups) writeFileSync(join(folder, `${source.name}.jsonl`), source.bytes);
    const run = spawnSync(process.execPath, ["bin/agent-r1.js", "replay", folder, "--verify", "--quiet"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`verified ${readdirSync(folder).length - bad} journal(s) ok, ${bad} failed`);
    const fails = run.stderr.split("\n").filter((l) => l.startsWith("FAIL "));
    expect(fails).toHaveLength(bad);
    for (const line of fails) expect(line).toMatch(new RegExp(`^FAIL ${folder}/m\\d+\\.jsonl:\\d+`));
    expect(run.stderr).not.toMatch(/^\s+at .*:\d+:\d+\)?$/m); // no stack trace
  });
});

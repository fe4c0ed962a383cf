/**
 * Security: journals are data, never executed; paths given by users or found in journals cannot leave
 * their run folder; code a model wrote runs only in a sandboxed child process (src/runtime/sandbox.ts)
 * with time, memory and output limits, no files, no child processes and no network.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, relative, resolve } from "node:path";
import { test as fcTest } from "@fast-check/vitest";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { expertPolicy } from "../../actors/lookup/policies.ts";
import { envResolver } from "../../src/cli/registry.ts";
import {
  hashEvent,
  JournalError,
  JournalExistsError,
  JsonlJournal,
  MemoryJournal,
  PolicyActor,
  repairJournalFile,
  runEpisode,
} from "../../src/index.ts";
import { episodeIdOf } from "../../src/journal/stamp.ts";
import { checkFile, checkPath } from "../../src/replay/verify-files.ts";
import { codeTool, runJavaScript } from "../../src/runtime/sandbox.ts";
import { tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-security-");
let journalText = "";

beforeAll(async () => {
  const journal = new JsonlJournal(join(dir, "source"), "none");
  const run = await runEpisode({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "sec" });
  journalText = readFileSync(journal.fileOf(run.episode), "utf8");
});

describe("paths cannot leave the run folder", () => {
  fcTest.prop([fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("..", ".", "../x", "/etc/x"))], {
    numRuns: 500,
  })("an episode id is a file name inside the folder, or is refused", (id) => {
    const journal = new JsonlJournal(join(dir, "ids"), "none");
    let file: string;
    try {
      file = journal.fileOf(id);
    } catch (error) {
      expect(error).toBeInstanceOf(RangeError);
      return;
    }
    expect(dirname(file)).toBe(journal.location);
    expect(relative(journal.location, resolve(file))).toBe(`${id}.jsonl`);
  });

  fcTest.prop([fc.string({ unit: "binary", maxLength: 100 })], { numRuns: 300 })(
    "a run seed becomes an episode id inside the folder",
    (seed) => {
      const id = episodeIdOf(seed);
      expect(id).toMatch(/^ep-[A-Za-z0-9._-]*$/);
      expect(id.includes("/")).toBe(false);
    },
  );

  it("the writer never follows a link planted at an episode's name", async () => {
    const folder = join(dir, "planted");
    mkdirSync(folder);
    const target = join(dir, "precious.txt");
    writeFileSync(target, "keep me");
    symlinkSync(target, join(folder, "ep-sec.jsonl"));
    const journal = new JsonlJournal(folder, "none");
    await expect(
      runEpisode({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "sec" }),
    ).rejects.toBeInstanceOf(JournalExistsError);
    expect(readFileSync(target, "utf8")).toBe("keep me");
  });

  it("a link in a run folder is reported, not followed; repair never changes what a link points to", async () => {
    const folder = join(dir, "links");
    mkdirSync(folder);
    writeFileSync(join(folder, "ep-sec.jsonl"), journalText);
    // A file outside the folder whose content has no newline: the old repair would have truncated it to 0.
    const outside = join(dir, "token");
    writeFileSync(outside, "s3cr3t-token-without-newline");
    symlinkSync(outside, join(folder, "ep-evil.jsonl"));
    const verdicts = [];
    for await (const v of checkPath(folder, { verify: false, repair: true, envOf: envResolver() })) verdicts.push(v);
    const evil = verdicts.find((v) => v.file.endsWith("ep-evil.jsonl"))!;
    expect(evil.ok).toBe(false);
    expect(evil.problem).toMatch(/symbolic link/);
    expect(evil.problem).not.toContain("s3cr3t");
    expect(verdicts.find((v) => v.file.endsWith("ep-sec.jsonl"))?.ok).toBe(true);
    // Given directly, the link is still not repaired through.
    await expect(repairJournalFile(join(folder, "ep-evil.jsonl"))).rejects.toBeInstanceOf(JournalError);
    expect(readFileSync(outside, "utf8")).toBe("s3cr3t-token-without-newline");
  });

  it("repair touches only *.jsonl files: other files, even empty or without newline, are left alone", async () => {
    const notes = join(dir, "notes.txt");
    const empty = join(dir, "empty.txt");
    writeFileSync(notes, "no newline here");
    writeFileSync(empty, "");
    await expect(repairJournalFile(notes)).rejects.toBeInstanceOf(JournalError);
    await expect(repairJournalFile(empty)).rejects.toBeInstanceOf(JournalError);
    expect(readFileSync(notes, "utf8")).toBe("no newline here");
    expect(existsSync(empty)).toBe(true);
  });

  it("repair refuses a last line that is not the beginning of the next event (not a crash artefact)", async () => {
    const file = join(dir, "ep-sec.jsonl");
    writeFileSync(file, `${journalText}{"something":"else"`);
    await expect(repairJournalFile(file)).rejects.toMatchObject({ problem: "parse" });
    expect(readFileSync(file, "utf8")).toBe(`${journalText}{"something":"else"`);
    // The beginning of the next event, cut anywhere, possibly followed by NULs, is repaired.
    const lines = journalText.trimEnd().split("\n");
    const last = lines.pop()!;
    for (const cut of [1, 10, 40, last.length - 1]) {
      writeFileSync(
        file,
        Buffer.concat([Buffer.from(`${lines.join("\n")}\n${last.slice(0, cut)}`), Buffer.alloc(cut % 3)]),
      );
      expect((await repairJournalFile(file))?.keptEvents).toBe(lines.length);
      expect(readFileSync(file, "utf8")).toBe(`${lines.join("\n")}\n`);
    }
  });
});

describe("journals are data, never executed", () => {
  it("an environment named in a journal is looked up among the built-in ones, never imported from a path", async () => {
    const marker = join(dir, "imported");
    const evilModule = join(dir, "evil-env.ts");
    writeFileSync(
      evilModule,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\n`,
    );
    const lines = journalText.trimEnd().split("\n");
    const started = JSON.parse(lines[0]);
    for (const id of [evilModule, "./evil-env.ts", "constructor", "__proto__"]) {
      started.env.id = id;
      started.digest = hashEvent(started);
      const file = join(dir, "ep-sec.jsonl");
      writeFileSync(file, `${JSON.stringify(started)}\n`);
      const verdict = await checkFile(file, { verify: true, repair: false, envOf: envResolver() });
      expect(verdict.ok).toBe(false);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("an in-memory journal hands out copies: a consumer cannot rewrite the record", async () => {
    const journal = new MemoryJournal();
    const run = await runEpisode({ env: lookupEnv, policy: new PolicyActor(expertPolicy()), journal, seed: "m" });
    const first = await journal.read(run.episode);
    (first[0] as { seed: string }).seed = "tampered";
    expect(((await journal.read(run.episode))[0] as { seed: string }).seed).toBe("m");
  });
});

describe("code runs in a sandboxed child process", () => {
  const limits = { timeoutMs: 3_000, memoryMb: 64 };

  it("runs a program and returns what it printed", async () => {
    const result = await runJavaScript('const [a, b] = [6, 7]; console.log("answer", a * b)', limits);
    expect(result).toMatchObject({ ok: true, ended: "exit", exitCode: 0, stdout: "answer 42\n" });
  });

  it("stops a program that runs too long, takes too much memory, or prints too much", async () => {
    const [loop, heap, buffers, flood] = await Promise.all([
      runJavaScript("for (;;) {}", { ...limits, timeoutMs: 500 }),
      runJavaScript("const a = []; for (;;) a.push(new Array(1e5).fill(1));", { ...limits, timeoutMs: 20_000 }),
      runJavaScript("const a = []; for (;;) a.push(Buffer.alloc(16 * 1024 * 1024, 1));", {
        ...limits,
        timeoutMs: 20_000,
      }),
      runJavaScript(
        'const w = () => { while (process.stdout.write("y".repeat(1e4))); process.stdout.once("drain", w); }; w();',
        { ...limits, maxOutputBytes: 100_000 },
      ),
    ]);
    expect(loop).toMatchObject({ ok: false, ended: "timeout", signal: "SIGKILL" });
    expect(loop.ms).toBeLessThan(2_500);
    expect(heap).toMatchObject({ ok: false, ended: "memory" });
    expect(buffers).toMatchObject({ ok: false, ended: "memory" });
    expect(flood).toMatchObject({ ok: false, ended: "output" });
    expect(flood.stdout.length).toBeLessThan(100_100);
  });

  it("cannot read or write files, start processes or workers, or see the parent's environment", async () => {
    process.env.AGENT_R1_TEST_SECRET = "hunter2";
    const tries = {
      read: 'require("fs").readFileSync("/etc/hostname")',
      write: 'require("fs").writeFileSync("x.txt", "a")',
      spawn: 'require("child_process").execSync("true")',
      worker: 'new (require("worker_threads").Worker)("1", { eval: true })',
      binding: 'process.binding("fs")',
    };
    const results = await Promise.all(Object.values(tries).map((code) => runJavaScript(code, limits)));
    for (const [k, result] of results.entries()) {
      expect(result.ok, Object.keys(tries)[k]).toBe(false);
      expect(result.stderr, Object.keys(tries)[k]).toMatch(/ERR_ACCESS_DENIED|Access to this API has been restricted/);
    }
    const env = await runJavaScript("console.log(JSON.stringify(process.env))", limits);
    expect(env.stdout).not.toContain("hunter2");
    delete process.env.AGENT_R1_TEST_SECRET;
  });

  it("has no network: a server on this machine is never reached", async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests += 1;
      res.end("reached");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const { port } = server.address() as AddressInfo;
    try {
      const [viaFetch, viaHttp, viaDns] = await Promise.all([
        runJavaScript(`fetch("http://127.0.0.1:${port}/").then(r => r.text()).then(console.log)`, limits),
        runJavaScript(
          `require("http").get("http://127.0.0.1:${port}/", (r) => r.pipe(process.stdout)).on("error", (e) => { console.error(e.code); process.exitCode = 1; })`,
          limits,
        ),
        runJavaScript(
          'require("dns").lookup("localhost", (e, a) => { if (e) { console.error(e.code); process.exitCode = 1 } else console.log(a) })',
          limits,
        ),
      ]);
      for (const result of [viaFetch, viaHttp]) {
        expect(result.ok).toBe(false);
        expect(result.stdout).not.toContain("reached");
      }
      expect(requests).toBe(0);
      // Name resolution may answer from /etc/hosts in a namespace, but nothing can connect anywhere.
      expect(viaDns.ended).toBe("exit");
    } finally {
      server.close();
    }
  });

  it("as a tool: the outcome, including a run stopped by a limit, is a result the journal records", async () => {
    const tool = codeTool({ timeoutMs: 500, memoryMb: 64 });
    expect(await tool.call({ code: "console.log(2 ** 10)" })).toEqual({
      ok: true,
      content: { ok: true, ended: "exit", exitCode: 0, stdout: "1024\n", stderr: "" },
    });
    expect(await tool.call({ code: "while (true);" })).toMatchObject({
      ok: true,
      content: { ok: false, ended: "timeout" },
    });
    const controller = new AbortController();
    const pending = tool.call({ code: "while (true);" }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({ ok: false, error: { kind: "error", message: /cancelled/ } });
  });
});

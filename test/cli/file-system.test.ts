import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fileSystemProblem } from "../../src/cli/main.ts";
import { checkWritableParent, makeFolders } from "../../src/kernel/folders.ts";
import { wasmOutOfMemory } from "../../src/policy/backend.ts";
import { runCli, tempDir } from "../support/index.ts";

const cli = (command: string) => spawnSync("bash", ["-c", command], { encoding: "utf8", timeout: 120_000 });

describe("file-system trouble, in one line", () => {
  it("names what a file-system error means: a file in the path, a full disk, a size limit", () => {
    const error = (code: string, message: string, syscall?: string) =>
      Object.assign(new Error(message), { code, ...(syscall ? { syscall } : {}) });
    expect(fileSystemProblem(error("ENOTDIR", "ENOTDIR: not a directory, mkdir '/a/file/sub'"))).toBe(
      "ENOTDIR: not a directory, mkdir '/a/file/sub': a part of this path is a file, not a folder",
    );
    expect(fileSystemProblem(error("EEXIST", "EEXIST: file already exists, mkdir '/a/file'", "mkdir"))).toContain(
      "a file stands where this path needs a folder",
    );
    expect(fileSystemProblem(error("ENOSPC", "ENOSPC: no space left on device, write"))).toMatch(
      /the disk is full; what was written before it is kept \(record and train continue with --resume\)$/,
    );
    expect(fileSystemProblem(error("EFBIG", "EFBIG: file too large, write"))).toContain("(ulimit -f)");
    // Said for the command that met it: record and train continue with --resume, the others run again.
    expect(
      fileSystemProblem(error("ENOSPC", "ENOSPC: no space left on device, write '/r/ep-0-3.jsonl'"), "record"),
    ).toBe(
      "ENOSPC: no space left on device, write '/r/ep-0-3.jsonl': the disk is full; what was written before it is kept (free space, then record continues with --resume)",
    );
    expect(fileSystemProblem(error("ENOSPC", "ENOSPC: no space left on device, write"), "sft")).toMatch(
      /the disk is full; free space, then run sft again$/,
    );
    expect(fileSystemProblem(error("EFBIG", "EFBIG: file too large, write"), "plot")).toMatch(
      /limit; raise the limit, then run plot again$/,
    );
    expect(fileSystemProblem(error("EACCES", "EACCES: permission denied, open '/x'"))).toBe(
      "EACCES: permission denied, open '/x'",
    );
    // Anything else is not a file-system problem of the user's: the command shows its stack.
    expect(fileSystemProblem(error("ERR_SOMETHING", "a bug"))).toBeUndefined();
    expect(fileSystemProblem(new TypeError("x is not a function"))).toBeUndefined();
  });

  it("makeFolders makes nested folders and gives the error of the one it cannot make, not recursive mkdir's ENOENT", () => {
    const dir = tempDir("agent-r1-folders-");
    makeFolders(join(dir, "a", "b", "c"));
    makeFolders(join(dir, "a", "b", "c")); // already there: fine
    makeFolders(join(dir, "x", "y", "..", "z")); // a ".." after a folder still to make
    expect(existsSync(join(dir, "x", "z"))).toBe(true);
    expect(existsSync(join(dir, "a", "b", "c"))).toBe(true);
    writeFileSync(join(dir, "file"), "x");
    expect(() => makeFolders(join(dir, "file", "sub", "deeper"))).toThrow(/^ENOTDIR: .*mkdir '.*file[/\\]sub'/);
    expect(() => makeFolders(join(dir, "file"))).toThrow(/^EEXIST: /);
    // The check before long work leaves the parent made and nothing else.
    mkdirSync(join(dir, "p"));
    checkWritableParent(join(dir, "p", "q", "clone"));
    expect(readdirSync(join(dir, "p", "q"))).toEqual([]);
    expect(() => checkWritableParent(join(dir, "file", "clone"))).toThrow(/^EEXIST: /);
  });

  it("sft and average refuse an --out they could not write before any work (the clone was lost after its epochs)", async () => {
    const dir = tempDir("agent-r1-fs-out-");
    const file = join(dir, "afile");
    writeFileSync(file, "hi\n");
    const sft = await runCli(
      ..."sft --env lookup --data replays/lookup --epochs 50 --out".split(" "),
      join(file, "clone"),
    );
    expect(sft.code, sft.stderr).toBe(2);
    expect(sft.stderr).not.toMatch(/sft steps: \d/);
    expect(sft.stderr.trim()).toMatch(
      /^error: EEXIST: file already exists, mkdir '.*afile': a file stands where this path needs a folder$/,
    );
    const average = await runCli(
      ..."average docs/checkpoints/hopqa-best docs/checkpoints/hopqa-copy-warm-start --out".split(" "),
      join(file, "soup"),
    );
    expect(average.code, average.stderr).toBe(2);
    expect(average.stderr.trim()).toMatch(/^error: EEXIST: .*a file stands where this path needs a folder$/);
  });

  it("an --out inside a file is refused in one line (exit 2), and a closed pipe ends a listing quietly", async () => {
    const dir = tempDir("agent-r1-fs-");
    const file = join(dir, "afile");
    writeFileSync(file, "hi\n");
    const inFile = await runCli(
      ..."record --env lookup --policy expert --episodes 2 --out".split(" "),
      join(file, "sub"),
    );
    expect(inFile.code, inFile.stderr).toBe(2);
    expect(inFile.stderr.trim()).toBe(
      `error: the journal folder ${join(file, "sub")} goes through a file (a part of the path is a file, not a folder); give a folder for the journals (a new one, or one of journals)`,
    );
    // `replay ... | head -1`: the reader closes the pipe; no EPIPE stack trace, exit 0.
    const piped = cli("set -o pipefail; node bin/agent-r1.js replay replays/lookup | head -1");
    expect(piped.stdout.split("\n")[0]).toMatch(/^ok replays\/lookup\/expert\/ep-golden-0\.jsonl/);
    expect(piped.stderr).toBe("");
    expect(piped.status).toBe(0);
  });
});

describe("a checkpoint save that fails", () => {
  it.each([
    ["1", "clone\\.tmp-\\d+-\\d+"],
    // Two epochs: the first epoch's saved point (sft-progress/s...) fails; no progress folder without a point
    // is left (it made --out an unfinished clone with nothing to resume, and the same command was refused).
    ["2", "clone[/\\\\]sft-progress[/\\\\]s\\d+\\.tmp-\\d+-\\d+"],
  ])(
    "takes its half-written folder with it: an sft that hit the file size limit left OUT.tmp-PID-N beside --out, never removed (--epochs %s)",
    (epochs, folder) => {
      const dir = tempDir("agent-r1-fs-save-");
      const out = join(dir, "clone");
      // 200 KiB: the epoch runs, and the clone's weights.bin (over 500 KB) fails with EFBIG mid-write.
      const sft = cli(
        `ulimit -f 200; node bin/agent-r1.js sft --env lookup --data replays/lookup/expert --epochs ${epochs} --out ${JSON.stringify(out)}`,
      );
      expect(sft.status, sft.stderr).toBe(2);
      // The file is named (Node's write error names none) and what to do is sft's, not record's --resume.
      expect(sft.stderr).toMatch(
        new RegExp(
          `^error: EFBIG: file too large, write '.*${folder}[/\\\\]weights\\.bin': .*; raise the limit, then run sft again$`,
          "m",
        ),
      );
      expect(readdirSync(dir)).toEqual([]);
    },
    120_000,
  );

  it("record into a full disk (ulimit -f) names the journal it could not write; --resume keeps the whole episodes and redoes the cut ones", () => {
    const out = join(tempDir("agent-r1-fs-record-"), "rec");
    const record = (limit: string, resume: string) =>
      cli(
        `${limit}exec node bin/agent-r1.js record --env lookup --policy expert --episodes 12 --out ${JSON.stringify(out)}${resume}`,
      );
    // 4 KiB per file: the first journal past it fails mid-line with EFBIG (Node ignores SIGXFSZ).
    const full = record("ulimit -f 4; ", "");
    expect(full.status, full.stderr).toBe(2);
    expect(full.stderr).toMatch(
      /^error: EFBIG: file too large, write '.*[/\\]rec[/\\]ep-0-\d+\.jsonl': .*what was written before it is kept \(raise the limit, then record continues with --resume\)$/m,
    );
    const resumed = record("", " --resume");
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /record --resume: \d+ of 12 episodes are journaled already and kept; removed \d+ that the stop cut short/,
    );
    const verify = cli(`node bin/agent-r1.js replay ${JSON.stringify(out)} --verify`);
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toContain("verified 12 journal(s) ok, 0 failed");
  }, 120_000);
});

describe("a closed stderr", () => {
  it("a stderr that cannot be written (2>/dev/full, a log on a full disk) loses only the progress: record goes on to the end, exit 0", () => {
    const out = join(tempDir("agent-r1-fs-"), "rec");
    // It used to stop after a few episodes, exit 1, with nothing said and no summary.
    const run = cli(
      `node bin/agent-r1.js record --env lookup --policy expert --episodes 30 --out ${JSON.stringify(out)} --json 2>/dev/full`,
    );
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ episodes: 30 });
    expect(readdirSync(out).filter((name) => name.endsWith(".jsonl"))).toHaveLength(30);
  }, 120_000);

  it("loses only the progress: record goes on to the end and its --json summary reaches stdout, exit 0", async () => {
    // `record ... 2>&1 >summary.json | head -1`: the reader of stderr is gone before the command ends.
    const out = join(tempDir("agent-r1-fs-"), "rec");
    const child = spawn(
      "node",
      ["bin/agent-r1.js", "record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", out, "--json"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stderr.destroy();
    let stdout = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    const status = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(status).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ episodes: 4, aborted: 0 });
    expect(readdirSync(out).filter((name) => name.endsWith(".jsonl"))).toHaveLength(4);
  }, 120_000);
});

describe("a closed stdout", () => {
  it("does not stop replay --repair: `replay --repair DIR | head -1` repairs every journal, not the first few", async () => {
    const dir = tempDir("agent-r1-fs-repair-");
    const golden = readFileSync(join("replays", "lookup", "expert", readdirSync("replays/lookup/expert")[0]));
    // Torn last lines (a crash mid-write), enough that the reader leaves long before the end.
    for (let i = 0; i < 300; i++) writeFileSync(join(dir, `ep-${i}.jsonl`), golden.subarray(0, golden.length - 20));
    const child = spawn(process.execPath, ["bin/agent-r1.js", "replay", "--repair", dir], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    child.stdout.once("data", () => child.stdout.destroy());
    await new Promise((resolve) => child.on("close", resolve));
    const torn = readdirSync(dir).filter((name) => !readFileSync(join(dir, name), "utf8").endsWith("\n"));
    expect(torn).toEqual([]);
  }, 120_000);
});

describe("a closed terminal (SIGHUP)", () => {
  it("fails later writes with EIO, which end no command (train goes on to the checkpoint its SIGHUP handler promises)", () => {
    // A hung-up terminal fails every write to it with EIO (a pty is needed to see it for real): the listeners
    // main() puts on stdout and stderr threw it, an uncaught exception that ended train with no checkpoint.
    const script = join(tempDir("agent-r1-fs-"), "eio.mts");
    const out = join(tempDir("agent-r1-fs-"), "rec");
    writeFileSync(
      script,
      [
        `import { main } from ${JSON.stringify(join(process.cwd(), "src/cli/main.ts"))};`,
        `await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "1", "--out", ${JSON.stringify(out)}]);`,
        `const eio = () => Object.assign(new Error("EIO: i/o error, write"), { code: "EIO", errno: -5, syscall: "write" });`,
        // As on a terminal (EIO from a pipe or a file is a disk's error, not dropped).
        "for (const s of [process.stdout, process.stderr]) Object.defineProperty(s, 'isTTY', { value: true });",
        "process.stderr.emit('error', eio());",
        "process.stdout.emit('error', eio());",
        "await new Promise((r) => setTimeout(r, 100));",
        "process.exitCode = 3;",
      ].join("\n"),
    );
    const run = spawnSync(process.execPath, ["bin/run-ts.js", script], { encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stderr).toBe(3);
  }, 120_000);
});

describe("a stdout that cannot be written", () => {
  it.skipIf(!existsSync("/dev/full"))("a full disk under `> file` is one line and exit 2, not a stack trace", () => {
    const full = cli("node bin/agent-r1.js replay replays/lookup > /dev/full");
    expect(full.status, full.stderr).toBe(2);
    expect(full.stderr.trim()).toBe("error: cannot write to stdout: ENOSPC: no space left on device, write");
  });
});

describe("an environment module that never finishes loading", () => {
  it("ends with a line that says so, not a silent exit 13", () => {
    const module = join(tempDir("agent-r1-fs-"), "hang.mts");
    writeFileSync(module, "await new Promise(() => {});\nexport default 1;\n");
    const run = cli(
      `node bin/agent-r1.js record --env ${JSON.stringify(module)} --policy expert --episodes 1 --out ${JSON.stringify(join(tempDir("agent-r1-fs-"), "out"))}`,
    );
    expect(run.status).toBe(13);
    expect(run.stderr.trim()).toBe(
      "error: the command stopped with nothing left to run while a module was still loading: a top-level await that never settles, in an --env module or one it imports (exit 13)",
    );
  });
});

describe("a policy whose act() never settles", () => {
  it("is named when the process runs out of work, not blamed on a module still loading", () => {
    const dir = tempDir("agent-r1-fs-");
    const module = join(dir, "stuck.mts");
    const root = process.cwd();
    // An LLM client whose promise nothing will ever resolve (no timer, no socket left open).
    writeFileSync(
      module,
      [
        `import weather from ${JSON.stringify(join(root, "actors/weather/env.ts"))};`,
        `import * as r1 from ${JSON.stringify(join(root, "src/index.ts"))};`,
        "const stuck = () => ({ ...weather.policies.expert(), id: 'stuck', act: () => new Promise(() => {}) });",
        "export default r1.defineEnv({ ...weather, policies: { stuck } });",
      ].join("\n"),
    );
    const run = cli(
      `node bin/agent-r1.js record --env ${JSON.stringify(module)} --policy stuck --episodes 1 --out ${JSON.stringify(join(dir, "out"))}`,
    );
    expect(run.status).toBe(13);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(
      "error: the command stopped with nothing left to run while waiting for a policy: policy stuck's act() for ep-0-0 turn 0 never settled (a promise that nothing resolves: check that act() answers every request, and give the policy a timeoutMs) (exit 13)",
    );
  });
});

describe("a tool call that ignores its signal past its time", () => {
  it("does not keep a finished command running: the process exits soon after, naming the calls", () => {
    const dir = tempDir("agent-r1-fs-");
    const module = join(dir, "deaf.mts");
    const root = process.cwd();
    // A tool that ignores its signal: its work goes on for a minute after the call timed out.
    writeFileSync(
      module,
      [
        `import weather from ${JSON.stringify(join(root, "actors/weather/env.ts"))};`,
        `import * as r1 from ${JSON.stringify(join(root, "src/index.ts"))};`,
        "const deaf = r1.defineTool({ ...weather.tools.weather, timeoutMs: 100, execute: () => new Promise((r) => setTimeout(() => r(1), 60_000)) });",
        "export default r1.defineEnv({ ...weather, tools: { weather: deaf } });",
      ].join("\n"),
    );
    const started = Date.now();
    const run = cli(
      `node bin/agent-r1.js record --env ${JSON.stringify(module)} --policy expert --episodes 1 --out ${JSON.stringify(join(dir, "out"))}`,
    );
    expect(run.status, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(run.stderr.trim().split("\n").at(-1)).toBe(
      "note: done, but 2 tool call(s) that ran past their time still run, ignoring their signal: weather (call c0 of ep-0-0), weather (call c1 of ep-0-0); exiting without waiting for them (pass the signal of execute(args, { signal }) on, so that abandoned work stops)",
    );
  });
});

describe("a finished command's output to a pipe read slowly", () => {
  it("reaches the reader whole: the exit after a finished command waits until stdout is written (`inspect DIR | less`)", () => {
    // 48 episodes' timelines (about 120 KB): more than a pipe holds (64 KiB), so most of it waits in the process
    // until the reader reads (a user reading `| less` page by page, a script reading later).
    const dir = tempDir("agent-r1-fs-");
    for (let copy = 0; copy < 12; copy += 1)
      for (const file of readdirSync("replays/hopqa/expert"))
        writeFileSync(join(dir, `c${copy}-${file}`), readFileSync(join("replays/hopqa/expert", file)));
    // The reader starts after 9 s: past the command's end and the 3 s it may wait for lingering work after it.
    const slow = cli(
      `node bin/agent-r1.js inspect ${JSON.stringify(dir)} --max-episodes 48 2>/dev/null | (sleep 9; grep -c ' ended: ')`,
    );
    expect(slow.stdout.trim()).toBe("48");
  });
});

describe("the wasm backend out of memory", () => {
  it("is one line naming the 4 GiB heap and what to do (a new run, or another backend), not a stack of wasm frames", async () => {
    // What tfjs-backend-wasm throws when its heap is full (a long --context-length): a WebAssembly.RuntimeError.
    const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: { RuntimeError: new (m: string) => Error } };
    const said = wasmOutOfMemory(new wasm.RuntimeError("memory access out of bounds"));
    expect(said).toMatch(
      /^memory access out of bounds: most likely the TensorFlow\.js wasm backend ran out of memory \(its heap cannot grow past 4 GiB\)\. A long --context-length is the usual cause/,
    );
    // A resume keeps the context and the model, so it is not what the message offers.
    expect(said).toContain(
      "start a new run with a shorter --context-length or a smaller model, or go on with --backend",
    );
    expect(wasmOutOfMemory(new RangeError("WebAssembly.Memory(): could not allocate memory"))).toContain("4 GiB");
    // Not wasm: a plain Error, a Node buffer that could not be allocated, any other RangeError.
    expect(wasmOutOfMemory(new Error("memory access out of bounds"))).toBeUndefined();
    expect(wasmOutOfMemory(new RangeError("Array buffer allocation failed"))).toBeUndefined();
    expect(wasmOutOfMemory(new RangeError("index out of range"))).toBeUndefined();
  });
});

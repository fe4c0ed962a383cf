/**
 * sft and average hold their --out's lock (as record and train do) from their checks to their exit: two of
 * them into one --out both passed the check made at their start, and the later one silently replaced the
 * other's checkpoint.
 */
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { LOCK_FILE, lockFolder, unlockFolder } from "../../src/journal/lock.ts";
import { initBackend } from "../../src/policy/backend.ts";
import { checkpointTarget, loadCheckpoint, saveCheckpoint } from "../../src/policy/checkpoint.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();
const dir = tempDir("agent-r1-out-lock-");
const data = join(dir, "demos");
const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
const sft = (out: string, ...more: string[]) =>
  main(["sft", "--env", "lookup", "--data", data, "--epochs", "1", ...shape, "--out", out, ...more]);
const sleeper = spawn("sleep", ["60"]);
const heldBySleeper = (folder: string) =>
  writeFileSync(join(folder, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, command: "sft", since: "then" }));

describe("sft and average lock their --out", () => {
  beforeAll(async () => {
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", data])).toBe(0);
  }, 60_000);
  afterAll(() => {
    sleeper.kill("SIGKILL");
  });

  it("sft refuses an --out another process writes, naming it, and leaves it as it was", async () => {
    const out = join(dir, "busy");
    expect(await sft(out)).toBe(0);
    expect(readdirSync(out)).not.toContain(LOCK_FILE); // released after the run
    const before = readFileSync(join(out, "weights.bin"));
    heldBySleeper(out);
    output.clear();
    expect(await sft(out, "--replace")).toBe(2);
    expect(output.stderr).toContain(`${out} is being written by another agent-r1 process (pid ${sleeper.pid}, sft`);
    expect(readFileSync(join(out, "weights.bin"))).toEqual(before);
    expect(JSON.parse(readFileSync(join(out, LOCK_FILE), "utf8")).pid).toBe(sleeper.pid);
    // A folder that does not exist yet, which another sft has just made and locked: refused too.
    const fresh = join(dir, "fresh");
    mkdirSync(fresh);
    heldBySleeper(fresh);
    expect(await sft(fresh)).toBe(2);
    expect(readdirSync(fresh)).toEqual([LOCK_FILE]); // the other's folder and lock are not removed
  }, 60_000);

  it("average refuses an --out another process writes", async () => {
    const source = join(dir, "source");
    expect(await sft(source)).toBe(0);
    const out = join(dir, "avg");
    mkdirSync(out);
    heldBySleeper(out);
    output.clear();
    expect(await main(["average", source, "--out", out])).toBe(2);
    expect(output.stderr).toContain(`is being written by another agent-r1 process (pid ${sleeper.pid}`);
    expect(readdirSync(out)).toEqual([LOCK_FILE]);
    // Once it is gone, the average is written and the lock released.
    writeFileSync(join(out, LOCK_FILE), "{");
    expect(await main(["average", source, "--out", out])).toBe(0);
    expect(checkpointTarget(out)).toBe("checkpoint");
    expect(existsSync(join(out, LOCK_FILE))).toBe(false);
  }, 60_000);

  it("a failed sft leaves no --out folder behind", async () => {
    const out = join(dir, "failed");
    expect(await main(["sft", "--env", "lookup", "--data", join(dir, "nothing"), ...shape, "--out", out])).not.toBe(0);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("saving a checkpoint into a locked folder keeps the lock in place", async () => {
    await initBackend("wasm", { log: () => {} });
    const source = join(dir, "source");
    const out = join(dir, "saved");
    mkdirSync(out);
    lockFolder(out, "test");
    expect(checkpointTarget(out)).toBe("new"); // the lock alone is no checkpoint
    const loaded = await loadCheckpoint(source);
    try {
      for (let i = 0; i < 2; i++) {
        await saveCheckpoint(out, loaded);
        expect(JSON.parse(readFileSync(join(out, LOCK_FILE), "utf8")).pid).toBe(process.pid);
      }
    } finally {
      loaded.model.dispose();
      unlockFolder(out);
    }
    expect(readdirSync(out)).not.toContain(LOCK_FILE);
    expect(checkpointTarget(out)).toBe("checkpoint");
    // A second writer's refused attempt puts its temp file beside the lock for an instant (and a takeover
    // its claim): read as a foreign file, it made the first's save refuse its own --out.
    for (const side of [`${LOCK_FILE}.tmp-123-abcdef`, `${LOCK_FILE}.takeover-0123456789abcdef`]) {
      writeFileSync(join(out, side), "");
      expect(checkpointTarget(out)).toBe("checkpoint");
      const empty = join(dir, `empty-${side}`);
      mkdirSync(empty);
      writeFileSync(join(empty, side), "");
      expect(checkpointTarget(empty)).toBe("new");
    }
  }, 60_000);
});

describe("sft, stopped while its environment loads", () => {
  it("says that nothing was written and removes the lock it already holds", async () => {
    const folder = tempDir("agent-r1-sft-slow-env-");
    // An environment module that takes seconds to load (a large store, a model to fetch): sft holds its
    // --out's lock by then.
    const env = join(folder, "slow-env.mts");
    writeFileSync(
      env,
      `import { lookup } from ${JSON.stringify(join(process.cwd(), "actors/lookup/index.ts"))};\nawait new Promise((done) => setTimeout(done, 30_000));\nexport default lookup;\n`,
    );
    const out = join(folder, "clone");
    const child = spawn(
      process.execPath,
      ["bin/agent-r1.js", "sft", "--env", env, "--data", data, "--epochs", "1", ...shape, "--out", out],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    while (!existsSync(join(out, LOCK_FILE))) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGTERM");
    expect(await exited, stderr).toBe(143);
    expect(stderr).toContain(`interrupted by SIGTERM: sft stopped before its clone was saved`);
    // The folder it made for the clone is gone with its lock (it was killed with both left behind).
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

describe("average, stopped while it reads its checkpoints", () => {
  it("says what --out holds, and removes its lock and the folder it made", async () => {
    const folder = tempDir("agent-r1-average-stop-");
    const demos = join(folder, "demos");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "4", "--out", demos])).toBe(0);
    const source = join(folder, "source");
    const cloned = ["sft", "--env", "lookup", "--data", demos, "--epochs", "1", ...shape, "--out", source];
    expect(await main(cloned)).toBe(0);
    // A second checkpoint whose weights file is a named pipe no one writes: reading it waits, so average is
    // held mid-way with its --out locked (as a slow disk or a network folder would hold it).
    const held = join(folder, "held");
    cpSync(source, held, { recursive: true });
    rmSync(join(held, "weights.bin"));
    execFileSync("mkfifo", [join(held, "weights.bin")]);
    const out = join(folder, "avg");
    const child = spawn(process.execPath, ["bin/agent-r1.js", "average", source, held, "--out", out], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    while (!existsSync(join(out, LOCK_FILE))) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500)); // into the reading
    child.kill("SIGTERM");
    const said = `interrupted by SIGTERM: average stopped; ${out} holds what it held before`;
    for (let wait = 0; wait < 200 && !stderr.includes(said); wait++) await new Promise((r) => setTimeout(r, 50));
    expect(stderr).toContain(said);
    // The read still waits in a worker thread, which the exit waits for: the pipe gets its writer (the disk
    // answers), and the process ends.
    writeFileSync(join(held, "weights.bin"), "x");
    expect(await exited, stderr).toBe(143);
    // Killed by the signal itself, it left the folder and its lock behind.
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  EMPTY_LOCK_GRACE_MS,
  holdsNothingButLock,
  LOCK_FILE,
  lockFolder,
  processDead,
  processStart,
  unlockFolder,
} from "../../src/journal/lock.ts";
import { tempDir } from "../support/index.ts";

describe("one writer per folder", () => {
  it("holds the folder while it writes and lets it go after", () => {
    const dir = tempDir("agent-r1-lock-");
    lockFolder(dir, "record");
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
    // A second writer in this very process (two runs into one folder) is refused too.
    expect(() => lockFolder(dir, "train")).toThrow(/is being written by this process already/);
    unlockFolder(dir);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockFolder(dir, "train");
    unlockFolder(dir);
    unlockFolder(dir); // releasing what is not held does nothing
  });

  it("refuses a folder a live process holds, naming it, and takes over one whose process is gone", async () => {
    const dir = tempDir("agent-r1-lock-");
    const sleeper = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, command: "record", since: "then" }));
      expect(() => lockFolder(dir, "record --resume")).toThrow(
        `${dir} is being written by another agent-r1 process (pid ${sleeper.pid}, record, since then)`,
      );
      expect(() => lockFolder(dir, "record --resume")).toThrow(`delete ${join(dir, LOCK_FILE)}`);
      // The same lock with the start time of the process that wrote it: still that process, refused.
      const started = processStart(sleeper.pid!);
      if (started !== undefined) {
        const lock = { pid: sleeper.pid, command: "record", since: "then", started };
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
        expect(() => lockFolder(dir, "train")).toThrow(/is being written by another agent-r1 process/);
        // Written by an earlier process that had this pid (a container restarted): taken over.
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...lock, started: String(Number(started) - 1000) }));
        lockFolder(dir, "train");
        expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toMatchObject({ pid: process.pid });
        unlockFolder(dir);
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lock));
      }
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.on("exit", resolve));
    }
    // Killed: its lock is stale, and so is one that does not parse.
    lockFolder(dir, "record --resume");
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).command).toBe("record --resume");
    unlockFolder(dir);
    writeFileSync(join(dir, LOCK_FILE), "{");
    lockFolder(dir, "train");
    unlockFolder(dir);
  });

  it("takes over a lock with this process's pid that it does not hold (a restarted container reuses low pids)", () => {
    const dir = tempDir("agent-r1-lock-");
    // An older version's lock (no start time), written by an earlier process that had this pid.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, command: "record", since: "then" }));
    lockFolder(dir, "train");
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8"))).toMatchObject({
      pid: process.pid,
      command: "train",
    });
    unlockFolder(dir);
  });

  it.each([0, -1, 1.5])("takes over a lock whose pid (%s) names no process, as damaged", (pid) => {
    const dir = tempDir("agent-r1-lock-");
    // kill(0, 0) signals this process's own group, which answers: pid 0 read as a live holder was never let go.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, command: "record", since: "then" }));
    lockFolder(dir, "train");
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).command).toBe("train");
    unlockFolder(dir);
  });

  it("takes over a lock whose process was killed and not yet reaped (a zombie)", async () => {
    if (processStart(process.pid) === undefined) return; // no /proc: a zombie cannot be told apart here
    const dir = tempDir("agent-r1-lock-");
    // The background sleep's parent becomes `sleep 120` (exec), which never waits for it: killed, it stays a
    // zombie until its parent ends.
    const parent = spawn("sh", ["-c", "sleep 60 & echo $!; exec sleep 120"]);
    try {
      const pid = Number(await new Promise<string>((resolve) => parent.stdout.once("data", (d) => resolve(String(d)))));
      // `echo` runs before the exec: killed while its parent is still the shell, the sleep is reaped at once
      // (about 1 time in 20 under load). Kill it only once the shell has become `sleep`.
      const comm = () =>
        existsSync(`/proc/${parent.pid}/comm`) ? readFileSync(`/proc/${parent.pid}/comm`, "utf8") : "";
      for (let i = 0; i < 500 && comm().trim() !== "sleep"; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(comm().trim()).toBe("sleep");
      const started = processStart(pid)!;
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid, command: "train", since: "then", started }));
      expect(() => lockFolder(dir, "train --resume")).toThrow(/is being written by another agent-r1 process/);
      process.kill(pid, "SIGKILL");
      // Up to 10 s: on loaded cores a killed process can wait a while to be scheduled and become a zombie.
      for (let i = 0; i < 500 && !processDead(pid); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(processDead(pid)).toBe(true);
      lockFolder(dir, "train --resume");
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).command).toBe("train --resume");
      unlockFolder(dir);
    } finally {
      parent.kill("SIGKILL");
    }
  });

  it("record refuses a folder another record is writing; the first is unharmed", () => {
    const dir = join(tempDir("agent-r1-lock-"), "r");
    const args = [
      "bin/agent-r1.js",
      "record",
      "--env",
      "lookup",
      "--policy",
      "expert",
      "--episodes",
      "4",
      "--out",
      dir,
    ];
    expect(spawnSync(process.execPath, args).status).toBe(0);
    const sleeper = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, command: "record", since: "then" }));
      const second = spawnSync(process.execPath, [...args, "--resume"], { encoding: "utf8" });
      expect(second.status).toBe(2);
      expect(second.stderr).toContain(`is being written by another agent-r1 process (pid ${sleeper.pid}, record`);
    } finally {
      sleeper.kill("SIGKILL");
    }
    const verified = spawnSync(process.execPath, ["bin/agent-r1.js", "replay", dir, "--verify"], { encoding: "utf8" });
    expect(verified.stdout).toContain("verified 4 journal(s) ok, 0 failed");
  });
});

describe("a lock being written", () => {
  it("refuses a folder whose lock was made a moment ago and is still empty, and takes over an empty lock left long ago", () => {
    const dir = tempDir("agent-r1-lock-empty-");
    const file = join(dir, LOCK_FILE);
    // Another process has made the file and not yet written its record: read as damaged, it was taken over,
    // and both processes wrote the folder.
    writeFileSync(file, "");
    expect(() => lockFolder(dir, "record")).toThrow(/is being taken by another agent-r1 process this moment/);
    expect(readFileSync(file, "utf8")).toBe("");
    // The same empty file from a writer that died before writing its record: taken over.
    const then = new Date(Date.now() - EMPTY_LOCK_GRACE_MS - 1_000);
    utimesSync(file, then, then);
    lockFolder(dir, "record");
    expect(JSON.parse(readFileSync(file, "utf8")).pid).toBe(process.pid);
    unlockFolder(dir);
  });
});

describe("a takeover's claim", () => {
  // Taking over a stale lock first claims it (.agent-r1.lock.takeover-<hash of the stale text>, made with
  // O_EXCL) so that of several processes doing so at once only one removes it (test/journal/lock-race.test.ts).
  const claimOf = (dir: string, text: string) =>
    `${join(dir, LOCK_FILE)}.takeover-${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
  const stale = JSON.stringify({ pid: 2 ** 30, command: "record", since: "then" });

  it("left by a process that died holding it is taken over too, and removed", () => {
    const dir = tempDir("agent-r1-lock-claim-");
    writeFileSync(join(dir, LOCK_FILE), stale);
    writeFileSync(claimOf(dir, stale), JSON.stringify({ pid: 2 ** 30 + 1, command: "takeover", since: "then" }));
    lockFolder(dir, "record");
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
    expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    unlockFolder(dir);
  });

  it("held by a live process: the stale lock is left to it", async () => {
    const dir = tempDir("agent-r1-lock-claim-");
    const sleeper = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), stale);
      writeFileSync(claimOf(dir, stale), JSON.stringify({ pid: sleeper.pid, command: "takeover", since: "then" }));
      expect(() => lockFolder(dir, "record")).toThrow(/could not take .agent-r1.lock/);
      expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toBe(stale);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.on("exit", resolve));
    }
  });
});

describe("a lock is made whole", () => {
  // A lock used to be created empty (O_EXCL) and then written: another process that read it in between saw
  // an empty file, and was refused as "being taken" (or, past EMPTY_LOCK_GRACE_MS, took it over). It is now
  // written to a temp file and linked into place.
  it("is never seen empty or half written by a process reading it while another takes and releases it", async () => {
    const base = tempDir("agent-r1-lock-whole-");
    const folder = join(base, "f");
    mkdirSync(folder);
    const script = join(base, "child.mts");
    const lockModule = pathToFileURL(join(process.cwd(), "src/journal/lock.ts")).href;
    writeFileSync(
      script,
      `import { writeFileSync } from "node:fs";
import { lockFolder, unlockFolder } from ${JSON.stringify(lockModule)};
const [folder, done] = process.argv.slice(2);
for (let i = 0; i < 3000; i++) {
  lockFolder(folder, "child");
  unlockFolder(folder);
}
writeFileSync(done, "");
`,
    );
    const done = join(base, "done");
    const child = spawn(process.execPath, ["--import", "tsx", script, folder, done], { stdio: "inherit" });
    const exited = new Promise((resolve) => child.on("exit", resolve));
    const file = join(folder, LOCK_FILE);
    let seen = 0;
    let torn = 0;
    let example = "";
    const deadline = Date.now() + 60_000;
    while (!existsSync(done) && Date.now() < deadline) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        continue; // released this moment
      }
      seen += 1;
      try {
        JSON.parse(text);
      } catch {
        torn += 1;
        example = JSON.stringify(text);
      }
    }
    await exited;
    expect(existsSync(done)).toBe(true);
    expect(seen).toBeGreaterThan(0);
    expect(torn, `${torn} of ${seen} reads were not a whole record (one: ${example})`).toBe(0);
    // Nothing of the locking is left behind.
    expect(readdirSync(folder)).toEqual([]);
  }, 90_000);

  it("leaves no temp file when the folder is taken", async () => {
    const dir = tempDir("agent-r1-lock-whole-");
    const sleeper = spawn("sleep", ["30"]);
    try {
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: sleeper.pid, command: "record", since: "then" }));
      expect(() => lockFolder(dir, "record")).toThrow(/is being written by another agent-r1 process/);
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.on("exit", resolve));
    }
  });

  it("a claim or temp file a dead process left is not the folder's, and goes when the lock is taken", async () => {
    const dir = tempDir("agent-r1-lock-whole-");
    const dead = 2 ** 30 + 7;
    const claim = `${LOCK_FILE}.takeover-0123456789abcdef`;
    const temp = `${LOCK_FILE}.tmp-${dead}-a1b2c3`;
    writeFileSync(join(dir, claim), JSON.stringify({ pid: dead, command: "takeover", since: "then" }));
    writeFileSync(join(dir, temp), JSON.stringify({ pid: dead, command: "record", since: "then" }));
    // A run killed while it took its lock leaves the folder as empty as one killed after.
    expect(holdsNothingButLock(dir)).toBe(true);
    // One of a live process is in use: the folder is not empty.
    const sleeper = spawn("sleep", ["30"]);
    const live = `${LOCK_FILE}.tmp-${sleeper.pid}-d4e5f6`;
    try {
      writeFileSync(join(dir, live), "");
      expect(holdsNothingButLock(dir)).toBe(false);
      lockFolder(dir, "record");
      expect(readdirSync(dir).sort()).toEqual([LOCK_FILE, live].sort());
      unlockFolder(dir);
    } finally {
      sleeper.kill("SIGKILL");
      await new Promise((resolve) => sleeper.on("exit", resolve));
    }
    expect(holdsNothingButLock(dir)).toBe(true);
  });
});

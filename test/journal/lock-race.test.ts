/**
 * Many processes taking over one stale lock at the same moment: exactly one of them holds the folder. Each
 * used to read the stale lock, remove it and make its own; one that read the stale lock before another's
 * removal and removed after the other had made its lock removed that live lock, and both wrote the folder.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE } from "../../src/journal/lock.ts";
import { tempDir } from "../support/index.ts";

const CHILDREN = 6;
const ROUNDS = 25;

// Each child takes part in every round: once the round is armed it spins until the round's start file
// appears (so that all of them start together; spinning only then leaves the cores to the others' start), tries to lock that round's folder and says how it went. It holds every lock it took until
// the test ends, so a loser can never find the winner's lock already released.
const child = (lockModule: string) => `
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { lockFolder } from ${JSON.stringify(lockModule)};
const [base, id, rounds] = process.argv.slice(2);
writeFileSync(join(base, "ready-" + id), "");
for (let round = 0; round < Number(rounds); round++) {
  while (!existsSync(join(base, "armed-" + round))) await new Promise((done) => setTimeout(done, 2));
  while (!existsSync(join(base, "go-" + round))) {}
  let result;
  try {
    lockFolder(join(base, "r" + round), "child " + id);
    result = "won " + process.pid;
  } catch (error) {
    result = "lost " + error.message;
  }
  // Written whole, then named: the test never reads a result half written.
  writeFileSync(join(base, "partial-" + id), result);
  renameSync(join(base, "partial-" + id), join(base, "result-" + round + "-" + id));
}
while (!existsSync(join(base, "done"))) await new Promise((done) => setTimeout(done, 20));
`;

const until = async (ready: () => boolean, what: string) => {
  const deadline = Date.now() + 100_000; // the children start slowly on a busy machine
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 2));
  }
};

describe("a stale lock taken over by many processes at once", () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const c of children) c.kill("SIGKILL");
  });

  it("is taken by exactly one of them, every time", async () => {
    const base = tempDir("agent-r1-lock-race-");
    const script = join(base, "child.mts");
    writeFileSync(script, child(pathToFileURL(join(process.cwd(), "src/journal/lock.ts")).href));
    for (let round = 0; round < ROUNDS; round++) {
      mkdirSync(join(base, `r${round}`));
      // Left by a process that is gone (no process has this pid): stale, to be taken over.
      writeFileSync(
        join(base, `r${round}`, LOCK_FILE),
        JSON.stringify({ pid: 2 ** 30 + round, command: "record", since: "then" }),
      );
    }
    for (let id = 0; id < CHILDREN; id++) {
      const c = spawn(process.execPath, ["--import", "tsx", script, base, String(id), String(ROUNDS)], {
        stdio: ["ignore", "ignore", "inherit"],
      });
      children.push(c);
    }
    const names = () => readdirSync(base);
    await until(() => names().filter((n) => n.startsWith("ready-")).length === CHILDREN, "the children to start");
    for (let round = 0; round < ROUNDS; round++) {
      writeFileSync(join(base, `armed-${round}`), "");
      await new Promise((done) => setTimeout(done, 30));
      writeFileSync(join(base, `go-${round}`), "");
      await until(
        () => names().filter((n) => n.startsWith(`result-${round}-`)).length === CHILDREN,
        `round ${round}'s results`,
      );
      const results = Array.from({ length: CHILDREN }, (_, id) =>
        readFileSync(join(base, `result-${round}-${id}`), "utf8"),
      );
      const winners = results.filter((r) => r.startsWith("won "));
      expect(winners, `round ${round}: ${results.join(" | ")}`).toHaveLength(1);
      for (const lost of results.filter((r) => !r.startsWith("won ")))
        expect(lost).toMatch(/is being (written|taken) by another agent-r1 process/);
      // The lock in the folder is the winner's.
      const holder = JSON.parse(readFileSync(join(base, `r${round}`, LOCK_FILE), "utf8"));
      expect(`won ${holder.pid}`).toBe(winners[0]);
      // Nothing but the lock is left behind by the takeover.
      expect(readdirSync(join(base, `r${round}`))).toEqual([LOCK_FILE]);
    }
    writeFileSync(join(base, "done"), "");
    expect(existsSync(join(base, "done"))).toBe(true);
  }, 200_000);
});

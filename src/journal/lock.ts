/**
 * One writer per folder: `record`, `train`, `sft`, `average` and `eval` hold `.agent-r1.lock` in their --out
 * while they write. Two processes writing one folder destroyed each other's work (a `record --resume` removed the
 * journals another recorder was still writing, as torn; a second `train --resume` removed the other's
 * half-written checkpoint; a second `sft` replaced the other's clone), so the second one is refused, naming the first. A lock whose process is gone (killed, the
 * machine restarted, or killed and not yet reaped by its parent: a zombie, where /proc says) is taken over,
 * and so is one whose pid another process has now (where /proc tells the start times apart): a crash never
 * leaves a folder locked. Of several processes taking over one stale lock at once, one does (removeStale).
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { UsageError, writingFile } from "../kernel/errors.ts";

export const LOCK_FILE = ".agent-r1.lock";

/**
 * Whether a folder entry is the lock or one of the files taking it leaves for moments (a takeover's claim
 * `.agent-r1.lock.takeover-*`, a record's temp file `.agent-r1.lock.tmp-*`): the locking's, not the folder's
 * contents. A check of what a folder holds ignores them (a second writer's refused attempt put its temp file
 * there for an instant, and one killed meanwhile left it).
 */
export const isLockFile = (name: string): boolean => name === LOCK_FILE || name.startsWith(`${LOCK_FILE}.`);

interface LockRecord {
  readonly pid: number;
  readonly command: string;
  readonly since: string;
  /** When the process started, where the system says (Linux: /proc/PID/stat), to tell a reused pid apart. */
  readonly started?: string;
}

/**
 * When process `pid` started (clock ticks since boot, from /proc/PID/stat), or undefined where /proc does not
 * say. A pid is reused after its process ends (a container restarted, a busy machine): the same pid with
 * another start time is another process.
 */
export const processStart = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): the 22nd field is the start time.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
};

/**
 * Whether process `pid` has ended but is not yet reaped by its parent (a zombie, state Z or X in
 * /proc/PID/stat): `kill(pid, 0)` still succeeds on it, yet it writes nothing any more. False where /proc
 * does not say.
 */
export const processDead = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state === "Z" || state === "X" || state === "x";
  } catch {
    return false;
  }
};

/** Folders this process holds, by resolved path: released at exit whatever happens. */
const held = new Set<string>();
let exitHookInstalled = false;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    // A process killed but not yet reaped (its parent has not waited for it: a supervisor that polls later)
    // still answers signal 0; it is gone all the same.
    return !processDead(pid);
  } catch (error) {
    // EPERM: a process of another user has that pid: alive.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Whether the lock's pid now belongs to a process that started at another time than the one that wrote it. */
const reused = (owner: LockRecord): boolean => {
  if (owner.started === undefined) return false;
  const now = processStart(owner.pid);
  return now !== undefined && now !== owner.started;
};

/**
 * How long an empty lock file counts as one being written. A lock is made whole (written to a temp file,
 * then linked into place), so this version never leaves one empty; an older version created the file and
 * then wrote its record, and a process starting that instant must not read the empty file as damaged and
 * take it over (two writers then hold the folder). Past this, an empty lock is one whose writer died in
 * between (or a crash lost its record), and is taken over.
 */
export const EMPTY_LOCK_GRACE_MS = 5_000;

/** An empty lock file made moments ago: its writer (an older version) has not written its record yet. */
const beingWritten = (file: string): boolean => {
  try {
    const stat = statSync(file);
    return stat.size === 0 && Date.now() - stat.mtimeMs < EMPTY_LOCK_GRACE_MS;
  } catch {
    return false;
  }
};

/** The lock file's text, or undefined when there is none (removed between two looks). */
const readText = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    // Node's EISDIR names no path: the folder would not know which one is in the way.
    if ((error as NodeJS.ErrnoException).code === "EISDIR")
      throw new UsageError({
        detail: `${file} is a folder, where agent-r1 keeps the lock of the folder it writes (a file); agent-r1 never makes such a folder: move it away, then run the command again`,
      });
    throw error;
  }
};

const parseLock = (text: string): LockRecord | undefined => {
  try {
    const json = JSON.parse(text) as Partial<LockRecord>;
    return Number.isSafeInteger(json.pid) && (json.pid as number) > 0
      ? {
          pid: json.pid as number,
          command: String(json.command ?? "?"),
          since: String(json.since ?? "?"),
          ...(typeof json.started === "string" ? { started: json.started } : {}),
        }
      : undefined;
  } catch {
    return undefined; // damaged (or emptied by a crash): taken over
  }
};

/** Whether the process a lock (or claim) record names still runs as the process that wrote it. */
const holderLives = (owner: LockRecord | undefined): owner is LockRecord =>
  owner !== undefined && alive(owner.pid) && !reused(owner);

/**
 * The live process that holds `folder`'s lock (its pid, command and start), or undefined when none does: for a
 * command that changes journals without writing them (`replay --repair`), which must not cut the files of an
 * episode still being written.
 */
export const liveLockHolder = (folder: string): { pid: number; command: string; since: string } | undefined => {
  let text: string | undefined;
  try {
    text = readText(join(resolve(folder), LOCK_FILE));
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const owner = parseLock(text);
  return holderLives(owner) ? { pid: owner.pid, command: owner.command, since: owner.since } : undefined;
};

/**
 * The temp file a record is written to before it is linked into place:
 * `.agent-r1.lock.tmp-<pid>-<random>` (or the claim's name with `.tmp-...`), in the same folder (a link
 * does not cross file systems).
 */
const tempName = (file: string): string => `${file}${TEMP_MARK}${process.pid}-${randomBytes(6).toString("hex")}`;
const TEMP_MARK = ".tmp-";

/**
 * Creates `file` holding this process's record, whole: the record is written to a temp file that is then
 * linked to `file` (a link fails with EEXIST when the file exists: one creator wins), and the temp file is
 * removed whatever happened. No process ever sees the file empty or half written (an O_EXCL create followed
 * by a write did, which the empty-lock grace covered). False when `file` exists already.
 */
const createRecord = (file: string, command: string): boolean => {
  const started = processStart(process.pid);
  const text = JSON.stringify({
    pid: process.pid,
    command,
    since: new Date().toISOString(),
    ...(started ? { started } : {}),
  });
  const temp = tempName(file);
  try {
    writeNew(temp, text); // its name is this process's and random: never there already
    try {
      linkSync(temp, file);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      // A file system without hard links: made with O_EXCL and then written (the grace for an empty lock
      // covers the moment in between).
      if (code === "EPERM" || code === "ENOTSUP" || code === "EOPNOTSUPP" || code === "ENOSYS")
        return writeNew(file, text);
      throw error;
    }
  } finally {
    rmSync(temp, { force: true });
  }
};

/** `file` created with O_EXCL and then written: false when it exists. */
const writeNew = (file: string, text: string): boolean => {
  let fd: number;
  try {
    fd = openSync(file, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writingFile(file, () => writeSync(fd, text));
  } finally {
    closeSync(fd);
  }
  return true;
};

/** A claim file's name: the file it claims and the text judged stale in it, so one claim is one stale lock. */
const claimName = (file: string, staleText: string): string =>
  `${file}.takeover-${createHash("sha256").update(staleText).digest("hex").slice(0, 16)}`;

/**
 * Removes `file` if it still holds `staleText` (judged stale by the caller), as one step against every other
 * process doing the same: without it two processes that both read one stale lock each removed "it" and made
 * their own, and the later removal removed the other's new, live lock (both then wrote the folder). The
 * remover first creates a claim named after that stale text with O_EXCL; only the claim's holder removes the
 * file, after reading it again: another claimant that comes later finds the file no longer holds that text
 * (the winner's new lock, or none) and removes nothing. A claim left by a process that died holding it (it
 * is held for a few system calls) is itself stale, and taken over the same way. Returns whether it removed
 * the file; false when it no longer held that text or another live process is taking it over this moment.
 */
const removeStale = (file: string, staleText: string, depth = 0): boolean => {
  if (depth > 4) return false; // claims of claims of dead claimants: give up this attempt
  const claim = claimName(file, staleText);
  if (!createRecord(claim, "takeover")) {
    const claimText = readText(claim);
    if (claimText === undefined) return false; // released this moment: look again
    if (claimText === "" && beingWritten(claim)) return false;
    if (holderLives(parseLock(claimText))) return false; // another process is taking it over
    if (!removeStale(claim, claimText, depth + 1) || !createRecord(claim, "takeover")) return false;
  }
  try {
    if (readText(file) !== staleText) return false; // taken over (and maybe locked anew) by another
    rmSync(file, { force: true });
    return true;
  } finally {
    rmSync(claim, { force: true });
  }
};

/** Waits `ms` milliseconds, blocking (lockFolder is synchronous). */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Takes the folder's lock for `command` (the folder must exist); throws a UsageError when another live
 * process holds it, or when this process already does (two runs of one program into one folder).
 */
export const lockFolder = (folder: string, command: string): void => {
  const path = resolve(folder);
  const file = join(path, LOCK_FILE);
  const busy = (owner: LockRecord) =>
    new UsageError({
      detail: `${folder} is being written by another agent-r1 process (pid ${owner.pid}, ${owner.command}, since ${owner.since}); two writers would destroy each other's work: wait for it to end, or stop it (a lock left by a process that is gone is taken over). If no agent-r1 process writes there (pid ${owner.pid} is now another program's), delete ${file}`,
    });
  if (held.has(path))
    throw new UsageError({
      detail: `${folder} is being written by this process already (another record or train into it has not ended); two writers would destroy each other's work: give each its own folder`,
    });
  for (let attempt = 0; attempt < 200; attempt++) {
    if (createRecord(file, command)) {
      held.add(path);
      // What a process killed while it took this lock left (its claim, its temp file) goes now.
      removeDeadLockSideFiles(path);
      if (!exitHookInstalled) {
        exitHookInstalled = true;
        process.on("exit", () => {
          for (const folder of held) rmSync(join(folder, LOCK_FILE), { force: true });
        });
      }
      return;
    }
    const text = readText(file);
    if (text === undefined) continue; // released (or taken over) between the two looks
    if (text === "" && beingWritten(file))
      throw new UsageError({
        detail: `${folder} is being taken by another agent-r1 process this moment (its ${LOCK_FILE} is new and not yet written); two writers would destroy each other's work: wait for it to end, or give this command its own folder`,
      });
    const owner = parseLock(text);
    if (owner && owner.pid !== process.pid && holderLives(owner)) throw busy(owner);
    // Left by a process that is gone, whose pid another process has now, or by this one in a run that ended
    // without releasing: taken over, by one process only when several try at once (then the others find the
    // winner's lock on their next look, and are refused naming it).
    if (!removeStale(file, text)) pause(5);
  }
  throw new UsageError({
    detail: `${folder}: could not take ${LOCK_FILE} (other processes keep making it or taking it over)`,
  });
};

/**
 * Whether `name` (in a folder) is a file the locking leaves for moments (a takeover's claim, a record's temp
 * file) that its process left behind when it died there (killed between two system calls): nothing of the
 * folder's, removable. One of a live process is not (it is in use this moment).
 */
const deadLockSideFile = (folder: string, name: string): boolean => {
  if (!name.startsWith(`${LOCK_FILE}.`)) return false;
  const temp = name.lastIndexOf(TEMP_MARK);
  if (temp >= 0) {
    // Its process is named in it: .tmp-<pid>-<random>.
    const pid = Number(name.slice(temp + TEMP_MARK.length).split("-")[0]);
    return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !alive(pid);
  }
  if (!name.startsWith(`${LOCK_FILE}.takeover-`)) return false;
  const file = join(folder, name);
  const text = readText(file);
  if (text === undefined) return true; // gone this moment
  if (text === "" && beingWritten(file)) return false; // an older version's claim, being written
  const owner = parseLock(text);
  return !(owner && (owner.pid === process.pid || holderLives(owner)));
};

/** Removes the claims and temp files that dead processes left in the folder (see deadLockSideFile). */
const removeDeadLockSideFiles = (folder: string): void => {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) if (deadLockSideFile(folder, name)) rmSync(join(folder, name), { force: true });
};

/**
 * Whether a folder holds nothing but (maybe) its lock: a run that failed before writing anything. A takeover
 * claim or temp file of the lock that a dead process left (killed while it took the lock) is not the run's:
 * it does not count.
 */
export const holdsNothingButLock = (folder: string): boolean =>
  readdirSync(folder).every((name) => name === LOCK_FILE || deadLockSideFile(folder, name));

/**
 * What `folder` holds besides a lock's files, said for a message (`it holds 2 journals (ep-7-0.jsonl, ...)`), or
 * undefined when it does not exist or holds nothing else: `eval --out` and `evaluate({ dir })` keep their
 * episodes in a new or empty folder (inspect and replay read a folder as one set).
 */
export const heldBesidesLock = (folder: string): string | undefined => {
  if (!existsSync(folder)) return undefined;
  if (!statSync(folder).isDirectory()) return "it is a file, not a folder";
  const names = readdirSync(folder)
    .filter((name) => !isLockFile(name))
    .sort();
  if (names.length === 0) return undefined;
  const journals = names.filter((name) => name.endsWith(".jsonl"));
  const others = names.filter((name) => !name.endsWith(".jsonl"));
  const listed = (some: string[]) => `${some.slice(0, 3).join(", ")}${some.length > 3 ? ", …" : ""}`;
  return `it holds ${[
    journals.length > 0 && `${journals.length} journal${journals.length === 1 ? "" : "s"} (${listed(journals)})`,
    others.length > 0 && `${others.length} other entr${others.length === 1 ? "y" : "ies"} (${listed(others)})`,
  ]
    .filter(Boolean)
    .join(" and ")}`;
};

/** Releases a lock this process holds (nothing when it holds none there). */
export const unlockFolder = (folder: string): void => {
  const path = resolve(folder);
  if (!held.delete(path)) return;
  if (existsSync(join(path, LOCK_FILE))) rmSync(join(path, LOCK_FILE), { force: true });
};

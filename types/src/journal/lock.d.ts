/*
 * One writer per folder: `record`, `train`, `sft`, `average` and `eval` hold `.agent-r1.lock` in their --out
 * while they write. Two processes writing one folder destroyed each other's work (a `record --resume` removed the
 * journals another recorder was still writing, as torn; a second `train --resume` removed the other's
 * half-written checkpoint; a second `sft` replaced the other's clone), so the second one is refused, naming the first. A lock whose process is gone (killed, the
 * machine restarted, or killed and not yet reaped by its parent: a zombie, where /proc says) is taken over,
 * and so is one whose pid another process has now (where /proc tells the start times apart): a crash never
 * leaves a folder locked. Of several processes taking over one stale lock at once, one does (removeStale).
 */
export declare const LOCK_FILE = ".agent-r1.lock";
/**
 * Whether a folder entry is the lock or one of the files taking it leaves for moments (a takeover's claim
 * `.agent-r1.lock.takeover-*`, a record's temp file `.agent-r1.lock.tmp-*`): the locking's, not the folder's
 * contents. A check of what a folder holds ignores them (a second writer's refused attempt put its temp file
 * there for an instant, and one killed meanwhile left it).
 */
export declare const isLockFile: (name: string) => boolean;
/**
 * When process `pid` started (clock ticks since boot, from /proc/PID/stat), or undefined where /proc does not
 * say. A pid is reused after its process ends (a container restarted, a busy machine): the same pid with
 * another start time is another process.
 */
export declare const processStart: (pid: number) => string | undefined;
/**
 * Whether process `pid` has ended but is not yet reaped by its parent (a zombie, state Z or X in
 * /proc/PID/stat): `kill(pid, 0)` still succeeds on it, yet it writes nothing any more. False where /proc
 * does not say.
 */
export declare const processDead: (pid: number) => boolean;
/**
 * How long an empty lock file counts as one being written. A lock is made whole (written to a temp file,
 * then linked into place), so this version never leaves one empty; an older version created the file and
 * then wrote its record, and a process starting that instant must not read the empty file as damaged and
 * take it over (two writers then hold the folder). Past this, an empty lock is one whose writer died in
 * between (or a crash lost its record), and is taken over.
 */
export declare const EMPTY_LOCK_GRACE_MS = 5000;
/**
 * The live process that holds `folder`'s lock (its pid, command and start), or undefined when none does: for a
 * command that changes journals without writing them (`replay --repair`), which must not cut the files of an
 * episode still being written.
 */
export declare const liveLockHolder: (folder: string) => {
    pid: number;
    command: string;
    since: string;
} | undefined;
/**
 * Takes the folder's lock for `command` (the folder must exist); throws a UsageError when another live
 * process holds it, or when this process already does (two runs of one program into one folder).
 */
export declare const lockFolder: (folder: string, command: string) => void;
/**
 * Whether a folder holds nothing but (maybe) its lock: a run that failed before writing anything. A takeover
 * claim or temp file of the lock that a dead process left (killed while it took the lock) is not the run's:
 * it does not count.
 */
export declare const holdsNothingButLock: (folder: string) => boolean;
/**
 * What `folder` holds besides a lock's files, said for a message (`it holds 2 journals (ep-7-0.jsonl, ...)`), or
 * undefined when it does not exist or holds nothing else: `eval --out` and `evaluate({ dir })` keep their
 * episodes in a new or empty folder (inspect and replay read a folder as one set).
 */
export declare const heldBesidesLock: (folder: string) => string | undefined;
/** Releases a lock this process holds (nothing when it holds none there). */
export declare const unlockFolder: (folder: string) => void;

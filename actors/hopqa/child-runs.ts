/**
 * Child processes of `npm run experiment` and `npm run recipe:left`: each in a process group of its own
 * (detached), so that a Ctrl-C at the terminal reaches it once, from the parent that passes it on, not twice (a
 * second signal makes train quit without its checkpoint).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, writeSync } from "node:fs";
import { constants } from "node:os";

/** The children running, for the parent to pass a stop signal on to. */
export const children = new Set<ChildProcess>();
/**
 * In their own process groups, children outlive the parent: if it ends any other way than by waiting for them (an
 * error, process.exit), each is told to stop (it saves and exits), not left working unseen.
 */
process.on("exit", () => {
  for (const child of children) child.kill("SIGTERM");
});

/**
 * Runs `node ARGS` as a child; its output (stdout and stderr as they come, after `header` if given) is written to
 * `log` while it runs, so `tail -f LOG` follows it. Resolves with its exit code (ended by a signal it does not
 * handle: 128 + its number, as a shell says) and its stdout alone.
 */
export const runLogged = (args: readonly string[], log: string, header = "") =>
  new Promise<{ readonly code: number; readonly stdout: Buffer }>((resolve) => {
    const fd = openSync(log, "w");
    if (header) writeSync(fd, header);
    const child = spawn(process.execPath, [...args], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.add(child);
    const out: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => {
      out.push(c);
      writeSync(fd, c);
    });
    child.stderr.on("data", (c: Buffer) => writeSync(fd, c));
    child.on("close", (code, signal) => {
      children.delete(child);
      closeSync(fd);
      resolve({ code: code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1), stdout: Buffer.concat(out) });
    });
  });

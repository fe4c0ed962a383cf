/**
 * Running code a model wrote: never in this process. `runJavaScript` starts a separate `node` with
 * - Node's permission model on and nothing allowed: no file read or write, no child process, no worker,
 *   no native addon, no `process.binding`;
 * - no network: a new, empty network namespace (`unshare -n`, Linux) where one can be made, otherwise
 *   every network API replaced, before the code runs, by one that throws (the result says which);
 * - a time limit (SIGKILL), a memory limit (V8's heap limit, and a watchdog on the resident size that
 *   catches memory outside the heap), and a limit on the output it may print;
 * - an empty environment (no inherited secrets) and a fresh, empty working folder.
 * `codeTool` wraps it as a Tool whose result is the run's outcome, so faults become data too.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import * as Schema from "effect/Schema";
import { defineTool, type Tool } from "./tool.ts";

/** Limits and input of one runJavaScript run. */
export interface SandboxOptions {
  /** Wall-clock limit in milliseconds (default 5,000). */
  readonly timeoutMs?: number;
  /** Memory limit in MiB (default 256): the V8 heap limit, and the resident size the watchdog allows (plus 64). */
  readonly memoryMb?: number;
  /** Most bytes of stdout and stderr together (default 1 MiB); more stops the run. */
  readonly maxOutputBytes?: number;
  /** Text given on stdin. */
  readonly stdin?: string;
  /** Stops the run (SIGKILL). */
  readonly signal?: AbortSignal;
}

export type SandboxEnd = "exit" | "timeout" | "memory" | "output" | "aborted" | "error";

/** How a runJavaScript run went; a run stopped by a limit is a result, not an exception. */
export interface SandboxResult {
  /** The code ran to completion within every limit and exited with code 0. */
  readonly ok: boolean;
  /** How the run ended: on its own, or stopped by which limit. */
  readonly ended: SandboxEnd;
  /** The process's exit code; null when a signal ended it. */
  readonly exitCode: number | null;
  /** The signal that ended the process (SIGKILL for a limit), or null. */
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall-clock time of the run, in milliseconds. */
  readonly ms: number;
  /** How the network was kept away: an empty namespace, or the network APIs replaced in the process. */
  readonly network: "namespace" | "blocked-in-process";
}

const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission")
  ? "--permission"
  : "--experimental-permission";

/** Replaces every network API before the code runs (the fallback where no namespace can be made). */
const NO_NETWORK_PRELUDE = `
const denied = () => { const e = new Error("network access is disabled in this sandbox"); e.code = "ERR_ACCESS_DENIED"; throw e; };
for (const name of ["net", "tls", "http", "https", "http2", "dgram", "dns", "dns/promises", "node:net", "node:tls", "node:http", "node:https", "node:http2", "node:dgram", "node:dns"]) {
  let m; try { m = require(name); } catch { continue; }
  for (const key of Object.keys(m)) if (typeof m[key] === "function") try { m[key] = denied; } catch {}
  for (const cls of ["Socket", "Server", "Agent", "ClientRequest", "Resolver"]) if (m[cls]?.prototype) for (const k of Object.getOwnPropertyNames(m[cls].prototype)) if (k !== "constructor" && typeof m[cls].prototype[k] === "function") try { m[cls].prototype[k] = denied; } catch {}
}
for (const name of ["fetch", "WebSocket", "EventSource"]) if (name in globalThis) Object.defineProperty(globalThis, name, { value: denied, configurable: false, writable: false });
`;

let namespaceCommand: string[] | null | undefined;

/** The `unshare` command line that gives a process an empty network namespace here, or null where none can. */
const networkNamespace = (): string[] | null => {
  if (namespaceCommand !== undefined) return namespaceCommand;
  namespaceCommand = null;
  if (process.platform !== "linux") return namespaceCommand;
  const unshare = (process.env.PATH ?? "/usr/bin:/bin")
    .split(delimiter)
    .map((dir) => join(dir, "unshare"))
    .find((file) => existsSync(file));
  if (!unshare) return namespaceCommand;
  // As root a plain new namespace works; otherwise one inside a new user namespace, where allowed.
  for (const args of [["-n"], ["-r", "-n"]]) {
    const probe = spawnSync(unshare, [...args, process.execPath, "-e", "0"], { stdio: "ignore", timeout: 5_000 });
    if (probe.status === 0) {
      namespaceCommand = [unshare, ...args];
      break;
    }
  }
  return namespaceCommand;
};

/** Resident memory of a process in MiB (Linux), or undefined. */
const residentMb = (pid: number): number | undefined => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
};

const MARKER = "…[output cut]";

/** Runs JavaScript (CommonJS, `require` of built-in modules only) in a child process, within limits. */
export const runJavaScript = (code: string, options: SandboxOptions = {}): Promise<SandboxResult> => {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const memoryMb = options.memoryMb ?? 256;
  const maxOutput = options.maxOutputBytes ?? 1024 * 1024;
  const started = performance.now();
  const namespace = networkNamespace();
  const network = namespace ? "namespace" : "blocked-in-process";
  const folder = mkdtempSync(join(tmpdir(), "agent-r1-sandbox-"));
  const program = join(folder, "main.cjs");
  writeFileSync(program, namespace ? code : `${NO_NETWORK_PRELUDE}\n;${code}`);
  const nodeArgs = [
    PERMISSION_FLAG,
    `--allow-fs-read=${program}`,
    "--no-addons",
    "--no-warnings",
    `--max-old-space-size=${memoryMb}`,
    program,
  ];
  const [command, ...args] = namespace
    ? [...namespace, process.execPath, ...nodeArgs]
    : [process.execPath, ...nodeArgs];

  return new Promise<SandboxResult>((resolve) => {
    let child: ChildProcess;
    let ended: SandboxEnd = "exit";
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let bytes = 0;
    const stop = (why: SandboxEnd) => {
      if (ended === "exit") ended = why;
      child.kill("SIGKILL");
    };
    try {
      child = spawn(command, args, { cwd: folder, env: {}, stdio: ["pipe", "pipe", "pipe"] });
    } catch (cause) {
      rmSync(folder, { recursive: true, force: true });
      resolve({
        ok: false,
        ended: "error",
        exitCode: null,
        signal: null,
        stdout: "",
        stderr: String(cause),
        ms: 0,
        network,
      });
      return;
    }
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      const room = maxOutput - bytes;
      if (room > 0) into.push(chunk.subarray(0, room));
      bytes += chunk.length;
      if (bytes > maxOutput) stop("output");
    };
    child.stdout!.on("data", collect(out));
    child.stderr!.on("data", collect(err));
    child.stdin!.on("error", () => {});
    child.stdin!.end(options.stdin ?? "");
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const watchdog = setInterval(() => {
      const rss = child.pid === undefined ? undefined : residentMb(child.pid);
      if (rss !== undefined && rss > memoryMb + 64) stop("memory");
    }, 25);
    const onAbort = () => stop("aborted");
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let done = false;
    const finish = (exitCode: number | null, signal: string | null, error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(watchdog);
      options.signal?.removeEventListener("abort", onAbort);
      rmSync(folder, { recursive: true, force: true });
      const stderr = Buffer.concat(err).toString("utf8");
      if (ended === "exit" && /heap out of memory|Reached heap limit/.test(stderr)) ended = "memory";
      if (error && ended === "exit") ended = "error";
      const cut = (text: string) => (bytes > maxOutput ? text + MARKER : text);
      resolve({
        ok: ended === "exit" && exitCode === 0,
        ended,
        exitCode,
        signal,
        stdout: cut(Buffer.concat(out).toString("utf8")),
        stderr: cut(error ? `${stderr}${error.message}` : stderr),
        ms: Math.round(performance.now() - started),
        network,
      });
    };
    child.on("error", (error) => finish(null, null, error));
    child.on("close", (exitCode, signal) => finish(exitCode, signal));
  });
};

/**
 * A tool that runs the JavaScript it is given in the sandbox and returns the outcome as data:
 * `{ ok, ended, exitCode, stdout, stderr }`. A run stopped by a limit is a result, not a tool failure.
 */
export const codeTool = (
  options: SandboxOptions & { readonly name?: string; readonly description?: string } = {},
): Tool => {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return defineTool({
    name: options.name ?? "javascript",
    description:
      options.description ??
      "Runs a JavaScript program (CommonJS; built-in modules only; no files, no network) and returns what it printed.",
    parameters: Schema.Struct({ code: Schema.String }),
    // The sandbox's own limit comes first; the tool's is a backstop.
    timeoutMs: timeoutMs + 5_000,
    execute: async ({ code }, { signal }) => {
      const result = await runJavaScript(code, { ...options, timeoutMs, signal });
      return {
        ok: result.ok,
        ended: result.ended,
        exitCode: result.exitCode,
        stdout: result.stdout,
        stderr: result.stderr,
      };
    },
  });
};

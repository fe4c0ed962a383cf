/*
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
import { type Tool } from "./tool.ts";
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
/** Runs JavaScript (CommonJS, `require` of built-in modules only) in a child process, within limits. */
export declare const runJavaScript: (code: string, options?: SandboxOptions) => Promise<SandboxResult>;
/**
 * A tool that runs the JavaScript it is given in the sandbox and returns the outcome as data:
 * `{ ok, ended, exitCode, stdout, stderr }`. A run stopped by a limit is a result, not a tool failure.
 */
export declare const codeTool: (options?: SandboxOptions & {
    readonly name?: string;
    readonly description?: string;
}) => Tool;

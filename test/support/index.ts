/** Shared test helpers: temp folders, scripted policies, and small environments for runtime properties. */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, vi } from "vitest";
import { assign, setup } from "xstate";
import { KEYS, tokenizer as lookupTokenizer, lookupTool, VALUES } from "../../actors/lookup/index.ts";
import {
  type AgentActEvent,
  defineEnv,
  defineTool,
  type EnvInput,
  end,
  observe,
  parseAction,
  reward,
  Schema,
  type Tokenizer,
  toolActors,
  WordTokenizer,
} from "../../src/index.ts";
import { scriptedPolicy } from "../../src/runtime/scripted-policy.ts";
import type { ActionOptions } from "../../src/testing/index.ts";

export { keepTempDir, removeTempDirs, tempDir } from "./temp.ts";

/**
 * Writes an environment module at `path` for `--env PATH` tests: `lookup`, `lookupEnv` and `defineEnv` imported
 * (by absolute path), then `body`'s lines. Returns `path`.
 */
export const writeLookupModule = (path: string, ...body: string[]): string => {
  writeFileSync(
    path,
    [
      `import { lookup, lookupEnv } from ${JSON.stringify(resolve("actors/lookup/index.ts"))};`,
      `import { defineEnv } from ${JSON.stringify(resolve("src/index.ts"))};`,
      "",
      ...body,
      "",
    ].join("\n"),
  );
  return path;
};

/**
 * Runs the CLI (`bin/agent-r1.js ARGS`) in a child process and sends it one Ctrl-C (SIGINT) as soon as its stderr
 * matches `when` (once only: a second Ctrl-C quits without saving). Resolves with its exit code and stderr.
 */
export const interruptedCli = (
  args: readonly string[],
  when: RegExp,
): Promise<{ code: number | null; stderr: string }> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ["bin/agent-r1.js", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    let sent = false;
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      if (!sent && when.test(stderr)) {
        sent = true;
        child.kill("SIGINT");
      }
    });
    child.on("exit", (code) => done({ code, stderr }));
  });

/**
 * What an in-process `main(...)` (the CLI) writes, captured: call it at a test file's top level. Both
 * start empty for each test; `clear()` empties them within one.
 */
export const captureOutput = () => {
  const output = {
    stdout: "",
    stderr: "",
    clear() {
      output.stdout = "";
      output.stderr = "";
    },
  };
  beforeEach(() => {
    output.clear();
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      output.stdout += String(chunk);
      return true;
    });
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      output.stderr += String(chunk);
      return true;
    });
  });
  afterEach(() => vi.restoreAllMocks());
  return output;
};

/** What a CLI command said and returned. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `npx agent-r1 ...args` run in this process (the CLI's `main`), its stdout and stderr captured: the same
 * messages, files and exit code as a spawned `node bin/agent-r1.js`, without a new process's start-up (about
 * 1.5 s of CPU for tsx, each). For what a command says and writes; what depends on the process itself
 * (signals, a closed pipe, a file size limit, exit 13) is tested on a spawned one. Not in a file that uses
 * `captureOutput` (it spies on the same writes).
 */
export const runCli = async (...args: string[]): Promise<CliRun> => {
  const { main } = await import("../../src/cli/main.ts");
  return runCaptured(() => main(args));
};

/** Runs a command's entry point (which returns its exit code) in this process, its stdout and stderr captured. */
export const runCaptured = async (run: () => Promise<number>): Promise<CliRun> => {
  const said = { stdout: "", stderr: "" };
  const capture = (stream: "stdout" | "stderr") =>
    vi.spyOn(process[stream], "write").mockImplementation((chunk: string | Uint8Array) => {
      said[stream] += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      return true;
    });
  const spies = [capture("stdout"), capture("stderr")];
  try {
    const code = await run();
    return { code, ...said };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
};

/**
 * Runs `run` with `cwd` as the working folder, then goes back: a command run in this process from another
 * folder, as a user would run it there (what it resolves relative paths against is process.cwd()).
 */
export const inFolder = async <T>(cwd: string, run: () => Promise<T>): Promise<T> => {
  const here = process.cwd();
  process.chdir(cwd);
  try {
    return await run();
  } finally {
    process.chdir(here);
  }
};

/** Runs `run` with process.stderr captured (nothing reaches the terminal): its result, and what was written. */
export const withStderr = async <T>(run: () => Promise<T>): Promise<{ result: T; written: string[] }> => {
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    return { result: await run(), written };
  } finally {
    spy.mockRestore();
  }
};

/** A tool that says its word back (`{ word }` -> word): the smallest tool a machine can invoke. */
export const echoTool = defineTool({
  name: "echo",
  description: "Says its word back.",
  parameters: Schema.Struct({ word: Schema.String }),
  execute: ({ word }) => word,
});

/**
 * An object shaped as an AbortSignal that is not Node's own (another realm's, a polyfill's): `signal` to pass
 * where a signal is taken, `abort(reason)` to fire it, `shaped` to read or set its fields.
 */
export const shapedAbortSignal = () => {
  const target = new EventTarget();
  const shaped = {
    aborted: false,
    reason: undefined as unknown,
    addEventListener: target.addEventListener.bind(target),
    removeEventListener: target.removeEventListener.bind(target),
  };
  const abort = (reason?: unknown) => {
    shaped.aborted = true;
    shaped.reason = reason;
    target.dispatchEvent(new Event("abort"));
  };
  return { shaped, abort, signal: shaped as unknown as AbortSignal };
};

/** A policy that plays the given action texts in order (then answers "none"). */
export const playing = (texts: readonly string[], tokenizer: Tokenizer = lookupTokenizer) =>
  scriptedPolicy("script", tokenizer, (request) => texts[request.turn] ?? "<answer>none</answer>");

/** Meaningful arguments and answers for `lookup`, for the kit's action arbitraries (`actionArbitrary(env, ...)`). */
export const lookupActionOptions = {
  args: { lookup: fc.constantFrom(...KEYS).map((key) => ({ key })) },
  answers: fc.constantFrom(...VALUES),
} satisfies ActionOptions;

/**
 * `race`: each call runs two tools at once; the reward and the observation depend on which returned
 * first, so replay must reproduce the recorded order to verify.
 */
/**
 * Two tools called at once each turn. By default the process reward depends on which returned first (a
 * bug an arrival-order check must find); `rewardOf` replaces that rule.
 */
export const createRaceEnv = (
  exec: { a: () => Promise<string> | string; b: () => Promise<string> | string },
  rewardOf: (order: readonly string[]) => number = (order) => (order[0].startsWith("a") ? 0.1 : 0.2),
) => {
  const a = defineTool({
    name: "a",
    description: "tool a",
    parameters: Schema.Struct({ q: Schema.String }),
    execute: exec.a,
  });
  const b = defineTool({
    name: "b",
    description: "tool b",
    parameters: Schema.Struct({ q: Schema.String }),
    execute: exec.b,
  });
  const tools = { a, b };
  const machine = setup({
    types: {
      context: {} as { order: string[]; turn: number },
      events: {} as AgentActEvent,
      input: {} as EnvInput<{ q: string }>,
    },
    actors: toolActors(tools),
  }).createMachine({
    context: { order: [], turn: 0 },
    initial: "awaiting",
    entry: observe("ask twice then answer"),
    states: {
      awaiting: {
        on: {
          "agent.act": [
            {
              guard: ({ context, event }) => context.turn >= 2 || parseAction(event.text, tools).kind === "answer",
              target: "done",
              actions: [reward("outcome", 1, "answered"), end("answered", { success: 1 })],
            },
            { target: "both", actions: assign({ order: [], turn: ({ context }) => context.turn + 1 }) },
          ],
        },
      },
      both: {
        type: "parallel",
        states: {
          left: {
            initial: "wait",
            states: {
              wait: {
                invoke: {
                  src: "a",
                  input: { q: "x" },
                  onDone: {
                    target: "got",
                    actions: assign({
                      order: ({ context, event }) => [...context.order, `a=${JSON.stringify(event.output)}`],
                    }),
                  },
                },
              },
              got: { type: "final" },
            },
          },
          right: {
            initial: "wait",
            states: {
              wait: {
                invoke: {
                  src: "b",
                  input: { q: "y" },
                  onDone: {
                    target: "got",
                    actions: assign({
                      order: ({ context, event }) => [...context.order, `b=${JSON.stringify(event.output)}`],
                    }),
                  },
                },
              },
              got: { type: "final" },
            },
          },
        },
        onDone: {
          target: "awaiting",
          actions: [
            reward("process", ({ context }) => rewardOf(context.order), "who came first"),
            observe(({ context }) => context.order.join(" ")),
          ],
        },
      },
      done: { type: "final" },
    },
  });
  return defineEnv({
    id: "race",
    version: "1",
    description: "two tools at once",
    machine,
    tools,
    tokenizer: new WordTokenizer(["a", "b", "ask", "twice", "then", "answer"]),
    task: () => ({ q: "x" }),
  });
};

export { lookupTool };

#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx's loader: no build step, so a fresh clone works after `npm ci`.
import "./preload.js";
import { register } from "tsx/esm/api";

// Node exits 13 when the event loop runs dry under a top-level await that never settles: here, a module the
// command imports (an environment given with --env, or one it imports) that never finishes loading (its
// 'exit' event is passed 0; process.exitCode says 13).
// The same happens when a policy's act() returns a promise that never settles and holds nothing open (no timer, no
// socket): the calls still in flight are then named instead.
let finished = false;
let policyCallsInFlight = () => [];
process.on("exit", () => {
  if (finished || process.exitCode !== 13) return;
  const calls = policyCallsInFlight();
  process.stderr.write(
    calls.length > 0
      ? `error: the command stopped with nothing left to run while waiting for a policy: ${calls.join("; ")} never ` +
          "settled (a promise that nothing resolves: check that act() answers every request, and give the policy a " +
          "timeoutMs) (exit 13)\n"
      : "error: the command stopped with nothing left to run while a module was still loading: a top-level await " +
          "that never settles, in an --env module or one it imports (exit 13)\n",
  );
});

register();
({ policyCallsInFlight } = await import("../src/runtime/policy-actor.ts"));
const { unsettledToolCalls } = await import("../src/runtime/halt.ts");
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
finished = true;
// The command is done. What still holds the process (a tool call that timed out and ignores its signal, a timer
// of an --env module) kept it running without a word after the summary, for as long as that took: it gets
// LINGER_MS, then the process exits, naming such tool calls. (Unref'd: a process with nothing left exits now.)
// The wait starts once what the command printed is written: output to a pipe read slowly (`| less`, a script
// that reads later) waits in the process for its reader, and an exit would cut it off.
const LINGER_MS = 3000;
const written = (stream) =>
  new Promise((resolve) => (stream.destroyed || !stream.writable ? resolve() : stream.write("", () => resolve())));
await Promise.all([written(process.stdout), written(process.stderr)]);
setTimeout(() => {
  const calls = unsettledToolCalls();
  if (calls.length === 0) process.exit();
  // Exits once the note is written (to a pipe read slowly, it would be cut off too).
  process.stderr.write(
    `note: done, but ${calls.length} tool call(s) that ran past their time still run, ignoring their signal: ` +
      `${calls.slice(0, 5).join(", ")}${calls.length > 5 ? ", ..." : ""}; exiting without waiting for them ` +
      "(pass the signal of execute(args, { signal }) on, so that abandoned work stops)\n",
    () => process.exit(),
  );
}, LINGER_MS).unref();

/**
 * Tool: an executor that returns the raw outcome of a call (query a store, call an API). It never decides
 * rewards or state: that is the ToolEnv's job. A tool call always ends in a ToolResult: a throw, a
 * timeout or arguments that do not decode become `{ ok: false, error }`, never an exception.
 */
import { Result, Schema } from "effect";
import type { Json } from "effect/Schema";
import type { ToolResult } from "../kernel/events.ts";

export interface ToolContext {
  /** Aborted when the call times out or the environment stops waiting for it. */
  readonly signal: AbortSignal;
}

export interface ToolSpec<P extends Schema.Top> {
  readonly name: string;
  readonly description: string;
  /** The arguments, as an Effect Schema; decoded before `execute` runs and rendered as JSON Schema for prompts. */
  readonly parameters: P;
  // Method syntax on purpose: a tool with specific arguments still fits a Record<string, Tool>.
  execute(args: P["Type"], context: ToolContext): Promise<Json> | Json;
  /** Per-call time limit in milliseconds (default 10 s). */
  readonly timeoutMs?: number;
  /** Results longer than this (in characters of JSON) are cut, with a visible marker (default 20,000). */
  readonly maxResultChars?: number;
}

export interface Tool<P extends Schema.Top = Schema.Top> extends ToolSpec<P> {
  readonly timeoutMs: number;
  readonly maxResultChars: number;
  /** JSON Schema of the parameters, for prompts and docs. */
  readonly jsonSchema: unknown;
  /** Decodes the arguments and runs the tool under its time limit. Never throws. */
  call(args: unknown, signal?: AbortSignal): Promise<ToolResult>;
}

export const TRUNCATION_MARKER = "…[truncated]";

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message || cause.name : typeof cause === "string" ? cause : JSON.stringify(cause);

/** Plain JSON of whatever the tool returned (NaN, functions and class instances normalised away), cut to size. */
const toJsonResult = (content: unknown, limit: number): Json => {
  const text = JSON.stringify(content) ?? "null";
  if (text.length <= limit) return JSON.parse(text) as Json;
  return typeof content === "string"
    ? content.slice(0, limit) + TRUNCATION_MARKER
    : { truncated: true, preview: text.slice(0, limit) + TRUNCATION_MARKER };
};

export const defineTool = <P extends Schema.Top>(spec: ToolSpec<P>): Tool<P> => {
  const timeoutMs = spec.timeoutMs ?? 10_000;
  const maxResultChars = spec.maxResultChars ?? 20_000;
  const decode = Schema.decodeUnknownResult(spec.parameters as unknown as Schema.Codec<unknown, unknown>);
  const tool: Tool<P> = {
    ...spec,
    timeoutMs,
    maxResultChars,
    jsonSchema: Schema.toJsonSchemaDocument(spec.parameters).schema,
    call: async (args, outer) => {
      const decoded = decode(args);
      if (Result.isFailure(decoded))
        return { ok: false, error: { kind: "invalid-args", message: String(decoded.failure.message) } };
      const controller = new AbortController();
      const onOuterAbort = () => controller.abort(outer?.reason);
      outer?.addEventListener("abort", onOuterAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<ToolResult>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error(`timed out after ${timeoutMs} ms`));
          resolve({
            ok: false,
            error: { kind: "timeout", message: `${spec.name} timed out after ${timeoutMs} ms` },
          });
        }, timeoutMs);
      });
      const ran = (async (): Promise<ToolResult> => {
        try {
          const content = await spec.execute(decoded.success as P["Type"], { signal: controller.signal });
          return { ok: true, content: toJsonResult(content, maxResultChars) };
        } catch (cause) {
          return { ok: false, error: { kind: "error", message: describe(cause) } };
        }
      })();
      try {
        return await Promise.race([ran, timedOut]);
      } finally {
        clearTimeout(timer);
        outer?.removeEventListener("abort", onOuterAbort);
      }
    },
  };
  return tool;
};

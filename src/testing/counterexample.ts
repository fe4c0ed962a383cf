/**
 * When a property fails: the shrunk counterexample is printed as the episode it played, step by step, and
 * written as a journal file, so `agent-r1 replay <file> --verify` re-derives it event by event; the
 * message also gives fast-check's seed and path to rerun exactly that case.
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import * as Data from "effect/Data";
import fc from "fast-check";
import { JsonlJournal } from "../journal/jsonl.ts";
import { EpisodeChain } from "../journal/stamp.ts";
import {
  allKeys,
  moduleLoadFailure,
  shellWord,
  shownPath,
  shownValue,
  stackFrames,
  UsageError,
} from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { envErrorThrownAt, replayEpisode } from "../replay/replay.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { bodyOf } from "./arbitraries.ts";

/**
 * Where a failing property's counterexample journals are written, and how the printed replay command names the
 * environment.
 */
export interface CounterexampleOptions {
  /**
   * Folder for counterexample journals (default: $AGENT_R1_COUNTEREXAMPLES, else
   * `<os tmpdir>/agent-r1-counterexamples`).
   */
  readonly counterexampleDir?: string;
  /**
   * Path of the module that default-exports the environment: completes the replay command (`--env`), which
   * replays against that export (or the variant its configure rebuilds from a journal's options), so it is
   * printed only when the environment under test is that export, or a variant that replays so. `?key=value` after
   * the path is read as `--env` reads it: the variant those options configure.
   */
  readonly envModule?: string;
}

/** The keys of PropertyRunOptions. */
export const PROPERTY_RUN_OPTIONS = allKeys<PropertyRunOptions>()([
  "counterexampleDir",
  "envModule",
  "numRuns",
  "seed",
  "path",
]);

/** How many cases a property check tries, and how to rerun one reported case. */
/** Cases a property tries when not told (PropertyRunOptions.numRuns). */
export const DEFAULT_NUM_RUNS = 50;

export interface PropertyRunOptions extends CounterexampleOptions {
  /** Cases to try (default 50). */
  readonly numRuns?: number;
  /** fast-check's seed: with `path`, reruns exactly a reported counterexample. */
  readonly seed?: number;
  /** fast-check's path of a reported counterexample; needs its `seed`. */
  readonly path?: string;
}

/**
 * Refuses run options that would make a check pass without running what was asked: numRuns not a whole
 * number, a seed that is not a number (fast-check's seeds are integers), and a path without its seed (the
 * path is then ignored and a search of other cases may pass).
 */
export const checkRunOptions = (fn: string, options: PropertyRunOptions): void => {
  if (options.numRuns !== undefined && (!Number.isInteger(options.numRuns) || options.numRuns < 1))
    throw new RangeError(`${fn}: numRuns must be an integer >= 1, got ${shownValue(options.numRuns)}`);
  if (options.seed !== undefined && !Number.isInteger(options.seed))
    throw new RangeError(
      `${fn}: seed must be an integer (fast-check's seed, as a counterexample prints it), got ${shownValue(options.seed)}`,
    );
  if (options.path !== undefined && typeof options.path !== "string")
    throw new TypeError(
      `${fn}: path must be the text a counterexample prints (e.g. "12:0:3"), got ${shownValue(options.path)}`,
    );
  // Counts of the episodes drawn: 0 or a fraction draws empty episodes, and the check finds nothing to check.
  const counts = options as { readonly maxActions?: unknown; readonly maxCommands?: unknown };
  for (const name of ["maxActions", "maxCommands"] as const)
    if (counts[name] !== undefined && (!Number.isInteger(counts[name]) || (counts[name] as number) < 1))
      throw new RangeError(`${fn}: ${name} must be an integer >= 1, got ${shownValue(counts[name])}`);
  if (options.path !== undefined && options.seed === undefined)
    throw new RangeError(
      `${fn}: path ${JSON.stringify(options.path)} without its seed reruns nothing; give the seed the counterexample printed with it`,
    );
};

/** What a failing case showed. */
export interface Violation {
  /** What broke, in words a user can act on. */
  readonly message: string;
  /** The episodes that show it, in the order they were played. */
  readonly episodes: readonly (readonly EpisodeEvent[])[];
  /** More lines for the report (e.g. a model run's commands). */
  readonly details?: readonly string[];
}

/**
 * A property failed: the shrunk case's violation, the journals written for it, and fast-check's seed and path to
 * rerun it.
 */
export class CounterexampleError extends Data.TaggedError("CounterexampleError")<{
  readonly property: string;
  readonly env: string;
  readonly violation: Violation;
  /** The counterexample journals, one per episode. */
  readonly files: readonly string[];
  readonly seed: number;
  readonly path: string;
  readonly numRuns: number;
  readonly numShrinks: number;
  /** How to rerun exactly this case, as code. */
  readonly rerun: string;
  readonly envModule?: string;
  /** Why `--env envModule` would not replay these journals: the command is left out. */
  readonly envModuleProblem?: string;
  /**
   * Per episode of the violation, where the environment's code threw, for one that ended in an environment error
   * (found by replaying it: its journal keeps the message only).
   */
  readonly thrownAt?: readonly (string | undefined)[];
}> {
  override get message(): string {
    const { violation } = this;
    const lines = [
      `property "${this.property}" failed on environment ${this.env} after ${this.numRuns} case(s), shrunk ${this.numShrinks} time(s):`,
      ...violation.message.split("\n").map((line) => `  ${line}`),
    ];
    for (const detail of violation.details ?? []) lines.push(`  ${detail}`);
    // Shown under the ids of their journals (written re-stamped under fresh ids, one per non-empty episode),
    // so the printed episode and `inspect` of its journal name the same episode.
    let journals = 0;
    violation.episodes.forEach((events, i) => {
      const file = events.length > 0 ? this.files[journals++] : undefined;
      const id = file === undefined ? undefined : basename(file, ".jsonl");
      lines.push(
        "",
        `counterexample episode ${i + 1} of ${violation.episodes.length}:`,
        describeEpisode(events, id, this.thrownAt?.[i]),
      );
    });
    lines.push("");
    // Quoted where a shell would read it otherwise (`?` globs, `&` of a second option ends the command).
    const envFlag = this.envModule ? ` --env ${shellWord(this.envModule)}` : "";
    for (const file of this.files) {
      lines.push(`journal: ${file}`);
      lines.push(`  see it step by step: npx agent-r1 inspect ${file}`);
      if (!this.envModuleProblem) lines.push(`  replay-verify it: npx agent-r1 replay ${file} --verify${envFlag}`);
    }
    if (this.files.length > 0 && this.envModuleProblem)
      lines.push(
        `  (no replay-verify command: \`--env ${this.envModule}\` replays against that module's default export${this.envModule?.includes("?") ? " configured with those options" : ""}, and ${this.envModuleProblem}; verify it in code: replayEpisode(await readJournalFile(journal), env))`,
      );
    if (this.files.length > 0 && !this.envModule)
      lines.push(
        `  (for an environment that is not built in, add --env <path of the module that default-exports ${this.env}>)`,
      );
    lines.push(`rerun this case: ${this.rerun}`);
    lines.push(`fast-check: seed ${this.seed}, path "${this.path}"`);
    return lines.join("\n");
  }
}

const MAX_SHOWN = 100;

/** Characters that look like nothing or like a plain space: shown as escapes. */
const INVISIBLE = /(?! )[\p{Z}\p{Cf}\p{Co}\p{Cn}\u007f-\u009f]/gu;

/**
 * A string as JSON, with every invisible character escaped, cut to a readable length: its start and its
 * end around a "…", so a long action still shows its closing tag (`"<check>[[[[…]]]]</check>" (10015
 * characters)`).
 */
export const quote = (text: string): string => {
  const escaped = (s: string) =>
    JSON.stringify(s).replace(INVISIBLE, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);
  if (text.length <= MAX_SHOWN) return escaped(text);
  // Cut between characters, never inside a surrogate pair (an emoji would show as a lone surrogate).
  const splitsPair = (at: number) =>
    /[\uD800-\uDBFF]/.test(text[at - 1] ?? "") && /[\uDC00-\uDFFF]/.test(text[at] ?? "");
  const head = MAX_SHOWN - MAX_SHOWN / 4;
  const from = text.length - MAX_SHOWN / 4;
  const cut = `${text.slice(0, splitsPair(head) ? head - 1 : head)}…${text.slice(splitsPair(from) ? from + 1 : from)}`;
  return `${escaped(cut)} (${text.length} characters)`;
};

const json = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text;
};

/** A reward or return as the report shows it: up to 6 significant digits, so 0.1 + 0.2 shows as 0.3. */
export const formatNumber = (value: number): string => String(Number(value.toPrecision(6)));

/** A value compared with a limit: rounded, unless rounding would make it look like the limit. */
export const formatBeside = (value: number, limit: number): string =>
  formatNumber(value) === formatNumber(limit) ? String(value) : formatNumber(value);

const signed = (value: number) => (value >= 0 ? `+${formatNumber(value)}` : formatNumber(value));

/**
 * An episode's events, one line each, the way a person reads an episode: turn, what happened, details.
 * `episode`: the id to show, when the episode was written under another (a counterexample's journal).
 * `thrownAt`: where the environment's code threw, for an episode that ended in an environment error (a
 * journal keeps the message only; envErrorThrownAt finds the line by replaying).
 */
export const describeEpisode = (events: readonly EpisodeEvent[], episode?: string, thrownAt?: string): string => {
  const line = (turn: number | undefined, what: string, detail: string) =>
    `  ${turn === undefined ? "    " : String(turn).padStart(4)}  ${what.padEnd(8)} ${detail}`;
  return events
    .map((event) => {
      switch (event.type) {
        case "episode.started":
          return `  episode ${episode ?? event.episode}: ${event.env.id} v${event.env.version}, seed ${quote(event.seed)}, task ${json(event.task)}`;
        case "env.observed":
          return line(undefined, "observe", quote(event.text));
        case "agent.acted":
          return line(event.turn, "act", quote(event.text));
        case "tool.called":
          return line(undefined, "call", `${event.call} ${event.tool} ${json(event.args)}`);
        case "tool.returned":
          return line(
            undefined,
            "result",
            event.result.ok
              ? `${event.call} ok ${json(event.result.content)}`
              : `${event.call} ${event.result.error.kind}: ${quote(event.result.error.message)}`,
          );
        case "reward.assigned":
          return line(undefined, "reward", `${signed(event.value)} ${event.kind} (${event.reason})`);
        case "env.transitioned":
          return line(undefined, "state", json(event.state));
        case "episode.ended":
          return line(
            undefined,
            "end",
            `${event.reason}${thrownAt ? ` (thrown at ${thrownAt})` : ""}, return ${formatNumber(event.return)}, ${event.turns} turn(s)${
              Object.keys(event.metrics).length ? `, ${json(event.metrics)}` : ""
            }`,
          );
      }
      return "";
    })
    .join("\n");
};

/**
 * Where counterexample journals go by default: $AGENT_R1_COUNTEREXAMPLES, else `<os
 * tmpdir>/agent-r1-counterexamples`.
 */
export const defaultCounterexampleDir = (): string =>
  process.env.AGENT_R1_COUNTEREXAMPLES ?? join(tmpdir(), "agent-r1-counterexamples");

let written = 0;

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 60) || "property";

/**
 * Writes episodes as journal files (re-stamped under a new episode id, so names never clash) and returns
 * their paths. Each replays with `agent-r1 replay <file> --verify`.
 */
export const writeCounterexample = async (
  name: string,
  episodes: readonly (readonly EpisodeEvent[])[],
  options: CounterexampleOptions = {},
): Promise<string[]> => {
  const journal = new JsonlJournal(options.counterexampleDir ?? defaultCounterexampleDir(), "none");
  const files: string[] = [];
  for (const [i, events] of episodes.entries()) {
    if (events.length === 0) continue;
    const episode = `${slug(name)}-${process.pid}-${Date.now().toString(36)}-${written++}${episodes.length > 1 ? `-${i + 1}` : ""}`;
    const chain = new EpisodeChain(episode);
    const writer = await journal.create(episode);
    for (const event of events) await writer.append(chain.stamp(bodyOf(event)));
    await writer.close();
    files.push(journal.fileOf(episode));
  }
  return files;
};

const describeCause = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

class ViolationSignal extends Error {}

/**
 * Why `agent-r1 replay --env <module> --verify` would not replay `episodes` (the counterexample's journals), or
 * nothing. The CLI replays a journal against the module's default export (or its `env` export), configured with the
 * options of `module`'s `?key=value` when it has them, or, for a journal that records options (a variant its
 * `configure` made), against the variant it rebuilds from them, refusing one whose options are not `?key=value`'s:
 * the environment under test must be what the command replays against, or share its machine, or its journals must
 * replay against it (tried here, as the command would, through the CLI's own loadEnv and envResolver). A variant the
 * module cannot rebuild (say a broken reward a factory builds) diverges.
 */
const envModuleProblem = async (
  module: string,
  env: EnvDefinition,
  episodes: readonly (readonly EpisodeEvent[])[],
): Promise<string | undefined> => {
  let exported: Partial<EnvDefinition> | undefined;
  // Loaded only here, where a property failed: the CLI's registry imports the built-in environments.
  const { envResolver, loadEnv, modulePathOf } = await import("../cli/registry.ts");
  // As the CLI reads `--env path?key=value`: the module's path, before the variant's options.
  const file = resolve(modulePathOf(module));
  // Node's own message for a missing file names the kit's module as the importer, not the working folder.
  if (!existsSync(file))
    return `environment module not found: ${file} (envModule is a path from the working folder, ${process.cwd()})`;
  try {
    const loaded = (await import(pathToFileURL(file).href)) as Record<string, Partial<EnvDefinition>>;
    exported = loaded.default ?? loaded.env;
  } catch (cause) {
    const at = stackFrames(cause).find((f) => f.file === file);
    return `it cannot be loaded: ${moduleLoadFailure(cause)}${at ? ` (thrown at ${shownPath(at.file)}:${at.line}:${at.column})` : ""}`;
  }
  const query = module.includes("?");
  const diverges = `the environment under test is not ${query ? "that variant" : "that export"}, so a replay against it would diverge`;
  if (exported?.id !== env.id || exported.version !== env.version) return diverges;
  // `?key=value` as the CLI's --env takes it: the variant its configure makes (an unknown option refused, by name).
  let given: EnvDefinition;
  try {
    given = await loadEnv(module);
  } catch (cause) {
    return `the command would refuse it: ${cause instanceof UsageError ? cause.detail : describeCause(cause)}`;
  }
  // Replayed as the CLI's replay would: a journal that records options against the variant it rebuilds from them
  // (--env's own when that is the same variant; one of other options than --env's ?key=value is refused), one that
  // records none against --env's environment.
  const resolveEnv = envResolver(given, module);
  for (const events of episodes) {
    const started = events[0];
    if (started?.type !== "episode.started") continue;
    let replayed: EnvDefinition;
    try {
      replayed = resolveEnv(started.env.id, started.tokenizer, started.env.options);
    } catch (cause) {
      return `the command would refuse it: ${cause instanceof UsageError ? cause.detail : describeCause(cause)}`;
    }
    if (replayed.machine === env.machine) continue;
    try {
      replayEpisode(events, replayed);
    } catch {
      return `${diverges}${replayed !== given ? " (nor the variant its configure rebuilds from the options the journal records)" : ""}`;
    }
  }
  return undefined;
};

/**
 * Runs a property over an environment with fast-check. `run` plays what a case needs and returns a
 * Violation or nothing; the last violation seen is the shrunk counterexample, which is written as
 * journals and thrown as a CounterexampleError.
 */
export const checkProperty = async <T>(
  spec: {
    readonly name: string;
    readonly env: EnvDefinition;
    readonly arbitrary: fc.Arbitrary<T>;
    readonly run: (value: T) => Promise<Violation | undefined>;
    /** Code that reruns this exact case, given fast-check's seed and path. */
    readonly rerun: (seed: number, path: string) => string;
    /** What else a rerun needs besides the seed and path (said when a path leads nowhere): checkModel's replayPath. */
    readonly rerunAlsoNeeds?: string;
  },
  options: PropertyRunOptions = {},
): Promise<void> => {
  let last: Violation | undefined;
  // Set on failures only: the last failure fast-check saw is the shrunk counterexample it reports.
  const property = fc.asyncProperty(spec.arbitrary, async (value) => {
    let violation: Violation | undefined;
    try {
      violation = await spec.run(value);
    } catch (cause) {
      last = { message: `the property threw: ${describeCause(cause)}`, episodes: [] };
      throw cause;
    }
    if (violation) {
      last = violation;
      throw new ViolationSignal(violation.message);
    }
  });
  let details: fc.RunDetails<[T]>;
  try {
    details = await fc.check(property, {
      numRuns: options.numRuns ?? DEFAULT_NUM_RUNS,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path, endOnFailure: true } : {}),
    });
  } catch (error) {
    // fast-check's own words for a path that leads nowhere: "Unable to replay, got wrong path=...".
    if (options.path !== undefined && /Unable to replay/.test(String((error as Error)?.message)))
      throw new RangeError(
        `${spec.name}: path "${options.path}" leads to no case of this property${options.seed === undefined ? " (and no seed was given)" : ` with seed ${options.seed}`}; pass the seed and path a counterexample printed${spec.rerunAlsoNeeds ? `, ${spec.rerunAlsoNeeds}` : ""}, with the same options`,
      );
    throw error;
  }
  if (!details.failed) return;
  const violation: Violation = last ?? {
    message: details.errorInstance ? describeCause(details.errorInstance) : "the property failed",
    episodes: [],
  };
  const files = await writeCounterexample(spec.name, violation.episodes, options);
  const path = details.counterexamplePath ?? "";
  const problem = options.envModule
    ? await envModuleProblem(options.envModule, spec.env, violation.episodes)
    : undefined;
  // The journals keep an environment error's message, not its line: each such episode is replayed to find it.
  const thrownAt = violation.episodes.map((events) => envErrorThrownAt(events, spec.env));
  throw new CounterexampleError({
    property: spec.name,
    env: spec.env.id,
    violation,
    files,
    seed: details.seed,
    path,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    rerun: spec.rerun(details.seed, path),
    ...(options.envModule ? { envModule: options.envModule } : {}),
    ...(problem ? { envModuleProblem: problem } : {}),
    ...(thrownAt.some((at) => at !== undefined) ? { thrownAt } : {}),
  });
};

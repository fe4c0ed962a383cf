/**
 * `agent-r1 inspect <journal|dir>`: an episode as a readable terminal timeline: turns, actions, tool
 * calls and results, rewards with their reasons, state transitions, the ending. `--html FILE` writes the
 * same as a self-contained page (src/observe/viewer.ts), with a run folder's metric charts.
 */

import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { COPIES_LISTED, EpisodeCopies, moreCopies, SAME_LAST_DIGEST, sameEpisode } from "../journal/copies.ts";
import { EnvOptionsRefusedError, UsageError } from "../kernel/errors.ts";
import type { EpisodeEvent } from "../kernel/events.ts";
import { escapeControls } from "../kernel/terminal.ts";
import type { Tokenizer } from "../kernel/tokenizer.ts";
import { findJournals, isRunFolder } from "../observe/journals.ts";
import { isViewerPage, readEpisodeFile } from "../observe/viewer.ts";
import { endsInEnvError, envErrorPlaced, envErrorThrownAt } from "../replay/replay.ts";
import { type EnvDefinition, envSpecOf } from "../runtime/env.ts";
import { wasCut } from "../runtime/tool-tally.ts";
import { FILES_WORTH_A_BAR, progress } from "./progress.ts";
import { ENVIRONMENTS, envResolver } from "./registry.ts";

/** Long text cut to a line (newlines become ⏎ with the rest of `terminalSafe`, on every line of the timeline). */
const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text);

/**
 * What a model, a tool or an environment wrote is shown, not obeyed: terminal escapes (ESC...), other
 * control characters and the bidirectional overrides that reorder a line on screen are written as \uXXXX
 * (escapeControls), and newlines as ⏎.
 */
export const terminalSafe = (line: string): string => escapeControls(line).replace(/\n/g, "⏎");

/** `1 turn`, `3 turns`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** A reward or a return as people write it: -0.3, not -0.30000000000000004 (6 significant digits). */
const num = (x: number) => String(Number(x.toPrecision(6)));

/**
 * An episode's events as timeline lines. `thrownAt`: where the environment's code threw, for an episode that ended
 * in an environment error (the journal keeps the message only; `thrownAtFinder` finds the line by replaying).
 */
export const timeline = (events: readonly EpisodeEvent[], thrownAt?: string): string[] => {
  const lines: string[] = [];
  const toolOf = new Map<string, string>();
  for (const e of events) {
    const at = `${String(e.seq).padStart(4)} `;
    switch (e.type) {
      case "episode.started":
        lines.push(
          `${at}episode ${e.episode}: env ${envSpecOf(e.env.id, e.env.options)} v${e.env.version}, seed ${e.seed}, policy ${e.policy.id} v${e.policy.version}`,
        );
        lines.push(`${" ".repeat(5)}task ${clip(JSON.stringify(e.task))}`);
        break;
      case "env.observed":
        lines.push(`${at}── turn ${e.turn} ── observation (${count(e.tokens.length, "token")}): ${clip(e.text)}`);
        break;
      case "agent.acted": {
        const logprob = e.logprobs.reduce((a, b) => a + b, 0);
        lines.push(
          `${at}action  turn ${e.turn} (${count(e.tokens.length, "token")}, logprob ${logprob.toFixed(2)}, policy v${e.policy.version}${e.allowed ? ", constrained" : ""}): ${clip(JSON.stringify(e.text))}`,
        );
        break;
      }
      case "tool.called":
        toolOf.set(e.call, e.tool);
        lines.push(`${at}  call  ${e.call} ${e.tool}(${clip(JSON.stringify(e.args), 120)})`);
        break;
      case "tool.returned":
        lines.push(
          `${at}  ${e.result.ok ? (wasCut(e.result) ? "result [cut to maxResultChars]" : "result") : "FAILED"} ${e.call} ${toolOf.get(e.call) ?? "?"}: ${
            e.result.ok
              ? clip(JSON.stringify(e.result.content), 120)
              : `${e.result.error.kind}${e.result.error.tag === undefined ? "" : ` (${e.result.error.tag})`}: ${e.result.error.message}`
          }`,
        );
        break;
      case "reward.assigned":
        lines.push(`${at}  reward ${e.value >= 0 ? "+" : ""}${num(e.value)} (${e.kind}, turn ${e.turn}): ${e.reason}`);
        break;
      case "env.transitioned":
        lines.push(`${at}  state  ${clip(JSON.stringify(e.state), 80)}  #${e.hash.slice(0, 8)}`);
        break;
      case "episode.ended":
        lines.push(
          `${at}ended: ${e.reason}${thrownAt ? ` (thrown at ${thrownAt})` : ""}; return ${num(e.return)}, ${count(e.turns, "turn")}${
            Object.keys(e.metrics).length ? `, ${JSON.stringify(e.metrics)}` : ""
          }`,
        );
        break;
    }
  }
  return lines.map(terminalSafe);
};

/**
 * An environment by id (and recorded tokenizer id and options), when it is known here (built in, or `extra`);
 * else none. A journal of other options than those `--env` (`given`, as typed) gives is refused.
 */
const knownEnv =
  (extra?: EnvDefinition, given?: string) =>
  (envId: string, tokenizerId?: string, options?: Readonly<Record<string, string>>): EnvDefinition | undefined => {
    try {
      return envResolver(extra, given)(envId, tokenizerId, options);
    } catch (cause) {
      if (cause instanceof EnvOptionsRefusedError) throw cause;
      return undefined;
    }
  };

/**
 * Where the environment's code threw in an episode that ended in an environment error, when its environment is
 * known here (built in, or `extra`): the episode is replayed to throw it again (envErrorThrownAt). For inspect's
 * views, which read journals that keep the message only.
 */
export const thrownAtFinder =
  (extra?: EnvDefinition, given?: string) =>
  (events: readonly EpisodeEvent[]): string | undefined => {
    const started = events[0];
    const env =
      started?.type === "episode.started"
        ? knownEnv(extra, given)(started.env.id, started.tokenizer, started.env.options)
        : undefined;
    return env && envErrorThrownAt(events, env);
  };

/**
 * The note for journals of another environment than the one `--env` (typed `spec`) defines: a built-in's are read
 * with the built-in, a module's need the module that defines it. Said alike in the terminal and with --html.
 */
const otherEnvNote = (spec: string, defined: string, envId: string): string =>
  `note: --env ${spec} defines ${defined}, not ${envId}, the environment of journals here: ` +
  (Object.hasOwn(ENVIRONMENTS, envId)
    ? `the built-in ${envId} is used for them; leave --env out`
    : `it is not used for them (to name the line an environment error was thrown at): pass --env with the module that defines ${envId}`);

/**
 * The note for episodes whose environment error is shown without its line, of environments not known here (a
 * module's, without --env): the journal keeps the message only, and replaying it with the module finds the line.
 * Said alike by inspect and replay.
 */
export const unlocatedNote = (envIds: Iterable<string>): string =>
  `note: the line that threw is found by replaying the episode, which needs its environment: pass --env with the module that defines ${[...envIds].join(", ")}`;

/**
 * Journals of a file, a folder of journals, or a run folder (the journals under its episodes folder).
 * `warn`: where journals that hold the same episode (a copied file) are said, as replay says them. `env`: loads
 * an environment that is not built in (--env's, a run's), to name the line an environment error was thrown at
 * (thrownAtFinder); called once, and only when a shown episode ended in an environment error.
 */
export const inspectPath = async (
  /** A journal, a folder of them or a run folder; several (a shell glob's files) are shown as one list. */
  path: string | readonly string[],
  write: (line: string) => void,
  maxEpisodes = Number.POSITIVE_INFINITY,
  warn: (line: string) => void = write,
  env?: () => Promise<EnvDefinition | undefined>,
  /** `--env` as typed and the environment it defines: journals of another environment are said, as --html says them. */
  given?: { readonly spec: string; readonly env: EnvDefinition },
): Promise<number> => {
  let finder: ((events: readonly EpisodeEvent[]) => string | undefined) | undefined;
  let extra: EnvDefinition | undefined;
  /** Environments not known here (a module's, without --env) of episodes whose environment error is shown without its line. */
  const unlocated = new Set<string>();
  const thrownAtOf = async (events: readonly EpisodeEvent[]) => {
    if (!endsInEnvError(events.at(-1))) return undefined;
    if (finder === undefined) {
      extra = await env?.();
      finder = thrownAtFinder(extra);
    }
    const at = finder(events);
    const started = events[0];
    // An error whose message names its line already needs no note asking for --env to find it.
    if (at === undefined && !envErrorPlaced(events.at(-1)) && started?.type === "episode.started") {
      const known = knownEnv(extra)(started.env.id, started.tokenizer, started.env.options);
      if (known === undefined) unlocated.add(started.env.id);
    }
    return at;
  };
  const paths = typeof path === "string" ? [path] : path;
  // A file named twice (a folder and a file in it) is shown once: twice, it was called a copy of itself.
  const seen = new Set<string>();
  const files = (await Promise.all(paths.map((each) => findJournals(each)))).flat().filter((file) => {
    const key = resolve(file);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (files.length === 0) write(`no journals (.jsonl) in ${paths.join(", ")}`);
  let damaged = 0;
  /** Journals readable to the end that hold no episode.ended. */
  let unended = 0;
  let torn = 0;
  let nothing = 0;
  /** Damaged journals past the ones shown: read (the exit status counts them) and named, not printed. */
  const damagedUnshown: string[] = [];
  const copies = new EpisodeCopies();
  /** Journals holding an earlier one's episode: the first few named, the rest counted (a folder of runs of one seed). */
  let copied = 0;
  /** The environments journals record that --env does not define: --env is not used for them. */
  const otherEnvs = new Set<string>();
  for (const [i, file] of files.entries()) {
    const shown = i < maxEpisodes;
    if (shown) {
      if (i > 0) write("");
      write(`# ${file}`);
    }
    // A damaged journal (a run killed mid-write) shows its readable events and its problem; the rest go on.
    const { events, error, torn: tornTail } = await readEpisodeFile(file);
    const started = events[0];
    if (given && started?.type === "episode.started" && started.env.id !== given.env.id) otherEnvs.add(started.env.id);
    if (shown) for (const line of timeline(events, error ? undefined : await thrownAtOf(events))) write(line);
    // Readable to its last line and no end: a recording still going, or one stopped between two whole writes.
    if (!error && events.length > 0 && events.at(-1)?.type !== "episode.ended") {
      unended += 1;
      if (shown)
        write(
          `  … not ended: the journal stops after its ${count(events.length, "event")} (an episode still being recorded, or a recording stopped between two writes)`,
        );
    }
    // Read whole: a journal whose last digest an earlier one ends with holds the same episode.
    const copyOf = error ? undefined : copies.earlier(file, events.at(-1)?.digest);
    if (copyOf !== undefined) {
      copied += 1;
      if (copied <= COPIES_LISTED)
        warn(
          `warning: ${sameEpisode(copyOf, file, events[0]?.episode)}: ${SAME_LAST_DIGEST}; sft refuses them until one is removed`,
        );
    }
    if (error) {
      damaged += 1;
      if (tornTail) torn += 1;
      else if (events.length === 0) nothing += 1;
      if (shown) write(`  ! ${error}`);
      else damagedUnshown.push(file);
    }
  }
  const more = moreCopies(copied);
  if (more) warn(more);
  // As --html's note says it: an --env of another environment was not silently of use.
  if (given) for (const envId of otherEnvs) warn(otherEnvNote(given.spec, given.env.id, envId));
  // The journal keeps an environment error's message, not its line: replaying it finds the line, given the module.
  if (unlocated.size > 0) warn(unlocatedNote(unlocated));
  if (files.length > maxEpisodes) {
    // The charts are a run folder's (its metrics.jsonl); --html takes one path, so several get no page hint of charts.
    const charts = paths.length === 1 && paths[0] !== undefined && isRunFolder(paths[0]) ? " and the run's charts" : "";
    write(
      `\nshowed the first ${maxEpisodes} of ${files.length} journals; --max-episodes ${files.length} shows them all, --html FILE writes a page with a sample of them${charts}`,
    );
  }
  if (damagedUnshown.length > 0)
    write(
      `damaged among those not shown: ${damagedUnshown.slice(0, 5).join(", ")}${damagedUnshown.length > 5 ? ` and ${damagedUnshown.length - 5} more` : ""}`,
    );
  if (unended > 0)
    write(
      `\n${unended} of ${count(files.length, "journal")} not ended (no episode.ended event): still being recorded, or stopped between two writes; \`npx agent-r1 replay ${paths.join(" ")}\` checks each; \`record --resume\` records a stopped recording's unended episodes again`,
    );
  if (damaged > 0) {
    // --repair cuts only a torn last line; damage inside a file is left for a person to look at.
    const inside = damaged - torn - nothing;
    const hints = [
      torn > 0 &&
        `\`npx agent-r1 replay ${paths.join(" ")} --repair\` cuts the ${torn === 1 ? "torn last line" : `${torn} torn last lines`} back`,
      nothing > 0 && `${nothing} with no readable event (empty, or damaged on the first line)`,
      inside > 0 &&
        `${inside} damaged otherwise than by a cut last write (an edited, removed or added line), which --repair does not touch (any events after the damage are still in the file, unread)`,
    ].filter(Boolean);
    write(`\n${damaged} of ${count(files.length, "journal")} damaged (shown up to the damage); ${hints.join("; ")}`);
  }
  return damaged;
};

/** The environment's tokenizer for a journal, when the environment is known and its tokenizer is the recorded one. */
export const tokenizerResolver =
  (extra?: EnvDefinition, given?: string) =>
  (envId: string, tokenizerId: string, options?: Readonly<Record<string, string>>): Tokenizer | undefined => {
    const tokenizer = knownEnv(extra, given)(envId, tokenizerId, options)?.tokenizer;
    return tokenizer?.id === tokenizerId ? tokenizer : undefined;
  };

/**
 * The page may replace an earlier page, nothing else: `--html` pointed at a journal or a run's
 * metrics.jsonl (its own input, even) would have destroyed it.
 */
const refuseHtmlTarget = (file: string): void => {
  if (existsSync(file) && statSync(file).isDirectory())
    throw new UsageError({
      detail: `--html ${file} is a folder; give the page's file name, e.g. ${join(file, "episodes.html")}`,
    });
  // Always .html: a page written as p.txt could not be replaced by the same command later (only pages are).
  if (!/\.html?$/i.test(file))
    throw new UsageError({
      detail: `--html ${file}: the page's file name must end in .html${existsSync(file) ? " (and this file exists: inspect replaces only its own pages)" : ""}`,
    });
  if (!existsSync(file)) return;
  // An .html page of the user's own is not inspect's to replace; an empty file holds nothing to lose (an
  // earlier version's page, killed mid-write, was left so).
  const text = readFileSync(file, "utf8");
  if (text !== "" && !isViewerPage(text))
    throw new UsageError({
      detail: `--html ${file} exists and is not a page inspect wrote; inspect replaces only its own pages: give a new file name, or remove that one first`,
    });
};

/** `inspect --html FILE`: the viewer page of a journal, a folder of journals or a run folder. */
export const inspectHtml = async (
  path: string,
  file: string,
  options: {
    readonly env?: EnvDefinition;
    /** `--env` as typed, when `env` is its (journals of other options than it gives are refused), not a run folder's. */
    readonly given?: string;
    readonly maxEpisodes?: number;
    readonly warn?: (line: string) => void;
  },
) => {
  refuseHtmlTarget(file);
  const [{ writeViewer }, { metricCharts }] = await Promise.all([
    import("../observe/viewer.ts"),
    import("../observe/plot.ts"),
  ]);
  const resolve = tokenizerResolver(options.env, options.given);
  /** Environments whose tokens the page shows as ids, said once each after the page is written. */
  const undecoded = new Set<string>();
  /** The environments of the page's episodes: a built-in's under an --env of another one is said, as the terminal says it. */
  const shownEnvs = new Set<string>();
  const page = await writeViewer(path, file, {
    tokenizerFor: (envId, tokenizerId, envOptions) => {
      shownEnvs.add(envId);
      const tokenizer = resolve(envId, tokenizerId, envOptions);
      if (!tokenizer) undecoded.add(envId);
      return tokenizer;
    },
    maxEpisodes: options.maxEpisodes,
    thrownAtOf: thrownAtFinder(options.env, options.given),
    charts: (dir) => metricCharts([dir], options.warn, { width: 300, height: 150 }),
    warn: options.warn,
    // Progress on stderr while many journals are read (a page of 200 of a big run, or --max-episodes more).
    progress: (journals) => (journals >= FILES_WORTH_A_BAR ? progress("inspect --html", journals) : undefined),
  });
  for (const envId of undecoded) {
    let known = true;
    try {
      envResolver(options.env)(envId);
    } catch {
      known = false;
    }
    options.warn?.(
      `note: the page shows the tokens of environment ${envId} as ids: ` +
        (known
          ? "its tokenizer here is not the one recorded (another version of the environment?)"
          : options.given !== undefined && options.env !== undefined
            ? // The user passed --env already: being told to pass --env said nothing of what was wrong.
              `--env ${options.given} defines ${options.env.id}, not ${envId}: pass --env with the module that defines ${envId} to decode them`
            : "pass --env with the module that defines it to decode them"),
    );
  }
  // A module's journals under another --env are said above (their tokens are ids); a built-in's are decoded with it.
  if (options.given !== undefined && options.env !== undefined)
    for (const envId of shownEnvs)
      if (envId !== options.env.id && !undecoded.has(envId) && Object.hasOwn(ENVIRONMENTS, envId))
        options.warn?.(otherEnvNote(options.given, options.env.id, envId));
  return page;
};

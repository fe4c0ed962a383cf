/**
 * The `agent-r1` command line. Exit codes: 0 success, 1 a check failed (divergence, corruption), 2 bad
 * usage (unknown names, wrong values, missing files), with a one-line message saying what is accepted.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve as resolvePath } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { COPIES_LISTED, moreCopies, SAME_LAST_DIGEST, sameEpisode } from "../journal/copies.ts";
import { DURABILITIES, type Durability } from "../journal/journal.ts";
import { liveLockHolder } from "../journal/lock.ts";
import {
  EnvMismatchError,
  EnvProtocolError,
  EpisodesAbortedError,
  JournalError,
  JournalExistsError,
  NonDeterminismError,
  UsageError,
} from "../kernel/errors.ts";
import { oneLine } from "../kernel/terminal.ts";
import { checkpointsIn } from "../learn/trainer.ts";
import { findJournals } from "../observe/journals.ts";
import { BackendUnavailableError, isWasmMemoryTrap, WASM_MEMORY_HINT, wasmOutOfMemory } from "../policy/backend.ts";
import { CheckpointError } from "../policy/checkpoint.ts";
import { checkPath } from "../replay/verify-files.ts";
import type { EnvDefinition } from "../runtime/env.ts";
import { successOfSome, successOutOfRangeNote } from "../runtime/episode.ts";
import { describeCounts } from "../runtime/outcome-tally.ts";
import { describeFailure, describeToolTally, likelyBug, THROWN_BEFORE_RESUME } from "../runtime/tool-tally.ts";
import {
  intArg,
  refuseBothForms,
  refuseEmptyValues,
  refuseOptionAsValue,
  refuseRepeatedOptions,
  seedArg,
  summaryJson,
} from "./args.ts";
import { inspectHtml, inspectPath, unlocatedNote } from "./inspect.ts";
import { addLearnCommands } from "./learn-commands.ts";
import { FILES_WORTH_A_BAR, type Progress, progress, stopAllBars } from "./progress.ts";
import { policyFor, record, refuseRecordOut } from "./record.ts";
import { ENVIRONMENTS, envResolver, loadEnv, refuseOtherOptions, runConfigEnv, runModuleEnv } from "./registry.ts";
import { addSelectCommand } from "./select.ts";

const positiveInt = (name: string) => intArg(name, 1);

/** Episodes `inspect` shows unless told: the first ones in the terminal, an even sample on an --html page. */
const INSPECT_TERMINAL_EPISODES = 20;
const INSPECT_PAGE_EPISODES = 200;

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);
/** ` (split test, worlds 1-1000, top-k 2)`: the options an environment runs with, when it has any. */
const optionsText = (env: EnvDefinition): string =>
  env.options && Object.keys(env.options).length > 0
    ? ` (${Object.entries(env.options)
        .map(([key, value]) => `${key} ${value}`)
        .join(", ")})`
    : "";

const buildProgram = (setExit: (code: number) => void): Command => {
  const program = new Command("agent-r1")
    .description("End-to-end RL for tool-using LLM agents: record, replay and train episodes of ToolEnv environments.")
    .version(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  const envOption = () =>
    new Option(
      "--env <id|path>",
      `environment: ${Object.keys(ENVIRONMENTS).join(", ")}, or a module path (./my-env.ts)`,
    ).makeOptionMandatory();

  program
    .command("record")
    .description("run episodes with a scripted policy and write one .jsonl journal per episode")
    .addOption(envOption())
    .requiredOption("--policy <name>", "policy shipped with the environment (e.g. expert, random)")
    .option("--episodes <n>", "number of episodes", positiveInt("--episodes"), 20)
    .option("--seed <seed>", "run seed: episode i uses <seed>:i (letters, digits, '.', '_', '-', ':')", seedArg, "0")
    .requiredOption("--out <dir>", "folder for the journals (created if missing)")
    .option("--concurrency <n>", "episodes running at once", positiveInt("--concurrency"), 16)
    .option("--group-size <n>", "episodes per task (GRPO groups)", positiveInt("--group-size"), 1)
    .addOption(
      new Option("--durability <policy>", "fsync after every event, per episode, or never")
        .choices(DURABILITIES)
        .default("episode"),
    )
    .option(
      "--resume",
      "go on with a stopped recording into the same --out: keep the episodes that ended, record the rest",
    )
    .option(
      "--strict",
      "exit 1 when any episode aborted or a tool's code threw (default: only when every episode aborted)",
    )
    .option("--json", "print the summary as JSON")
    .action(async (opts) => {
      if (opts.episodes % opts.groupSize !== 0)
        throw new UsageError({
          detail: `--episodes ${opts.episodes} is not a whole number of groups of --group-size ${opts.groupSize} (the last group would be short): give --episodes ${Math.ceil(opts.episodes / opts.groupSize) * opts.groupSize}`,
        });
      refuseRecordOut(opts.out);
      const env = await loadEnv(opts.env);
      const summary = await record({
        env,
        policy: policyFor(env, opts.policy),
        episodes: opts.episodes,
        seed: String(opts.seed),
        out: opts.out,
        concurrency: opts.concurrency,
        groupSize: opts.groupSize,
        durability: opts.durability as Durability,
        resume: !!opts.resume,
        exitOnInterrupt: true,
      });
      const ended = summary.episodes - summary.aborted;
      const partialSuccess = summary.successRate === null ? undefined : successOfSome(summary.successReported, ended);
      if (opts.json) out(summaryJson(summary));
      else
        out(
          `recorded ${summary.episodes} episode${summary.episodes === 1 ? "" : "s"} of ${summary.env}${optionsText(env)} with ${summary.policy} into ${summary.out}: ` +
            `${summary.events} events, mean return ${summary.meanReturn.toFixed(3)}` +
            (summary.aborted ? ` over all ${summary.episodes}` : "") +
            (summary.successRate !== null
              ? `, success ${summary.successRate.toFixed(3)}`
              : ended > 0
                ? " (no success metric: the environment's end(reason, { success }) reports one)"
                : "") +
            // Success is of the episodes whose end reported it; the mean return is over all, aborted included.
            (partialSuccess !== undefined
              ? ` (${partialSuccess})`
              : summary.successRate !== null && summary.aborted
                ? ` of the ${ended} not aborted`
                : "") +
            (summary.aborted ? `, ${summary.aborted} aborted` : "") +
            ` (${summary.seconds.toFixed(1)} s)`,
        );
      if (!opts.json && summary.episodes > 0)
        out(
          `  ended: ${describeCounts(summary.endReasons)}` +
            (Object.keys(summary.rewardCounts).length
              ? `; non-zero rewards: ${describeCounts(summary.rewardCounts)}`
              : ""),
        );
      if (summary.successOutOfRange)
        err(`warning: ${successOutOfRangeNote(summary.successOutOfRange, summary.episodes)}`);
      for (const line of describeToolTally(summary.tools)) err(line);
      // A tool whose code threw (a bug, not a failure it reports with a tag) fails a strict run: the machine got
      // { ok: false } and may well have ended every episode normally.
      const bugs = summary.tools.failures.filter(likelyBug);
      if (opts.strict && bugs.length > 0) {
        err(
          `error: --strict: tool calls failed with errors their code threw (likely bugs; a failure meant for the machine has a tag, e.g. Data.TaggedError): ${bugs.map(describeFailure).join("; ")}`,
        );
        setExit(1);
      }
      // Journals of aborted episodes are written all the same; a run of nothing else is a failed run.
      const { firstAbort } = summary;
      if (firstAbort) {
        const all = summary.aborted === summary.episodes;
        err(
          `${all ? `error: all ${summary.episodes}` : `${summary.aborted} of ${summary.episodes}`} episodes aborted; ` +
            // The reason may quote a policy's or a tool's own text (an API's error body): shown, not obeyed.
            `the first, ${firstAbort.episode}: ${oneLine(firstAbort.reason)}` +
            (firstAbort.thrownAt
              ? ` (thrown at ${firstAbort.thrownAt})`
              : firstAbort.thrownBeforeResume
                ? ` (${THROWN_BEFORE_RESUME})`
                : "") +
            (firstAbort.reason.startsWith("turn limit ")
              ? " (the runtime's safety net: the machine never ended the episode; end it with end() on a turn limit of its own, as README's example does, or set maxTurns higher)"
              : ""),
        );
        if (all || opts.strict) setExit(1);
      }
    });

  program
    .command("replay")
    .description("read journals (schema, seq, hash chain); --verify re-derives every event through the environment")
    .argument(
      "<paths...>",
      "a .jsonl journal, a folder of them, or a run folder (train --out); several are read in turn (a shell glob, runs/x/ep-*.jsonl)",
    )
    .option("--verify", "fold the recorded inputs through the environment machine and compare every derived event")
    .option("--repair", "truncate a torn last line (a crash mid-write) before reading, and say what was removed")
    .option("--quiet", "print only problems and the summary")
    .option("--env <path>", "a module defining the environment, for journals of environments that are not built in")
    .action(async (paths: string[], opts) => {
      let ok = 0;
      let bad = 0;
      let unverified = 0;
      /** Of those, journals whose environment is known here but refuses the options they record. */
      let optionsRefused = 0;
      let removed = 0;
      /** Read whole but without episode.ended (plain reading only; --verify fails them). */
      let notEnded = 0;
      /** Journals read ok that hold an episode an earlier one holds (a copied file). */
      let copies = 0;
      /** Unknown environments, said once each, not once per journal. */
      const said = new Set<string>();
      /** Journals verified but not their token ids, by environment and recorded tokenizer: said once each at the end. */
      const unchecked = new Map<string, { env: string; recorded: string; here: string; count: number }>();
      /** Environments not known here of episodes read whose environment error is shown without its line. */
      const unlocated = new Set<string>();
      // A run folder names its environment in config.json: verifying it needs no --env, as eval and inspect do.
      const given = opts.env ? await loadEnv(opts.env) : undefined;
      const resolve = envResolver(
        // A run folder's environment is found from the first path in one (a glob's files share their folder).
        given ?? (opts.verify ? await runEnv(runPath(paths), true) : undefined),
        given === undefined ? undefined : opts.env,
      );
      // Whether any journal was of --env's environment: journals of built-in ones are verified with those.
      let givenUsed = false;
      const envOf = (id: string, tokenizerId?: string, options?: Readonly<Record<string, string>>) => {
        const env = resolve(id, tokenizerId, options);
        if (env === given || (given !== undefined && env.id === given.id && options !== undefined)) givenUsed = true;
        return env;
      };
      if (opts.repair) for (const each of paths) refuseRepairWhileWritten(each);
      // Progress on stderr for many journals, unless --quiet; not while stdout is the terminal, where the
      // "ok" line of each journal is the progress (and a bar on the same screen would be torn by them).
      let bar: Progress | undefined;
      const found = (files: readonly string[]) => {
        if (!opts.quiet && !process.stdout.isTTY && files.length >= FILES_WORTH_A_BAR)
          bar = progress(opts.verify ? "replay --verify" : "replay", files.length);
      };
      // Several paths (a shell glob's files) are one list: all found first, a file named twice read once, and
      // copies said across them.
      for await (const verdict of checkPath(paths, { verify: !!opts.verify, repair: !!opts.repair, envOf, found })) {
        bar?.tick();
        if (verdict.repaired && verdict.repaired.keptEvents === 0) {
          // Nothing whole was left: the file is gone, not a journal read ok.
          removed += 1;
          err(
            `removed ${verdict.repaired.file}: it held no whole event` +
              (verdict.repaired.removedBytes > 0
                ? ` (${verdict.repaired.removedBytes} bytes of a cut write: ${JSON.stringify(verdict.repaired.removedText.slice(0, 120))})`
                : " (an empty file)"),
          );
          continue;
        }
        if (verdict.repaired?.addedNewline)
          err(
            `repaired ${verdict.repaired.file}: its last event (of ${verdict.repaired.keptEvents}) was whole but lacked its final newline; added it, removed nothing`,
          );
        else if (verdict.repaired)
          err(
            `repaired ${verdict.repaired.file}: kept ${verdict.repaired.keptEvents} events, removed ${verdict.repaired.removedBytes} bytes: ${JSON.stringify(verdict.repaired.removedText.slice(0, 120))}`,
          );
        if (verdict.ok) {
          ok += 1;
          if (verdict.tokensUnchecked) {
            const key = `${verdict.tokensUnchecked.env}\u0000${verdict.tokensUnchecked.recorded}`;
            const seen = unchecked.get(key) ?? { ...verdict.tokensUnchecked, count: 0 };
            seen.count += 1;
            unchecked.set(key, seen);
          }
          if (verdict.reason === "(not ended)") notEnded += 1;
          if (verdict.thrownAtUnknown !== undefined) unlocated.add(verdict.thrownAtUnknown);
          // A folder of runs recorded with one seed holds hundreds of such pairs: the first few say what it is.
          if (verdict.copyOf !== undefined) {
            copies += 1;
            if (copies <= COPIES_LISTED)
              err(
                `warning: ${sameEpisode(verdict.copyOf, verdict.file, verdict.episode)}: ${SAME_LAST_DIGEST}, counted here as two; sft refuses them until one is removed`,
              );
          }
          if (!opts.quiet && verdict.events > 0)
            out(
              `ok ${verdict.file}: ${verdict.events} events` +
                (verdict.return === undefined ? "" : `, return ${verdict.return.toFixed(3)}`) +
                // One line per journal: a reason's own line breaks (XState's guard errors hold one) are spaces here.
                `, ${oneLine(String(verdict.reason))}` +
                (verdict.thrownAt ? ` (thrown at ${verdict.thrownAt})` : ""),
            );
        } else if (verdict.unverified) {
          unverified += 1;
          if (verdict.optionsRefused) optionsRefused += 1;
          if (!said.has(verdict.unverified)) err(`error: ${verdict.unverified}`);
          said.add(verdict.unverified);
          // The reason is said once above and the summary counts them: --quiet lists no journal it skipped.
          if (!opts.quiet) err(`skip ${verdict.problem}`);
        } else {
          bad += 1;
          err(`FAIL ${verdict.problem}`);
        }
      }
      bar?.stop();
      out(
        `${opts.verify ? "verified" : "read"} ${ok} journal(s) ok` +
          (notEnded ? ` (${notEnded} of them not ended: cut short, or still recording; --verify fails them)` : "") +
          (copies ? ` (${copies} of them ${copies === 1 ? "a copy" : "copies"} of another: the same episode)` : "") +
          `, ${bad} failed` +
          (unverified
            ? `, ${unverified} not verified (${
                optionsRefused === 0
                  ? "unknown environment"
                  : optionsRefused === unverified
                    ? "options their environment refuses"
                    : `unknown environment, or options their environment refuses (${optionsRefused})`
              })`
            : "") +
          (removed ? `; removed ${removed} file(s) that held no whole event` : ""),
      );
      // The reason was said before the skip lines, one a journal: past a screenful of them it is said again, last.
      if (unverified > 3 && !opts.quiet)
        err(`note: the ${unverified} journals skipped above were not verified: ${[...said].join("; ")}`);
      const more = moreCopies(copies);
      if (more) err(more);
      // The journal keeps an environment error's message, not its line: replaying it finds the line, given the module.
      if (unlocated.size > 0) err(unlocatedNote(unlocated));
      for (const { env, recorded, here, count } of unchecked.values())
        err(
          `note: ${count} journal(s) of ${env} were recorded with tokenizer ${recorded}, and ${env} here has ${here}: their events verified, their token ids were not; pass --env with the environment (and options) they were recorded under to check those too`,
        );
      if (given && opts.verify && !givenUsed && ok + bad > 0)
        err(
          bad > 0
            ? `note: --env ${opts.env} defines ${JSON.stringify(given.id)} and was not used: ${
                ok > 0
                  ? `the ${ok} journal(s) that verified name other environments (each verified with its own), and `
                  : ""
              }the ${bad} that failed ${bad === 1 ? "was" : "were"} refused before the environment ${bad === 1 ? "it names was" : "they name were"} looked up`
            : `note: --env ${opts.env} defines ${JSON.stringify(given.id)}, and no journal here was recorded with it: each was verified with the environment it names`,
        );
      // A journal that could not be checked for want of --env is bad usage, unless a check failed too.
      setExit(bad > 0 ? 1 : unverified > 0 ? 2 : 0);
    });

  program
    .command("inspect")
    .description("print an episode as a readable timeline: turns, actions, tool calls and results, rewards, states")
    .argument(
      "<paths...>",
      "a .jsonl journal, a folder of them, or a run folder (train --out); several (a shell glob, runs/x/ep-*.jsonl) are shown as one list, in the terminal",
    )
    .option("--html <file>", "write a self-contained HTML page instead: timelines, token masks, a run's metric charts")
    .option(
      "--max-episodes <n>",
      `most episodes shown (default: ${INSPECT_TERMINAL_EPISODES} in the terminal, the first ones; ${INSPECT_PAGE_EPISODES} on an --html page, sampled evenly)`,
      positiveInt("--max-episodes"),
    )
    .option(
      "--env <path>",
      "a module defining the environment, for environments not built in: to name the line an environment error was thrown at (by replaying that episode), and with --html to decode tokens",
    )
    .action(async (paths: string[], opts) => {
      const [path = "."] = paths;
      if (opts.html && paths.length > 1)
        throw new UsageError({
          detail: `inspect --html takes one journal, folder or run (got ${paths.length} paths: ${paths.slice(0, 3).join(", ")}${paths.length > 3 ? ", ..." : ""}); give the folder that holds them`,
        });
      for (const each of paths) {
        if (!existsSync(each)) throw new UsageError({ detail: `no such file or folder: ${each}` });
        if ((await findJournals(each)).length === 0)
          throw new UsageError({
            detail: `no journals (.jsonl) in ${each}: give a journal, a folder of them, or a run folder (train --out)`,
          });
      }
      // Loaded whatever the view, so a wrong --env path is said.
      const given = opts.env ? await loadEnv(opts.env) : undefined;
      // --env with options, over journals that record others: refused before anything is shown.
      if (given) for (const each of paths) refuseOtherOptions(await findJournals(each), given, opts.env);
      if (opts.html) {
        const env = given ?? (await runEnv(path, false));
        const page = await inspectHtml(path, opts.html, {
          env,
          given: given === undefined ? undefined : opts.env,
          maxEpisodes: opts.maxEpisodes ?? INSPECT_PAGE_EPISODES,
          warn: err,
        });
        out(
          `wrote ${opts.html}: ${page.shown} of ${page.episodes} episode(s)` +
            (page.unreadable ? `; ${page.unreadable} unreadable, marked on the page` : ""),
        );
        // Damage is shown on the page, and the exit status says so, as the terminal view's does.
        if (page.unreadable > 0) return setExit(1);
      } else {
        // Damage is shown, and the exit status says so, as replay's does. A run folder's own environment is loaded
        // only for an episode that ended in an environment error (to name the line that threw).
        const env = async () => given ?? (await runEnv(runPath(paths), false));
        const named = given === undefined ? undefined : { spec: opts.env, env: given };
        if ((await inspectPath(paths, out, opts.maxEpisodes ?? INSPECT_TERMINAL_EPISODES, err, env, named)) > 0)
          return setExit(1);
      }
      setExit(0);
    });

  program
    .command("plot")
    .description("SVG charts of runs' metrics.jsonl over updates (reward, success, KL, entropy, tokens/s...)")
    .argument("<runs...>", "run folders (train --out); several are overlaid, one colour per run")
    .option("--out <dir>", "folder for the charts (default: <first run>/plots)")
    .action(async (runs: string[], opts) => {
      const { plotCommand } = await import("./plot.ts");
      await plotCommand(runs, opts.out, out, err);
      setExit(0);
    });

  program
    .command("start")
    .description(
      "the main job: a GPT warm-started on hopqa (the shipped clone of 800 demonstrations of a demonstrator that stops searching too soon), trained with GRPO; exact match before/after",
    )
    .option("--out <dir>", "run folder, replaced on every run (refused unless an earlier start wrote it)", "runs/start")
    .option(
      "--seed <seed>",
      "run seed: RL's episodes and the evaluation's questions (the shipped warm start stays the same)",
      seedArg,
      "1",
    )
    .option(
      "--quick",
      "a one-minute smoke run of the same stages (from a toy clone of a few demonstrations: its numbers say only that the stages run)",
    )
    .addOption(new Option("--env <id>", "the environment of the job").choices(["hopqa", "lookup"]).default("hopqa"))
    .option(
      "--rebuild-warm-start",
      "hopqa: build the warm start (about 25 minutes; 6 for the expert's) instead of using the shipped one",
    )
    .addOption(
      new Option(
        "--demonstrator <name>",
        "hopqa: whose demonstrations the warm start clones: hasty (stops one hop early on most questions) or expert (default: hasty)",
      ).choices(["hasty", "expert"]),
    )
    .action(async (opts) => {
      if (opts.env === "lookup") {
        const hopqaOnly = [
          opts.demonstrator !== undefined && "--demonstrator",
          opts.rebuildWarmStart && "--rebuild-warm-start",
        ];
        const given = hopqaOnly.filter((flag): flag is string => typeof flag === "string");
        if (given.length > 0)
          throw new UsageError({
            detail: `${given.join(" and ")}: hopqa only; --env lookup always builds its one warm start (drop the flag, or use --env hopqa)`,
          });
      }
      const { runStart } = await import("./start.ts");
      setExit(
        await runStart({
          out: opts.out,
          seed: String(opts.seed),
          quick: !!opts.quick,
          env: opts.env,
          rebuildWarmStart: !!opts.rebuildWarmStart,
          demonstrator: opts.demonstrator,
        }),
      );
    });

  addLearnCommands(program, setExit);
  addSelectCommand(program, setExit);
  for (const command of program.commands) {
    addExampleHelp(command);
    preferUnknownOption(command);
    refuseRepeatedOptions(command);
    refuseBothForms(command);
    refuseEmptyValues(command);
    refuseOptionAsValue(command);
  }
  return program;
};

/** Options of the built-in environments' variants (`--env "hopqa?split=test"`). */
const ENV_OPTION_KEYS = ["split", "world-seed", "worlds", "top-k", "wording", "legal"];

/** The two commander methods that report these errors (present on every Command, absent from its types). */
interface CommanderReports {
  missingMandatoryOptionValue(option: Option): void;
  unknownOption(flag: string): void;
}

/**
 * Commander checks required options before unknown ones, so a misspelt required option (`--polciy expert`)
 * was reported as "required option '--policy <name>' not specified". Report the unknown option first, with
 * commander's own "Did you mean --policy?".
 */
const preferUnknownOption = (command: Command): void => {
  const reports = command as unknown as CommanderReports;
  const unknownOption = reports.unknownOption.bind(command);
  // An environment's own options (hopqa's split, worlds...) are flags on eval alone (a short form); other
  // commands take them in --env, which commander's "Did you mean --strict?" would not say.
  reports.unknownOption = (flag) => {
    const key = flag.replace(/^--/, "");
    if (ENV_OPTION_KEYS.includes(key) && command.options.some((o) => o.long === "--env"))
      command.error(
        `error: unknown option '${flag}': ${command.name()} takes an environment's options in --env, e.g. --env "hopqa?${key}=VALUE" (eval alone also has --split and --world-seed)`,
        { exitCode: 2, code: "commander.unknownOption" },
      );
    unknownOption(flag);
  };
  const missing = reports.missingMandatoryOptionValue.bind(command);
  reports.missingMandatoryOptionValue = (option) => {
    const unknown = command.args.find((arg) => /^--?[A-Za-z]/.test(arg));
    if (unknown !== undefined) reports.unknownOption(unknown.split("=")[0]);
    missing(option);
  };
};

/**
 * One runnable line per command, after its options in `--help`, with the options it cannot do without: a user
 * learnt them from "required option '--policy <name>' not specified". They chain: demos, a clone, a run, its scores
 * (run in that order on 2 cores: record 3 s, sft 69 s, train 64 s, the others seconds each; the clone and the run
 * succeed on every held-out episode).
 */
export const HELP_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  record: ["npx agent-r1 record --env lookup --policy expert --episodes 100 --seed demo --out runs/demos"],
  replay: ["npx agent-r1 replay runs/demos --verify"],
  inspect: [
    "npx agent-r1 inspect runs/demos/ep-demo-0.jsonl",
    "npx agent-r1 inspect runs/demos --html runs/demos.html",
  ],
  sft: ["npx agent-r1 sft --env lookup --data runs/demos --out runs/warm --constrained"],
  train: ["npx agent-r1 train --env lookup --init runs/warm --algo grpo --steps 20 --out runs/grpo"],
  eval: ["npx agent-r1 eval --checkpoint runs/grpo --episodes 100 --seed heldout"],
  plot: ["npx agent-r1 plot runs/grpo"],
  average: ["npx agent-r1 average runs/grpo --last 3 --out runs/grpo-soup"],
  select: ["npx agent-r1 select runs/grpo --soup 3 --episodes 100 --out runs/pick"],
  start: ["npm start", "npm start -- --quick"],
};

const addExampleHelp = (command: Command): void => {
  const required = command.options.filter((option) => option.mandatory).map((option) => option.long);
  const examples = HELP_EXAMPLES[command.name()] ?? [];
  const lines = [
    ...(required.length > 0 ? [`Required: ${required.join(", ")}`] : []),
    ...(examples.length > 0 ? [`Example${examples.length > 1 ? "s" : ""}:`, ...examples.map((e) => `  ${e}`)] : []),
  ];
  if (lines.length > 0) command.addHelpText("after", `\n${lines.join("\n")}`);
};

/** The first of several paths inside a train run (a journal, a folder, the run), else the first. */
const runPath = (paths: readonly string[]): string =>
  paths.find((each) => runConfigEnv(each) !== undefined) ?? paths[0] ?? ".";

/**
 * The environment a run folder was trained on (its config.json's `env`), for `inspect` and `replay --verify`
 * of the run or of a folder inside it: built-in environments decode without it, a module path is loaded as `train` did. A run
 * whose module has moved since is inspected without it (tokens show as ids), with a line saying so.
 */
const runEnv = async (path: string, required: boolean) => {
  const found = await runModuleEnv(path, "pass --env with the module's path");
  if (found === undefined || "env" in found) return found?.env;
  // A module not found from here ends `replay --verify`; one that did not load, and `inspect`, go on without it.
  if (required && found.lost) throw found.problem;
  err(`note: ${found.problem.detail}`);
  return undefined;
};

/**
 * A damaged checkpoint of a run (`RUN/checkpoints/vNNNNN/...`): the run's other checkpoints, which may load,
 * and how to resume from one. Empty for a checkpoint outside a run.
 */
const otherCheckpoints = (file: string, detail: string): string => {
  // A file of a checkpoint (RUN/checkpoints/v00003/weights.bin), or the run's checkpoints/latest.json itself.
  const checkpoint = basename(file) === "latest.json" ? file : dirname(file);
  const folder = dirname(checkpoint);
  if (basename(folder) !== "checkpoints") return "";
  const others = checkpointsIn(folder).filter((name) => name !== basename(checkpoint));
  if (others.length === 0) return "";
  // latest.json naming a folder that is gone: its error lists them already, and how to point it at one.
  if (detail.includes("the checkpoints there:"))
    return `; or give one of them, e.g. ${join(folder, others.at(-1)!)}, as --checkpoint or --init`;
  const shown = others.length > 5 ? [...others.slice(0, 1), "...", ...others.slice(-3)] : others;
  // A folder of checkpoints that is no run's (docs/checkpoints: no latest.json, no run config.json beside it) has no
  // resume to point at.
  if (!existsSync(join(folder, "latest.json")) && !existsSync(join(dirname(folder), "config.json")))
    return `; other checkpoints in ${folder}: ${shown.join(", ")} (give one, e.g. ${join(folder, others.at(-1)!)}, as --checkpoint or --init)`;
  return (
    `; the run's ${checkpoint === file ? "" : "other "}checkpoints: ${shown.join(", ")} (give one, e.g. ${join(folder, others.at(-1)!)}, as --checkpoint or --init; ` +
    `train --resume goes on from ${join(folder, "latest.json")}: set its "dir" and "version" to one of them to resume from there)`
  );
};

/**
 * `replay --repair` of journals that a live record or train is writing: an episode in flight there is an empty
 * file or a prefix, which repair would remove or cut under the writer (its later lines then went to a removed
 * file, or after the cut: the episode lost, or a damaged journal, while the writer reported it recorded).
 * The writer's lock is in its --out: the folder given, or one up to three levels above (a run's episodes/uNNNNN).
 */
const refuseRepairWhileWritten = (path: string): void => {
  let dir = resolvePath(path);
  if (existsSync(dir) && !statSync(dir).isDirectory()) dir = dirname(dir);
  for (let up = 0; up <= 3; up++, dir = dirname(dir)) {
    const holder = liveLockHolder(dir);
    if (holder)
      throw new UsageError({
        detail: `--repair: ${dir} is being written by agent-r1 process ${holder.pid} (${holder.command}, since ${holder.since}); its episodes in flight look cut short, and repair would cut or remove them under it: wait for it to end (or stop it), then repair; replay without --repair only reads`,
      });
    if (dirname(dir) === dir) break;
  }
};

/** The commands whose run a full disk cuts short and `--resume` continues. */
const RESUMABLE_COMMANDS = new Set(["record", "train"]);

/**
 * A file-system error as one line: Node's message (the code, the call and the path) and what it means, for
 * the errors a user's paths and disks cause. Undefined for any other error. With the command that met it,
 * a full disk says what to do next for that command: record and train keep what they wrote and continue
 * with --resume; any other command (sft, average, plot, inspect --html, replay --repair) is run again.
 */
export const fileSystemProblem = (cause: unknown, command?: string): string | undefined => {
  const e = cause as NodeJS.ErrnoException | undefined;
  if (!(e instanceof Error) || typeof e.code !== "string") return undefined;
  const resumable = command === undefined || RESUMABLE_COMMANDS.has(command);
  const kept = (fix: string) =>
    resumable
      ? `what was written before it is kept (${command === undefined ? "record and train continue" : `${fix}, then ${command} continues`} with --resume)`
      : `${fix}, then run ${command} again`;
  const meaning: Record<string, string | undefined> = {
    ENOENT: "",
    EACCES: "",
    EPERM: "",
    ENOTDIR: ": a part of this path is a file, not a folder",
    EEXIST: e.syscall === "mkdir" ? ": a file stands where this path needs a folder" : "",
    EISDIR: ": this path is a folder, where a file was expected",
    EROFS: ": the file system is read-only",
    ENOSPC: `: the disk is full; ${kept("free space")}`,
    EDQUOT: `: the disk quota is used up; ${kept("free space")}`,
    EFBIG: `: the file grew past the size allowed (ulimit -f) or the file system's limit; ${kept("raise the limit")}`,
    ENAMETOOLONG: ": a name in this path is too long",
  };
  const said = meaning[e.code];
  return said === undefined ? undefined : `${e.message}${said}`;
};

/**
 * Commands that only read and list (plot and inspect --html print after their files are written): a reader
 * that closed their stdout has all it wants, so they end there. Not replay --repair, which writes as it lists.
 */
const LISTING_COMMANDS = new Set(["replay", "inspect", "plot"]);
let closedStdoutEnds = true;
/** The command being run (commander's name for it), for what a full disk says to do next. */
let runningCommand: string | undefined;
let pipeWatched = false;
/**
 * `agent-r1 replay ... | head`: a reader that closes the pipe ends the command quietly (exit 0), not in a stack trace;
 * a stdout that cannot be written (a full disk) is one line, exit 2. A command that does work (start prints its
 * stages as it goes: `npm start | head -3`) drops the rest of its stdout and goes on to the end, exit code and
 * files as without the pipe; it used to stop there, exit 0, before training.
 * A closed stderr (`record ... 2>&1 >out.txt | head`) only loses the progress and notes: the command goes on,
 * and its summary still reaches stdout (an uncaught EPIPE there ended record or train mid-way, exit 1).
 */
/**
 * Whether a write error says the stream's reader is gone: EPIPE (the pipe's reader ended), or EIO on a
 * terminal, which a closed terminal (SIGHUP) gives every later write; train and record go on then to their
 * checkpoint, as signals.ts says. EIO on a file or pipe is a disk's error, not this.
 */
const readerGone = (stream: NodeJS.WriteStream, e: NodeJS.ErrnoException): boolean =>
  e.code === "EPIPE" || (e.code === "EIO" && stream.isTTY === true);

const endQuietlyOnClosedPipe = () => {
  if (pipeWatched) return;
  pipeWatched = true;
  let stdoutClosed = false;
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    const gone = readerGone(process.stdout, e);
    if (gone && closedStdoutEnds) process.exit(0);
    if (gone) stdoutClosed = true;
    if (stdoutClosed) return;
    // `> summary.json` on a full disk: one line, as for the command's own files, not a stack trace.
    if (fileSystemProblem(e) === undefined) throw e;
    stopAllBars();
    process.stderr.write(`error: cannot write to stdout: ${e.message}\n`);
    process.exit(2);
  });
  let stderrClosed = false;
  process.stderr.on("error", (e: NodeJS.ErrnoException) => {
    // Once gone, the stream is destroyed: later writes fail with ERR_STREAM_DESTROYED, dropped too.
    // A stderr that cannot be written (`2> log` on a full disk, `2>/dev/full`) loses the progress and notes
    // alike: nothing can be said there, and the command goes on (it used to stop mid-run, exit 1, unsaid).
    if (readerGone(process.stderr, e) || fileSystemProblem(e) !== undefined) stderrClosed = true;
    if (!stderrClosed) throw e;
  });
};

/**
 * A quoted `"~/runs/x"` reaches the command unexpanded (the shell expands only a bare ~): written as a
 * folder named ~ under the working folder, a later `rm -rf ~` typed to remove it removes the home folder.
 */
const refuseUnexpandedHome = (argv: readonly string[]) => {
  for (const arg of argv) {
    const value = arg.startsWith("--") && arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
    if (value === "~" || value.startsWith("~/"))
      throw new UsageError({
        detail: `${JSON.stringify(arg)}: the shell did not expand ~ (it does not in quotes or after =), and it would be a folder named ~ here: write $HOME${value.slice(1)} or the full path`,
      });
  }
};

/** The repository's npm scripts that a user may take for agent-r1 commands, and how to run each. */
const NPM_SCRIPTS: Readonly<Record<string, string>> = {
  experiment: "npm run experiment -- --help (hopqa's comparison tables; docs/cli.md#npm-run-experiment)",
  "hopqa:failures":
    "npm run hopqa:failures -- CHECKPOINT [EPISODES] [--examples] (a checkpoint's failures on the suite, by kind)",
};

export const main = async (argv: readonly string[]): Promise<number> => {
  endQuietlyOnClosedPipe();
  let code = 0;
  const program = buildProgram((c) => {
    code = c;
  }).hook("preAction", (_program, command) => {
    // replay --repair rewrites files as it lists them: ended by `| head`, it left the rest torn, exit 0.
    closedStdoutEnds = LISTING_COMMANDS.has(command.name()) && !command.opts().repair;
    runningCommand = command.name();
  });
  try {
    refuseUnexpandedHome(argv);
    // `help recrod`: commander shows the whole help (exit 1) without saying the command is unknown; parsed as
    // `recrod`, it says so and suggests the nearest command.
    const [first, asked] = argv;
    const unknown = (name: string | undefined): name is string =>
      name !== undefined &&
      !name.startsWith("-") &&
      !program.commands.some((c) => c.name() === name || c.aliases().includes(name));
    // The repository's npm scripts are not agent-r1's commands: `agent-r1 experiment` names the script to run.
    const script = first === "help" ? asked : first;
    if (script !== undefined && unknown(script) && Object.hasOwn(NPM_SCRIPTS, script))
      throw new UsageError({
        detail: `unknown command '${script}': ${script} is an npm script of the agent-r1-ts repository (run in its clone), not an agent-r1 command: ${NPM_SCRIPTS[script]}`,
      });
    const unknownHelp = first === "help" && unknown(asked);
    // `experimnet --help` likewise: commander showed the whole help, exit 0, as if the command existed.
    const helpOfUnknown = unknown(first) && first !== "help" && argv.some((a) => a === "--help" || a === "-h");
    await program.parseAsync(unknownHelp ? [asked] : helpOfUnknown ? [first] : [...argv], { from: "user" });
    return code;
  } catch (cause) {
    // A command that failed mid-bar: the bar goes before the error is said (else it is drawn under it).
    stopAllBars();
    if (cause instanceof CommanderError) {
      // Help asked for (--help, `help`) and version are not errors; help shown because no command was given
      // (commander's exit code 1) is bad usage. Commander has printed the message already.
      return cause.exitCode === 0 || cause.code === "commander.helpDisplayed" ? 0 : 2;
    }
    if (
      cause instanceof UsageError ||
      cause instanceof CheckpointError ||
      cause instanceof BackendUnavailableError ||
      cause instanceof JournalError ||
      cause instanceof JournalExistsError ||
      cause instanceof EnvMismatchError
    ) {
      err(
        `error: ${cause.message}${cause instanceof CheckpointError ? otherCheckpoints(cause.file, cause.detail) : ""}`,
      );
      return 2;
    }
    // An episode that does not replay (an impure environment, say) is a failed check, as in `replay`, and an
    // environment that breaks the protocol (a task generator that throws, say) a bug to fix: one line, exit 1.
    if (
      cause instanceof NonDeterminismError ||
      cause instanceof EnvProtocolError ||
      cause instanceof EpisodesAbortedError
    ) {
      // Every episode aborted on a wasm memory trap while sampling: say what it most likely means.
      const trapped = cause instanceof EpisodesAbortedError && isWasmMemoryTrap(cause.reason);
      err(`error: ${cause.message}${trapped ? `; ${WASM_MEMORY_HINT}` : ""}`);
      return 1;
    }
    const outOfMemory = wasmOutOfMemory(cause);
    if (outOfMemory !== undefined) {
      err(`error: ${outOfMemory}`);
      return 1;
    }
    const fsProblem = fileSystemProblem(cause, runningCommand);
    if (fsProblem !== undefined) {
      err(`error: ${fsProblem}`);
      return 2;
    }
    err(`error: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`);
    return 1;
  }
};

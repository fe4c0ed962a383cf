/**
 * Counts a hopqa checkpoint's failures by kind on the evaluation suite (the results table's three columns,
 * greedy, constrained decoding as the table scores them): for each wrong episode, the first step that left
 * the question's gold chain (actors/hopqa/failures.ts).
 *
 *   npm run hopqa:failures -- docs/checkpoints/hopqa-best [episodes per column, default 100] [--examples]
 *     [--env "hopqa?wording=possessive&legal=relations"] [--seed S: another seed's questions, as eval --suite --seed S]
 */

import { existsSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { diagnose } from "../actors/hopqa/failures.ts";
import { COLUMNS, type ColumnId, evaluateSuiteShown } from "../actors/hopqa/suite.ts";
import type { HopqaTask } from "../actors/hopqa/world.ts";
import { intArg, refuseOptionAsValue, refuseRepeatedOptions, seedArg } from "../src/cli/args.ts";
import { resolveCheckpoint } from "../src/cli/learn-commands.ts";
import { envById, tokenizerVariantFix } from "../src/cli/registry.ts";
import { UsageError } from "../src/kernel/errors.ts";
import { DEFAULT_TRAIN_CONFIG } from "../src/learn/config.ts";
import { loadCheckpointFor, policyFromModel } from "../src/learn/trainer.ts";
import { initBackend } from "../src/policy/backend.ts";
import { CheckpointError, savedTokenizerId } from "../src/policy/checkpoint.ts";

const fail = (message: string): never => {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
};
const program = new Command("hopqa:failures")
  .description("a hopqa checkpoint's failures on the suite, each named by the first step that left the gold chain")
  .argument("<checkpoint>", "a checkpoint folder, or a run folder (its latest checkpoint)")
  .argument("[episodes]", "questions per column", intArg("episodes", 1), 100)
  .option("--examples", "print up to 5 failed episodes per column")
  .option(
    "--seed <seed>",
    "the suite's seed, as eval --suite --seed takes it (another seed: other questions)",
    seedArg,
    "suite",
  )
  .option(
    "--env <spec>",
    'hopqa, with any of its options but split and worlds (the columns set those), e.g. "hopqa?wording=possessive&legal=relations"',
    "hopqa",
  )
  .exitOverride();
// As agent-r1's options: `--seed 1 --seed 2` and `--seed --examples` (a value forgotten) are refused, not run.
refuseRepeatedOptions(program);
refuseOptionAsValue(program);
try {
  program.parse();
} catch (error) {
  // commander printed the problem (an unknown flag, say) or the help.
  process.exit(error instanceof CommanderError && error.code.startsWith("commander.help") ? 0 : 2);
}
const [dir, episodes] = program.processedArgs as [string, number];
const { examples = false, env: spec, seed } = program.opts<{ examples?: boolean; env: string; seed: string }>();
if (!existsSync(dir)) fail(`no checkpoint at ${dir}`);
const [id, query = ""] = spec.split("?");
if (id !== "hopqa") fail(`--env must be hopqa, with options or not (the suite is hopqa's), got "${spec}"`);
const fixed = [...new URLSearchParams(query).keys()].filter((key) => ["split", "worlds", "world-seed"].includes(key));
if (fixed.length > 0)
  fail(
    `--env ${spec}: the suite's columns set split and worlds; drop ${fixed.join(", ")} (other options hold in every column)`,
  );
const hopqa = (() => {
  try {
    return envById(spec);
  } catch (error) {
    return fail(error instanceof UsageError ? error.detail : (error as Error).message);
  }
})();
// A checkpoint or a run folder (its latest checkpoint), as `agent-r1 eval --checkpoint` takes; a bad one is
// one line, as there.
const checkpoint = (() => {
  try {
    return resolveCheckpoint(dir, "checkpoint");
  } catch (error) {
    return fail(error instanceof UsageError ? error.message : (error as Error).message);
  }
})();
// A checkpoint of the other wording (hopqa-sloppy-grpo-60 under plain hopqa): the --env to pass, as eval names it,
// before the backend loads.
const found = savedTokenizerId(checkpoint);
const variantFix = found === undefined ? undefined : tokenizerVariantFix(spec, hopqa, found);
if (variantFix)
  fail(
    `checkpoint ${checkpoint} was made for another tokenizer (${found}) than environment hopqa's (${hopqa.tokenizer.id}): ${variantFix}`,
  );
await initBackend("auto");
const loaded = await (async () => {
  try {
    // Scoring needs no optimizer state (as eval loads it): a checkpoint shipped without its optimizer.bin loads.
    return await loadCheckpointFor(hopqa, checkpoint, { optimizer: false });
  } catch (error) {
    if (error instanceof UsageError || error instanceof CheckpointError) return fail(error.message);
    throw error;
  }
})();
if (!loaded) process.exit(2);
const { model, tokenizer, version } = loaded;
const config = { ...DEFAULT_TRAIN_CONFIG, constrained: true };
const counts = new Map<ColumnId, Map<string, number>>(COLUMNS.map((c) => [c.id, new Map()]));
const shown = new Map<ColumnId, string[]>(COLUMNS.map((c) => [c.id, []]));
// The suite itself (its seeds, its environments), so the questions are those of `eval --suite` and the table; its
// progress as eval --suite shows it (a line per turn of the running episodes, not only per ended episode: a long run
// printed nothing for minutes between the bursts of ends).
const result = await evaluateSuiteShown(
  "suite",
  () => policyFromModel(hopqa, model, tokenizer, config, true, version),
  episodes,
  seed,
  hopqa,
  (column, record) => {
    const task = record.task as unknown as HopqaTask;
    const actions = record.events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []));
    const d = diagnose(task, actions, record.metrics.em ?? 0);
    const key = `${task.chain.length} hops: ${d.kind}${d.at ? ` at search ${d.at}` : ""}`;
    const byKey = counts.get(column) as Map<string, number>;
    byKey.set(key, (byKey.get(key) ?? 0) + 1);
    const lines = shown.get(column) as string[];
    if (examples && d.kind !== "right" && lines.length < 5)
      lines.push(`  ${key}: [${task.chain.join(", ")}] from ${task.start}: ${actions.join(" ")}`);
  },
);
for (const column of COLUMNS) {
  process.stdout.write(`${column.label}: exact match ${result[column.id].em.toFixed(2)} (${episodes} questions)\n`);
  for (const [key, n] of [...(counts.get(column.id) as Map<string, number>)].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(3)}  ${key}\n`);
  for (const line of shown.get(column.id) as string[]) process.stdout.write(`${line}\n`);
}

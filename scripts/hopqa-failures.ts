/**
 * Counts a hopqa checkpoint's failures by kind on the evaluation suite (the results table's three columns,
 * greedy, constrained decoding as the table scores them): for each wrong episode, the first step that left
 * the question's gold chain (actors/hopqa/failures.ts).
 *
 *   npm run hopqa:failures -- docs/checkpoints/hopqa-best [episodes per column, default 100] [--examples]
 */

import { existsSync } from "node:fs";
import { diagnose } from "../actors/hopqa/failures.ts";
import { hopqa } from "../actors/hopqa/index.ts";
import { COLUMNS, type ColumnId, evaluateSuite } from "../actors/hopqa/suite.ts";
import type { HopqaTask } from "../actors/hopqa/world.ts";
import { resolveCheckpoint } from "../src/cli/learn-commands.ts";
import { UsageError } from "../src/kernel/errors.ts";
import { DEFAULT_TRAIN_CONFIG } from "../src/learn/config.ts";
import { loadCheckpointFor, policyFromModel } from "../src/learn/trainer.ts";
import { initBackend } from "../src/policy/backend.ts";
import { CheckpointError } from "../src/policy/checkpoint.ts";

const args = process.argv.slice(2);
const examples = args.includes("--examples");
const [dir, perColumn = "100"] = args.filter((a) => a !== "--examples");
const episodes = Number(perColumn);
if (!dir || !Number.isInteger(episodes) || episodes < 1) {
  process.stderr.write("usage: npm run hopqa:failures -- CHECKPOINT_DIR [EPISODES_PER_COLUMN] [--examples]\n");
  process.exit(2);
}
const fail = (message: string) => {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
};
if (!existsSync(dir)) fail(`no checkpoint at ${dir}`);
await initBackend("auto");
// A checkpoint or a run folder (its latest checkpoint), as `agent-r1 eval --checkpoint` takes; a bad one is
// one line, as there.
const loaded = await (async () => {
  try {
    return await loadCheckpointFor(hopqa, resolveCheckpoint(dir, "checkpoint"));
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
// The suite itself (its seeds, its environments), so the questions are those of `eval --suite` and the table.
const result = await evaluateSuite(
  () => policyFromModel(hopqa, model, tokenizer, config, true, version),
  episodes,
  "suite",
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

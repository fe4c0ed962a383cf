/**
 * Counts a hopqa checkpoint's failures by kind on the evaluation suite (the results table's three columns,
 * greedy, constrained decoding as the table scores them): for each wrong episode, the first step that left
 * the question's gold chain (actors/hopqa/failures.ts).
 *
 *   npm run hopqa:failures -- docs/checkpoints/hopqa-best [episodes per column, default 100] [--examples]
 */

import { diagnose } from "../actors/hopqa/failures.ts";
import { hopqa } from "../actors/hopqa/index.ts";
import { COLUMNS } from "../actors/hopqa/suite.ts";
import type { HopqaTask } from "../actors/hopqa/world.ts";
import { DEFAULT_TRAIN_CONFIG } from "../src/learn/config.ts";
import { evaluate } from "../src/learn/evaluate.ts";
import { policyFromModel } from "../src/learn/trainer.ts";
import { initBackend } from "../src/policy/backend.ts";
import { loadCheckpoint } from "../src/policy/checkpoint.ts";

const args = process.argv.slice(2);
const examples = args.includes("--examples");
const [dir, perColumn = "100"] = args.filter((a) => a !== "--examples");
const episodes = Number(perColumn);
if (!dir || !Number.isInteger(episodes) || episodes < 1) {
  process.stderr.write("usage: npm run hopqa:failures -- CHECKPOINT_DIR [EPISODES_PER_COLUMN] [--examples]\n");
  process.exit(2);
}
await initBackend("auto");
const { model, tokenizer, version } = await loadCheckpoint(dir);
const config = { ...DEFAULT_TRAIN_CONFIG, constrained: true };
for (const column of COLUMNS) {
  const env = hopqa.configure?.(column.options) ?? hopqa;
  const counts = new Map<string, number>();
  const shown: string[] = [];
  const summary = await evaluate(env, policyFromModel(env, model, tokenizer, config, true, version), {
    episodes,
    // The suite's seeds: the same questions as `eval --suite` and the results table.
    seed: `suite:${column.id}`,
    onEpisode: (record) => {
      const task = record.task as unknown as HopqaTask;
      const actions = record.events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []));
      const d = diagnose(task, actions, record.metrics.em ?? 0);
      const key = `${task.chain.length} hops: ${d.kind}${d.at ? ` at search ${d.at}` : ""}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (examples && d.kind !== "right" && shown.length < 5)
        shown.push(`  ${key}: [${task.chain.join(", ")}] from ${task.start}: ${actions.join(" ")}`);
    },
  });
  process.stdout.write(
    `${column.label}: exact match ${(summary.metrics.em ?? 0).toFixed(2)} (${episodes} questions)\n`,
  );
  for (const [key, n] of [...counts].sort((a, b) => b[1] - a[1]))
    process.stdout.write(`  ${String(n).padStart(3)}  ${key}\n`);
  for (const line of shown) process.stdout.write(`${line}\n`);
}

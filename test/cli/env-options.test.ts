/**
 * `--env "module?key=value"` through a module's own `configure`: a key its configure passes over (a typo) is
 * refused by name, since the run would otherwise use options the user never chose.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { envById, loadEnv } from "../../src/cli/registry.ts";
import { defineEnv } from "../../src/runtime/env.ts";
import { configureEnv } from "../../src/runtime/variants.ts";
import { writeCitiesEnv } from "../support/cities-env.ts";
import { runCli, tempDir } from "../support/index.ts";

// A configure as a user writes it: it reads the keys it knows and passes over any other.
const dir = tempDir("agent-r1-env-options-");
const module = writeCitiesEnv(join(dir, "cities.mts"), { countAs: "citiesConfigured" });
// The same, declaring the keys its configure reads.
const declaredModule = writeCitiesEnv(join(dir, "declared.mts"), {
  optionKeys: ["cities", "units"],
  countAs: "declaredConfigured",
});
const url = (path: string) => JSON.stringify(pathToFileURL(resolve(path)).href);
/** How many times a module's configure ran, counted by the module itself. */
const calls = (name: "citiesConfigured" | "declaredConfigured"): number =>
  (globalThis as unknown as Record<string, number | undefined>)[name] ?? 0;

describe("environment options of a module's own configure", () => {
  it("refuses a key that changed nothing and is none of the options in effect, naming the one meant", async () => {
    await expect(loadEnv(`${module}?citie=oslo,rome`)).rejects.toThrow(
      /environment weather: option "citie" in "\?citie=oslo,rome" changed nothing \(did you mean "cities"\?\): its configure ignored it, and the options in effect are still \{"cities":"oslo,rome,cairo,lima,quito"\}; its options: cities/,
    );
    // Beside a known key too: the typo would still be dropped silently.
    await expect(loadEnv(`${module}?cities=oslo,rome,cairo,lima,quito&seedz=3`)).rejects.toThrow(/option "seedz"/);
  });

  it("without optionKeys, finds a key its configure passed over by asking configure again", async () => {
    const before = calls("citiesConfigured");
    await expect(loadEnv(`${module}?citie=oslo,rome`)).rejects.toThrow(/option "citie" in .* changed nothing/);
    expect(calls("citiesConfigured") - before).toBe(2);
  });

  it("with optionKeys, refuses any other key before configure runs, naming the one meant, and configures once", async () => {
    const before = calls("declaredConfigured");
    await expect(loadEnv(`${declaredModule}?citie=oslo,rome`)).rejects.toThrow(
      'environment weather: unknown option "citie" in "?citie=oslo,rome" (did you mean "cities"?); its options: cities, units',
    );
    expect(calls("declaredConfigured")).toBe(before);
    // A declared key configure passes over (units, read by no code here) is taken: the declaration says it is one.
    const taken = await loadEnv(`${declaredModule}?cities=oslo,rome&units=metric`);
    expect(taken.options).toEqual({ cities: "oslo,rome" });
    expect(calls("declaredConfigured")).toBe(before + 1);
    // The shipped hopqa declares its keys.
    expect(() => envById("hopqa?wolds=5")).toThrow(
      'environment hopqa: unknown option "wolds" in "?wolds=5" (did you mean "worlds"?); its options: split, world-seed, worlds, top-k, wording, legal, left',
    );
  });

  it("with optionKeys: [] (a configure that takes no key), says it declares none", () => {
    const none = defineEnv({ ...envById("lookup"), optionKeys: [], configure: () => envById("lookup") });
    expect(() => configureEnv(none, "size=3")).toThrow(
      'environment lookup: unknown option "size" in "?size=3"; it declares no option (optionKeys: [])',
    );
  });

  it("a value its configure refuses is said with the environment and the options it was given", () => {
    // As a user writes it: the message says what is wrong with the value, not where it came from.
    const fussy = defineEnv({
      ...envById("lookup"),
      optionKeys: ["fail"],
      configure: (o) => {
        throw new RangeError(`fail must be in [0, 1], got ${o.fail}`);
      },
    });
    expect(() => configureEnv(fussy, "fail=abc")).toThrow(
      'environment lookup refused the options "?fail=abc": fail must be in [0, 1], got abc',
    );
    // A built-in one that names itself is not named twice.
    expect(() => envById("hopqa?split=tset")).toThrow(
      'environment hopqa refused the options "?split=tset": split must be one of train, test, ood, got "tset"',
    );
  });

  it("eval's --split and --world-seed refused by configure: said as the flags given, not as a query never typed", async () => {
    const evalWith = (...flags: string[]) =>
      runCli("eval", "--env", "hopqa", "--checkpoint", join(dir, "none"), "--episodes", "1", ...flags);
    let run = await evalWith("--split", "tset");
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: environment hopqa refused --split tset: split must be one of train, test, ood, got "tset" (did you mean `test`?)\n',
    );
    run = await evalWith("--split", "test", "--world-seed", "abc");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: environment hopqa refused --split test --world-seed abc: world-seed must be /);
  });

  it("takes the options it knows, and a default value given again", async () => {
    expect((await loadEnv(`${module}?cities=oslo,rome`)).options).toEqual({ cities: "oslo,rome" });
    expect((await loadEnv(`${module}?cities=oslo,rome,cairo,lima,quito`)).options).toEqual({
      cities: "oslo,rome,cairo,lima,quito",
    });
  });

  it("takes a key a module's configure reads that names none of its options, given at the value in effect", async () => {
    // A module re-exporting hopqa: world-seed sets `worlds`, so 1-1000 (the default worlds) changes nothing.
    const wrapper = join(dir, "my-hopqa.mts");
    writeFileSync(wrapper, `export { hopqa as default } from ${url("actors/hopqa/index.ts")};\n`);
    expect((await loadEnv(`${wrapper}?world-seed=1-1000`)).options).toMatchObject({ worlds: "1-1000" });
    await expect(loadEnv(`${wrapper}?world-seed=x`)).rejects.toThrow(/world-seed must be a world number/);
  });

  it("leaves built-in environments to their own checks: hopqa's world-seed given again changes nothing", () => {
    // world-seed sets hopqa's `worlds`, so it names none of its options; eval --world-seed on a run of the
    // same seed gives it again.
    const seeded = envById("hopqa?world-seed=5");
    expect(configureEnv(seeded, "world-seed=5").options).toEqual(seeded.options);
    expect(() => envById("hopqa?wolds=5")).toThrow(/unknown option "wolds"/);
  });
});

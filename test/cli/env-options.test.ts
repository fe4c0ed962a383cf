/**
 * `--env "module?key=value"` through an environment's own `configure`: a key its configure passes over (a
 * typo) is refused by name, since the run would otherwise use options the user never chose.
 */
import { describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { configureEnv } from "../../src/cli/registry.ts";
import * as r1 from "../../src/index.ts";

// A configure as a user writes it: it reads the keys it knows and passes over any other.
const CITIES = ["oslo", "rome", "cairo", "lima", "quito"];
const make = (cities: string[]): r1.EnvDefinition =>
  r1.defineEnv({
    ...weather,
    task: (seed) => ((c) => ({ a: c[0]!, b: c[1]! }))(r1.Rng.fromSeed(seed).shuffle(cities)),
    options: { cities: cities.join(",") },
    configure: (options) => make(options.cities?.split(",") ?? CITIES),
  });
const env = make(CITIES);

describe("environment options of a module's own configure", () => {
  it("refuses a key that changed nothing and is none of the options in effect, naming the one meant", () => {
    expect(() => configureEnv(env, "citie=oslo,rome")).toThrow(
      /environment weather: option "citie" in "\?citie=oslo,rome" changed nothing \(did you mean "cities"\?\): its configure ignored it, and the options in effect are still \{"cities":"oslo,rome,cairo,lima,quito"\}; its options: cities/,
    );
    // Beside a known key too: the typo would still be dropped silently.
    expect(() => configureEnv(env, "cities=oslo,rome,cairo,lima,quito&seedz=3")).toThrow(/option "seedz"/);
  });

  it("takes the options it knows, a default value given again, and an environment that says no options", () => {
    expect(configureEnv(env, "cities=oslo,rome").options).toEqual({ cities: "oslo,rome" });
    expect(configureEnv(env, "cities=oslo,rome,cairo,lima,quito").options).toEqual(env.options);
    // No `options` declared: nothing to compare with, so the variant is taken as configure made it.
    const silent: r1.EnvDefinition = r1.defineEnv({ ...weather, configure: () => silent });
    expect(configureEnv(silent, "anything=1")).toBe(silent);
  });
});

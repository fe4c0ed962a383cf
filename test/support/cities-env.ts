/**
 * A user's configurable environment, as a module file: weather over a list of cities, `?cities=oslo,rome`
 * choosing them (its `options` say the cities in effect). Written where a test wants it, so that `--env PATH`
 * loads it as it loads a user's module (outside the repository's own modules).
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface CitiesEnvOptions {
  /** The keys its configure declares (`optionKeys`); none declared when left out. */
  readonly optionKeys?: readonly string[];
  /** A global its configure counts its calls in (`globalThis[countAs]`). */
  readonly countAs?: string;
  /** A city its configure refuses: `RangeError("cities: CITY is closed")`. */
  readonly refuse?: string;
}

/** Writes the module at `path` (ending in .mts) and returns `path`. */
export const writeCitiesEnv = (path: string, options: CitiesEnvOptions = {}): string => {
  const url = (module: string) => JSON.stringify(pathToFileURL(resolve(module)).href);
  const counter = options.countAs && `(globalThis as Record<string, unknown>)[${JSON.stringify(options.countAs)}]`;
  writeFileSync(
    path,
    [
      `import weather from ${url("actors/weather/env.ts")};`,
      `import * as r1 from ${url("src/index.ts")};`,
      'const CITIES = ["oslo", "rome", "cairo", "lima", "quito"];',
      "const make = (cities: string[]): r1.EnvDefinition<{ a: string; b: string }> =>",
      "  r1.defineEnv({",
      "    ...weather,",
      "    task: (seed) => ((c) => ({ a: c[0]!, b: c[1]! }))(r1.Rng.fromSeed(seed).shuffle(cities)),",
      '    options: { cities: cities.join(",") },',
      ...(options.optionKeys ? [`    optionKeys: ${JSON.stringify(options.optionKeys)},`] : []),
      "    configure: (options) => {",
      ...(counter ? [`      ${counter} = ((${counter} as number | undefined) ?? 0) + 1;`] : []),
      ...(options.refuse
        ? [
            `      if (options.cities?.includes(${JSON.stringify(options.refuse)}))`,
            `        throw new RangeError(${JSON.stringify(`cities: ${options.refuse} is closed`)});`,
          ]
        : []),
      '      return make(options.cities?.split(",") ?? CITIES);',
      "    },",
      "  });",
      "export default make(CITIES);",
      "",
    ].join("\n"),
  );
  return path;
};

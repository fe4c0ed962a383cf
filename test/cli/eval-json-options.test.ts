/**
 * eval's JSON names the environment's options in effect; an option named like a field of the summary (a world
 * `seed`, an `env`) was lost there: `seed` to eval's own seed, and `env` wrote over the environment's id.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

it("keeps every option in `options`, and the summary's own env and seed as they are", async () => {
  const dir = tempDir("agent-r1-eval-json-");
  const module = join(dir, "seeded.mts");
  const url = (path: string) => JSON.stringify(pathToFileURL(resolve(path)).href);
  writeFileSync(
    module,
    [
      `import weather from ${url("actors/weather/env.ts")};`,
      `import * as r1 from ${url("src/index.ts")};`,
      "const make = (seed: string, env: string): r1.EnvDefinition<{ a: string; b: string }> =>",
      "  r1.defineEnv({",
      "    ...weather,",
      "    task: (s) => ((c) => ({ a: c[0]!, b: c[1]! }))(r1.Rng.fromSeed([seed, env, s].join(':')).shuffle(['oslo', 'rome', 'lima'])),",
      "    options: { seed, env },",
      '    optionKeys: ["seed", "env"],',
      '    configure: (o) => make(o.seed ?? "1", o.env ?? "dev"),',
      "  });",
      'export default make("1", "dev");',
      "",
    ].join("\n"),
  );
  const run = join(dir, "run");
  const tiny = ["--no-warm-start", "--tasks", "1", "--group-size", "2", "--eval-episodes", "0", "--steps", "1"];
  const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
  expect(await main(["train", "--env", `${module}?seed=7&env=prod`, ...tiny, ...shape, "--out", run])).toBe(0);
  output.clear();
  expect(await main(["eval", "--checkpoint", run, "--episodes", "1", "--seed", "heldout"]), output.stderr).toBe(0);
  const summary = JSON.parse(output.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
  expect(summary).toMatchObject({ env: "weather", seed: "heldout", options: { seed: "7", env: "prod" }, episodes: 1 });
}, 60_000);

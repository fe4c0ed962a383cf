/**
 * A run that train() from code recorded with an environment imported directly names that environment by its id
 * in config.json (no module path). The CLI could not go on with it: without --env, "unknown environment"; with
 * --env ./module.ts, "--env cannot apply; drop it". --env with the module now resumes it, and config.json names
 * the module from then on, so the next --resume and eval need no --env.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { main } from "../../src/cli/main.ts";
import { train, trainConfigFor } from "../../src/learn/index.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

it("train --resume --env MODULE goes on with a run recorded by id from code, and config.json names the module after", async () => {
  const out = join(tempDir(), "run");
  const small = { steps: 1, tasksPerStep: 1, groupSize: 2, evalEpisodes: 0, backend: "wasm" as const };
  const config = trainConfigFor(weather, { ...small, model: { layers: 1, heads: 2, width: 16 } });
  await train({ env: weather, config, out, log: () => {} });
  const envOf = () => JSON.parse(readFileSync(join(out, "config.json"), "utf8")).env;
  expect(envOf()).toBe("weather");
  expect(await main(["train", "--out", out, "--resume", "--steps", "2"])).toBe(2);
  // Said as a run recorded by id, with what to give (it was "unknown environment", as if --env were misspelt).
  expect(output.stderr).toContain(
    `${join(out, "config.json")} names the environment weather by its id alone, which is no built-in one (a run train() from code recorded with an environment imported, not loaded with loadEnv(path)): train --resume needs --env with the path of the module that defines weather`,
  );
  output.clear();
  expect(await main(["eval", "--checkpoint", out, "--episodes", "1"])).toBe(2);
  expect(output.stderr).toContain("eval needs --env with the path of the module that defines weather");
  output.clear();
  expect(
    await main(["train", "--out", out, "--resume", "--steps", "2", "--env", "./actors/weather/env.ts"]),
    output.stderr,
  ).toBe(0);
  expect(envOf()).toBe(resolve("actors/weather/env.ts"));
  expect(await main(["train", "--out", out, "--resume", "--steps", "3"]), output.stderr).toBe(0);
  // Another module's environment is still refused: its id is not the run's.
  output.clear();
  const other = join(tempDir(), "other");
  await train({ env: weather, config, out: other, log: () => {} });
  expect(
    await main([
      "train",
      "--out",
      other,
      "--resume",
      "--steps",
      "2",
      "--env",
      "./test/reliability/fixtures/throwing-guard-env.ts",
    ]),
  ).toBe(2);
  expect(output.stderr).toContain("cannot apply");
  expect(output.stderr).toContain('(the run has "weather")');
}, 120_000);

/** record --json says which variant it recorded, as its summary line does. */
import { join } from "node:path";
import { expect, it } from "vitest";
import { writeCitiesEnv } from "../support/cities-env.ts";
import { runCli, tempDir } from "../support/index.ts";

it("record --json names the environment's options in effect (before: only its id, so two variants' summaries read alike)", async () => {
  const dir = tempDir("agent-r1-record-json-");
  const module = writeCitiesEnv(join(dir, "cities.mts"));
  const common = ["--policy", "expert", "--episodes", "1", "--json"];
  const variant = await runCli("record", "--env", `${module}?cities=oslo,rome`, ...common, "--out", join(dir, "a"));
  expect(variant.code, variant.stderr).toBe(0);
  expect(JSON.parse(variant.stdout.trim())).toMatchObject({ env: "weather", options: { cities: "oslo,rome" } });
  const plain = await runCli("record", "--env", "lookup", ...common, "--out", join(dir, "b"));
  expect(plain.code, plain.stderr).toBe(0);
  expect(JSON.parse(plain.stdout.trim())).not.toHaveProperty("options");
});

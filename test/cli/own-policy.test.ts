/**
 * README's "A policy of your own": a Policy written by hand (not scriptedPolicy), registered in an environment
 * module's `policies`, is what `record --policy NAME` runs, and its journals replay and verify.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { tempDir } from "../support/index.ts";

it("record --policy runs a hand-written Policy from the environment's module; replay --verify passes", () => {
  const dir = tempDir("agent-r1-own-policy-");
  writeFileSync(join(dir, "package.json"), '{"type": "module"}');
  // Answers the first city the question names, without asking: a Policy object with act() over a batch.
  const source = `import weather from ${JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href)};
const tokenizer = weather.tokenizer;
const eos = tokenizer.idOf("<eos>");
const mine = {
  id: "first-city",
  version: 0,
  tokenizer,
  act: async (requests) =>
    requests.map(({ history }) => {
      const [, city] = /warmer : (\\w+) or/.exec(history[0].text) ?? [];
      const tokens = [...tokenizer.encode("<answer>" + city + "</answer>"), eos];
      return { tokens, text: tokenizer.decode(tokens), logprobs: tokens.map(() => 0), version: 0 };
    }),
};
export default { ...weather, policies: { ...weather.policies, mine: () => mine } };
`;
  const env = join(dir, "env.ts");
  writeFileSync(env, source);
  const out = join(dir, "runs");
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["bin/agent-r1.js", ...args], { encoding: "utf8", timeout: 60_000 });
  const recorded = cli("record", "--env", env, "--policy", "mine", "--episodes", "4", "--out", out, "--json");
  expect(recorded.status, recorded.stderr).toBe(0);
  const summary = JSON.parse(recorded.stdout) as { episodes: number; aborted: number };
  expect([summary.episodes, summary.aborted]).toEqual([4, 0]);
  const files = readdirSync(out).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(4);
  const started = JSON.parse(readFileSync(join(out, files[0]), "utf8").split("\n")[0]) as { policy: { id: string } };
  expect(started.policy.id).toBe("first-city");
  const replayed = cli("replay", out, "--verify", "--env", env);
  expect(replayed.status, replayed.stderr).toBe(0);
  expect(replayed.stdout).toContain("verified 4 journal(s) ok, 0 failed");
});

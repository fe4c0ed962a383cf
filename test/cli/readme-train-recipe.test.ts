/**
 * README's Quick start, step 4 ("Train a policy on it"): its recipe on the weather example, run end to end as a
 * user who copied the example to envs/my-env.ts would (record, sft, train, eval), at a tiny size: its commands
 * and flags must keep working, from the first to the last.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

/** The `npx agent-r1 ...` lines of the sh block under step 4, as argument lists. */
const recipe = (): string[][] => {
  const readme = readFileSync("README.md", "utf8");
  const step = readme.indexOf("4. **Train a policy on it.**");
  expect(step, "README's Quick start step 4").toBeGreaterThan(-1);
  const open = readme.indexOf("```sh\n", step);
  expect(open - step, "an sh block in step 4").toBeLessThan(1500);
  const block = readme.slice(open + 6, readme.indexOf("```", open + 6));
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("npx agent-r1 "))
    .map((line) =>
      line
        .replace(/\s+#.*$/, "")
        .split(/\s+/)
        .slice(2),
    );
};

/** Shrinks the sizes (a tiny model, 1 update, a few episodes) and points paths into `dir`; the flags stay. */
const tiny = (args: string[], dir: string): string[] => {
  const [command] = args;
  const out = args.map((arg, i) => {
    const flag = args[i - 1];
    if (arg.startsWith("runs/") || arg.startsWith("./envs/")) return join(dir, arg);
    if (flag === "--episodes") return command === "record" ? "4" : "2";
    if (flag === "--steps") return "1";
    return arg;
  });
  if (command === "sft") out.push("--layers", "1", "--heads", "2", "--width", "16");
  if (command === "train") out.push("--tasks", "2", "--group-size", "2", "--eval-episodes", "2");
  return out;
};

it("README's recipe for training the weather example runs end to end at a tiny size: record, sft, train, eval", async () => {
  const commands = recipe();
  expect(commands.map(([command]) => command)).toEqual(["record", "sft", "eval", "train", "eval"]);
  const dir = tempDir("agent-r1-readme-recipe-");
  // Step 1: the example copied to envs/my-env.ts, its import pointed at the framework.
  mkdirSync(join(dir, "envs"));
  const source = readFileSync("actors/weather/env.ts", "utf8");
  const index = JSON.stringify(pathToFileURL(resolve("src/index.ts")).href);
  writeFileSync(join(dir, "envs/my-env.ts"), source.replace('"../../src/index.ts"', index));
  let last = "";
  for (const args of commands) {
    output.clear();
    expect(await main(tiny(args, dir)), `${args.join(" ")}\n${output.stderr}`).toBe(0);
    last = output.stdout;
  }
  // The copied example's world changes per task: every recorded call carries its task's hidden day, which the
  // machine passes to the tool (version 1's fixed table had 20 tasks, which trained policies answered from memory).
  const journal = readFileSync(join(dir, "runs/demos/ep-demo-0.jsonl"), "utf8").split("\n").filter(Boolean);
  const events = journal.map((line) => JSON.parse(line) as { type: string; task?: { day?: unknown }; args?: unknown });
  const day = events.find((e) => e.type === "episode.started")?.task?.day;
  expect(day).toEqual(expect.any(Number));
  const calls = events.filter((e) => e.type === "tool.called");
  expect(calls.length).toBe(2);
  for (const call of calls) expect(call.args).toEqual({ city: expect.any(String), day });
  // The clone has the example's copy head (model: { copy: true }): without it, 400 demonstrations for 5 epochs
  // cloned version 1 to 0.64 unconstrained, the clone asking about cities the question does not name.
  const config = JSON.parse(readFileSync(join(dir, "runs/warm/config.json"), "utf8")) as Record<string, unknown>;
  expect(config.copy).toBe(true);
  // The clone was made under the masks that train samples with (sft --constrained), as README says.
  const manifest = JSON.parse(readFileSync(join(dir, "runs/warm/manifest.json"), "utf8")) as Record<string, unknown>;
  expect(manifest.constrained).toBe(true);
  // The example's legal actions gate a constrained episode: both cities of the question asked about, once each,
  // then an answer. So every episode train samples (4 here) does that, and RL is left the one decision that
  // differs by day, which city is warmer (without the gate, 20 GRPO updates of step 4 lifted nothing: their
  // policies asked about one city and guessed, or asked until the turn limit).
  const sampled = join(dir, "runs/grpo/episodes/u00000");
  const episodes = readdirSync(sampled).map((name) =>
    readFileSync(join(sampled, name), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; text?: string; task?: { a: string; b: string } }),
  );
  expect(episodes.length).toBe(4);
  for (const events of episodes) {
    const { a, b } = events[0]!.task!;
    const acted = events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : []));
    expect([acted.slice(0, 2).sort(), acted.length]).toEqual([
      [`<weather>${a}</weather>`, `<weather>${b}</weather>`].sort(),
      3,
    ]);
    expect([`<answer>${a}</answer>`, `<answer>${b}</answer>`]).toContain(acted[2]);
  }
  const summary = JSON.parse(last.trim().split("\n").at(-1)!) as Record<string, unknown>;
  // The last eval scores the trained run (its latest checkpoint), under the masks it was trained with.
  expect(summary).toMatchObject({ env: "weather", episodes: 2, constrained: true, version: 1, aborted: 0 });
}, 120_000);

/**
 * A learned policy's token budget per action (`maxNewTokens`): an environment whose actions are longer
 * than the budget gets every action cut and malformed. The budget comes from `--max-new-tokens`, else the
 * environment's `maxActionTokens`; record and sft say when the demonstrations need more, and train and eval say how
 * many actions were cut. Runs the CLI in process (`main`, as bin/agent-r1.js does).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { actionBudgetNote } from "../../src/learn/config.ts";
import { countCutActions, describeEval } from "../../src/learn/evaluate.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const dir = tempDir("agent-r1-budget-");
/** The README's weather environment with a budget of 2 tokens per action (its actions take more). */
const tight = join(dir, "tight-weather.ts");
writeFileSync(
  tight,
  `import weather from ${JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href)};\n` +
    "export default { ...weather, maxActionTokens: 2 };\n",
);

const output = captureOutput();

const run = async (...args: string[]) => {
  output.clear();
  const code = await main(args);
  expect(code, output.stderr).toBe(0);
  return { stdout: output.stdout, stderr: output.stderr };
};
const jsonLine = (text: string) => JSON.parse(text.trim().split("\n").at(-1)!);

describe("the sampler's token budget per action", () => {
  it("counts actions cut at the budget: long enough and not ended by a stop token", () => {
    const acted = (tokens: number[]) => ({ type: "agent.acted", tokens }) as unknown as EpisodeEvent;
    const events = [acted([5, 6, 7]), acted([5, 6, 1]), acted([5, 1]), acted([5, 6, 7, 8])];
    expect(countCutActions(events, 3, [1])).toBe(2);
    expect(countCutActions(events, 4, [1])).toBe(1);
    expect(countCutActions(events, 3, [])).toBe(0); // no stop token: nothing to tell a cut from an end
    const summary = { episodes: 4, successRate: null, meanReturn: -0.2, meanTurns: 1, metrics: {}, aborted: 1 };
    expect(describeEval({ ...summary, abortReason: "aborted: boom", cutActions: 3 })).toBe(
      "mean return -0.200 (the environment reports no success metric); 1 of 4 episodes aborted: boom; " +
        "3 actions cut at the sampler's token budget (--max-new-tokens)",
    );
    expect(describeEval({ ...summary, cutActions: 1 })).toContain("; 1 action cut at the sampler's token budget");
  });

  it("sft, train and eval take the environment's maxActionTokens, say when it is too small, and --max-new-tokens overrides it", async () => {
    const demos = join(dir, "demos");
    const recorded = await run(
      "record",
      "--env",
      tight,
      "--policy",
      "expert",
      "--episodes",
      "4",
      "--seed",
      "1",
      "--out",
      demos,
    );
    // Said when the demonstrations are recorded, before anything learns from them.
    expect(recorded.stderr).toMatch(
      /note: the longest recorded action takes (\d+) tokens \(its <eos> included\), but train and eval sample at most 2 per action .*set maxActionTokens: \1 in environment weather, or pass train and eval --max-new-tokens \1 \(--constrained sizes its budget from the legal actions instead\)\n/,
    );
    const clone = join(dir, "clone");
    const shape = ["--layers", "1", "--heads", "2", "--width", "16"];
    const sft = await run("sft", "--env", tight, "--data", demos, "--out", clone, "--epochs", "1", ...shape);
    expect(sft.stderr).toMatch(
      /note: the longest demonstrated action takes (\d+) tokens \(its <eos> included\), but train and eval sample at most 2 per action .*set maxActionTokens: \1 in environment weather, or pass train and eval --max-new-tokens \1 \(--constrained sizes its budget from the legal actions instead\)\n/,
    );

    const runDir = join(dir, "run");
    const few = ["--steps", "1", "--tasks", "2", "--group-size", "2", "--eval-episodes", "0"];
    const trained = await run("train", "--env", tight, "--init", clone, ...few, "--out", runDir);
    expect(JSON.parse(readFileSync(join(runDir, "config.json"), "utf8")).maxNewTokens).toBe(2);
    expect(trained.stderr).toMatch(/update 1 of \d+: \d+ sampled actions? w(as|ere) cut at 2 tokens before they ended/);
    const metrics = JSON.parse(readFileSync(join(runDir, "metrics.jsonl"), "utf8").trim());
    expect(metrics.cutActions).toBeGreaterThan(0);

    // A run folder stands for its latest checkpoint.
    const cut = await run("eval", "--env", tight, "--checkpoint", runDir, "--episodes", "3");
    const latest = join(runDir, "checkpoints", "v00001");
    expect(cut.stderr).toContain(`--checkpoint ${runDir} is a run folder: using its latest checkpoint, ${latest}`);
    expect(cut.stderr).toMatch(/warning: .*\d+ actions? cut at the sampler's token budget/);
    const summary = jsonLine(cut.stdout);
    expect(summary.checkpoint).toBe(latest);
    expect(summary.cutActions).toBeGreaterThan(0);

    // inspect --html of the run decodes its tokens with the environment its config.json names (a module).
    const page = join(dir, "run.html");
    await run("inspect", runDir, "--html", page);
    const html = readFileSync(page, "utf8");
    expect(html).toContain('class="tok mask-1"');
    expect(html).not.toContain('class="tok mask-1 id"'); // a token shown as a bare id: no tokenizer
    // Journals outside a run, without --env: the page shows ids, and the command says how to decode them.
    const bare = await run("inspect", demos, "--html", join(dir, "demos.html"));
    expect(readFileSync(join(dir, "demos.html"), "utf8")).toContain('class="tok mask-1 id"');
    expect(bare.stderr).toContain(
      "note: the page shows the tokens of environment weather as ids: pass --env with the module that defines it",
    );

    // Constrained decoding sizes the budget from the legal actions: nothing is cut.
    const constrained = jsonLine((await run("eval", "--env", tight, "--checkpoint", clone, "--constrained")).stdout);
    expect(constrained.cutActions).toBe(0);
    // So --max-new-tokens below a legal action's length does not cut it either: said, naming both (it was silent),
    // by eval and by train (its episodes and its evaluations), once each.
    const pastFlag =
      /note: --max-new-tokens 2 does not cut actions under --constrained: a legal action took (\d+) tokens \(its <eos> included\); constrained decoding lets each action run to the end of a legal one/g;
    const given = await run("eval", "--env", tight, "--checkpoint", clone, "--constrained", "--max-new-tokens", "2");
    expect(jsonLine(given.stdout).cutActions).toBe(0);
    expect([...given.stderr.matchAll(pastFlag)].map((m) => Number(m[1]) > 2)).toEqual([true]);
    const flagged = ["--constrained", "--max-new-tokens", "2", "--out", join(dir, "constrained-run")];
    const trainedPast = await run("train", "--env", tight, "--init", clone, ...few, ...flagged);
    expect([...trainedPast.stderr.matchAll(pastFlag)]).toHaveLength(1);
    // Not said where nothing went past it: the flag above every legal action, or free decoding.
    const above = await run("eval", "--env", tight, "--checkpoint", clone, "--constrained", "--max-new-tokens", "40");
    expect(above.stderr).not.toContain("does not cut actions under --constrained");
    // eval --out of a module's environment says the --env its journals need (replay without it was refused).
    const kept = join(dir, "kept");
    const evalOut = await run("eval", "--env", tight, "--checkpoint", clone, "--episodes", "2", "--out", kept);
    expect(evalOut.stderr).toContain(
      `note: the episodes are in ${kept}; their environment weather is a module, which journals name by id only: replay --verify and inspect --html of them take --env ${tight}\n`,
    );
    expect(await main(["replay", kept, "--verify", "--env", tight])).toBe(0);

    const wide = join(dir, "wide");
    await run("train", "--env", tight, "--init", clone, ...few, "--max-new-tokens", "30", "--out", wide);
    expect(JSON.parse(readFileSync(join(wide, "config.json"), "utf8")).maxNewTokens).toBe(30);
  }, 120_000);
});

describe("actionBudgetNote", () => {
  it("is one note for record and sft; nothing when the longest action fits; --constrained named only where it applies", () => {
    const env = { id: "plain", maxActionTokens: 4 };
    expect(actionBudgetNote(env, 4, "recorded")).toBeUndefined();
    expect(actionBudgetNote(env, 5, "demonstrated")).toBe(
      "note: the longest demonstrated action takes 5 tokens (its <eos> included), but train and eval sample at most 4 per action (a longer one is cut and comes out malformed): set maxActionTokens: 5 in environment plain, or pass train and eval --max-new-tokens 5",
    );
    expect(actionBudgetNote({ ...env, legalActions: () => [] }, 5, "recorded")).toMatch(
      /^note: the longest recorded action takes 5 tokens .* --max-new-tokens 5 \(--constrained sizes its budget from the legal actions instead\)$/,
    );
  });
});

describe("actionBudgetNote of a built-in environment", () => {
  it("suggests only --max-new-tokens: a built-in environment's maxActionTokens is not the user's to set", async () => {
    // lookup's random policy writes actions longer than lookup's 12-token budget.
    const out = join(dir, "built-in");
    const code = await main([
      "record",
      "--env",
      "lookup",
      "--policy",
      "random",
      "--episodes",
      "3",
      "--seed",
      "7",
      "--out",
      out,
    ]);
    expect(code, output.stderr).toBe(0);
    const note = output.stderr.split("\n").find((line) => line.startsWith("note: the longest recorded action"));
    expect(note).toMatch(
      / per action \(a longer one is cut and comes out malformed\): pass train and eval --max-new-tokens \d+ \(--constrained/,
    );
    expect(note).not.toContain("maxActionTokens");
  });
});

describe("actionBudgetNote of a recording with an action too long to parse", () => {
  it("leaves out an action past parseAction's 100,000 characters, which no budget makes well-formed", async () => {
    // A hostile baseline: every other action is 200,000 characters (malformed unread), the rest the expert's.
    const hostile = join(dir, "hostile-weather.ts");
    writeFileSync(
      hostile,
      `import weather from ${JSON.stringify(pathToFileURL(resolve("actors/weather/env.ts")).href)};\n` +
        `import * as r1 from ${JSON.stringify(pathToFileURL(resolve("src/index.ts")).href)};\n` +
        "const expert = weather.policies.expert;\n" +
        "const hostile = () => { const e = expert(); return { ...e, id: 'hostile', act: async (requests) => {\n" +
        "  const acts = await e.act(requests);\n" +
        "  return acts.map((a, i) => requests[i].turn % 2 === 0 ? a : (() => { const t = [...weather.tokenizer.encode('x'.repeat(200000))];\n" +
        "    return { tokens: t, text: weather.tokenizer.decode(t), logprobs: t.map(() => 0), version: 0 }; })());\n" +
        "} }; };\n" +
        "export default r1.defineEnv({ ...weather, maxActionTokens: 30, policies: { hostile } });\n",
    );
    const { stderr } = await run(
      "record",
      "--env",
      hostile,
      "--policy",
      "hostile",
      "--episodes",
      "2",
      "--out",
      join(dir, "hostile"),
    );
    expect(stderr).not.toContain("note: the longest recorded action");
  });
});

/**
 * An environment that was not made by defineEnv (a copy, `{ ...env, maxTurns: 0 }`, as README's checkModel example
 * writes one) is checked as defineEnv checks one wherever it is used: runEpisode, rollout, replay, the testing kit
 * and the CLI's `--env` loader. Such a copy ran unchecked in `record` and the kit while `train` and `eval` refused
 * it: a string maxTurns turned the turn limit off, a tool under another key ended every episode "waiting for nothing".
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lookupEnv } from "../../actors/lookup/index.ts";
import { main } from "../../src/cli/main.ts";
import { type EnvDefinition, MemoryJournal, PolicyActor, rollout, runEpisode } from "../../src/index.ts";
import { replayEpisode } from "../../src/replay/replay.ts";
import { checkRewards, neverCrashes, playEpisode } from "../../src/testing/index.ts";
import { captureOutput, playing, tempDir, writeLookupModule } from "../support/index.ts";

const dir = tempDir("agent-r1-copied-env-");
const output = captureOutput();

/** Copies of lookup that defineEnv refuses, and the words of its refusal. */
const copies: readonly (readonly [string, Record<string, unknown>, RegExp])[] = [
  ["maxTurns 0", { maxTurns: 0 }, /^environment lookup: `maxTurns` must be an integer >= 1, got 0$/],
  ["maxTurns a string", { maxTurns: "abc" }, /`maxTurns` must be an integer >= 1, got "abc" \(a string\)$/],
  ["maxActionTokens a string", { maxActionTokens: "abc" }, /`maxActionTokens` must be an integer >= 1, got "abc"/],
  ["a tool under another key", { tools: { r: lookupEnv.tools.lookup } }, /tools\.r is the tool named "lookup"/],
  ["an unknown field", { maxTurn: 3 }, /unknown field `maxTurn` \(did you mean `maxTurns`\?\)/],
];

const copyOf = (fields: Record<string, unknown>) => ({ ...lookupEnv, ...fields }) as unknown as EnvDefinition;

describe("a copy of an environment is checked as defineEnv checks one", () => {
  it.each(copies)(
    "%s: runEpisode, rollout, playEpisode, checkRewards and replay refuse it",
    async (_, fields, says) => {
      const env = copyOf(fields);
      const policy = new PolicyActor(playing(["<answer>red</answer>"]));
      await expect(runEpisode({ env, policy, journal: new MemoryJournal(), seed: "s" })).rejects.toThrow(says);
      expect(() => rollout({ env, policy, journal: new MemoryJournal(), seed: "s", episodes: 1 })).toThrow(says);
      await expect(playEpisode(env, { seed: "s", actions: ["<answer>red</answer>"] })).rejects.toThrow(says);
      await expect(checkRewards(env, { invariants: [neverCrashes()], numRuns: 1 })).rejects.toThrow(says);
      // Replay of a journal recorded by the real environment, against the broken copy.
      const run = await runEpisode({ env: lookupEnv, policy, journal: new MemoryJournal(), seed: "s" });
      expect(() => replayEpisode(run.events, env)).toThrow(says);
    },
  );

  it("a copy defineEnv accepts runs, and is checked once (the same object is not checked again)", async () => {
    const env = copyOf({ maxTurns: 3 });
    const policy = new PolicyActor(playing(["<answer>red</answer>"]));
    const record = await runEpisode({ env, policy, journal: new MemoryJournal(), seed: "s" });
    expect(record.reason).not.toMatch(/^aborted/);
    // Broken after its first check: not looked at again (a WeakSet of checked objects), so runs as before.
    (env as { maxTurns?: unknown }).maxTurns = 2;
    const again = await runEpisode({ env, policy, journal: new MemoryJournal(), seed: "t" });
    expect(again.reason).toBe(record.reason);
  });

  it("`record --env` of a module whose default export is such a copy: exit 2, naming the module and the field", async () => {
    const module = writeLookupModule(join(dir, "copied.ts"), 'export default { ...lookupEnv, maxTurns: "abc" };');
    const code = await main([
      "record",
      "--env",
      module,
      "--policy",
      "expert",
      "--episodes",
      "1",
      "--out",
      join(dir, "out"),
    ]);
    expect(code, output.stderr).toBe(2);
    expect(output.stderr).toContain(
      `error: ${module}: its environment is not one defineEnv would accept: environment lookup: \`maxTurns\` must be an integer >= 1, got "abc" (a string)`,
    );
  });

  it("`--env MODULE?options` whose configure gives such a copy: exit 2, naming the variant", async () => {
    const module = writeLookupModule(
      join(dir, "configured.ts"),
      "export default defineEnv({ ...lookupEnv, configure: () => ({ ...lookupEnv, maxActionTokens: 0 }) });",
    );
    output.clear();
    const code = await main(["record", "--env", `${module}?x=1`, "--policy", "expert", "--out", join(dir, "out2")]);
    expect(code, output.stderr).toBe(2);
    expect(output.stderr).toContain(
      `error: ${module}: the variant "?x=1" is not one defineEnv would accept: environment lookup: \`maxActionTokens\` must be an integer >= 1, got 0`,
    );
  });
});

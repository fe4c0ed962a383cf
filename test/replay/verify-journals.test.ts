/**
 * verifyJournals (agent-r1-ts/learn): `replay --verify` from code, one verdict per journal, so a user's program
 * checks a folder without a loop of its own over journalFilesAt, readJournalFile and replayEpisode.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { loadEnv, train, trainConfigFor, verifyJournals } from "../../src/learn/index.ts";
import { captureOutput, tempDir } from "../support/index.ts";

captureOutput();
const dir = tempDir("agent-r1-verify-journals-");

describe("verifyJournals", () => {
  it("verifies a folder of a built-in environment's journals, and names a damaged line and a divergence", async () => {
    const demos = join(dir, "lookup");
    expect(await main(["record", "--env", "lookup", "--policy", "expert", "--episodes", "3", "--out", demos])).toBe(0);
    const verdicts = await verifyJournals(demos);
    expect(verdicts.map((v) => [v.ok, v.episode, v.reason])).toEqual([
      [true, "ep-0-0", "answered"],
      [true, "ep-0-1", "answered"],
      [true, "ep-0-2", "answered"],
    ]);
    // A line changed by hand: its digest no longer matches, said with the file and line.
    const file = join(demos, "ep-0-1.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    lines[1] = lines[1].replace(/"turn":0/, '"turn":5');
    writeFileSync(file, lines.join("\n"));
    const [, damaged] = await verifyJournals(demos);
    expect(damaged.ok).toBe(false);
    expect(damaged.problem).toMatch(new RegExp(`^${file}:2 \\(seq 1\\): digest: .*the line was edited$`));
  });

  it("replays a module's journals with the environment given; an impure guard diverges, said as replay says it", async () => {
    const fickle = "./test/reliability/fixtures/fickle-env.ts";
    const out = join(dir, "fickle");
    expect(await main(["record", "--env", fickle, "--policy", "answer", "--episodes", "2", "--out", out])).toBe(0);
    // Without the environment, its journals cannot be replayed: unverified, not failed.
    const unknown = await verifyJournals(out);
    expect(unknown.map((v) => v.ok)).toEqual([false, false]);
    expect(unknown[0].unverified).toBe(
      'environment "fickle" is not built in (built in: lookup, hopqa, warehouse); to verify its journals, give verifyJournals the environment that defines it, verifyJournals(path, await loadEnv("./path/to/env.ts"))',
    );
    // Another environment given: named, in the same words.
    const other = await verifyJournals(out, await loadEnv("lookup"));
    expect(other[0].unverified).toContain(
      ', and the environment given is "lookup"; to verify its journals, give verifyJournals',
    );
    // Its guard reads a set outside the machine that recording changed: replayed in this process, it diverges.
    const verdicts = await verifyJournals(out, await loadEnv(fickle));
    expect(verdicts.every((v) => !v.ok && v.unverified === undefined)).toBe(true);
    // The recorded reward, the replayed one, and the usual cause.
    expect(verdicts[0].problem).toMatch(
      /replayed: \{.*"reason":"again".*\}\n\s+hint: the usual cause is a guard, action/,
    );
  });

  it("verifies a train run of a module's environment without it, as replay --verify does: its config.json names it", async () => {
    const weather = await loadEnv("./actors/weather/env.ts");
    const out = join(dir, "weather-run");
    const config = trainConfigFor(weather, {
      backend: "wasm",
      steps: 1,
      tasksPerStep: 1,
      groupSize: 2,
      evalEpisodes: 0,
      warmStart: null,
      model: { layers: 1, heads: 2, width: 16 },
    });
    await train({ env: weather, config, out, log: () => {} });
    const verdicts = await verifyJournals(out);
    expect(verdicts).toHaveLength(2);
    expect(verdicts.every((v) => v.ok)).toBe(true);
    // A run whose module is gone from where it named it: said, with what to give instead.
    const moved = join(dir, "moved-run");
    cpSync(out, moved, { recursive: true });
    const configFile = join(moved, "config.json");
    writeFileSync(
      configFile,
      readFileSync(configFile, "utf8").replace('"./actors/weather/env.ts"', '"./actors/weather/gone.ts"'),
    );
    // A relative path not found from here: train ran in another folder, or the module moved (said as the CLI says it).
    await expect(verifyJournals(moved)).rejects.toThrow(
      `${configFile} names the environment module ./actors/weather/gone.ts, a path relative to the folder train was started in`,
    );
    await expect(verifyJournals(moved)).rejects.toThrow(
      /: give verifyJournals the environment, verifyJournals\(path, await loadEnv\("\.\/path\/to\/env\.ts"\)\)$/,
    );
    // A module that is there and does not load: its error, and the same remedy.
    const broken = join(dir, "broken-env.ts");
    writeFileSync(broken, 'throw new Error("broken on purpose");\n');
    writeFileSync(
      configFile,
      readFileSync(configFile, "utf8").replace('"./actors/weather/gone.ts"', JSON.stringify(broken)),
    );
    await expect(verifyJournals(moved)).rejects.toThrow(
      `${configFile} names environment ${broken}, which did not load (`,
    );
    await expect(verifyJournals(moved)).rejects.toThrow(/broken on purpose/);
  }, 60_000);

  it("refuses a path that holds no journal, as replay does", async () => {
    await expect(verifyJournals(join(dir, "nothing"))).rejects.toThrow(/^no such file or folder: /);
  });
});

/**
 * What a new user of the library gets wrong from code, and must be told plainly: found by writing a small
 * environment of their own against the README and the exported types only.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { lastValueFrom } from "rxjs";
import { describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { JsonlJournal, PolicyActor, rollout } from "../../src/index.ts";
import { collect, evaluate, loadPolicy, modelConfigFor, sft, trainConfigFor } from "../../src/learn/index.ts";
import { tempDir } from "../support/index.ts";

describe("the learner from code, used as a new user would", () => {
  it("new Gpt before any backend says to call initBackend, not tfjs's 'No backend found in registry.'", () => {
    const script = join(tempDir(), "gpt-first.mts");
    writeFileSync(
      script,
      `import { Gpt } from ${JSON.stringify(resolve("src/learn/index.ts"))};\n` +
        `try { new Gpt({ vocabSize: 10 }, "0"); console.log("built"); } catch (e) { console.log(e._tag, e.message); }\n`,
    );
    const run = spawnSync(process.execPath, ["bin/run-ts.js", script], { encoding: "utf8", timeout: 60_000 });
    expect(run.stdout).not.toContain("No backend found");
    expect(run.stdout).toContain("UsageError new Gpt: no TensorFlow.js backend is set up; first `await initBackend()`");
  }, 60_000);

  it("evaluate and collect given a PolicyActor say to give the Policy it wraps", async () => {
    const actor = new PolicyActor(weather.policies!.expert());
    const wraps = /that is a PolicyActor, which wraps a Policy; give the Policy itself/;
    // biome-ignore lint/suspicious/noExplicitAny: the mistake under test, which TypeScript would catch
    await expect(evaluate(weather, actor as any, { episodes: 1, seed: "x" })).rejects.toThrow(
      new RegExp(`^evaluate: policy must be a Policy \\(\\{ id, version, tokenizer, act \\}\\): ${wraps.source}`),
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    await expect(collect({ env: weather, policy: actor as any, seed: "x", episodes: 1 })).rejects.toThrow(
      /^collect: policy must be a Policy .*: that is a PolicyActor/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => new PolicyActor(actor as any)).toThrow(/^PolicyActor takes a Policy .*: that is a PolicyActor/);
    // A factory of env.policies, not called: said as such (its source code was printed as the value).
    const factory =
      "got a function (expert), not a Policy: a factory of env.policies makes one when called, env.policies.expert()";
    await expect(evaluate(weather, weather.policies!.expert as never, { episodes: 1, seed: "x" })).rejects.toThrow(
      `evaluate: policy must be a Policy ({ id, version, tokenizer, act }): ${factory}`,
    );
    expect(() => new PolicyActor(weather.policies!.expert as never)).toThrow(factory);
    // A batch size given as text is said to be text ("maxBatch must be a positive integer, got 8" hid it).
    expect(() => new PolicyActor(actor.policy, "8" as never)).toThrow(
      'PolicyActor: maxBatch must be a positive integer, got "8" (a string)',
    );
    // collect's own numbers are said as collect's (they were rollout's, and episodes left out a PolicyActor's NaN).
    const policy = actor.policy;
    await expect(collect({ env: weather, policy, seed: "x" } as never)).rejects.toThrow(
      "collect: episodes must be a natural number, got undefined",
    );
    await expect(collect({ env: weather, policy, seed: "x", episodes: 2, groupSize: 0 })).rejects.toThrow(
      "collect: groupSize must be a positive integer (or left out), got 0",
    );
    await expect(collect({ env: weather, policy, seed: "x", episodes: "2" as never })).rejects.toThrow(
      'collect: episodes must be a natural number, got "2" (a string)',
    );
    // The Policy itself still runs.
    expect((await evaluate(weather, actor.policy, { episodes: 1, seed: "x" })).successRate).toBe(1);
  });

  it("sft from code speaks of its options (resume: true, data, lr), not of the CLI's --resume, --data and --replace", async () => {
    const data = join(tempDir(), "demos");
    const journal = new JsonlJournal(data, "episode");
    await lastValueFrom(
      rollout({ env: weather, policy: new PolicyActor(weather.policies!.expert()), journal, seed: "d", episodes: 3 })
        .episodes,
      { defaultValue: undefined },
    );
    const out = join(tempDir(), "clone");
    const base = {
      env: weather,
      data,
      out,
      epochs: 2,
      batchSize: 2,
      backend: "wasm" as const,
      model: modelConfigFor(weather, { layers: 1, heads: 2, width: 16 }),
    };
    await expect(sft({ ...base, data: join(data, "none"), log: () => {} })).rejects.toThrow(
      `data ${join(data, "none")}: no such file or folder`,
    );
    const lines: string[] = [];
    let epochs = 0;
    const stopped = await sft({
      ...base,
      log: (line) => lines.push(line),
      onEpoch: () => void epochs++,
      shouldStop: () => epochs >= 1,
    });
    expect(stopped.stopped).toBe(true);
    expect(lines.join("\n")).toContain("continue it with the same options and resume: true");
    await expect(sft({ ...base, lr: 0.5, resume: true, log: () => {} })).rejects.toThrow(
      `resume: lr differs from the stopped sft's: 0.003 then, 0.5 now; the sft in ${out} continues only with the arguments it was started with (give them again), or an sft without resume: true starts it over`,
    );
    await sft({ ...base, resume: true, log: () => {} });
    // loadPolicy's constrained: true on an environment without legal actions names its own option, not only the flag.
    const { legalActions: _legal, ...unconstrained } = weather;
    await expect(loadPolicy(unconstrained, out, { constrained: true, log: () => {} })).rejects.toThrow(
      "--constrained (constrained: true from code): environment weather declares no legal actions",
    );
    // A clone made under the legal actions loads decoding under them, as `agent-r1 eval` decodes it, and says so:
    // decoded freely without a word, a policy trained so on weather scored 0 (every episode to its turn limit).
    const constrainedOut = join(tempDir(), "constrained-clone");
    await sft({ ...base, out: constrainedOut, epochs: 1, constrained: true, log: () => {} });
    const said: string[] = [];
    const followed = await loadPolicy(weather, constrainedOut, { log: (line) => said.push(line) });
    expect(said).toContain(
      `loadPolicy: constrained decoding, as ${constrainedOut} was trained or cloned (its manifest.json); { constrained: false } decodes freely`,
    );
    // Under the gate every episode asks about both cities, then answers.
    const scored = await evaluate(weather, followed, { episodes: 4, seed: "gate" });
    expect([scored.endReasons, scored.meanTurns]).toEqual([{ answered: 4 }, 3]);
    const told: string[] = [];
    await loadPolicy(weather, constrainedOut, { constrained: false, log: (line) => told.push(line) });
    expect(told.join("\n")).not.toContain("constrained decoding");
    // So does a train config from it, as `train --init` samples (from code it sampled freely: every episode cut).
    expect(trainConfigFor(weather, { init: constrainedOut }).constrained).toBe(true);
    expect(trainConfigFor(weather, { init: constrainedOut, constrained: false }).constrained).toBe(false);
    expect(trainConfigFor(weather, { init: out }).constrained).toBe(false);
    // And sft from it, as `sft --init` clones: under the masks, so its clone says so in turn.
    const further = join(tempDir(), "further-clone");
    await sft({ ...base, out: further, init: constrainedOut, epochs: 1, log: () => {} });
    const furtherSaid: string[] = [];
    await loadPolicy(weather, further, { log: (line) => furtherSaid.push(line) });
    expect(furtherSaid.join("\n")).toContain(`loadPolicy: constrained decoding, as ${further} was trained or cloned`);
    await expect(sft({ ...base, resume: true, log: () => {} })).rejects.toThrow(
      `resume: ${out} holds a finished clone (its sft ran to its end): nothing to resume; eval it or train --init from it, or clone again without resume: true (the clone replaces it)`,
    );
  }, 60_000);
});

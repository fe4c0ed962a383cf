import { describe, expect, it } from "vitest";
import weather from "../../actors/weather/env.ts";
import { MemoryJournal, PolicyActor, replayEpisode, runEpisode } from "../../src/index.ts";
import { playing } from "../support/index.ts";

describe("the README's weather environment", () => {
  it("the expert asks about both cities, answers right, and earns both process rewards", async () => {
    const journal = new MemoryJournal();
    const run = await runEpisode({
      env: weather,
      policy: new PolicyActor(weather.policies!.expert()),
      journal,
      seed: "w",
    });
    expect(run.metrics.success).toBe(1);
    expect(run.return).toBeCloseTo(1.2, 10);
    expect(() => replayEpisode(run.events, weather)).not.toThrow();
  });

  it("the tools find own keys only: a city named __proto__ or toString is unknown (null), as in lookup", async () => {
    const { lookupEnv } = await import("../../actors/lookup/index.ts");
    for (const name of ["__proto__", "toString", "constructor"]) {
      expect(await weather.tools.weather.call({ city: name })).toEqual({ ok: true, content: null });
      expect(await lookupEnv.tools.lookup.call({ key: name })).toEqual({ ok: true, content: null });
    }
  });

  it("a malformed action is penalised, a repeated question earns nothing, the turn limit ends it", async () => {
    const journal = new MemoryJournal();
    const task = weather.task("t");
    const texts = ["hello", `<weather>${task.a}</weather>`, `<weather>${task.a}</weather>`, "x", "y", "z"];
    const run = await runEpisode({
      env: weather,
      policy: new PolicyActor(playing(texts, weather.tokenizer)),
      journal,
      seed: "t",
      task,
    });
    const rewards = run.events.flatMap((e) => (e.type === "reward.assigned" ? [e.value] : []));
    expect(rewards).toEqual([-0.1, 0.1, 0, -0.1]);
    expect(run.reason).toBe("turn-limit");
    expect(() => replayEpisode(run.events, weather)).not.toThrow();
  });
});

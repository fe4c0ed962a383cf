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

  it("its legal actions gate an episode: each city of the question asked about once, then only the two answers", () => {
    const task = { a: "oslo", b: "rome", day: 3 };
    const turn = (role: "observation" | "action", text: string) => ({ role, text, tokens: [] });
    const legal = (...history: ReturnType<typeof turn>[]) =>
      weather.legalActions!({ task, history: [turn("observation", "which is warmer : oslo or rome ?"), ...history] });
    const asks = ["<weather>oslo</weather>", "<weather>rome</weather>"];
    expect(legal()).toEqual(asks);
    const rome = [turn("action", asks[1]!), turn("observation", "rome : 14")];
    expect(legal(...rome)).toEqual([asks[0]]);
    // A malformed action, or a question about a city the question does not name, asks about neither.
    const astray = [turn("action", "hi"), turn("observation", "error : use <weather>city</weather>")];
    expect(legal(...astray, turn("action", "<weather>lima</weather>"), turn("observation", "lima : 4"))).toEqual(asks);
    const both = [...rome, turn("action", asks[0]!), turn("observation", "oslo : 30")];
    expect(legal(...both)).toEqual(["<answer>oslo</answer>", "<answer>rome</answer>"]);
    expect(legal(...both, ...astray)).toEqual(["<answer>oslo</answer>", "<answer>rome</answer>"]);
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
    const rewards = run.events.flatMap((e) => (e.type === "reward.assigned" ? [`${e.kind} ${e.value}`] : []));
    // The turn limit pays outcome 0, as a wrong answer does (an ending with none would pay its process rewards alone).
    expect(rewards).toEqual(["process -0.1", "process 0.1", "process 0", "process -0.1", "outcome 0"]);
    expect(run.reason).toBe("turn-limit");
    expect(() => replayEpisode(run.events, weather)).not.toThrow();
  });

  it("the world changes with the task's hidden day: one pair of cities has either answer, and only the tool tells", async () => {
    const answers = new Set<string>();
    for (const day of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const task = { a: "oslo", b: "rome", day };
      const run = await runEpisode({
        env: weather,
        policy: new PolicyActor(weather.policies!.expert()),
        journal: new MemoryJournal(),
        seed: "w",
        task,
      });
      expect(run.metrics.success).toBe(1);
      const said = run.events.flatMap((e) => (e.type === "env.observed" ? [e.text] : []));
      expect(said[0]).toBe("which is warmer : oslo or rome ?"); // the prompt does not give the day away
      const asked = run.events.flatMap((e) => (e.type === "tool.called" ? [e.args] : []));
      expect(asked).toEqual([
        { city: "oslo", day },
        { city: "rome", day },
      ]);
      answers.add(run.events.flatMap((e) => (e.type === "agent.acted" ? [e.text] : [])).at(-1)!);
    }
    expect([...answers].sort()).toEqual(["<answer>oslo</answer>", "<answer>rome</answer>"]);
    const days = Array.from({ length: 20 }, (_, i) => (weather.task(`d${i}`) as { day: number }).day);
    expect(new Set(days).size).toBeGreaterThan(10);
  });

  it("a model cannot set the day: its call is the city's bare text, and the machine passes the task's day", async () => {
    const task = { a: "oslo", b: "rome", day: 3 };
    const texts = ['<weather>{"city":"oslo","day":1}</weather>', "<answer>oslo</answer>"];
    const run = await runEpisode({
      env: weather,
      policy: new PolicyActor(playing(texts, weather.tokenizer)),
      journal: new MemoryJournal(),
      seed: "t",
      task,
    });
    const asked = run.events.flatMap((e) => (e.type === "tool.called" ? [e.args] : []));
    expect(asked).toEqual([{ city: '{"city":"oslo","day":1}', day: 3 }]);
  });
});

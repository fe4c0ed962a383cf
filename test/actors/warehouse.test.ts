/**
 * `warehouse`, a world that moves on its own: its days are drawn from the episode's seed (the same seed,
 * the same journal), its journals replay, its rewards hold their invariants, and a model of it (drawing
 * demand from the seed as the world does) predicts every step.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DAYS,
  DELAY,
  demandOn,
  expertPolicy,
  ITEMS,
  type Item,
  MAX_QTY,
  REWARDS,
  randomPolicy,
  SLOPPY_QTY,
  SLOPPY_RATE,
  sloppyPolicy,
  type WarehouseTask,
  warehouseEnv,
} from "../../actors/warehouse/index.ts";
import { main } from "../../src/cli/main.ts";
import { MemoryJournal, PolicyActor, parseAction, Rng, runEpisode, scriptedPolicy } from "../../src/index.ts";
import { collect } from "../../src/learn/collect.ts";
import {
  actionArbitrary,
  checkModel,
  checkRewards,
  type EnvModel,
  failedToolResultArbitrary,
  neverCrashes,
  processRewardCap,
  replaysIdentically,
  returnBounds,
  rewardBounds,
} from "../../src/testing/index.ts";
import { captureOutput, tempDir } from "../support/index.ts";

const output = captureOutput();

const play = (seed: string) =>
  runEpisode({ env: warehouseEnv, policy: new PolicyActor(expertPolicy()), journal: new MemoryJournal(), seed });

describe("warehouse's days come from the episode's seed", () => {
  it("the same seed gives the same journal; another seed, other demand; the expert acts legally", async () => {
    const [a, b, c] = await Promise.all([play("s"), play("s"), play("t")]);
    expect(b.events).toEqual(a.events);
    const days = Array.from({ length: DAYS }, (_, day) => day);
    const task = warehouseEnv.task("s");
    expect(days.map((d) => demandOn(task, "t", d))).not.toEqual(days.map((d) => demandOn(task, "s", d)));
    const reports = (events: typeof a.events) => events.flatMap((e) => (e.type === "env.observed" ? [e.text] : []));
    expect(reports(c.events)).not.toEqual(reports(a.events));
    // The expert's actions are legal ones (constrained decoding's).
    const legal = new Set(warehouseEnv.legalActions?.({ task, history: [] }));
    for (const e of [...a.events, ...c.events]) if (e.type === "agent.acted") expect(legal).toContain(e.text);
  });

  it("record and replay --verify, expert and random", async () => {
    for (const policy of ["expert", "random"]) {
      // Each policy's own output: the expert's "verified 5" would otherwise pass random's check too.
      output.clear();
      const out = join(tempDir(), policy);
      const args = ["--env", "warehouse", "--policy", policy, "--episodes", "5", "--out", out];
      expect(await main(["record", ...args]), output.stderr).toBe(0);
      expect(readdirSync(out).filter((f) => f.endsWith(".jsonl"))).toHaveLength(5);
      expect(await main(["replay", out, "--verify"]), output.stderr).toBe(0);
      expect(output.stdout).toContain("verified 5 journal(s) ok, 0 failed");
    }
  });

  it("the expert beats random on mean return", async () => {
    const mean = async (policy: typeof expertPolicy) => {
      const runs = await collect({ env: warehouseEnv, policy: policy(), seed: "compare", episodes: 12 });
      return runs.reduce((sum, r) => sum + r.record.return, 0) / runs.length;
    };
    const [expert, random] = [await mean(expertPolicy), await mean(randomPolicy)];
    expect(expert).toBeGreaterThan(random + 0.3);
  });
});

describe("warehouse's sloppy demonstrator", () => {
  it("acts as the expert would, except that most of its orders are of SLOPPY_QTY; it scores below the expert", async () => {
    // Each turn, the expert's action and the sloppy one's on the same request (the sloppy one is played).
    const pairs: [string, string][] = [];
    const [expert, sloppy] = [expertPolicy(), sloppyPolicy()];
    const both = scriptedPolicy("both", warehouseEnv.tokenizer, async (request) => {
      const [[e], [s]] = await Promise.all([expert.act([request]), sloppy.act([request])]);
      pairs.push([e.text, s.text]);
      return s.text;
    });
    const episodes = 40;
    const played = await collect({ env: warehouseEnv, policy: both, seed: "sloppy", episodes });
    const orderOf = (text: string) => {
      const action = parseAction(text, warehouseEnv.tools);
      return action.kind === "call" && action.tool === "order" ? (action.args as { item: Item; qty: number }) : null;
    };
    let orders = 0;
    let small = 0;
    for (const [e, s] of pairs) {
      const [eo, so] = [orderOf(e), orderOf(s)];
      if (eo === null || so === null) {
        expect(s).toBe(e);
        continue;
      }
      orders++;
      expect(so.item).toBe(eo.item);
      if (so.qty !== eo.qty) {
        expect(so.qty).toBe(SLOPPY_QTY);
        small++;
      }
    }
    // About SLOPPY_RATE of its orders are small (fewer where the expert's qty is SLOPPY_QTY itself).
    expect(orders).toBeGreaterThan(100);
    expect(small / orders).toBeGreaterThan(SLOPPY_RATE - 0.15);
    expect(small / orders).toBeLessThan(SLOPPY_RATE + 0.1);
    // Its habit costs it: lower return and success than the expert's on the same seeds.
    const mean = (runs: typeof played, f: (r: (typeof played)[number]) => number) =>
      runs.reduce((sum, r) => sum + f(r), 0) / runs.length;
    const fromExpert = await collect({ env: warehouseEnv, policy: expertPolicy(), seed: "sloppy", episodes });
    const success = (r: (typeof played)[number]) => Number(r.record.metrics?.success ?? 0);
    expect(mean(played, (r) => r.record.return)).toBeLessThan(mean(fromExpert, (r) => r.record.return) - 0.2);
    expect(mean(played, success)).toBeLessThan(mean(fromExpert, success));
  });
});

describe("warehouse's tokenizer", () => {
  it("has one token for every number the world can show (the most stock: a start of 8 and an order a day)", () => {
    for (const n of [0, 99, 100, 8 + DAYS * MAX_QTY]) expect(warehouseEnv.tokenizer.encode(String(n))).toHaveLength(1);
  });
});

describe("warehouse's order", () => {
  it("takes a whole qty of 1 to 20 in its parameters: any other is a malformed action, not a tool that throws", async () => {
    for (const qty of [0, -3, MAX_QTY + 1, 2.5])
      expect(parseAction(`<order>{"item":"gears","qty":${qty}}</order>`, warehouseEnv.tools).kind, `qty ${qty}`).toBe(
        "malformed",
      );
    expect(parseAction(`<order>{"item":"gears","qty":${MAX_QTY}}</order>`, warehouseEnv.tools).kind).toBe("call");
    // An episode that orders too many: the day's malformed-action penalty, and no tool call at all (train's
    // "a tool's code threw ... fix the tool" would otherwise flag the environment itself).
    const journal = new MemoryJournal();
    const tooMany = `<order>{"item":"gears","qty":${MAX_QTY + 5}}</order>`;
    const { events } = await runEpisode({
      env: warehouseEnv,
      policy: new PolicyActor(scriptedPolicy("too-many", warehouseEnv.tokenizer, () => tooMany)),
      journal,
      seed: "too-many",
    });
    expect(events.filter((e) => e.type === "tool.called")).toEqual([]);
    expect(
      events.filter((e) => e.type === "reward.assigned" && e.reason === "malformed action").map((e) => e.type),
    ).toHaveLength(DAYS);
  });
});

const args = {
  check_stock: fc.constantFrom("bolts", "gears", "nuts").map((item) => ({ item })),
  order: fc.record({ item: fc.constantFrom(...ITEMS), qty: fc.integer({ min: 1, max: MAX_QTY }) }),
};
const generators = {
  args,
  // The kit's actions (well-formed and hostile), and orders of a qty out of range (malformed: they do not parse).
  actions: fc.oneof(
    { weight: 9, arbitrary: actionArbitrary(warehouseEnv, { args }) },
    {
      weight: 1,
      arbitrary: fc
        .record({ item: fc.constantFrom(...ITEMS), qty: fc.constantFrom(-2, 0, MAX_QTY + 1, MAX_QTY + 3, 2.5) })
        .map(({ item, qty }) => `<order>{"item":"${item}","qty":${qty}}</order>`),
    },
  ),
};

describe("warehouse's rewards", () => {
  it("hold their invariants on generated episodes, hostile actions and tool failures included", async () => {
    await checkRewards(warehouseEnv, {
      ...generators,
      // Every episode runs DAYS actions: shorter scripts never reach the outcome, which an invariant checks.
      minActions: DAYS,
      maxActions: DAYS + 2,
      numRuns: 15,
      invariants: [
        // A day: a stock-out of both items (-0.4); an order (-0.05); a malformed action (-0.1); the fill rate.
        rewardBounds({ min: 2 * REWARDS.stockout, max: 1 }),
        rewardBounds({ min: 0, max: 1, kind: "outcome" }),
        // At worst a malformed action and two stock-outs every day; at best every day's demand met, and all of it.
        returnBounds({ min: DAYS * (REWARDS.malformed + 2 * REWARDS.stockout), max: DAYS * 2 * REWARDS.inStock + 1 }),
        processRewardCap(DAYS * 2 * REWARDS.inStock),
        neverCrashes(),
        replaysIdentically(),
      ],
    });
  });
});

type State = {
  task: WarehouseTask;
  seed: string;
  day: number;
  stock: Record<Item, number>;
  due: { item: Item; qty: number; day: number }[];
  served: number;
  demanded: number;
};

const report = (s: State, item: Item) =>
  `${item} : ${s.stock[item]} on hand , ${s.due.filter((d) => d.item === item).reduce((n, d) => n + d.qty, 0)} on order .`;

/** warehouse as its README describes it, drawing each day's demand from the episode's seed. */
const warehouseModel: EnvModel<State, WarehouseTask> = {
  init: (task, seed) => ({ task, seed, day: 0, stock: { ...task.start }, due: [], served: 0, demanded: 0 }),
  opening: (task, seed) =>
    `day 0 of ${DAYS} , orders arrive ${DELAY} days later . ${ITEMS.map((i) => report(warehouseModel.init(task, seed), i)).join(" ")}`,
  act: (s, text, toolResult) => {
    let reward = 0;
    let note = "error : malformed action .";
    const due = [...s.due];
    const action = parseAction(text, warehouseEnv.tools);
    if (action.kind === "call" && action.tool === "check_stock") {
      const item = String((action.args as { item: string }).item);
      if (toolResult && !toolResult.ok) note = `error : check_stock failed ( ${toolResult.error.kind} ) .`;
      else note = item === "bolts" || item === "gears" ? report(s, item) : `no item ${item} .`;
    } else if (action.kind === "call") {
      // An order of a qty outside 1..MAX_QTY does not parse: it is malformed, below.
      const { item, qty } = action.args as { item: Item; qty: number };
      if (toolResult && !toolResult.ok) note = `error : order failed ( ${toolResult.error.kind} ) .`;
      else {
        reward += REWARDS.order;
        due.push({ item, qty, day: s.day + DELAY });
        note = `ordered ${qty} ${item} , due day ${s.day + DELAY} .`;
      }
    } else reward += REWARDS.malformed;
    // The day passes: deliveries due arrive, then customers buy what the seed says they want.
    const stock = { ...s.stock };
    for (const d of due) if (d.day <= s.day) stock[d.item] += d.qty;
    const rng = Rng.fromSeed(`${s.seed}:demand:${s.day}`);
    const sales: string[] = [];
    let { served, demanded } = s;
    for (const item of ITEMS) {
      const want = rng.int(0, 2 * s.task.meanDemand[item]);
      const sold = Math.min(want, stock[item]);
      stock[item] -= sold;
      served += sold;
      demanded += want;
      reward += sold < want ? REWARDS.stockout : REWARDS.inStock;
      sales.push(`${item} sold ${sold}${sold < want ? ` ( ${want - sold} short )` : ""}`);
    }
    const next = { ...s, day: s.day + 1, stock, due: due.filter((d) => d.day > s.day), served, demanded };
    if (next.day >= DAYS) return { state: next, reward: reward + (demanded === 0 ? 1 : served / demanded), done: true };
    return { state: next, reward, done: false, observation: `${note} day ${s.day} : ${sales.join(" , ")} .` };
  },
};

describe("warehouse behaves like its model", () => {
  it("on random action sequences, with failing tools", async () => {
    await checkModel(warehouseEnv, {
      ...generators,
      model: warehouseModel,
      maxCommands: DAYS,
      numRuns: 20,
      toolFaults: failedToolResultArbitrary(),
    });
  });
});

/**
 * `npm run docs:images`: the README's observability pictures, made by the commands it documents.
 *
 *   runs/docs/{demos,warm}       400 expert episodes, and a GPT behaviour-cloned on them (the warm start)
 *   runs/docs/{grpo,rloo}        12 updates of each from that warm start
 *   docs/img/plot-*.svg          `agent-r1 plot runs/docs/grpo runs/docs/rloo`: two charts of the overlay
 *   docs/img/viewer.png          `agent-r1 inspect runs/docs/grpo --html ...` in Chromium, an episode open
 *
 * Steps whose output exists are not redone (delete runs/docs to start over).
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { launchChromium } from "./browser.ts";

const RUNS = "runs/docs";
const IMG = "docs/img";

const agentR1 = (...args: string[]) => {
  process.stderr.write(`$ npx agent-r1 ${args.join(" ")}\n`);
  const done = spawnSync(process.execPath, ["bin/agent-r1.js", ...args], { stdio: "inherit" });
  if (done.status !== 0) throw new Error(`agent-r1 ${args[0]} exited ${done.status}`);
};

if (!existsSync(join(RUNS, "demos")))
  agentR1(
    "record",
    "--env",
    "lookup",
    "--policy",
    "expert",
    "--episodes",
    "400",
    "--seed",
    "docs",
    "--out",
    join(RUNS, "demos"),
  );
if (!existsSync(join(RUNS, "warm")))
  agentR1("sft", "--env", "lookup", "--data", join(RUNS, "demos"), "--out", join(RUNS, "warm"), "--epochs", "12");
for (const algo of ["grpo", "rloo"])
  if (!existsSync(join(RUNS, algo, "metrics.jsonl")))
    agentR1(
      "train",
      ...["--env", "lookup", "--algo", algo, "--init", join(RUNS, "warm"), "--steps", "12", "--tasks", "8"],
      ...["--group-size", "8", "--eval-episodes", "0", "--seed", "1", "--out", join(RUNS, algo)],
    );

agentR1("plot", join(RUNS, "grpo"), join(RUNS, "rloo"), "--out", join(RUNS, "plots"));
mkdirSync(IMG, { recursive: true });
for (const name of ["meanReturn", "successRate"])
  copyFileSync(join(RUNS, "plots", `${name}.svg`), join(IMG, `plot-${name}.svg`));

const page = resolve(RUNS, "grpo", "viewer.html");
agentR1("inspect", join(RUNS, "grpo"), "--html", page);
const browser = await launchChromium();
try {
  const tab = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  await tab.goto(`file://${page}`);
  // The last of the best-paid successes (a two-hop one: two lookups with process rewards, the answer).
  const returns = await tab
    .locator("details.episode.success")
    .evaluateAll((all) => all.map((el) => Number(el.getAttribute("data-return"))));
  const best = Math.max(...returns);
  const episode = tab.locator(`details.episode.success[data-return="${best}"]`).last();
  const anchor = await episode.getAttribute("id");
  await tab.goto(`file://${page}#${anchor}`);
  await tab.screenshot({ path: join(IMG, "viewer.png") });
  process.stderr.write(`wrote ${join(IMG, "viewer.png")} (episode ${await episode.getAttribute("data-episode")})\n`);
} finally {
  await browser.close();
}

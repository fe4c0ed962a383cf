/**
 * The viewer in a real browser (Debian's chromium through playwright-core): the timeline's content, the
 * mask shading, the charts, and journals shown as data, never run. Skipped when there is no Chromium,
 * unless REQUIRE_BROWSER=1 (CI sets it once it has installed one), where that is a failure.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, hasChromium, launchChromium } from "../../scripts/browser.ts";
import { inspectHtml } from "../../src/cli/inspect.ts";
import type { EpisodeEvent } from "../../src/kernel/events.ts";
import { tempDir } from "../support/index.ts";
import { HOSTILE, makeRunFolder } from "./fixtures.ts";

const required = process.env.REQUIRE_BROWSER === "1";
const available = hasChromium();
if (!available)
  console.warn(
    `viewer browser test ${required ? "FAILS" : "skipped"}: no Chromium at ${CHROMIUM} ` +
      "(apt-get install chromium; REQUIRE_BROWSER=1 makes its absence a failure)",
  );

/** The page's globals the checks read (this project compiles without the DOM types). */
type PageGlobals = { getComputedStyle(el: unknown): { backgroundColor: string }; __pwned?: unknown };

const eventsOf = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as EpisodeEvent);
const tokensOf = (events: EpisodeEvent[], type: "agent.acted" | "env.observed") =>
  events.reduce((n, e) => n + (e.type === type ? e.tokens.length : 0), 0);

describe.skipIf(!available && !required)("the episode viewer in Chromium", () => {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  // Made in beforeAll: a skipped describe's body still runs, and its hooks (which remove it) do not.
  let out: string;
  let run: string;

  beforeAll(async () => {
    if (!available) throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}`);
    out = tempDir("agent-r1-viewer-");
    run = await makeRunFolder();
    await inspectHtml(run, join(out, "run.html"), {});
    await inspectHtml("replays/lookup/expert/ep-golden-1.jsonl", join(out, "one.html"), {});
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows a run: its charts, its episodes, and an opened timeline with tool calls, rewards and token masks", async () => {
    await page.goto(`file://${join(out, "run.html")}`);
    expect(await page.locator("nav li a").count()).toBe(9);
    expect(await page.locator("#metrics figure.chart svg").count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator("#metrics").textContent()).toContain("success rate");

    // Open the expert's ep-golden-1 from the list (episodes/u00000): 3 turns, a lookup, rewards with reasons.
    await page.locator("nav li a", { hasText: "ep-golden-1" }).first().click();
    const episode = page.locator("details.episode[open]");
    await expect.poll(() => episode.count()).toBe(1);
    expect(await episode.getAttribute("data-episode")).toBe("ep-golden-1");
    expect(await episode.locator("li.turn.acted").count()).toBe(3);
    expect(await episode.locator(".ev.tool-call").first().textContent()).toContain('lookup({"key":"k35"})');
    const reward = episode.locator(".ev.reward.process").first();
    expect(await reward.textContent()).toContain("+0.2");
    expect(await reward.locator(".reason").textContent()).toBe("retrieved a needed key");
    expect(await episode.locator(".ev.reward.outcome").count()).toBe(1);
    expect(await episode.locator(".ev.state .hash").count()).toBeGreaterThan(0);

    // Shading: every action token is mask 1, every observation token mask 0, and they look different.
    const events = eventsOf("replays/lookup/expert/ep-golden-1.jsonl");
    expect(await episode.locator(".ev.action .tok.mask-1").count()).toBe(tokensOf(events, "agent.acted"));
    expect(await episode.locator(".ev.observation .tok.mask-0").count()).toBe(tokensOf(events, "env.observed"));
    expect(await episode.locator(".tok.mask-0").count()).toBe(tokensOf(events, "env.observed"));
    const background = (selector: string) =>
      episode
        .locator(selector)
        .first()
        .evaluate((el) => (globalThis as unknown as PageGlobals).getComputedStyle(el).backgroundColor);
    expect(await background(".tok.mask-1")).not.toBe(await background(".tok.mask-0"));
    expect(await episode.locator(".ev.action .tokens").first().textContent()).toBe("<lookup>k35</lookup><eos>");

    mkdirSync(out, { recursive: true });
    await page.screenshot({ path: join(out, "viewer.png") });
    expect(statSync(join(out, "viewer.png")).size).toBeGreaterThan(10_000);
  });

  it("shows hostile action text as text and runs none of it", async () => {
    await page.goto(`file://${join(out, "run.html")}`);
    await page.locator("nav li a", { hasText: "ep-hostile-0" }).click();
    const episode = page.locator("details.episode[open]");
    // The click opens the episode asynchronously: wait for it, as the first test does (a bare count() raced it in CI).
    await expect.poll(() => episode.count()).toBe(1);
    expect(await episode.getAttribute("data-episode")).toBe("ep-hostile-0");
    const actions = episode.locator(".ev.action .tokens");
    await expect.poll(() => actions.count()).toBe(3);
    expect(await actions.nth(0).textContent()).toBe(`${HOSTILE[0]}<eos>`);
    expect((await actions.nth(1).textContent())?.replace(/·/g, " ")).toBe(`${HOSTILE[1]}<eos>`);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).__pwned)).toBeUndefined();
    expect(await page.locator("script").count()).toBe(1);
    expect(await page.locator("img").count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("keeps its filter and buttons working when the address ends in a # that is not URI-decodable", async () => {
    const own = await browser.newPage();
    const thrown: string[] = [];
    own.on("pageerror", (e) => thrown.push(String(e)));
    await own.goto(`file://${join(out, "run.html")}#%E0%A4%A`);
    await own.fill("#filter", "no such episode");
    expect(await own.locator("nav li:not([hidden])").count()).toBe(0);
    await own.click("#expand");
    expect(await own.locator("details.episode[open]").count()).toBe(9);
    expect(thrown).toEqual([]);
    await own.close();
  });

  it("opens a single journal's timeline at once", async () => {
    await page.goto(`file://${join(out, "one.html")}`);
    expect(await page.locator("details.episode").count()).toBe(1);
    expect(await page.locator("details.episode[open] li.turn.acted").count()).toBe(3);
    expect(await page.locator("#metrics").count()).toBe(0);
    expect(existsSync(join(out, "viewer.png"))).toBe(true);
  });
});

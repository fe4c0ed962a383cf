import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { lookup } from "../../actors/lookup/index.ts";
import { inspectPath, tokenizerResolver } from "../../src/cli/inspect.ts";
import { main } from "../../src/cli/main.ts";
import { episodeToSequence } from "../../src/learn/trajectory.ts";
import { evenlySpaced, findJournals } from "../../src/observe/journals.ts";
import { episodeHtml, esc, readEpisodeFile, viewerHtml } from "../../src/observe/viewer.ts";
import { runCli, tempDir } from "../support/index.ts";
import { HOSTILE, makeRunFolder } from "./fixtures.ts";

const GOLDEN = "replays/lookup/expert/ep-golden-1.jsonl";
const tokenizerFor = tokenizerResolver();
const count = (html: string, what: string) => html.split(what).length - 1;

/** agent-r1 in a new process, as a user runs it (runCli runs it in this one). */
const cli = (...args: string[]) => {
  const run = spawnSync(process.execPath, ["bin/agent-r1.js", ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
};

describe("the episode viewer page", () => {
  let run: string;
  beforeAll(async () => {
    run = await makeRunFolder();
  });

  it("escapes everything it shows", () => {
    expect(esc(`<a href="x" title='y'>&</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
    // Control characters are written as escapes, not raw bytes (invisible on the page); newlines and tabs stay.
    expect(esc("a\u0000b\u001bc\u007fd\ne\tf")).toBe("a\\u0000b\\u001bc\\u007fd\ne\tf");
  });

  it("writes bidi overrides as escapes: a recorded text cannot turn the page's own text around", () => {
    expect(esc("a\u202eb\u202ac\u2067d\u2069e \u05e9\u05dc\u05d5\u05dd")).toBe(
      "a\\u202eb\\u202ac\\u2067d\\u2069e \u05e9\u05dc\u05d5\u05dd",
    );
  });

  it("shades exactly the tokens the learner trains on: the action mask of the episode's sequence", async () => {
    const episode = await readEpisodeFile(GOLDEN);
    const html = episodeHtml(episode, "ep-0", { tokenizerFor });
    const mask = episodeToSequence(episode.events).actionMask;
    expect(count(html, 'class="tok mask-1"')).toBe(mask.filter((m) => m === 1).length);
    expect(count(html, 'class="tok mask-0"')).toBe(mask.filter((m) => m === 0).length);
    expect(html).toContain("decoded with the environment's tokenizer");
    expect(count(html, '<li class="turn acted"')).toBe(3);
    expect(html).toContain('<span class="reason">retrieved a needed key</span>');
    expect(html).toMatch(/class="ev reward outcome positive".*<b class="value">\+1<\/b>/);
    expect(html).toContain('<b class="tool">lookup</b>(<code>{&quot;key&quot;:&quot;k35&quot;}</code>)');
  });

  it("without the environment's tokenizer, shows the recorded ids and the recorded text", async () => {
    const html = episodeHtml(await readEpisodeFile(GOLDEN), "ep-0", {});
    expect(html).toContain("token ids as recorded");
    expect(html).toContain('<pre class="text">&lt;lookup&gt;k35&lt;/lookup&gt;</pre>');
    expect(html).toContain('class="tok mask-1 id"');
  });

  it("a tokenizer other than the recorded one is not used", () => {
    expect(tokenizerFor("lookup", lookup.tokenizer.id)).toBe(lookup.tokenizer);
    expect(tokenizerFor("lookup", "words-v1:another")).toBeUndefined();
    expect(tokenizerFor("no-such-env", lookup.tokenizer.id)).toBeUndefined();
  });

  it("a run folder: charts, config, every episode listed; hostile text stays text", async () => {
    const warnings: string[] = [];
    const page = await viewerHtml(run, {
      tokenizerFor,
      charts: async () => [{ title: "mean return", svg: "<svg></svg>" }],
      warn: (line) => warnings.push(line),
    });
    expect(page.episodes).toBe(9);
    expect(page.shown).toBe(9);
    expect(page.html).toContain('<section id="metrics">');
    expect(page.html).toContain('<section id="config">');
    expect(page.html).toContain("<h3>episodes/u00000</h3>");
    expect(page.html).toContain("<h3>episodes/u00001</h3>");
    expect(count(page.html, '<details class="episode')).toBe(9);
    // The page's own script is the only one; no element comes from a journal.
    expect(count(page.html.toLowerCase(), "<script")).toBe(1);
    expect(page.html).not.toContain("<img");
    const plain = await viewerHtml(join(run, "episodes", "u00001", "ep-hostile-0.jsonl"));
    expect(plain.html).toContain(`<pre class="text">${esc(HOSTILE[0])}</pre>`);
    expect(count(plain.html.toLowerCase(), "<script")).toBe(1);
    expect(warnings).toEqual([]);
  });

  it("a run's warm-start demonstrations (the expert's) get their own means, apart from training's", async () => {
    const withDemos = await makeRunFolder("with-demos");
    cpSync("replays/lookup/expert", join(withDemos, "warm-start", "demos"), { recursive: true });
    const meanReturn = async (dir: string) => {
      const files = await findJournals(dir);
      const returns = await Promise.all(
        files.map(async (f) => (await readEpisodeFile(f)).events.find((e) => e.type === "episode.ended")),
      );
      return returns.reduce((s, e) => s + (e?.type === "episode.ended" ? e.return : 0), 0) / files.length;
    };
    const expected = Number((await meanReturn("replays/lookup/expert")).toFixed(4)).toString();
    const { html } = await viewerHtml(withDemos);
    expect(html).toMatch(/ · training: mean return -?[\d.]+, success [\d.]+ · /);
    expect(html).toContain(` · warm-start demonstrations: mean return ${expected}, success 1`);
    // Without demonstrations, the page gives one mean as before.
    expect((await viewerHtml(run)).html).not.toContain("training:");
  });

  it("a run's own episodes are shown before its warm-start demonstrations, and the means say of how many they are", async () => {
    const withDemos = await makeRunFolder("sampled");
    cpSync("replays/lookup/expert", join(withDemos, "warm-start", "demos"), { recursive: true });
    const found = (await findJournals(withDemos)).length;
    const policy = found - 4;
    // Room for all the policy's episodes and one demonstration: the demonstrations give way, not the policy's.
    const { html, shown } = await viewerHtml(withDemos, { maxEpisodes: found - 3 });
    expect(shown).toBe(found - 3);
    expect(count(html, 'id="ep-')).toBe(found - 3);
    expect(count(html, "<h3>warm-start/demos</h3>")).toBe(1);
    expect(html).toContain(` · training: mean return `);
    expect(html).toContain(` · warm-start demonstrations (1 of 4 shown): mean return `);
    // Room for fewer than the policy's: an even sample of them, no demonstration, and the mean says so.
    const fewer = await viewerHtml(withDemos, { maxEpisodes: policy - 1 });
    expect(fewer.html).not.toContain("warm-start/demos");
    expect(fewer.html).toContain(
      `${found} episode(s), ${policy - 1} shown (evenly spaced) · of the ${policy - 1} shown: mean return `,
    );
    // A folder of journals without demonstrations: its one mean is of the shown ones, and says so.
    const page = await viewerHtml("replays/lookup/expert", { maxEpisodes: 2 });
    expect(page.html).toContain("4 episode(s), 2 shown (evenly spaced) · of the 2 shown: mean return ");
    expect((await viewerHtml("replays/lookup/expert")).html).not.toContain(" shown");
  });

  it("a damaged journal is shown up to the damage, with the problem", async () => {
    const dir = tempDir();
    const lines = readFileSync(GOLDEN, "utf8").split("\n");
    lines[5] = lines[5].replace('"digest":"', '"digest":"0');
    writeFileSync(join(dir, "bad.jsonl"), lines.join("\n"));
    const warnings: string[] = [];
    const page = await viewerHtml(dir, { warn: (line) => warnings.push(line) });
    expect(page.html).toContain('class="episode broken"');
    expect(page.html).toMatch(/class="error">[^<]*bad\.jsonl:6/);
    expect(count(page.html, 'data-seq="')).toBe(5);
    expect(warnings.join("\n")).toMatch(/bad\.jsonl:6/);
    expect(page.unreadable).toBe(1);
    // The command writes the page and exits 1, as the terminal view does on damage.
    const file = join(tempDir(), "damaged.html");
    const done = await runCli("inspect", dir, "--html", file);
    expect(done.code, done.stderr).toBe(1);
    expect(done.stdout).toContain(`wrote ${file}: 1 of 1 episode(s); 1 unreadable, marked on the page`);
    expect(existsSync(file)).toBe(true);
  });

  it("journals that hold the same episode (a copied file) are named in a warning, and counted once in the page's means", async () => {
    const dir = tempDir();
    cpSync("replays/lookup/expert", dir, { recursive: true });
    const returns = async (files: string[]) =>
      Promise.all(
        files.map(async (f) => {
          const end = (await readEpisodeFile(f)).events.find((e) => e.type === "episode.ended");
          return end?.type === "episode.ended" ? end.return : 0;
        }),
      );
    const mean = (xs: number[]) => Number((xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4)).toString();
    const before = await viewerHtml(dir);
    const expected = mean(await returns(await findJournals(dir)));
    expect(before.html).toContain(`mean return ${expected}`);
    const original = join(dir, "ep-golden-1.jsonl");
    const copy = join(dir, "ep-golden-1 (copy).jsonl");
    copyFileSync(original, copy);
    const warnings: string[] = [];
    const page = await viewerHtml(dir, { warn: (line) => warnings.push(line) });
    expect(warnings).toEqual([
      `warning: ${copy} and ${original} hold the same episode (${(await readEpisodeFile(original)).events[0].episode}, the same events): one is a copy of the other, or the same seed recorded twice (the same last digest), counted once in the page's means; sft refuses them until one is removed`,
    ]);
    // Both are on the page (they are files there); the summary's mean is the episodes', not the files'.
    expect(page.shown).toBe(before.shown + 1);
    expect(page.html).toContain(`mean return ${expected}`);
    expect(page.html).toContain("1 copy of another journal (the same episode), counted once");
    // The terminal view says so too, on its warning stream, as replay does.
    const lines: string[] = [];
    const said: string[] = [];
    await inspectPath(
      dir,
      (line) => lines.push(line),
      Number.POSITIVE_INFINITY,
      (line) => said.push(line),
    );
    expect(said).toEqual([expect.stringMatching(/^warning: .* hold the same episode .*: one is a copy of the other/)]);
    expect(said[0]).toContain(`${copy} and ${original}`);
    expect(lines.join("\n")).not.toContain("same episode");
    const done = await runCli("inspect", dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(`warning: ${copy} and ${original} hold the same episode`);
  });

  it("samples a large folder evenly, keeping the first and the last", () => {
    expect(evenlySpaced([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4)).toEqual([1, 4, 7, 10]);
    expect(evenlySpaced([1, 2, 3], 5)).toEqual([1, 2, 3]);
  });

  it("finds a run's journals under episodes/, in natural order, and never metrics.jsonl", async () => {
    const files = await findJournals(run);
    expect(files).toHaveLength(9);
    expect(files.some((f) => f.endsWith("metrics.jsonl"))).toBe(false);
    expect(files[0]).toMatch(/episodes\/u00000\/ep-golden-0\.jsonl$/);
    const lines: string[] = [];
    await inspectPath(run, (line) => lines.push(line));
    expect(lines.filter((l) => l.startsWith("# "))).toHaveLength(9);
    expect(lines.join("\n")).toContain("reward -0.1 (process, turn 0)");
  });

  it("agent-r1 inspect --html writes the page", () => {
    const file = join(tempDir(), "page.html");
    const done = cli("inspect", run, "--html", file, "--max-episodes", "4");
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(`wrote ${file}: 4 of 9 episode(s)`);
    const html = readFileSync(file, "utf8");
    expect(html).toContain('<figure class="chart" data-title="success rate">');
    expect(html).toContain("4 shown (evenly spaced)");
    expect(done.stderr).toMatch(/metrics\.jsonl:3: skipped a malformed line/);
  });

  it("agent-r1 inspect --html never overwrites a journal, a metrics file or a folder (only an earlier page)", async () => {
    const dir = tempDir();
    const journal = join(dir, "ep.jsonl");
    copyFileSync(GOLDEN, journal);
    const before = readFileSync(journal, "utf8");
    let done = await runCli("inspect", journal, "--html", journal);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(
      `error: --html ${journal}: the page's file name must end in .html (and this file exists: inspect replaces only its own pages)`,
    );
    expect(readFileSync(journal, "utf8")).toBe(before);
    // A new file too: a page written as page.txt could not be replaced by the same command later.
    done = await runCli("inspect", journal, "--html", join(dir, "page.txt"));
    expect(done.code).toBe(2);
    expect(done.stderr).toContain("the page's file name must end in .html");
    expect(existsSync(join(dir, "page.txt"))).toBe(false);
    done = await runCli("inspect", journal, "--html", dir);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(`error: --html ${dir} is a folder; give the page's file name`);
    expect(done.stderr).not.toMatch(/\n\s+at /);
    // A page of the user's own is kept; one inspect wrote is replaced.
    const page = join(dir, "page.html");
    writeFileSync(page, "<html>my precious page</html>");
    done = await runCli("inspect", journal, "--html", page);
    expect(done.code).toBe(2);
    expect(done.stderr).toContain(`error: --html ${page} exists and is not a page inspect wrote`);
    expect(readFileSync(page, "utf8")).toBe("<html>my precious page</html>");
    rmSync(page);
    done = await runCli("inspect", journal, "--html", page);
    expect(done.code, done.stderr).toBe(0);
    const first = readFileSync(page, "utf8");
    expect(first).toContain("<!doctype html>");
    done = await runCli("inspect", GOLDEN, "--html", page);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(page, "utf8")).not.toBe(first);
    // An empty file (a page an earlier version was killed while writing: truncated, then written) holds
    // nothing to lose: replaced, not refused as someone else's page. The page is now written aside and renamed.
    writeFileSync(page, "");
    done = await runCli("inspect", GOLDEN, "--html", page);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(page, "utf8")).toContain("<!doctype html>");
    expect(readdirSync(dir).filter((name) => name.includes(".tmp-"))).toEqual([]);
  });

  it("agent-r1 inspect of a missing path exits 2 with one line", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const file = join(tempDir(), "page.html");
      expect(await main(["inspect", join(run, "nope"), "--html", file])).toBe(2);
      expect(stderr.mock.calls.map((c) => String(c[0]))).toEqual([
        `error: no such file or folder: ${join(run, "nope")}\n`,
      ]);
      expect(existsSync(file)).toBe(false);
    } finally {
      stderr.mockRestore();
    }
  });
});

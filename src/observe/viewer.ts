/**
 * The episode viewer: one self-contained HTML page (inline CSS and a few lines of JS, no network) that
 * shows recorded episodes as timelines: per turn the observation, the action's tokens shaded by the
 * action mask (sampled by the policy: 1, observation: 0), tool calls and results, the rewards the turn
 * earned with their reasons, state transitions with their hashes, policy versions and event digests.
 * For a run folder it adds the metric charts (inline SVG), the config, the evaluation and a list of
 * episodes to open.
 *
 * Journals are data: every recorded string is HTML-escaped, and the page's script never turns data
 * into markup.
 */
import { existsSync, statSync } from "node:fs";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { COPIES_LISTED, EpisodeCopies, moreCopies, SAME_LAST_DIGEST, sameEpisode } from "../journal/copies.ts";
import { streamJournalFile } from "../journal/jsonl.ts";
import { readJsonText } from "../kernel/canonical.ts";
import { JournalError, writingFileAsync } from "../kernel/errors.ts";
import type { EpisodeEvent, EventOf } from "../kernel/events.ts";
import { makeFolders } from "../kernel/folders.ts";
import { SPECIAL_TOKENS, type Tokenizer } from "../kernel/tokenizer.ts";
import { envSpecOf } from "../runtime/env.ts";
import { evenlySpaced, findJournals, isRunFolder } from "./journals.ts";
import { escapeUnseen } from "./unseen.ts";

/** Marks the viewer's pages, so `inspect --html` replaces a page of its own and nothing else. */
const VIEWER_GENERATOR = "agent-r1 inspect";

/** Whether an HTML text is a page the viewer wrote: its generator mark, or (pages older than the mark) its header. */
export const isViewerPage = (html: string): boolean =>
  html.includes(`<meta name="generator" content="${VIEWER_GENERATOR}">`) || html.includes("<header><h1>agent-r1 · ");

export interface ViewerOptions {
  /** The tokenizer of an environment, when it is known and is the recorded one; else token ids are shown. */
  readonly tokenizerFor?: (
    envId: string,
    tokenizerId: string,
    options?: Readonly<Record<string, string>>,
  ) => Tokenizer | undefined;
  /** Most episodes on one page (default 200): more are sampled evenly, the first and last kept. */
  readonly maxEpisodes?: number;
  /** Most tokens drawn per event (default 1000). */
  readonly maxTokens?: number;
  /**
   * Where the environment's code threw, for an episode that ended in an environment error (journals keep the
   * message only; the CLI finds the line by replaying the episode with its environment).
   */
  readonly thrownAtOf?: (events: readonly EpisodeEvent[]) => string | undefined;
  /** Metric charts for a run folder (inline SVG); the CLI passes `metricCharts` of ./plot.ts. */
  readonly charts?: (runDir: string) => Promise<readonly { readonly title: string; readonly svg: string }[]>;
  readonly warn?: (line: string) => void;
  /** Progress while the shown journals are read: given their number, a counter ticked once per journal, then stopped. */
  readonly progress?: (journals: number) => { tick(): void; stop(): void } | undefined;
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
/** Escapes text for HTML content and quoted attribute values. */
export const esc = (value: unknown): string => escapeUnseen(String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]));

const json = (value: unknown) => JSON.stringify(value) ?? String(value);
const fmt = (x: number) => (Number.isInteger(x) ? String(x) : Number(x.toFixed(4)).toString());
const signed = (x: number) => `${x > 0 ? "+" : ""}${fmt(x)}`;
const short = (hash: string) => hash.slice(0, 8);

/** One episode as read: its events, and the problem that stopped the reading, if any. */
export interface EpisodeFile {
  readonly file: string;
  /** Where it is listed: the folder it lies in, relative to the viewed path (e.g. episodes/u00003). */
  readonly group: string;
  readonly events: readonly EpisodeEvent[];
  readonly error?: string;
  /** A torn last line (a crash mid-write), the one damage `replay --repair` cuts back. */
  readonly torn?: boolean;
}

export const readEpisodeFile = async (file: string, group = ""): Promise<EpisodeFile> => {
  const events: EpisodeEvent[] = [];
  try {
    for await (const event of streamJournalFile(file)) events.push(event);
    return { file, group, events };
  } catch (cause) {
    const torn = cause instanceof JournalError && cause.repairable;
    return {
      file,
      group,
      events,
      error: cause instanceof Error ? cause.message : String(cause),
      ...(torn ? { torn } : {}),
    };
  }
};

// --- tokens --------------------------------------------------------------------------------------------

/** Tokens that decode to no text, shown by name: the special tokens, and `<glue>` of implicit-space tokenizers. */
const MARKERS = [...SPECIAL_TOKENS, "<glue>"];
const specialNames = new WeakMap<Tokenizer, Map<number, string>>();
/** The name of a token that decodes to no text (<eos>...). */
const specialOf = (tokenizer: Tokenizer, id: number): string | undefined => {
  let names = specialNames.get(tokenizer);
  if (!names) {
    names = new Map();
    for (const name of MARKERS) {
      const special = tokenizer.idOf(name);
      if (special !== undefined) names.set(special, name);
    }
    specialNames.set(tokenizer, names);
  }
  return names.get(id);
};

const piece = (tokenizer: Tokenizer, id: number): string => {
  const special = specialOf(tokenizer, id);
  if (special !== undefined) return special;
  let text: string;
  try {
    text = tokenizer.decode([id]);
  } catch {
    return `⟨${id}⟩`;
  }
  if (text === "" || text.includes("\uFFFD")) return `⟨${id}⟩`;
  // A token of a control character shows as its picture (␀ for U+0000), as a newline shows as ⏎.
  return text
    .replace(/\n/g, "⏎")
    .replace(/ /g, "·")
    .replace(/[^\t\r\u0020-\u007e\u0080-\uffff]/g, (c) =>
      String.fromCharCode(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0)),
    );
};

interface TokenRow {
  readonly ids: readonly number[];
  /** 1: sampled by the policy (loss and advantage on it); 0: observation or prompt. */
  readonly mask: 0 | 1;
  readonly logprobs?: readonly number[];
  readonly version?: number;
  readonly allowed?: readonly (readonly number[] | null)[];
}

const tokenStrip = (row: TokenRow, tokenizer: Tokenizer | undefined, max: number): string => {
  const spans = row.ids.slice(0, max).map((id, i) => {
    const title = [
      `id ${id}`,
      `mask ${row.mask}`,
      ...(row.logprobs ? [`logprob ${row.logprobs[i]?.toFixed(4)}`] : []),
      ...(row.version === undefined ? [] : [`policy v${row.version}`]),
      ...(row.allowed?.[i] ? [`${row.allowed[i]!.length} allowed ids`] : []),
    ].join(" · ");
    const text = tokenizer ? piece(tokenizer, id) : String(id);
    return `<span class="tok mask-${row.mask}${tokenizer ? "" : " id"}" title="${esc(title)}">${esc(text)}</span>`;
  });
  const more = row.ids.length > max ? `<span class="more">… ${row.ids.length - max} more tokens</span>` : "";
  return `<div class="tokens" data-mask="${row.mask}" data-count="${row.ids.length}">${spans.join("")}${more}</div>`;
};

/** The recorded text; with a tokenizer, only when the tokens do not decode to it. */
const textBlock = (text: string, ids: readonly number[], tokenizer: Tokenizer | undefined): string => {
  if (!tokenizer) return `<pre class="text">${esc(text)}</pre>`;
  let decoded: string | undefined;
  try {
    decoded = tokenizer.decode(ids);
  } catch {
    decoded = undefined;
  }
  return decoded === text
    ? ""
    : `<div class="warn">the tokens do not decode to the recorded text, which is:</div><pre class="text">${esc(text)}</pre>`;
};

// --- one episode ---------------------------------------------------------------------------------------

interface Group {
  readonly turn: number;
  readonly rows: string[];
  acted: boolean;
  reward: number;
}

const row = (e: EpisodeEvent, kind: string, cls: string, body: string) =>
  `<div class="ev ${cls}" data-seq="${e.seq}" data-type="${esc(e.type)}"><span class="seq" title="seq ${e.seq}">${e.seq}</span><span class="kind">${esc(kind)}</span><div class="body">${body}</div><span class="digest" title="${esc(`digest ${e.digest}\nprev ${e.prev}`)}">#${esc(short(e.digest))}</span></div>`;

const episodeSummary = (events: readonly EpisodeEvent[]) => {
  const started = events.find((e): e is EventOf<"episode.started"> => e.type === "episode.started");
  const ended = events.find((e): e is EventOf<"episode.ended"> => e.type === "episode.ended");
  return { started, ended };
};

/** One episode as a collapsible timeline. `anchor` is its element id (never taken from the journal). */
export const episodeHtml = (
  episode: EpisodeFile,
  anchor: string,
  options: Pick<ViewerOptions, "tokenizerFor" | "maxTokens" | "thrownAtOf"> & { readonly open?: boolean } = {},
): string => {
  const { events, error } = episode;
  const { started, ended } = episodeSummary(events);
  const thrownAt = error ? undefined : options.thrownAtOf?.(events);
  const tokenizer = started
    ? options.tokenizerFor?.(started.env.id, started.tokenizer, started.env.options)
    : undefined;
  const max = options.maxTokens ?? 1000;
  const groups = new Map<number, Group>();
  const groupOf = (turn: number) => {
    let g = groups.get(turn);
    if (!g) {
      g = { turn, rows: [], acted: false, reward: 0 };
      groups.set(turn, g);
    }
    return g;
  };
  const preamble: string[] = [];
  let current: Group | undefined;
  const add = (html: string, g = current) => (g ? g.rows.push(html) : preamble.push(html));
  const turnOfCall = new Map<string, number>();
  const toolOfCall = new Map<string, string>();
  let endRow = "";
  for (const e of events) {
    switch (e.type) {
      case "episode.started":
        add(
          row(
            e,
            "start",
            "start",
            `${esc(envSpecOf(e.env.id, e.env.options))} v${esc(e.env.version)}, seed <code>${esc(e.seed)}</code>, policy ${esc(e.policy.id)} <span class="ver">v${e.policy.version}</span>, task <code>${esc(json(e.task))}</code>`,
          ),
        );
        break;
      case "env.observed":
        current = groupOf(e.turn);
        add(
          row(
            e,
            e.turn === 0 && !current.acted ? "prompt" : "observation",
            "observation",
            `${tokenStrip({ ids: e.tokens, mask: 0 }, tokenizer, max)}${textBlock(e.text, e.tokens, tokenizer)}`,
          ),
        );
        break;
      case "agent.acted": {
        current = groupOf(e.turn);
        current.acted = true;
        const logprob = e.logprobs.reduce((a, b) => a + b, 0);
        add(
          row(
            e,
            "action",
            "action",
            `<div class="meta">${esc(e.policy.id)} <span class="ver">v${e.policy.version}</span> · ${e.tokens.length} tokens · logprob ${logprob.toFixed(3)}${e.allowed ? " · constrained" : ""}</div>` +
              tokenStrip(
                { ids: e.tokens, mask: 1, logprobs: e.logprobs, version: e.policy.version, allowed: e.allowed },
                tokenizer,
                max,
              ) +
              textBlock(e.text, e.tokens, tokenizer),
          ),
        );
        break;
      }
      case "tool.called":
        turnOfCall.set(e.call, e.turn);
        toolOfCall.set(e.call, e.tool);
        add(
          row(
            e,
            "tool call",
            "tool-call",
            `<code class="call">${esc(e.call)}</code> <b class="tool">${esc(e.tool)}</b>(<code>${esc(json(e.args))}</code>) <span class="muted">actor ${esc(e.actor)}</span>`,
          ),
          groupOf(e.turn),
        );
        break;
      case "tool.returned": {
        const g = turnOfCall.has(e.call) ? groupOf(turnOfCall.get(e.call)!) : current;
        const what = e.result.ok
          ? `<code>${esc(json(e.result.content))}</code>`
          : `<b>${esc(e.result.error.kind)}</b>${e.result.error.tag === undefined ? "" : ` (${esc(e.result.error.tag)})`}: ${esc(e.result.error.message)}`;
        add(
          row(
            e,
            e.result.ok ? "tool result" : "tool failed",
            `tool-result ${e.result.ok ? "ok" : "failed"}`,
            `<code class="call">${esc(e.call)}</code> <b class="tool">${esc(toolOfCall.get(e.call) ?? "?")}</b> → ${what}`,
          ),
          g,
        );
        break;
      }
      case "reward.assigned": {
        const g = groupOf(e.turn);
        g.reward += e.value;
        const sign = e.value > 0 ? "positive" : e.value < 0 ? "negative" : "zero";
        add(
          row(
            e,
            `${e.kind} reward`,
            `reward ${e.kind} ${sign}`,
            `<b class="value">${esc(signed(e.value))}</b> <span class="reason">${esc(e.reason)}</span> <span class="muted">(turn ${e.turn})</span>`,
          ),
          g,
        );
        break;
      }
      case "env.transitioned":
        add(
          row(
            e,
            "state",
            "state",
            `<code>${esc(json(e.state))}</code> <span class="hash" title="${esc(`state hash ${e.hash}`)}">hash ${esc(short(e.hash))}</span>`,
          ),
        );
        break;
      case "episode.ended":
        endRow = row(
          e,
          "end",
          "ended",
          `${esc(e.reason)}${thrownAt ? ` <span class="thrown">(thrown at <code>${esc(thrownAt)}</code>)</span>` : ""} · return <b>${esc(fmt(e.return))}</b> · ${e.turns} turn(s)${Object.entries(
            e.metrics,
          )
            .map(([k, v]) => ` · ${esc(k)} ${esc(fmt(v))}`)
            .join("")}`,
        );
        break;
    }
  }
  const turns = [...groups.values()]
    .sort((a, b) => a.turn - b.turn)
    .map(
      (g) =>
        `<li class="turn${g.acted ? " acted" : ""}" data-turn="${g.turn}"><div class="turn-head">turn ${g.turn}${
          g.reward !== 0 ? ` <span class="turn-reward">reward ${esc(signed(g.reward))}</span>` : ""
        }</div>${g.rows.join("")}</li>`,
    )
    .join("");
  const id = started?.episode ?? basename(episode.file);
  const success = ended && "success" in ended.metrics ? ended.metrics.success : undefined;
  const status = error
    ? "broken"
    : !ended
      ? "unfinished"
      : success === undefined
        ? ""
        : success > 0
          ? "success"
          : "failure";
  const head =
    `<span class="ep-id">${esc(id)}</span>` +
    (started ? ` <span class="muted">${esc(started.env.id)} · policy v${started.policy.version}</span>` : "") +
    (ended
      ? ` · ${ended.turns} turn(s) · return <b>${esc(fmt(ended.return))}</b> · ${esc(ended.reason)}`
      : error
        ? " · <b>unreadable</b>"
        : " · <b>not ended</b>") +
    (success === undefined ? "" : ` · success ${esc(fmt(success))}`);
  const tokens = started
    ? tokenizer
      ? `decoded with the environment's tokenizer <code>${esc(started.tokenizer)}</code>`
      : `token ids as recorded (tokenizer <code>${esc(started.tokenizer)}</code> not available here)`
    : "";
  return (
    `<details class="episode ${status}"${options.open ? " open" : ""} id="${esc(anchor)}" data-episode="${esc(id)}" data-turns="${ended?.turns ?? ""}" data-return="${ended ? esc(fmt(ended.return)) : ""}">` +
    `<summary>${head}</summary><div class="ep-body">` +
    `<div class="ep-meta"><span>file <code>${esc(episode.file)}</code></span>${tokens ? `<span>tokens: ${tokens}</span>` : ""}</div>` +
    (error ? `<div class="error">${esc(error)}</div>` : "") +
    preamble.join("") +
    `<ol class="turns">${turns}</ol>${endRow}</div></details>`
  );
};

// --- the page ------------------------------------------------------------------------------------------

const CSS = `
:root{--act:#fde68a;--act-b:#d97706;--obs:#e0f2fe;--obs-b:#7dd3fc;--muted:#6b7280;--pos:#047857;--neg:#b91c1c}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;color:#111827;background:#f9fafb}
header{padding:12px 20px;background:#111827;color:#f9fafb}header h1{margin:0;font-size:18px}header p{margin:4px 0 0;color:#d1d5db}
.layout{display:grid;grid-template-columns:minmax(260px,340px) 1fr;min-height:calc(100vh - 60px)}
nav{border-right:1px solid #e5e7eb;background:#fff;padding:10px;overflow:auto;max-height:calc(100vh - 60px);position:sticky;top:0}
nav input{width:100%;padding:5px 8px;margin-bottom:6px;border:1px solid #d1d5db;border-radius:4px}
nav .buttons{display:flex;gap:6px;margin-bottom:8px}nav button{flex:1;padding:3px;border:1px solid #d1d5db;background:#f3f4f6;border-radius:4px;cursor:pointer}
nav h3{margin:10px 0 4px;font-size:12px;text-transform:uppercase;color:var(--muted)}
nav ul{list-style:none;margin:0;padding:0}nav li a{display:flex;justify-content:space-between;gap:6px;padding:2px 6px;border-radius:4px;color:#111827;text-decoration:none;font-size:13px}
nav li a:hover{background:#f3f4f6}nav li a .r{color:var(--muted);white-space:nowrap}nav li.success a .r{color:var(--pos)}nav li.failure a .r{color:var(--neg)}
main{padding:14px 20px;min-width:0}section{margin-bottom:18px}h2{font-size:16px;margin:0 0 8px}
.charts{display:flex;flex-wrap:wrap;gap:10px}.chart{margin:0;background:#fff;border:1px solid #e5e7eb;border-radius:6px;padding:4px}.chart svg{display:block;max-width:100%;height:auto}
table.kv{border-collapse:collapse;font-size:13px;background:#fff}table.kv td{border:1px solid #e5e7eb;padding:2px 8px;vertical-align:top}table.kv td:first-child{color:var(--muted)}
.legend{display:flex;gap:14px;align-items:center;font-size:13px;margin:6px 0 10px}.legend .tok{margin-right:4px}
details.episode{background:#fff;border:1px solid #e5e7eb;border-left:4px solid #9ca3af;border-radius:6px;margin:0 0 8px}
details.episode{content-visibility:auto;contain-intrinsic-size:auto 36px}
details.episode.success{border-left-color:var(--pos)}details.episode.failure{border-left-color:var(--neg)}details.episode.broken,details.episode.unfinished{border-left-color:#f59e0b}
details.episode>summary{cursor:pointer;padding:6px 10px;font-size:13px}details.episode[open]>summary{border-bottom:1px solid #e5e7eb;background:#f3f4f6}
.ep-id{font-weight:600;font-family:ui-monospace,Menlo,monospace}.muted{color:var(--muted)}.ep-body{padding:8px 10px}
.ep-meta{display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--muted);margin-bottom:6px}
ol.turns{list-style:none;margin:0;padding:0}li.turn{border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:4px 6px}
.turn-head{font-weight:600;font-size:12px;color:#374151;margin-bottom:2px}.turn-reward{font-weight:500;color:var(--pos);margin-left:8px}
.ev{display:grid;grid-template-columns:34px 92px 1fr auto;gap:6px;align-items:start;padding:3px 0;border-top:1px dashed #f3f4f6;font-size:13px}
.ev .seq{color:#9ca3af;text-align:right;font-family:ui-monospace,Menlo,monospace;font-size:11px;padding-top:2px}
.ev .kind{font-size:11px;text-transform:uppercase;letter-spacing:.03em;color:#4b5563;padding-top:2px}
.ev .digest{font-family:ui-monospace,Menlo,monospace;font-size:11px;color:#9ca3af}.ev .body{min-width:0;overflow-wrap:anywhere}
.ev.action .kind{color:var(--act-b)}.ev.observation .kind{color:#0369a1}.ev.reward.positive .value{color:var(--pos)}.ev.reward.negative .value{color:var(--neg)}
.ev.reward .kind{color:#7c3aed}.ev.tool-result.failed .kind{color:var(--neg)}.ev.ended{font-weight:500}.ev.state code{color:#374151}
.hash{font-family:ui-monospace,Menlo,monospace;font-size:11px;color:var(--muted);margin-left:6px}.ver{font-family:ui-monospace,Menlo,monospace;color:#7c3aed}
.tokens{display:flex;flex-wrap:wrap;gap:1px;font-family:ui-monospace,Menlo,monospace;font-size:12px}
.tok{padding:0 3px;border-radius:3px;border:1px solid transparent;white-space:pre}.tok.mask-1{background:var(--act);border-color:var(--act-b)}.tok.mask-0{background:var(--obs);border-color:var(--obs-b)}
.tok.id{font-size:10px}.more{color:var(--muted);font-size:11px;margin-left:4px}
pre.text{margin:3px 0 0;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;background:#f9fafb;border:1px solid #f3f4f6;padding:3px 5px;border-radius:4px}
.meta{font-size:12px;color:var(--muted)}.warn{color:#b45309;font-size:12px}.error{color:var(--neg);background:#fef2f2;border:1px solid #fecaca;padding:4px 8px;border-radius:4px;margin:4px 0;white-space:pre-wrap}
code{font-family:ui-monospace,Menlo,monospace;font-size:12px}
`;

/**
 * Opens the episode a link or the address names; filters the list. Reads no data into markup. An address
 * whose # part is not URI-decodable (#%) opens nothing, and must not stop the rest (the filter, the buttons).
 */
const SCRIPT = `
(function(){
  function openHash(){var id;try{id=decodeURIComponent(location.hash.slice(1));}catch(e){return;}if(!id)return;var el=document.getElementById(id);
    if(el&&el.tagName==='DETAILS'){el.open=true;el.scrollIntoView({block:'start'});}}
  window.addEventListener('hashchange',openHash);openHash();
  var filter=document.getElementById('filter');
  if(filter)filter.addEventListener('input',function(){var q=filter.value.toLowerCase();
    document.querySelectorAll('nav li[data-text]').forEach(function(li){li.hidden=q!==''&&li.getAttribute('data-text').indexOf(q)<0;});});
  function all(open){document.querySelectorAll('details.episode').forEach(function(d){d.open=open;});}
  var e=document.getElementById('expand');if(e)e.addEventListener('click',function(){all(true);});
  var c=document.getElementById('collapse');if(c)c.addEventListener('click',function(){all(false);});
})();
`;

const kvTable = (value: unknown): string => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return `<code>${esc(json(value))}</code>`;
  return `<table class="kv">${Object.entries(value as Record<string, unknown>)
    .map(
      ([k, v]) =>
        `<tr><td>${esc(k)}</td><td>${v !== null && typeof v === "object" ? `<code>${esc(json(v))}</code>` : esc(v)}</td></tr>`,
    )
    .join("")}</table>`;
};

const readJson = (file: string, warn: (line: string) => void): unknown => {
  try {
    return JSON.parse(readJsonText(file));
  } catch (cause) {
    warn(`${file}: not readable as JSON (${cause instanceof Error ? cause.message : String(cause)})`);
    return undefined;
  }
};

export interface ViewerPage {
  readonly html: string;
  /** Journals found, and those shown on the page. */
  readonly episodes: number;
  readonly shown: number;
  /** Shown journals that could not be read whole (marked on the page). */
  readonly unreadable: number;
}

/** The viewer page for a journal, a folder of journals or a run folder. */
export const viewerHtml = async (path: string, options: ViewerOptions = {}): Promise<ViewerPage> => {
  const warn = options.warn ?? (() => {});
  const root = resolve(path);
  const files = await findJournals(path);
  const isDir = statSync(path).isDirectory();
  const run = isDir && isRunFolder(path);
  // A run's own episodes come first: its warm-start demonstrations (the expert's, 400 for lookup) fill what
  // is left, rather than crowd the policy's out of an even sample of both (12 of a small run's 24 were shown).
  const isDemoFile = (f: string) => run && relative(root, dirname(resolve(f))).split(sep)[0] === "warm-start";
  const max = options.maxEpisodes ?? 200;
  const policyShown = evenlySpaced(
    files.filter((f) => !isDemoFile(f)),
    max,
  );
  const order = new Map(files.map((f, i) => [f, i]));
  const shown = [...policyShown, ...evenlySpaced(files.filter(isDemoFile), max - policyShown.length)].sort(
    (a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0),
  );
  const episodes: EpisodeFile[] = [];
  /** Shown journals that hold an episode an earlier shown one holds (a copied file): on the page, once in its means. */
  let copied = 0;
  const copies = new EpisodeCopies();
  const bar = options.progress?.(shown.length);
  for (const file of shown) {
    const episode = await readEpisodeFile(file, isDir ? relative(root, dirname(resolve(file))) : "");
    bar?.tick();
    if (episode.error) warn(`${episode.error}`);
    const copyOf = episode.error ? undefined : copies.earlier(file, episode.events.at(-1)?.digest);
    if (copyOf !== undefined) {
      copied += 1;
      if (copied <= COPIES_LISTED)
        warn(
          `warning: ${sameEpisode(copyOf, file, episode.events[0]?.episode)}: ${SAME_LAST_DIGEST}, counted once in the page's means; sft refuses them until one is removed`,
        );
    }
    episodes.push(episode);
  }
  bar?.stop();
  const more = moreCopies(copied);
  if (more) warn(more);

  const sections: string[] = [];
  if (run) {
    if (existsSync(join(path, "metrics.jsonl")) && options.charts) {
      try {
        const charts = await options.charts(path);
        sections.push(
          `<section id="metrics"><h2>Metrics</h2><div class="charts">${charts
            .map((c) => `<figure class="chart" data-title="${esc(c.title)}">${c.svg}</figure>`)
            .join("")}</div></section>`,
        );
      } catch (cause) {
        sections.push(
          `<section id="metrics"><h2>Metrics</h2><div class="error">${esc(cause instanceof Error ? cause.message : String(cause))}</div></section>`,
        );
      }
    }
    for (const [name, title] of [
      ["eval.json", "Evaluation"],
      ["config.json", "Config"],
    ] as const) {
      const file = join(path, name);
      if (!existsSync(file)) continue;
      const value = readJson(file, warn);
      if (value === undefined) continue;
      const body =
        name === "eval.json" && value !== null && typeof value === "object"
          ? Object.entries(value as Record<string, unknown>)
              .map(([k, v]) => `<h3>${esc(k)}</h3>${kvTable(v)}`)
              .join("")
          : kvTable(value);
      sections.push(`<section id="${name === "eval.json" ? "eval" : "config"}"><h2>${title}</h2>${body}</section>`);
    }
  }

  // The list of episodes, by folder.
  const anchors = episodes.map((_, i) => `ep-${i}`);
  const byGroup = new Map<string, number[]>();
  episodes.forEach((e, i) => {
    byGroup.set(e.group, [...(byGroup.get(e.group) ?? []), i]);
  });
  const nav = [...byGroup.entries()]
    .map(
      ([group, indices]) =>
        (group ? `<h3>${esc(group)}</h3>` : "") +
        `<ul>${indices
          .map((i) => {
            const e = episodes[i];
            const { started, ended } = episodeSummary(e.events);
            const id = started?.episode ?? basename(e.file);
            const success = ended && "success" in ended.metrics ? ended.metrics.success : undefined;
            const cls = e.error ? "broken" : success === undefined ? "" : success > 0 ? "success" : "failure";
            const right = e.error ? "unreadable" : ended ? `${ended.turns}t · ${fmt(ended.return)}` : "not ended";
            return `<li class="${cls}" data-text="${esc(`${group} ${id} ${ended?.reason ?? ""}`.toLowerCase())}"><a href="#${anchors[i]}"><span>${esc(id)}</span><span class="r">${esc(right)}</span></a></li>`;
          })
          .join("")}</ul>`,
    )
    .join("");

  /** Mean return and success of these episodes (those that ended), each once however many files hold it. */
  const means = (of: readonly EpisodeFile[]): string[] => {
    const once = new EpisodeCopies();
    const ended = of.flatMap((e) => {
      const end = episodeSummary(e.events).ended;
      if (!end) return [];
      return !e.error && once.earlier(e.file, end.digest) !== undefined ? [] : [end];
    });
    const withSuccess = ended.filter((e) => "success" in e.metrics);
    return [
      ...(ended.length ? [`mean return ${fmt(ended.reduce((s, e) => s + e.return, 0) / ended.length)}`] : []),
      ...(withSuccess.length
        ? [`success ${fmt(withSuccess.reduce((s, e) => s + e.metrics.success, 0) / withSuccess.length)}`]
        : []),
    ];
  };
  // A run's warm-start demonstrations are the expert's, not the policy's: their means are given apart.
  const isDemo = (e: EpisodeFile) => run && e.group.split(sep)[0] === "warm-start";
  const demos = episodes.filter(isDemo);
  const policy = episodes.filter((e) => !isDemo(e));
  // The means are of the episodes read, the shown ones: where fewer are shown than found, say of how many
  // (a run's header read as the run's training mean, which metrics.jsonl had otherwise).
  const foundDemos = files.filter(isDemoFile).length;
  const of = (read: number, found: number) => (read < found ? ` (${read} of ${found} shown)` : "");
  const stats = [
    `${files.length} episode(s)${shown.length < files.length ? `, ${shown.length} shown (evenly spaced)` : ""}`,
    ...(demos.length && policy.length
      ? [`training${of(policy.length, files.length - foundDemos)}: ${means(policy).join(", ")}`]
      : shown.length < files.length && means(policy).length
        ? [`of the ${policy.length} shown: ${means(policy).join(", ")}`]
        : means(policy)),
    ...(demos.length ? [`warm-start demonstrations${of(demos.length, foundDemos)}: ${means(demos).join(", ")}`] : []),
    ...(episodes.some((e) => e.error) ? [`${episodes.filter((e) => e.error).length} unreadable`] : []),
    ...(copied
      ? [`${copied} ${copied === 1 ? "copy" : "copies"} of another journal (the same episode), counted once`]
      : []),
  ].join(" · ");

  const title = `${run ? "run" : isDir ? "journals" : "journal"} ${basename(root)}`;
  const legend = `<div class="legend"><span><span class="tok mask-1">act</span>sampled by the policy (action mask 1: loss and advantage)</span><span><span class="tok mask-0">obs</span>prompt and observations (mask 0)</span><span class="muted">hover a token for its id and logprob, a # for the event's digest</span></div>`;
  const body =
    `<header><h1>agent-r1 · ${esc(title)}</h1><p>${esc(path)} · ${esc(stats)}</p></header>` +
    `<div class="layout"><nav><input id="filter" type="search" placeholder="filter episodes" aria-label="filter episodes">` +
    `<div class="buttons"><button id="expand" type="button">open all</button><button id="collapse" type="button">close all</button></div>${nav}</nav>` +
    `<main>${sections.join("")}<section id="episodes"><h2>Episodes</h2>${legend}${episodes
      .map((e, i) => episodeHtml(e, anchors[i], { ...options, open: episodes.length === 1 }))
      .join("")}</section></main></div>`;
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="generator" content="${VIEWER_GENERATOR}">` +
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">` +
    `<title>${esc(title)}</title><style>${CSS}</style></head><body>${body}<script>${SCRIPT}</script></body></html>\n`;
  return { html, episodes: files.length, shown: shown.length, unreadable: episodes.filter((e) => e.error).length };
};

/** Writes the viewer page of `path` to `file`. */
export const writeViewer = async (path: string, file: string, options: ViewerOptions = {}): Promise<ViewerPage> => {
  const page = await viewerHtml(path, options);
  makeFolders(dirname(resolve(file)));
  // Written aside and renamed: a kill mid-write left the page empty (truncated first), which the next
  // inspect --html then refused to replace as not one of its pages.
  const temporary = `${file}.tmp-${process.pid}`;
  try {
    await writingFileAsync(file, () => writeFile(temporary, page.html));
    await rename(temporary, file);
  } catch (cause) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw cause;
  }
  return page;
};
